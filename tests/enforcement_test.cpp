// What a would-be denial becomes in each enforcement mode: the step after the
// decision, alone, and through review(), the path the server, `review` and
// `test` share.
#include "model_image_webhook/admission_review.hpp"
#include "model_image_webhook/enforcement.hpp"

#include "registry_stand_in.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

using namespace miw;

namespace {

constexpr Rule kField{"digest-required", "spec.source.image.reference", "422 Invalid", ""};
constexpr Rule kOther{"patterns-forbidden", "spec.allowPatterns", "422 Invalid", ""};
constexpr Rule kPod{"two-weight-sources", "spec.volumes", "403 Forbidden", ""};

Decision two_field_errors() {
    return invalid("worker.gpustack.ai", "ModelArtifact", "qwen",
                   {field_invalid("spec.source.image.reference", "q:v1", "no digest", kField), field_forbidden("spec.allowPatterns", "remove it", kOther)});
}

Decision internal_error() {
    Decision d;
    d.allowed = false;
    d.code = 500;
    d.reason = "InternalError";
    d.message = "out of memory";
    return d;
}

}  // namespace

TEST_CASE("modes are read by their names", "[enforcement]") {
    for (Enforcement mode : {Enforcement::deny, Enforcement::warn, Enforcement::audit}) CHECK(parse_enforcement(to_string(mode)) == mode);
    CHECK_FALSE(parse_enforcement("Warn"));
    CHECK_FALSE(parse_enforcement("dryrun"));
    CHECK_FALSE(parse_enforcement(""));
}

TEST_CASE("a policy denial is softened by warn and audit, and kept by deny", "[enforcement]") {
    struct Case {
        const char* name;
        Decision decision;
        std::vector<std::string> warn_warnings;  // the findings as warnings under warn
    };
    const std::vector<Case> cases = {
        {"422 with two field errors: one warning each", two_field_errors(),
         {"would be denied: spec.source.image.reference: Invalid value: \"q:v1\": no digest", "would be denied: spec.allowPatterns: Forbidden: remove it"}},
        {"403: its message", forbidden("container \"vllm\" mounts a second source", kPod), {"would be denied: container \"vllm\" mounts a second source"}},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            const Decision denied = enforce(c.decision, Enforcement::deny);
            CHECK_FALSE(denied.allowed);
            CHECK_FALSE(denied.softened);
            CHECK(denied.warnings.empty());

            const Decision warned = enforce(c.decision, Enforcement::warn);
            CHECK(warned.allowed);
            CHECK(warned.softened == Enforcement::warn);
            CHECK(warned.warnings == c.warn_warnings);
            CHECK(warned.softened_warnings == c.warn_warnings.size());
            CHECK(warned.rule_annotation() == c.decision.rule_annotation());
            CHECK(warned.message == c.decision.message);  // kept for the reports

            const Decision audited = enforce(c.decision, Enforcement::audit);
            CHECK(audited.allowed);
            CHECK(audited.softened == Enforcement::audit);
            CHECK(audited.warnings.empty());
            CHECK(audited.softened_warnings == 0);
            CHECK(audited.rule_annotation() == c.decision.rule_annotation());
        }
    }
}

TEST_CASE("what is not a finding stays as it is in every mode", "[enforcement]") {
    Decision patched = allow({"container \"vllm\": a shell string"});
    patched.patch = R"([{"op":"add","path":"/a","value":1}])";
    struct Case {
        const char* name;
        Decision decision;
    };
    const std::vector<Case> cases = {
        {"a malformed request (400)", bad_request("request.operation is not one of ...", kMalformedRequest)},
        {"an internal error (500)", internal_error()},
        {"an allowed mutation with a warning", patched},
    };
    for (const auto& c : cases) {
        for (Enforcement mode : {Enforcement::deny, Enforcement::warn, Enforcement::audit}) {
            DYNAMIC_SECTION(c.name << " under " << to_string(mode)) {
                const Decision d = enforce(c.decision, mode);
                CHECK(d.allowed == c.decision.allowed);
                CHECK(d.code == c.decision.code);
                CHECK(d.warnings == c.decision.warnings);
                CHECK(d.patch == c.decision.patch);
                CHECK_FALSE(d.softened);
            }
        }
    }
}

TEST_CASE("warnings of the decision come first and the findings after them", "[enforcement]") {
    Decision d = forbidden("a second source", kPod);
    d.warnings = {"container \"vllm\": a shell string"};
    const Decision warned = enforce(d, Enforcement::warn);
    REQUIRE(warned.warnings.size() == 2);
    CHECK(warned.warnings[0] == "container \"vllm\": a shell string");
    CHECK(warned.softened_warnings == 1);
}

