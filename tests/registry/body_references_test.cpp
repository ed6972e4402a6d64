// The references a body may make a review ask the registry about, read from
// its text before it is parsed.
#include "model_image_webhook/registry/body_references.hpp"

#include <catch2/catch.hpp>

using namespace miw;

namespace {

const std::string kDigest = "sha256:" + std::string(64, 'a');

std::vector<std::string> found_in(const std::string& body, const ArtifactSource* artifacts = nullptr, bool* complete = nullptr) {
    std::vector<std::string> images;
    const BodyReferences r = references_in_body(body, artifacts, images);
    if (complete != nullptr) *complete = r.complete;
    return {r.references.begin(), r.references.end()};
}

}  // namespace

TEST_CASE("a body's references are found where the rules read them, and nowhere they do not pin", "[registry_body_references]") {
    struct Case {
        const char* name;
        std::string body;
        std::vector<std::string> references;
        bool complete;
    };
    const std::string ref = "registry.example/team/qwen@" + kDigest;
    const Case cases[] = {
        {"a ModelArtifact's reference", R"({"spec":{"source":{"image":{"reference":")" + ref + R"("}}}})", {ref}, true},
        {"a Pod's annotation", R"({"metadata":{"annotations":{"gpustack.ai/model-image":")" + ref + R"("}}})", {ref}, true},
        {"spaces and newlines as another writer puts them", "{\"metadata\": {\"annotations\": {\"gpustack.ai/model-image\" :\n  \"" + ref + "\"}}}", {ref}, true},
        {"the same reference twice is one", R"({"a":{"gpustack.ai/model-image":")" + ref + R"("},"b":{"reference":")" + ref + R"("}})", {ref}, true},
        {"a tag pins nothing: nothing to look up", R"({"reference":"registry.example/team/qwen:v1"})", {}, true},
        {"the key as a value is not a key", R"({"env":[{"name":"X","value":"gpustack.ai/model-image"}],"reference":1})", {}, true},
        {"an escaped value is left to the review", R"({"reference":"registry.example\/team\/qwen@)" + kDigest + R"("})", {}, false},
        {"an unclosed value", R"({"reference":"registry.example/q@)", {}, true},
        {"nothing", "{}", {}, true},
    };
    for (const Case& c : cases) {
        SECTION(c.name) {
            bool complete = true;
            CHECK(found_in(c.body, nullptr, &complete) == c.references);
            CHECK(complete == c.complete);
        }
    }
}

TEST_CASE("past the references a scan keeps, it says it is not complete", "[registry_body_references]") {
    std::string body = "[";
    for (std::size_t i = 0; i < kMaxScannedReferences + 1; ++i) body += R"({"reference":"r.example/m)" + std::to_string(i) + "@" + kDigest + R"("},)";
    body += "{}]";
    bool complete = true;
    CHECK(found_in(body, nullptr, &complete).size() == kMaxScannedReferences);
    CHECK_FALSE(complete);
}

TEST_CASE("an artifact a workload names brings its image, in the namespaces the body names", "[registry_body_references]") {
    StaticArtifactSource artifacts("the test");
    artifacts.add("ml", "qwen", ArtifactInfo{"image", "registry.example/team/qwen@" + kDigest});
    artifacts.add("other", "qwen", ArtifactInfo{"image", "registry.example/team/other@" + kDigest});
    const std::string pod = R"({"request":{"namespace":"ml","object":{"metadata":{"annotations":{"gpustack.ai/model-artifact":"qwen"}}}}})";
    CHECK(found_in(pod, &artifacts) == std::vector<std::string>{"registry.example/team/qwen@" + kDigest});
    bool complete = true;
    CHECK(found_in(R"({"metadata":{"annotations":{"gpustack.ai/model-artifact":"qwen"}}})", &artifacts, &complete).empty());
    CHECK_FALSE(complete);  // no namespace written: the review may still find one
    CHECK(found_in(R"({"request":{"namespace":"ml","object":{"metadata":{"annotations":{"gpustack.ai/model-artifact":"gone"}}}}})", &artifacts).empty());
}
