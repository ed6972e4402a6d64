// A ModelArtifact's views from its DOM: what its rules read, whether an UPDATE
// changed its spec as upstream's typed comparison sees it, its status's shape.
#include "../src/codec/model_artifact_views.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace miw;
using namespace miw::json;

namespace {

// An UPDATE's object and oldObject, read as the request reader reads them.
ModelArtifactView view_of(std::string object, std::string old_object) {
    std::string text = R"({"object":)" + object + R"(,"oldObject":)" + old_object + "}";
    static thread_local std::string kept;  // the views point into the text
    kept = std::move(text);
    static thread_local Document doc;
    REQUIRE(parse_document(kept, doc).empty());
    return read_model_artifact(member(&doc, "object"), member(&doc, "oldObject"));
}

}  // namespace

TEST_CASE("a ModelArtifact's view holds what its rules read", "[model_artifact_views]") {
    const std::string spec = R"({"spec":{"source":{"image":{"reference":"r.io/m:v1"},"huggingFace":null,"modelScope":{}},"allowPatterns":[],"ignorePatterns":["*.bin"]}})";
    const ModelArtifactView v = view_of(spec, spec);
    CHECK(v.sources_present == std::vector<std::string_view>{"modelScope", "image"});  // null members do not count
    CHECK(v.reference == JsonType::string);
    CHECK(v.reference_value == "r.io/m:v1");
    CHECK_FALSE(v.allow_patterns_set);  // [] means none
    CHECK(v.ignore_patterns_set);
    CHECK_FALSE(v.expected_digest_set);
    CHECK(v.spec_unchanged);
}

TEST_CASE("a spec is unchanged when only zero values came or went, at any depth", "[model_artifact_views]") {
    struct Case {
        const char* name;
        std::string spec;
        std::string old_spec;
        bool unchanged;
    };
    const std::string base = R"({"source":{"huggingFace":{"repo":"q","revision":"main"}},"allowPatterns":["*.json"]})";
    const std::vector<Case> cases = {
        {"identical", base, base, true},
        {"members in another order", R"({"allowPatterns":["*.json"],"source":{"huggingFace":{"revision":"main","repo":"q"}}})", base, true},
        {"revision: \"\" added by a client", R"({"source":{"image":{"reference":"r","revision":""}}})", R"({"source":{"image":{"reference":"r"}}})", true},
        {"null beside absent", R"({"source":{"image":{"reference":"r"}},"expectedDigest":null})", R"({"source":{"image":{"reference":"r"}}})", true},
        {"an empty list beside absent", R"({"source":{"image":{"reference":"r"}},"allowPatterns":[]})", R"({"source":{"image":{"reference":"r"}}})", true},
        {"an empty object beside null", R"({"source":{"image":{"reference":"r"},"huggingFace":{}}})", R"({"source":{"image":{"reference":"r"},"huggingFace":null}})", true},
        {"zeros nested deep", R"({"source":{"image":{"reference":"r","opts":{"a":{"b":[],"c":0,"d":false}}}}})", R"({"source":{"image":{"reference":"r"}}})", true},
        {"a value changed deep inside", R"({"source":{"huggingFace":{"repo":"q","revision":"v2"}},"allowPatterns":["*.json"]})", base, false},
        {"a list element changed", R"({"source":{"huggingFace":{"repo":"q","revision":"main"}},"allowPatterns":["*.bin"]})", base, false},
        {"a list grew", R"({"source":{"huggingFace":{"repo":"q","revision":"main"}},"allowPatterns":["*.json",""]})", base, false},
        {"a member removed that held a value", R"({"source":{"huggingFace":{"repo":"q"}},"allowPatterns":["*.json"]})", base, false},
        {"zero beside a value of another type", R"({"source":{"image":{"reference":"r"}},"x":0})", R"({"source":{"image":{"reference":"r"}},"x":""})", false},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            CHECK(view_of(R"({"spec":)" + c.spec + "}", R"({"spec":)" + c.old_spec + "}").spec_unchanged == c.unchanged);
        }
    }
}

TEST_CASE("an image source's status is read for the members upstream never writes", "[model_artifact_views]") {
    std::string text = R"({"spec":{"source":{"image":{"reference":"r"}}},"status":{"phase":"Ready","resolved":{"resolvedTime":"t","revision":"main","digest":""},"nodes":[]}})";
    Document doc;
    REQUIRE(parse_document(text, doc).empty());
    const ModelArtifactStatusView v = read_model_artifact_status(doc);
    CHECK(v.image_source);
    CHECK(v.resolved == JsonType::object);
    CHECK(v.resolved_extra == std::vector<std::string_view>{"revision"});  // a zero value does not count
    CHECK_FALSE(v.nodes_present);  // [] is nothing
}