namespace {

const std::string kDigest = "sha256:" + std::string(64, 'a');

std::string artifact(const std::string& operation, const std::string& spec, const std::string& old_spec = "") {
    std::string request = R"({"uid":"u","kind":{"group":"worker.gpustack.ai","version":"v1alpha1","kind":"ModelArtifact"},"resource":{"group":"worker.gpustack.ai","version":"v1alpha1","resource":"modelartifacts"},"name":"qwen","namespace":"ml","operation":")" +
                          operation + R"(","userInfo":{"username":"alice"},"object":{"apiVersion":"worker.gpustack.ai/v1alpha1","kind":"ModelArtifact","metadata":{"name":"qwen","namespace":"ml"},"spec":)" +
                          spec + "}";
    if (!old_spec.empty()) request += R"(,"oldObject":{"apiVersion":"worker.gpustack.ai/v1alpha1","kind":"ModelArtifact","metadata":{"name":"qwen","namespace":"ml"},"spec":)" + old_spec + "}";
    return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":)" + request + "}}";
}

std::string status_write(const std::string& reference, const std::string& status) {
    const std::string object = R"({"apiVersion":"worker.gpustack.ai/v1alpha1","kind":"ModelArtifact","metadata":{"name":"qwen","namespace":"ml"},"spec":{"source":{"image":{"reference":")" +
                               reference + R"("}}},"status":)" + status + "}";
    return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","kind":{"group":"worker.gpustack.ai","version":"v1alpha1","kind":"ModelArtifact"},"resource":{"group":"worker.gpustack.ai","version":"v1alpha1","resource":"modelartifacts"},"subResource":"status","name":"qwen","namespace":"ml","operation":"UPDATE","userInfo":{"username":"mallory"},"object":)" +
           object + R"(,"oldObject":)" + object + "}}";
}

std::string image(const std::string& reference, const std::string& extra = "") {
    return R"({"source":{"image":{"reference":")" + reference + R"("}})" + extra + "}";
}

std::string pod(const std::string& metadata, const std::string& spec) {
    return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","kind":{"group":"","version":"v1","kind":"Pod"},"resource":{"group":"","version":"v1","resource":"pods"},"namespace":"ml","operation":"CREATE","userInfo":{"username":"alice"},"object":{"apiVersion":"v1","kind":"Pod","metadata":)" +
           metadata + R"(,"spec":)" + spec + "}}}";
}

const std::string kOptedIn = R"({"name":"p","labels":{"gpustack.ai/model-delivery":"image"},"annotations":{"gpustack.ai/model-image":"r.example/m@)" + kDigest + R"("}})";

class Nodes : public NodeSource {
public:
    NodeLookup lookup(const NodeRef& node) const override {
        const std::string_view name = node.value;
        if (name == "gpu-old") return {NodeLookupStatus::found, NodeInfo{"v1.34.2", "containerd://2.1.0"}};
        if (name == "gpu-away") return {NodeLookupStatus::unavailable, {}};
        return {NodeLookupStatus::not_found, {}};
    }
    std::string origin() const override { return "the test's Nodes"; }
    std::optional<std::vector<std::string>> nodes_holding(std::string_view, std::size_t) const override { return std::nullopt; }
};

// No image of r.example/unsigned is signed; every other one is.
class Signatures : public SignatureSource {
public:
    SignatureOutcome verify(std::string_view reference, std::size_t, const PullSecretsRef*) const override {
        if (reference.rfind("r.example/unsigned@", 0) == 0) return {SignatureStatus::unsigned_image, "no sigstore bundle referrer and no .sig tag"};
        return {SignatureStatus::verified, "verified by a"};
    }
};

}  // namespace

