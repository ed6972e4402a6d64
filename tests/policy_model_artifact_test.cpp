// One case per rule of the ModelArtifact contract, judged on typed views.
#include "model_image_webhook/policy_model_artifact.hpp"

#include "registry_stand_in.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace miw;

namespace {

const std::string kPinned = "registry.example.com/team/qwen@sha256:9372c470eeadd5ecd9c3c74c2b3cb633f8e2f2fad799250a0f70d652b6b825e4";

ModelArtifactView image_source(std::string_view reference) {
    ModelArtifactView v;
    v.spec = JsonType::object;
    v.source = JsonType::object;
    v.sources_present = {"image"};
    v.image = JsonType::object;
    v.reference = JsonType::string;
    v.reference_value = reference;
    return v;
}

AdmissionRequest request(Operation op, ModelArtifactView view) {
    AdmissionRequest req;
    req.uid = "u-1";
    req.kind = {"worker.gpustack.ai", "v1alpha1", "ModelArtifact"};
    req.name = "qwen";
    req.namespace_name = "gpustack";
    req.operation = op;
    req.model_artifact = std::move(view);
    return req;
}

PolicyConfig config(std::string_view kube = "v1.35.0", DigestAlgorithms algorithms = {}) {
    PolicyConfig c;
    c.apiserver = ApiserverVersion::from_text(kube);
    c.digest_algorithms = algorithms;
    return c;
}

struct Case {
    std::string name;
    AdmissionRequest req;
    PolicyConfig config;
    bool allowed;
    std::string rules;  // the audit annotation
    std::vector<std::string> says;  // fragments of the message
};

}  // namespace

