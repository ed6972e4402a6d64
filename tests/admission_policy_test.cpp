// Which rules judge which requests.
#include "model_image_webhook/admission_policy.hpp"

#include <catch2/catch.hpp>

using namespace miw;

namespace {

AdmissionRequest tag_only_artifact() {
    AdmissionRequest req;
    req.uid = "u";
    req.kind = {"worker.gpustack.ai", "v1alpha1", "ModelArtifact"};
    req.name = "qwen";
    ModelArtifactView view;
    view.spec = JsonType::object;
    view.source = JsonType::object;
    view.sources_present = {"image"};
    view.image = JsonType::object;
    view.reference = JsonType::string;
    view.reference_value = "r.io/qwen:v1";
    req.model_artifact = view;
    return req;
}

PolicyConfig floor_config() {
    PolicyConfig config;
    config.apiserver = ApiserverVersion::from_text("v1.35.0");
    return config;
}

}  // namespace

TEST_CASE("a ModelArtifact sent to validate is judged by its rules", "[admission_policy]") {
    const Decision d = decide(Endpoint::validate, tag_only_artifact(), floor_config(), nullptr);
    CHECK_FALSE(d.allowed);
    CHECK(d.rule_annotation() == "digest-required");
}

TEST_CASE("requests no rule covers are allowed untouched", "[admission_policy]") {
    SECTION("a ModelArtifact sent to mutate") {
        const Decision d = decide(Endpoint::mutate, tag_only_artifact(), floor_config(), nullptr);
        CHECK(d.allowed);
        CHECK(d.warnings.empty());
    }
    SECTION("a kind without a view") {
        AdmissionRequest req;
        req.uid = "u";
        req.kind = {"", "v1", "ConfigMap"};
        const Decision d = decide(Endpoint::validate, req, floor_config(), nullptr);
        CHECK(d.allowed);
        CHECK(d.rule_annotation().empty());
    }
}
