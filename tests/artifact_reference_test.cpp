// Workloads that name their model by a ModelArtifact get that artifact's image.
#include "model_image_webhook/artifact_reference.hpp"

#include <catch2/catch.hpp>

using namespace miw;

namespace {

const std::string kQwen = "registry.example.com/team/qwen@sha256:9372c470eeadd5ecd9c3c74c2b3cb633f8e2f2fad799250a0f70d652b6b825e4";
const std::string kLlama = "registry.example.com/team/llama@sha256:0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9";

class Unavailable : public ArtifactSource {
public:
    ArtifactLookup lookup(std::string_view, std::string_view) const override {
        return {ArtifactLookupStatus::unavailable, {}, "the ModelArtifact watch has not listed them yet"};
    }
    std::string origin() const override { return "the Kubernetes API"; }
};

}  // namespace

TEST_CASE("a workload's model-artifact annotation resolves to the artifact's image, or is refused with the reason", "[artifact_reference]") {
    StaticArtifactSource artifacts("--artifacts artifacts.yaml");
    artifacts.add("ml", "qwen", {"image", kQwen});
    artifacts.add("ml", "hub", {"huggingFace", ""});
    artifacts.add("ml", "claim", {"persistentVolumeClaim", ""});
    artifacts.add("ml", "two-sources", {"", ""});
    artifacts.add("default", "qwen", {"image", kLlama});
    Unavailable unavailable;
    struct Case {
        const char* name;
        std::string ns;
        std::optional<std::string> artifact;  // the annotation
        std::optional<std::string> image;  // gpustack.ai/model-image beside it
        const ArtifactSource* source;
        std::string reference;  // resolved, when allowed
        std::string rule;  // the refusal's, when refused
        std::string fragment;  // of its message
    };
    const std::vector<Case> cases = {
        {"only model-image: as it is", "ml", std::nullopt, kLlama, &artifacts, kLlama, "", ""},
        {"neither annotation: nothing named", "ml", std::nullopt, std::nullopt, &artifacts, "", "", ""},
        {"an image-source artifact", "ml", "qwen", std::nullopt, &artifacts, kQwen, "", ""},
        {"the same name in another namespace is another artifact", "", "qwen", std::nullopt, &artifacts, kLlama, "", ""},
        {"both annotations naming one image", "ml", "qwen", kQwen, &artifacts, kQwen, "", ""},
        {"both annotations naming different images", "ml", "qwen", kLlama, &artifacts, "", "artifact-image-conflict", "is not the image of ModelArtifact \"qwen\""},
        {"no such artifact", "ml", "qwen-typo", std::nullopt, &artifacts, "", "artifact-not-found", "does not exist (looked up in --artifacts artifacts.yaml)"},
        {"not in the workload's namespace", "serving", "qwen", std::nullopt, &artifacts, "", "artifact-not-found", "in namespace \"serving\""},
        {"a hub source", "ml", "hub", std::nullopt, &artifacts, "", "artifact-not-image", "has a huggingFace source, not an image"},
        {"a claim source", "ml", "claim", std::nullopt, &artifacts, "", "artifact-not-image", "has a persistentVolumeClaim source"},
        {"no single source", "ml", "two-sources", std::nullopt, &artifacts, "", "artifact-not-image", "has no single known source"},
        {"no source of artifacts at all", "ml", "qwen", std::nullopt, nullptr, "", "artifact-unavailable", "name the image with gpustack.ai/model-image"},
        {"a source that cannot answer", "ml", "qwen", std::nullopt, &unavailable, "", "artifact-unavailable", "has not listed them yet"},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            AdmissionRequest req;
            req.namespace_name = c.ns;
            WorkloadView w;
            w.opt_in_label = "image";
            if (c.artifact) {
                w.has_model_artifact = true;
                w.model_artifact = *c.artifact;
            }
            if (c.image) {
                w.has_model_image = true;
                w.model_image = *c.image;
            }
            const NamedImage named = named_image(req, w, c.source);
            if (c.rule.empty()) {
                CHECK_FALSE(named.refusal);
                CHECK(named.reference == c.reference);
            } else {
                REQUIRE(named.refusal);
                CHECK_FALSE(named.refusal->allowed);
                CHECK(named.refusal->code == 403);
                CHECK(named.refusal->rule_annotation() == c.rule);
                CHECK_THAT(named.refusal->message, Catch::Contains(c.fragment));
            }
        }
    }
}