TEST_CASE("ModelArtifact rules", "[policy_model_artifact]") {
    std::vector<Case> cases;
    cases.push_back({"a digest-pinned image source is created", request(Operation::create, image_source(kPinned)), config(), true, "", {}});
    {
        auto v = image_source(kPinned);
        v.sources_present = {"huggingFace", "image"};
        cases.push_back({"two sources name both", request(Operation::create, v), config(), false, "source-exactly-one",
                         {"spec.source: Forbidden: exactly one of huggingFace, modelScope, persistentVolumeClaim, image is allowed; found huggingFace, image"}});
    }
    {
        auto v = image_source(kPinned);
        v.sources_present = {};
        cases.push_back({"no source", request(Operation::create, v), config(), false, "source-exactly-one", {"spec.source: Required value", "found none"}});
    }
    {
        ModelArtifactView v;
        cases.push_back({"no spec at all", request(Operation::create, v), config(), false, "source-exactly-one", {"spec.source: Required value"}});
    }
    {
        ModelArtifactView v;
        v.spec = JsonType::string;
        cases.push_back({"spec of the wrong type", request(Operation::create, v), config(), false, "source-exactly-one", {"spec: Required value", "not a string"}});
    }
    {
        ModelArtifactView v;
        v.spec = JsonType::object;
        v.source = JsonType::array;
        cases.push_back({"source of the wrong type", request(Operation::create, v), config(), false, "source-exactly-one", {"it is an array"}});
    }
    {
        ModelArtifactView v = image_source("");
        v.sources_present = {"huggingFace"};
        cases.push_back({"a hub source is not judged by the image rules", request(Operation::create, v), config("v1.30.0"), true, "", {}});
    }
    {
        ModelArtifactView v = image_source("");
        v.sources_present = {"persistentVolumeClaim"};
        cases.push_back({"a claim source is allowed below the floor", request(Operation::create, v), config("v1.29.1"), true, "", {}});
    }
    {
        auto v = image_source(kPinned);
        v.allow_patterns_set = true;
        cases.push_back({"allowPatterns on an image source", request(Operation::create, v), config(), false, "patterns-forbidden",
                         {"spec.allowPatterns: Forbidden", "mounted whole", "no listing to select from"}});
    }
    {
        auto v = image_source(kPinned);
        v.ignore_patterns_set = true;
        cases.push_back({"ignorePatterns on an image source", request(Operation::create, v), config(), false, "patterns-forbidden", {"spec.ignorePatterns: Forbidden"}});
    }
    {
        auto v = image_source("");
        v.reference = JsonType::absent;
        cases.push_back({"missing reference", request(Operation::create, v), config(), false, "reference-required",
                         {"spec.source.image.reference: Required value", "@sha256:<64 hex>"}});
    }
    cases.push_back({"empty reference", request(Operation::create, image_source("")), config(), false, "reference-required", {"it is empty"}});
    {
        auto v = image_source("");
        v.reference = JsonType::number;
        cases.push_back({"reference of the wrong type", request(Operation::create, v), config(), false, "reference-required", {"must be a string, not a number"}});
    }
    {
        auto v = image_source("");
        v.image = JsonType::string;
        cases.push_back({"image of the wrong type", request(Operation::create, v), config(), false, "reference-required", {"spec.source.image is a string"}});
    }
    const std::string long_ref = "r.io/" + std::string(1020, 'a');
    cases.push_back({"reference over 1024 characters", request(Operation::create, image_source(long_ref)), config(), false, "reference-too-long",
                     {"at most 1024", "(1025 bytes)"}});
    cases.push_back({"reference outside the grammar", request(Operation::create, image_source("r.io/Team/qwen@sha256:abc")), config(), false, "reference-invalid",
                     {"spec.source.image.reference: Invalid value: \"r.io/Team/qwen@sha256:abc\"", "must be lowercase"}});
    cases.push_back({"tag only", request(Operation::create, image_source("registry.example.com/team/qwen:v2")), config(), false, "digest-required",
                     {"a tag is mutable", "registry.example.com/team/qwen@sha256:<64 lowercase hex>"}});
    cases.push_back({"glob", request(Operation::create, image_source("registry.example.com/team/*")), config(), false, "reference-pattern", {"mounted whole"}});
    const std::string uppercase_ref = "r.io/qwen@sha256:" + std::string(64, 'F');
    cases.push_back({"uppercase digest", request(Operation::create, image_source(uppercase_ref)), config(), false, "digest-invalid",
                     {"lowercase"}});
    const std::string sha512_ref = "r.io/qwen@sha512:" + std::string(128, 'a');
    cases.push_back({"sha512 refused by default", request(Operation::create, image_source(sha512_ref)), config(), false, "digest-invalid", {"--digest-algorithms"}});
    cases.push_back({"sha512 accepted when allowed", request(Operation::create, image_source(sha512_ref)), config("v1.35.0", {true, true}), true, "", {}});
    cases.push_back({"below the apiserver floor", request(Operation::create, image_source(kPinned)), config("v1.34.2"), false, "apiserver-floor",
                     {"spec.source.image: Forbidden", "Kubernetes 1.35 or newer", "the apiserver is v1.34.2", "ImageVolume feature gate", "huggingFace or modelScope",
                      "persistentVolumeClaim", "upgrade the cluster"}});
    cases.push_back({"apiserver version unreadable", request(Operation::create, image_source(kPinned)), config("banana"), false, "apiserver-floor",
                     {"\"banana\" cannot be read", "1.35 floor cannot be confirmed"}});
    cases.push_back({"apiserver version not known yet", request(Operation::create, image_source(kPinned)), config(""), false, "apiserver-floor", {"not known yet"}});
    cases.push_back({"a newer apiserver", request(Operation::create, image_source(kPinned)), config("v1.36.1-gke.1200"), true, "", {}});
    cases.push_back({"a bad reference below the floor reports both", request(Operation::create, image_source("r.io/qwen:v1")), config("v1.33.0"), false,
                     "digest-required,apiserver-floor", {"[spec.source.image.reference", ", spec.source.image: Forbidden"}});
    {
        auto v = image_source("r.io/qwen:v1");
        v.spec_unchanged = true;
        cases.push_back({"an unchanged spec is never re-judged", request(Operation::update, v), config("v1.20.0"), true, "", {}});
    }
    cases.push_back({"a changed spec is refused", request(Operation::update, image_source(kPinned)), config(), false, "spec-immutable",
                     {"spec: Invalid value: \"object\": field is immutable", "create a new ModelArtifact"}});
    {
        auto v = image_source(kPinned);
        v.expected_digest_set = true;
        cases.push_back({"expectedDigest on an image source", request(Operation::create, v), config(), false, "expected-digest-forbidden",
                         {"spec.expectedDigest: Forbidden", "anchors hub sources only", "remove the field"}});
    }
    cases.push_back({"delete is allowed", request(Operation::remove, image_source("r.io/qwen:v1")), config("banana"), true, "", {}});
    cases.push_back({"connect is allowed", request(Operation::connect, image_source("")), config(), true, "", {}});

    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            const Decision d = judge_model_artifact(c.req, c.config);
            if (c.rules == "spec-immutable") {
                REQUIRE(d.causes.size() == 1);
                CHECK(d.causes[0].type == CauseType::field_value_invalid);  // as ValidateImmutableField gives it
            }
            INFO("message: " << d.message);
            CHECK(d.allowed == c.allowed);
            CHECK(d.rule_annotation() == c.rules);
            if (!c.allowed) {
                CHECK(d.code == 422);
                CHECK(d.reason == "Invalid");
                CHECK(d.details_kind == "ModelArtifact");
                CHECK(d.details_group == "worker.gpustack.ai");
                CHECK(d.details_name == "qwen");
                CHECK_THAT(d.message, Catch::StartsWith("ModelArtifact.worker.gpustack.ai \"qwen\" is invalid: "));
            }
            for (const auto& fragment : c.says) CHECK_THAT(d.message, Catch::Contains(fragment));
        }
    }
}