TEST_CASE("every policy denial in every mode, through review()", "[enforcement]") {
    const std::string pinned = "r.example/m@" + kDigest;
    const std::string image_volume = R"({"containers":[{"name":"c","image":"i"}],"volumes":[{"name":"gpustack-model","image":{"reference":")" + pinned + R"("}}],)";
    struct Case {
        const char* rule;
        Endpoint endpoint;
        std::string body;
        const char* kube = "v1.35.0";
        std::vector<std::string> status_writers = {};
        bool no_artifacts = false;  // no ModelArtifact source at all
        RegistryCheck registry = RegistryCheck::off;
        bool signature_policy = false;  // --signature-policy: every image of r.example must be signed
    };
    const auto naming = [&](const std::string& artifact, const std::string& image_annotation = "") {
        return R"({"name":"p","labels":{"gpustack.ai/model-delivery":"image"},"annotations":{"gpustack.ai/model-artifact":")" + artifact + "\"" +
               (image_annotation.empty() ? "" : R"(,"gpustack.ai/model-image":")" + image_annotation + "\"") + "}}";
    };
    const std::string plain_pod = R"({"containers":[{"name":"c","image":"i"}]})";
    const std::vector<Case> cases = {
        {"source-exactly-one", Endpoint::validate, artifact("CREATE", R"({"source":{}})")},
        {"patterns-forbidden", Endpoint::validate, artifact("CREATE", image(pinned, R"(,"allowPatterns":["*.json"])"))},
        {"reference-required", Endpoint::validate, artifact("CREATE", R"({"source":{"image":{}}})")},
        {"reference-too-long", Endpoint::validate, artifact("CREATE", image("r.example/" + std::string(1100, 'm') + "@" + kDigest))},
        {"reference-pattern", Endpoint::validate, artifact("CREATE", image("r.example/m*@" + kDigest))},
        {"reference-invalid", Endpoint::validate, artifact("CREATE", image("r.example/Models/M@" + kDigest))},
        {"digest-required", Endpoint::validate, artifact("CREATE", image("r.example/m:v1"))},
        {"digest-invalid", Endpoint::validate, artifact("CREATE", image("r.example/m@sha256:ABC"))},
        {"apiserver-floor", Endpoint::validate, artifact("CREATE", image(pinned)), "v1.34.0"},
        {"expected-digest-forbidden", Endpoint::validate, artifact("CREATE", image(pinned, R"(,"expectedDigest":"sha256:x")"))},
        {"spec-immutable", Endpoint::validate, artifact("UPDATE", image(pinned), image("r.example/n@" + kDigest))},
        {"image-status-shape", Endpoint::validate, status_write(pinned, R"({"phase":"Ready","resolved":{"resolvedTime":"2026-11-30T10:00:00Z","revision":"main"}})")},
        {"status-writer", Endpoint::validate, status_write(pinned, R"({"phase":"Ready"})"), "v1.35.0", {"system:serviceaccount:gpustack-system:gpustack-operator"}},
        {"two-weight-sources", Endpoint::mutate,
         pod(kOptedIn, R"({"containers":[{"name":"c","image":"i","volumeMounts":[{"name":"w","mountPath":"/var/lib/gpustack/model"}]}],"volumes":[{"name":"w","persistentVolumeClaim":{"claimName":"weights"}}]})")},
        {"apiserver-floor", Endpoint::mutate, pod(kOptedIn, R"({"containers":[{"name":"c","image":"i"}]})"), "v1.34.0"},
        {"artifact-not-found", Endpoint::mutate, pod(naming("missing"), plain_pod)},
        {"artifact-not-image", Endpoint::mutate, pod(naming("hub"), plain_pod)},
        {"artifact-image-conflict", Endpoint::mutate, pod(naming("qwen", "r.example/other@" + kDigest), plain_pod)},
        {"artifact-unavailable", Endpoint::mutate, pod(naming("qwen"), plain_pod), "v1.35.0", {}, true},
        {"registry-manifest-unknown", Endpoint::validate, artifact("CREATE", image("r.example/gone@" + kDigest)), "v1.35.0", {}, false, RegistryCheck::deny},
        {"registry-digest-mismatch", Endpoint::mutate,
         pod(R"({"name":"p","labels":{"gpustack.ai/model-delivery":"image"},"annotations":{"gpustack.ai/model-image":"r.example/forged@)" + kDigest + R"("}})",
             plain_pod),
         "v1.35.0", {}, false, RegistryCheck::deny},
        {"registry-not-an-image", Endpoint::validate, artifact("CREATE", image("r.example/modelpack@" + kDigest)), "v1.35.0", {}, false, RegistryCheck::deny},
        {"signature-unverified", Endpoint::validate, artifact("CREATE", image("r.example/unsigned@" + kDigest)), "v1.35.0", {}, false, RegistryCheck::off, true},
        {"signature-unverified", Endpoint::mutate,
         pod(R"({"name":"p","labels":{"gpustack.ai/model-delivery":"image"},"annotations":{"gpustack.ai/model-image":"r.example/unsigned@)" + kDigest + R"("}})",
             plain_pod),
         "v1.35.0", {}, false, RegistryCheck::off, true},
        {"node-floor", Endpoint::validate, pod(R"({"name":"p"})", image_volume + R"("nodeName":"gpu-old"})")},
        {"node-not-found", Endpoint::validate, pod(R"({"name":"p"})", image_volume + R"("nodeName":"gpu-gone"})")},
        {"node-unavailable", Endpoint::validate, pod(R"({"name":"p"})", image_volume + R"("nodeName":"gpu-away"})")},
    };
    SECTION("the table holds every rule that refuses an object") {
        for (const Rule* rule : rule_registry()) {
            if (rule->id == kMalformedRequest.id || rule->id == kInternalError.id) continue;
            INFO(rule->id);
            CHECK(std::any_of(cases.begin(), cases.end(), [&](const Case& c) { return c.rule == rule->id; }));
        }
    }
    const Nodes nodes;
    const test::RegistryByRepository registry;
    const Signatures signatures;
    SignaturePolicy signed_images;
    signed_images.policies.push_back(ImagePolicy{"r-example", {*ImageGlob::compile("r.example/*")}, {}, true});
    const auto signature_policy = std::make_shared<const SignaturePolicy>(signed_images);
    StaticArtifactSource artifacts("the test's ModelArtifacts");
    artifacts.add("ml", "qwen", {"image", pinned});  // the Pods' namespace
    artifacts.add("ml", "hub", {"huggingFace", ""});
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.rule << " (" << to_string(c.endpoint) << ")") {
            PolicyConfig policy;
            policy.apiserver = ApiserverVersion::from_text(c.kube);
            policy.status_writers = c.status_writers;
            policy.registry_check = c.registry;
            if (c.signature_policy) policy.signature_policy = signature_policy;
            ReviewContext context{c.endpoint, policy, &nodes};
            context.signatures = &signatures;
            if (!c.no_artifacts) context.artifacts = &artifacts;
            context.registry = &registry;
            std::string body = c.body;
            const ReviewResult denied = review(body, context);
            REQUIRE(denied.outcome == ReviewOutcome::denied);
            CHECK_THAT(denied.rules, Catch::Contains(c.rule));
            CHECK_THAT(denied.body, Catch::Contains(R"("allowed":false)"));

            context.enforcement = Enforcement::warn;
            body = c.body;
            const ReviewResult warned = review(body, context);
            CHECK(warned.outcome == ReviewOutcome::would_deny);
            CHECK(warned.softened == Enforcement::warn);
            CHECK(warned.rules == denied.rules);
            CHECK(warned.message == denied.message);
            CHECK(warned.patch.empty());
            CHECK(warned.softened_warnings >= 1);
            CHECK_THAT(warned.body, Catch::Contains(R"("allowed":true,"auditAnnotations":{"rule":")" + denied.rules + R"(","enforcement":"warn"},"warnings":[")"));
            CHECK_THAT(warned.body, !Catch::Contains(R"("status")"));
            CHECK_THAT(warned.body, !Catch::Contains(R"("patch")"));

            context.enforcement = Enforcement::audit;
            body = c.body;
            const ReviewResult audited = review(body, context);
            CHECK(audited.outcome == ReviewOutcome::would_deny);
            CHECK(audited.body == R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","allowed":true,"auditAnnotations":{"rule":")" +
                                      denied.rules + R"(","enforcement":"audit"}}})");
        }
    }
}

TEST_CASE("a request that cannot be read is answered alike in every mode", "[enforcement]") {
    const std::vector<std::pair<const char*, std::string>> cases = {
        {"an unknown operation", R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","kind":{"group":"","version":"v1","kind":"Pod"},"operation":"PATCH","object":{}}})"},
        {"a wrong kind", R"({"apiVersion":"admission.k8s.io/v1","kind":"Review","request":{"uid":"u"}})"},
        {"no uid", R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{}})"},
        {"not JSON", "{"},
    };
    PolicyConfig policy;
    policy.apiserver = ApiserverVersion::from_text("v1.35.0");
    for (const auto& [name, request] : cases) {
        DYNAMIC_SECTION(name) {
            std::string body = request;
            const ReviewResult denied = review(body, ReviewContext{Endpoint::validate, policy, nullptr});
            for (Enforcement mode : {Enforcement::warn, Enforcement::audit}) {
                ReviewContext context{Endpoint::validate, policy, nullptr};
                context.enforcement = mode;
                body = request;
                const ReviewResult r = review(body, context);
                CHECK(r.http_status == denied.http_status);
                CHECK(r.outcome == denied.outcome);
                CHECK(r.body == denied.body);
            }
        }
    }
}
