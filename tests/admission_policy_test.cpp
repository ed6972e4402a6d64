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
    req.rules = RuleSet::model_artifact;
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

TEST_CASE("a request is judged by the rules it was routed to", "[admission_policy]") {
    const Decision d = decide(tag_only_artifact(), floor_config(), nullptr);
    CHECK_FALSE(d.allowed);
    CHECK(d.rule_annotation() == "digest-required");
}

TEST_CASE("requests no rule covers are allowed untouched", "[admission_policy]") {
    SECTION("a request routed to no rules, whatever views it carries") {
        AdmissionRequest req = tag_only_artifact();
        req.rules = RuleSet::none;
        const Decision d = decide(req, floor_config(), nullptr);
        CHECK(d.allowed);
        CHECK(d.warnings.empty());
    }
    SECTION("a kind without a view") {
        AdmissionRequest req;
        req.uid = "u";
        req.kind = {"", "v1", "ConfigMap"};
        req.rules = RuleSet::model_artifact;  // routed, but the codec found nothing to judge
        const Decision d = decide(req, floor_config(), nullptr);
        CHECK(d.allowed);
        CHECK(d.rule_annotation().empty());
    }
}