TEST_CASE("a tag beside the digest is allowed and warned about", "[policy_model_artifact]") {
    const Decision d = judge_model_artifact(
        request(Operation::create, image_source("registry.example.com/team/qwen:3.1@sha256:9372c470eeadd5ecd9c3c74c2b3cb633f8e2f2fad799250a0f70d652b6b825e4")), config());
    CHECK(d.allowed);
    REQUIRE(d.warnings.size() == 1);
    CHECK(d.warnings[0] == "spec.source.image.reference: tag \"3.1\" is ignored; the digest sha256:9372c470eead... is what is pulled");
    CHECK(d.warnings[0].size() <= 120);
}

TEST_CASE("a ModelArtifact's digest is looked up in its registry on CREATE only, after the other rules", "[policy_model_artifact]") {
    const std::string gone = "r.io/gone@sha256:9372c470eeadd5ecd9c3c74c2b3cb633f8e2f2fad799250a0f70d652b6b825e4";
    struct Case {
        const char* name;
        AdmissionRequest req;
        RegistryCheck mode;
        bool allowed;
        int lookups;
        const char* says;  // in the message, or in the warnings when allowed
    };
    auto unchanged = image_source(gone);
    unchanged.spec_unchanged = true;
    const std::vector<Case> cases = {
        {"deny refuses an unknown digest", request(Operation::create, image_source(gone)), RegistryCheck::deny, false, 1,
         "spec.source.image.reference: Invalid value: \"r.io/gone@sha256:9372c470eeadd5ecd9c3c74c2b3cb633f8e2f2fad799250a0f70d652b6b825e4\": the registry has no manifest"},
        {"warn admits it, saying what deny would do", request(Operation::create, image_source(gone)), RegistryCheck::warn, true, 1,
         "--registry-check deny would refuse this (registry-manifest-unknown)"},
        {"off asks nothing", request(Operation::create, image_source(gone)), RegistryCheck::off, true, 0, ""},
        {"a found digest is admitted", request(Operation::create, image_source(kPinned)), RegistryCheck::deny, true, 1, ""},
        {"a reference the rules refuse is never asked for", request(Operation::create, image_source("r.io/gone:v1")), RegistryCheck::deny, false, 0,
         "digest"},
        {"an unchanged UPDATE (a finalizer coming off) is never looked up", request(Operation::update, unchanged), RegistryCheck::deny, true, 0, ""},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            PolicyConfig policy = config();
            policy.registry_check = c.mode;
            const test::RegistryByRepository registry;
            const Decision d = judge_model_artifact(c.req, policy, &registry);
            CHECK(d.allowed == c.allowed);
            CHECK(registry.calls == c.lookups);
            std::string warnings;
            for (const auto& w : d.warnings) warnings += w + "\n";
            CHECK_THAT(c.allowed ? warnings : d.message, Catch::Contains(c.says));
            if (!c.allowed && c.lookups == 1) CHECK(d.rule_annotation() == "registry-manifest-unknown");
        }
    }
}

TEST_CASE("a ModelArtifact's digest is looked up with its namespace's default service account's pull secrets", "[policy_model_artifact]") {
    AdmissionRequest req = request(Operation::create, image_source(kPinned));
    req.namespace_name = "team-a";
    PolicyConfig policy = config();
    policy.registry_check = RegistryCheck::deny;
    const test::RegistryByRepository registry;
    CHECK(judge_model_artifact(req, policy, &registry).allowed);
    CHECK(registry.pullers == std::vector<std::string>{"team-a||default"});
}

TEST_CASE("the floor message names the floor and every alternative", "[policy_model_artifact]") {
    CHECK(apiserver_floor_problem(ApiserverVersion::from_text("v1.35.0")).empty());
    const std::string m = apiserver_floor_problem(ApiserverVersion::from_text("v1.33.4"));
    CHECK(m ==
          "image volumes need Kubernetes 1.35 or newer and the apiserver is v1.33.4, older than the 1.35 floor: below it the apiserver drops a Pod's image "
          "volume silently (1.33 and 1.34 keep it only where an administrator has enabled the ImageVolume feature gate); use a huggingFace or modelScope hub "
          "source or a persistentVolumeClaim source instead, or upgrade the cluster to 1.35 or newer");
}

TEST_CASE("an image source's status keeps the shape upstream writes, by the writers allowed", "[policy_model_artifact]") {
    const auto status_request = [](ModelArtifactStatusView status, std::string_view user, std::vector<std::string_view> groups = {}) {
        AdmissionRequest req;
        req.kind = {"worker.gpustack.ai", "v1alpha1", "ModelArtifact"};
        req.name = "qwen";
        req.operation = Operation::update;
        req.sub_resource = "status";
        req.model_artifact_status = status;
        req.user = {user, std::move(groups)};
        return req;
    };
    ModelArtifactStatusView image;
    image.image_source = true;
    image.resolved = JsonType::object;
    ModelArtifactStatusView extra = image;
    extra.resolved_extra = {"revision", "digests"};
    ModelArtifactStatusView with_nodes = image;
    with_nodes.nodes_present = true;
    ModelArtifactStatusView hub = extra;
    hub.image_source = false;
    ModelArtifactStatusView scalar = image;
    scalar.resolved = JsonType::string;
    PolicyConfig writers = config();
    writers.status_writers = {"system:serviceaccount:gpustack-system:gpustack-operator", "group:gpustack-admins"};
    const std::string operator_account = "system:serviceaccount:gpustack-system:gpustack-operator";

    struct Case {
        const char* name;
        AdmissionRequest req;
        PolicyConfig config;
        bool allowed;
        std::string rules;
        std::vector<std::string> says;
    };
    const std::vector<Case> cases = {
        {"resolvedTime alone", status_request(image, "u"), config(), true, "", {}},
        {"more than resolvedTime", status_request(extra, "u"), config(), false, "image-status-shape",
         {"status.resolved.revision: Forbidden", "status.resolved.digests: Forbidden", "only record"}},
        {"node aggregation", status_request(with_nodes, "u"), config(), false, "image-status-shape", {"status.nodes: Forbidden"}},
        {"resolved not an object", status_request(scalar, "u"), config(), false, "image-status-shape", {"status.resolved: Invalid value: \"a string\": must be an object holding resolvedTime only"}},
        {"a hub source's status is its own business", status_request(hub, "u"), config(), true, "", {}},
        {"the operator's service account", status_request(image, operator_account), writers, true, "", {}},
        {"a member of a listed group", status_request(image, "alice", {"system:authenticated", "gpustack-admins"}), writers, true, "", {}},
        {"anyone else", status_request(image, "mallory", {"system:authenticated"}), writers, false, "status-writer",
         {"\"mallory\" is not among --status-writers", "group:gpustack-admins"}},
        {"a wrong shape from a listed writer", status_request(extra, operator_account), writers, false, "image-status-shape", {}},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            const Decision d = judge_model_artifact_status(c.req, c.config);
            INFO("message: " << d.message);
            CHECK(d.allowed == c.allowed);
            CHECK(d.rule_annotation() == c.rules);
            if (c.rules == "status-writer") CHECK(d.code == 403);
            if (c.rules == "image-status-shape") CHECK(d.code == 422);
            for (const auto& fragment : c.says) CHECK_THAT(d.message, Catch::Contains(fragment));
        }
    }
}
