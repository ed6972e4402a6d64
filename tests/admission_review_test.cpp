// The AdmissionReview codec: the wire shape of every answer, and a clear
// answer for every request it cannot use.
#include "model_image_webhook/admission_review.hpp"
#include "model_image_webhook/text.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

using namespace miw;

namespace {

const std::string kPinned = "registry.example.com/team/qwen@sha256:9372c470eeadd5ecd9c3c74c2b3cb633f8e2f2fad799250a0f70d652b6b825e4";

std::string envelope(const std::string& request) {
    return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":)" + request + "}";
}

std::string artifact_review(const std::string& operation, const std::string& spec, const std::string& old_spec = "") {
    std::string request = R"({"uid":"u-1","kind":{"group":"worker.gpustack.ai","version":"v1alpha1","kind":"ModelArtifact"},)"
                          R"("resource":{"group":"worker.gpustack.ai","version":"v1alpha1","resource":"modelartifacts"},)"
                          R"("name":"qwen","namespace":"gpustack","operation":")" +
                          operation + R"(","object":{"apiVersion":"worker.gpustack.ai/v1alpha1","kind":"ModelArtifact","metadata":{"name":"qwen"},"spec":)" + spec + "}";
    if (!old_spec.empty()) request += R"(,"oldObject":{"metadata":{"name":"qwen"},"spec":)" + old_spec + "}";
    return envelope(request + "}");
}

std::string image_spec(const std::string& reference) { return R"({"source":{"image":{"reference":")" + reference + R"("}}})"; }

ReviewResult run(std::string body, Endpoint endpoint = Endpoint::validate, std::string_view kube = "v1.35.0") {
    ReviewContext context;
    context.endpoint = endpoint;
    context.policy.apiserver = ApiserverVersion::from_text(kube);
    return review(body, context);
}

std::string read_fixture(const std::string& name) {
    std::ifstream in(std::string(MIW_FIXTURES_DIR) + "/" + name, std::ios::binary);
    REQUIRE(in.good());
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string nested_arrays(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

std::string nested_objects(std::size_t depth) {
    std::string out;
    for (std::size_t i = 0; i < depth; ++i) out += "{\"a\":";
    return out + "1" + std::string(depth, '}');
}

}  // namespace

TEST_CASE("answers carry the request's uid and apiVersion, and allowed as a boolean", "[admission_review]") {
    const auto r = run(artifact_review("CREATE", image_spec(kPinned)));
    CHECK(r.http_status == 200);
    CHECK(r.content_type == "application/json");
    CHECK(r.outcome == ReviewOutcome::allowed);
    CHECK(r.body == R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u-1","allowed":true}})");
    CHECK(r.uid == "u-1");
    CHECK(r.kind == "ModelArtifact");
    CHECK(r.namespace_name == "gpustack");
    CHECK(r.name == "qwen");
    CHECK(r.operation == "CREATE");
}

TEST_CASE("a field-rule denial has the shape of a Go webhook's field error", "[admission_review]") {
    const auto r = run(artifact_review("CREATE", image_spec("registry.example.com/team/qwen:v1")));
    CHECK(r.http_status == 200);
    CHECK(r.outcome == ReviewOutcome::denied);
    CHECK(r.rules == "digest-required");
    const std::string detail =
        "no digest: a tag is mutable, so one artifact could deliver different weights on different pulls; pin the image by digest: "
        "registry.example.com/team/qwen@sha256:<64 lowercase hex>";
    CHECK(r.body == R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u-1","allowed":false,"status":{"metadata":{},)"
                    R"("status":"Failure","message":"ModelArtifact.worker.gpustack.ai \"qwen\" is invalid: spec.source.image.reference: Invalid value: )"
                    R"(\"registry.example.com/team/qwen:v1\": )" +
                        detail + R"(","reason":"Invalid","details":{"name":"qwen","group":"worker.gpustack.ai","kind":"ModelArtifact","causes":[{"reason":)"
                                 R"("FieldValueInvalid","message":"Invalid value: \"registry.example.com/team/qwen:v1\": )" +
                        detail + R"(","field":"spec.source.image.reference"}]},"code":422},"auditAnnotations":{"rule":"digest-required"}}})");
}

TEST_CASE("warnings travel in the response", "[admission_review]") {
    const auto r = run(artifact_review("CREATE", image_spec("registry.example.com/team/qwen:3.1@sha256:9372c470eeadd5ecd9c3c74c2b3cb633f8e2f2fad799250a0f70d652b6b825e4")));
    CHECK(r.outcome == ReviewOutcome::allowed);
    CHECK_THAT(r.body, Catch::EndsWith(R"("allowed":true,"warnings":["spec.source.image.reference: tag \"3.1\" is ignored; the digest sha256:9372c470eead... is what is pulled"]}})"));
}

TEST_CASE("requests the codec can read are judged by the rules", "[admission_review]") {
    struct Case {
        std::string name;
        std::string body;
        Endpoint endpoint;
        ReviewOutcome outcome;
        std::string says;
    };
    const std::string pinned_spec = image_spec(kPinned);
    const std::vector<Case> cases = {
        {"unchanged spec on update, keys reordered", artifact_review("UPDATE", R"({"format":"safetensors","source":{"image":{"reference":"x:y"}}})",
                                                                      R"({"source":{"image":{"reference":"x:y"}},"format":"safetensors"})"),
         Endpoint::validate, ReviewOutcome::allowed, ""},
        {"changed spec on update", artifact_review("UPDATE", pinned_spec, image_spec("other@sha256:" + std::string(64, 'a'))), Endpoint::validate,
         ReviewOutcome::denied, "spec-immutable"},
        {"delete without an object", envelope(R"({"uid":"u","kind":{"group":"worker.gpustack.ai","version":"v1","kind":"ModelArtifact"},"operation":"DELETE","object":null})"),
         Endpoint::validate, ReviewOutcome::allowed, ""},
        {"an artifact sent to mutate is left alone", artifact_review("CREATE", image_spec("qwen:v1")), Endpoint::mutate, ReviewOutcome::allowed, ""},
        {"another kind sent to validate is left alone", envelope(R"({"uid":"u","kind":{"group":"","version":"v1","kind":"ConfigMap"},"operation":"CREATE","object":{}})"),
         Endpoint::validate, ReviewOutcome::allowed, ""},
        {"the last of duplicate keys counts, as in Go", artifact_review("CREATE", R"({"source":{"image":{"reference":")" + kPinned + R"(","reference":"qwen:v1"}}})"),
         Endpoint::validate, ReviewOutcome::denied, "digest-required"},
        {"allowPatterns as a list", artifact_review("CREATE", R"({"allowPatterns":["*.safetensors"],"source":{"image":{"reference":")" + kPinned + R"("}}})"),
         Endpoint::validate, ReviewOutcome::denied, "patterns-forbidden"},
        {"empty allowPatterns", artifact_review("CREATE", R"({"allowPatterns":[],"ignorePatterns":null,"source":{"image":{"reference":")" + kPinned + R"("}}})"),
         Endpoint::validate, ReviewOutcome::allowed, ""},
        {"two sources", artifact_review("CREATE", R"({"source":{"huggingFace":{"repo":"Qwen/Qwen2.5"},"image":{"reference":")" + kPinned + R"("}}})"),
         Endpoint::validate, ReviewOutcome::denied, "source-exactly-one"},
        {"a null source member does not count", artifact_review("CREATE", R"({"source":{"huggingFace":null,"image":{"reference":")" + kPinned + R"("}}})"),
         Endpoint::validate, ReviewOutcome::allowed, ""},
        {"reference as a number", artifact_review("CREATE", R"({"source":{"image":{"reference":42}}})"), Endpoint::validate, ReviewOutcome::denied,
         "reference-required"},
        {"spec as a string", artifact_review("CREATE", R"("image")"), Endpoint::validate, ReviewOutcome::denied, "source-exactly-one"},
        {"nesting under the limit is fine", envelope(R"({"uid":"u","kind":{"group":"","version":"v1","kind":"ConfigMap"},"operation":"CREATE","object":{"data":)" +
                                                    nested_arrays(kMaxJsonDepth - 10) + "}}"),
         Endpoint::validate, ReviewOutcome::allowed, ""},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            const auto r = run(c.body, c.endpoint);
            INFO(r.body);
            CHECK(r.http_status == 200);
            CHECK(r.outcome == c.outcome);
            CHECK(r.rules == c.says);
        }
    }
}

TEST_CASE("requests with a readable uid but unusable content get a review-shaped 400", "[admission_review]") {
    struct Case {
        std::string name;
        std::string body;
        std::string says;
    };
    const std::string kind = R"("kind":{"group":"worker.gpustack.ai","version":"v1","kind":"ModelArtifact"})";
    const std::vector<Case> cases = {
        {"wrong review kind", R"({"apiVersion":"admission.k8s.io/v1","kind":"Pod","request":{"uid":"u-1"}})", "kind must be \\\"AdmissionReview\\\""},
        {"v1beta1 review", R"({"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","request":{"uid":"u-1"}})", "admissionReviewVersions"},
        {"missing request.kind", envelope(R"({"uid":"u-1","operation":"CREATE"})"), "request.kind must be an object"},
        {"request.kind.kind as a number", envelope(R"({"uid":"u-1","kind":{"group":"","version":"v1","kind":7},"operation":"CREATE"})"),
         "request.kind.kind must be a string, not a number"},
        {"empty request.kind.kind", envelope(R"({"uid":"u-1","kind":{"group":"","version":"v1","kind":""},"operation":"CREATE"})"), "request.kind.kind is missing"},
        {"unknown operation", envelope(R"({"uid":"u-1",)" + kind + R"(,"operation":"PATCH"})"), "\\\"PATCH\\\" is not one of CREATE"},
        {"operation as a list", envelope(R"({"uid":"u-1",)" + kind + R"(,"operation":["CREATE"]})"), "request.operation must be a string"},
        {"name as an object", envelope(R"({"uid":"u-1",)" + kind + R"(,"operation":"CREATE","name":{}})"), "request.name must be a string"},
        {"dryRun as a string", envelope(R"({"uid":"u-1",)" + kind + R"(,"operation":"CREATE","dryRun":"true"})"), "request.dryRun must be a boolean"},
        {"object as an array", envelope(R"({"uid":"u-1",)" + kind + R"(,"operation":"CREATE","object":[]})"), "request.object must be an object, not an array"},
        {"artifact create without an object", envelope(R"({"uid":"u-1",)" + kind + R"(,"operation":"CREATE"})"), "request.object is required"},
        {"artifact update without oldObject", envelope(R"({"uid":"u-1",)" + kind + R"(,"operation":"UPDATE","object":{"spec":{}}})"), "request.oldObject is required"},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            const auto r = run(c.body);
            INFO(r.body);
            CHECK(r.http_status == 200);
            CHECK(r.outcome == ReviewOutcome::bad_request);
            CHECK_THAT(r.body, Catch::Contains(R"("uid":"u-1","allowed":false,"status":{"metadata":{},"status":"Failure","message":")"));
            CHECK_THAT(r.body, Catch::Contains(R"("reason":"BadRequest","code":400})"));
            CHECK_THAT(r.body, Catch::Contains(c.says));
            CHECK_THAT(r.body, Catch::Contains(R"("auditAnnotations":{"rule":"malformed-request"})"));
            CHECK_FALSE(r.error.empty());
        }
    }
}

TEST_CASE("bodies that hold no readable review get a plain 400", "[admission_review]") {
    struct Case {
        std::string name;
        std::string body;
        std::string says;
    };
    const std::vector<Case> cases = {
        {"empty body", "", "not valid JSON"},
        {"truncated JSON", R"({"apiVersion":"admission.k8s.io/v1","kind":"Admission)", "not valid JSON"},
        {"trailing garbage", envelope(R"({"uid":"u"})") + "x", "not valid JSON"},
        {"two documents", envelope(R"({"uid":"u"})") + envelope(R"({"uid":"u"})"), "not valid JSON"},
        {"invalid UTF-8 in a string", envelope("{\"uid\":\"u\xff\"}"), "not valid JSON"},
        {"overlong UTF-8", envelope("{\"uid\":\"\xc0\xaf\"}"), "not valid JSON"},
        // Escapes that stand for no character: Go would read each as U+FFFD, but
        // the apiserver never writes them, and one read as bytes is invalid UTF-8.
        {"an escaped high surrogate alone", envelope(R"({"uid":"u\ud800"})"), "surrogate pair in string is invalid"},
        {"an escaped low surrogate alone", envelope(R"({"uid":"u\udc00"})"), "surrogate pair in string is invalid"},
        {"an escaped low surrogate alone in a container's key", envelope(R"({"uid":"u","object":{"spec":{"containers":[{"volumeM\uDDDDounts":[]}]}}})"),
         "surrogate pair in string is invalid"},
        // The validator takes a sequence's tail bytes before judging them:
        // these end the body in the middle of one (short bodies live on the stack).
        {"a four-byte UTF-8 lead at the end of a short body", "\"\xf0", "not valid JSON"},
        {"a three-byte UTF-8 lead at the end of a short body", "{\"a\":\"\xe2", "not valid JSON"},
        {"a two-byte UTF-8 lead at the end of a short body", "[\"\xc3", "not valid JSON"},
        {"a UTF-8 lead and one tail byte at the end", "\"\xf0\x9f", "not valid JSON"},
        {"a UTF-8 lead at the end of a long body", envelope("{\"uid\":\"" + std::string(4096, 'u')) + "\xf4", "not valid JSON"},
        // Raw control characters are refused wherever they fall in a long string,
        // 0x1A to 0x1F included (a 16-byte scan that tests for 0x19 and below misses them).
        {"a raw 0x1C deep inside a long string", envelope("{\"uid\":\"" + std::string(40, 'u') + "\x1c" + std::string(40, 'u') + "\"}"), "not valid JSON"},
        {"a raw 0x1F deep inside a long string", envelope("{\"uid\":\"" + std::string(47, 'u') + "\x1f" + std::string(47, 'u') + "\"}"), "not valid JSON"},
        {"a raw 0x1A deep inside a long string", envelope("{\"uid\":\"" + std::string(33, 'u') + "\x1a" + std::string(90, 'u') + "\"}"), "not valid JSON"},
        {"a raw tab inside a string", envelope("{\"uid\":\"u\tu\"}"), "not valid JSON"},
        {"a NUL byte after the document", envelope(R"({"uid":"u"})") + std::string("\0{}", 3), "NUL byte"},
        {"100,000 nested arrays", nested_arrays(100000), "deeper than 1000 levels"},
        {"100,000 nested objects", nested_objects(100000), "deeper than"},
        {"top-level array", "[]", "not an array"},
        {"top-level string", "\"AdmissionReview\"", "not a string"},
        {"no request", R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"})", "no request object"},
        {"request as a string", R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":"x"})", "no request object"},
        {"no uid", envelope(R"({"operation":"CREATE"})"), "request.uid is missing"},
        {"uid as a number", envelope(R"({"uid":12})"), "request.uid is missing"},
        {"empty uid", envelope(R"({"uid":""})"), "request.uid is missing"},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            const auto r = run(c.body);
            CHECK(r.http_status == 400);
            CHECK(r.outcome == ReviewOutcome::unreadable);
            CHECK(r.content_type == "text/plain; charset=utf-8");
            CHECK_THAT(r.error, Catch::Contains(c.says));
            CHECK(r.body == r.error + "\n");
        }
    }
}

TEST_CASE("the upstream AdmissionReview round-trip fixtures get a clear answer", "[admission_review]") {
    SECTION("v1: placeholder operation") {
        const auto r = run(read_fixture("admission.k8s.io.v1.AdmissionReview.json"));
        CHECK(r.outcome == ReviewOutcome::bad_request);
        CHECK_THAT(r.body, Catch::StartsWith(R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"uidValue","allowed":false)"));
        CHECK_THAT(r.error, Catch::Contains("\"operationValue\" is not one of CREATE, UPDATE, DELETE, CONNECT"));
    }
    SECTION("v1beta1: answered in its own apiVersion, naming the one served") {
        const auto r = run(read_fixture("admission.k8s.io.v1beta1.AdmissionReview.json"));
        CHECK(r.outcome == ReviewOutcome::bad_request);
        CHECK_THAT(r.body, Catch::StartsWith(R"({"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","response":{"uid":"uidValue")"));
        CHECK_THAT(r.error, Catch::Contains("admission.k8s.io/v1"));
    }
}

TEST_CASE("what the response echoes is escaped", "[admission_review]") {
    SECTION("quotes, backslashes and control characters in the uid and the reference") {
        const std::string body = envelope(R"({"uid":"u\"1\\\u0001","kind":{"group":"worker.gpustack.ai","version":"v1","kind":"ModelArtifact"},"operation":"CREATE",)"
                                          R"("object":{"spec":{"source":{"image":{"reference":"a\"b\u0007"}}}}})");
        const auto r = run(body);
        CHECK(r.outcome == ReviewOutcome::denied);
        CHECK_THAT(r.body, Catch::Contains(R"("uid":"u\"1\\\u0001")"));
        CHECK_THAT(r.body, Catch::Contains(R"(Invalid value: \"a\\\"b\\x07\")"));
    }
    SECTION("a megabyte of reference is not echoed back") {
        const auto r = run(artifact_review("CREATE", image_spec(std::string(1 << 20, 'a'))));
        CHECK(r.outcome == ReviewOutcome::denied);
        CHECK(r.rules == "reference-too-long");
        CHECK(r.body.size() < 4096);
    }
}

TEST_CASE("the apiserver version reaches the rules", "[admission_review]") {
    const auto r = run(artifact_review("CREATE", image_spec(kPinned)), Endpoint::validate, "v1.34.0");
    CHECK(r.outcome == ReviewOutcome::denied);
    CHECK(r.rules == "apiserver-floor");
    CHECK_THAT(r.body, Catch::Contains(R"("field":"spec.source.image")"));
    CHECK_THAT(r.body, Catch::Contains(R"("reason":"FieldValueForbidden")"));
}

TEST_CASE("dry-run requests are answered like any other", "[admission_review]") {
    const auto r = run(envelope(R"({"uid":"u","kind":{"group":"worker.gpustack.ai","version":"v1","kind":"ModelArtifact"},"operation":"CREATE","dryRun":true,)"
                                R"("object":{"spec":{"source":{"image":{"reference":"qwen:v1"}}}}})"));
    CHECK(r.dry_run);
    CHECK(r.outcome == ReviewOutcome::denied);
}

namespace {

const std::string kOptIn = R"("metadata":{"name":"qwen-0","labels":{"gpustack.ai/model-delivery":"image"},"annotations":{"gpustack.ai/model-image":")" + kPinned + R"("}})";

std::string pod_review(const std::string& operation, const std::string& metadata, const std::string& spec) {
    return envelope(R"({"uid":"p-1","kind":{"group":"","version":"v1","kind":"Pod"},"name":"qwen-0","namespace":"gpustack","operation":")" + operation +
                    R"(","object":{"apiVersion":"v1","kind":"Pod",)" + metadata + R"(,"spec":)" + spec + "}}");
}

ReviewResult run_with_nodes(std::string body, Endpoint endpoint, const NodeSource* nodes) {
    ReviewContext context;
    context.endpoint = endpoint;
    context.policy.apiserver = ApiserverVersion::from_text("v1.35.0");
    context.nodes = nodes;
    return review(body, context);
}

}  // namespace

TEST_CASE("a mutation travels as a base64 JSON Patch", "[admission_review]") {
    const auto r = run(pod_review("CREATE", kOptIn, R"({"containers":[{"name":"c","image":"i"}]})"), Endpoint::mutate);
    CHECK(r.outcome == ReviewOutcome::allowed);
    CHECK(r.patch == R"([{"op":"add","path":"/spec/volumes","value":[{"name":"gpustack-model","image":{"reference":")" + kPinned +
                         R"("}}]},{"op":"add","path":"/spec/containers/0/volumeMounts","value":[{"name":"gpustack-model","mountPath":"/var/lib/gpustack/model","readOnly":true}]}])");
    CHECK_THAT(r.body, Catch::StartsWith(R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"p-1","allowed":true,"patch":")"));
    CHECK_THAT(r.body, Catch::EndsWith(R"(","patchType":"JSONPatch"}})"));
    CHECK_THAT(r.body, Catch::Contains(base64_encode(r.patch)));
}

TEST_CASE("no patch where nothing changes, on delete, or on validate", "[admission_review]") {
    SECTION("not opted in") {
        const auto r = run(pod_review("CREATE", R"("metadata":{"name":"x"})", R"({"containers":[{"name":"c"}]})"), Endpoint::mutate);
        CHECK(r.outcome == ReviewOutcome::allowed);
        CHECK(r.body.find("patch") == std::string::npos);
    }
    SECTION("delete") {
        const auto r = run(envelope(R"({"uid":"p","kind":{"group":"","version":"v1","kind":"Pod"},"operation":"DELETE","object":null,"oldObject":{"metadata":{}}})"),
                           Endpoint::mutate);
        CHECK(r.outcome == ReviewOutcome::allowed);
        CHECK(r.body.find("patch") == std::string::npos);
    }
    SECTION("an opted-in Pod sent to validate") {
        const auto r = run(pod_review("CREATE", kOptIn, R"({"containers":[{"name":"c"}]})"), Endpoint::validate);
        CHECK(r.outcome == ReviewOutcome::allowed);
        CHECK(r.body.find("patch") == std::string::npos);
    }
}

TEST_CASE("pod specs of the wrong shape get a review-shaped 400 naming the field", "[admission_review]") {
    struct Case {
        const char* name;
        std::string spec;
        std::string says;
    };
    const std::vector<Case> cases = {
        {"containers as an object", R"({"containers":{"name":"c"}})", "request.object.spec.containers must be an array, not an object"},
        {"a container as a string", R"({"containers":["c"]})", "request.object.spec.containers[0] must be an object, not a string"},
        {"env as an object", R"({"containers":[{"name":"c","env":{"HF_TOKEN":"x"}}]})", "request.object.spec.containers[0].env must be an array"},
        {"an env name as a number", R"({"containers":[{"name":"c","env":[{"name":5}]}]})", "request.object.spec.containers[0].env[0].name must be a string"},
        {"volumeMounts as a string", R"({"initContainers":[{"name":"i","volumeMounts":"x"}]})", "request.object.spec.initContainers[0].volumeMounts must be an array"},
        {"a mountPath as a list", R"({"containers":[{"name":"c","volumeMounts":[{"name":"v","mountPath":[]}]}]})", "volumeMounts[0].mountPath must be a string"},
        {"args as a string", R"({"containers":[{"name":"c","args":"--revision x"}]})", "request.object.spec.containers[0].args must be an array"},
        {"volumes as an object", R"({"volumes":{},"containers":[]})", "request.object.spec.volumes must be an array"},
        {"an image volume as a string", R"({"volumes":[{"name":"v","image":"r.io/x"}]})", "request.object.spec.volumes[0].image must be an object"},
        {"spec as a list", R"([])", "request.object/spec must be an object"},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            const auto r = run(pod_review("CREATE", kOptIn, c.spec), Endpoint::mutate);
            CHECK(r.http_status == 200);
            CHECK(r.outcome == ReviewOutcome::bad_request);
            CHECK_THAT(r.error, Catch::Contains(c.says));
        }
    }
    SECTION("the annotation as a number") {
        const auto r = run(pod_review("CREATE", R"("metadata":{"labels":{"gpustack.ai/model-delivery":"image"},"annotations":{"gpustack.ai/model-image":5}})",
                                      R"({"containers":[]})"),
                           Endpoint::mutate);
        CHECK(r.outcome == ReviewOutcome::bad_request);
        CHECK_THAT(r.error, Catch::Contains("annotations[gpustack.ai/model-image] must be a string"));
    }
    SECTION("an object that does not opt in is not read") {
        const auto r = run(pod_review("CREATE", R"("metadata":{"name":"x"})", R"({"containers":{"broken":true}})"), Endpoint::mutate);
        CHECK(r.outcome == ReviewOutcome::allowed);
    }
}

TEST_CASE("workload kinds are rendered at their templates", "[admission_review]") {
    const std::string deployment = envelope(
        R"({"uid":"d-1","kind":{"group":"apps","version":"v1","kind":"Deployment"},"operation":"UPDATE","object":{"apiVersion":"apps/v1","kind":"Deployment",)" + kOptIn +
        R"(,"spec":{"template":{"metadata":{},"spec":{"volumes":[],"containers":[{"name":"c","volumeMounts":[]}]}}}},"oldObject":{}})");
    const auto r = run(deployment, Endpoint::mutate);
    CHECK(r.outcome == ReviewOutcome::allowed);
    CHECK_THAT(r.patch, Catch::Contains(R"({"op":"add","path":"/spec/template/spec/volumes/-")"));
    CHECK_THAT(r.patch, Catch::Contains(R"({"op":"add","path":"/spec/template/spec/containers/0/volumeMounts/-")"));
}

TEST_CASE("the node check reads the Pod's pinning and image volumes", "[admission_review]") {
    StaticNodeSource nodes("--nodes nodes.yaml");
    // Named as clouds name them: the hostname label is not the Node's name.
    nodes.add("gpu-old.ec2.internal", {"v1.34.0", "containerd://2.0.0", "gpu-old"});
    nodes.add("gpu-new.ec2.internal", {"v1.35.0", "containerd://2.1.1", "gpu-new"});
    const std::string volumes = R"("volumes":[{"name":"gpustack-model","image":{"reference":")" + kPinned + R"("}}],"containers":[{"name":"c"}])";
    struct Case {
        const char* name;
        std::string spec;
        ReviewOutcome outcome;
        std::string rules;
    };
    const std::vector<Case> cases = {
        {"nodeName on an old node", "{" + volumes + R"(,"nodeName":"gpu-old.ec2.internal"})", ReviewOutcome::denied, "node-floor"},
        {"nodeName on a new node", "{" + volumes + R"(,"nodeName":"gpu-new.ec2.internal"})", ReviewOutcome::allowed, ""},
        {"nodeName is a Node's name, not its label", "{" + volumes + R"(,"nodeName":"gpu-new"})", ReviewOutcome::denied, "node-not-found"},
        {"nodeSelector on hostname of a new node", "{" + volumes + R"(,"nodeSelector":{"kubernetes.io/hostname":"gpu-new"}})", ReviewOutcome::allowed, ""},
        {"nodeSelector on hostname is a label, not a Node's name", "{" + volumes + R"(,"nodeSelector":{"kubernetes.io/hostname":"gpu-new.ec2.internal"}})",
         ReviewOutcome::denied, "node-not-found"},
        {"nodeSelector on hostname", "{" + volumes + R"(,"nodeSelector":{"kubernetes.io/hostname":"gpu-old","pool":"a"}})", ReviewOutcome::denied, "node-floor"},
        {"required affinity on hostname",
         "{" + volumes +
             R"(,"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"kubernetes.io/hostname","operator":"In","values":["gpu-old"]}]}]}}}})",
         ReviewOutcome::denied, "node-floor"},
        {"DaemonSet-style matchFields",
         "{" + volumes +
             R"(,"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"In","values":["gpu-gone"]}]}]}}}})",
         ReviewOutcome::denied, "node-not-found"},
        {"NotIn does not pin",
         "{" + volumes +
             R"(,"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"kubernetes.io/hostname","operator":"NotIn","values":["gpu-old"]}]}]}}}})",
         ReviewOutcome::allowed, ""},
        {"preferred affinity does not pin",
         "{" + volumes +
             R"(,"affinity":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"preference":{"matchExpressions":[{"key":"kubernetes.io/hostname","operator":"In","values":["gpu-old"]}]}}]}}})",
         ReviewOutcome::allowed, ""},
        {"no image volume", R"({"containers":[{"name":"c"}],"nodeName":"gpu-old.ec2.internal"})", ReviewOutcome::allowed, ""},
        {"unpinned", "{" + volumes + "}", ReviewOutcome::allowed, ""},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            const auto r = run_with_nodes(pod_review("CREATE", R"("metadata":{"name":"qwen-0"})", c.spec), Endpoint::validate, &nodes);
            INFO(r.body);
            CHECK(r.outcome == c.outcome);
            CHECK(r.rules == c.rules);
            if (c.outcome == ReviewOutcome::denied) {
                CHECK_THAT(r.body, Catch::Contains(R"("reason":"Forbidden","code":403})"));
                CHECK(r.body.find("patch") == std::string::npos);
            }
        }
    }
}

TEST_CASE("strings read the same whatever their length and wherever their escapes fall", "[admission_review]") {
    // Long unescaped runs are scanned in 16-byte blocks; escapes shift the
    // text left as it is unescaped in place. Every length and escape position
    // across a few blocks must give back the same uid.
    for (std::size_t length = 1; length <= 48; ++length) {
        for (std::size_t escape_at = 0; escape_at <= length; ++escape_at) {
            std::string uid(length, ' ');
            for (std::size_t i = 0; i < length; ++i) uid[i] = static_cast<char>('a' + i % 26);
            std::string json_uid = uid;
            if (escape_at < length) {
                uid[escape_at] = '/';
                json_uid.replace(escape_at, 1, "\\/");
            }
            std::string body = artifact_review("CREATE", image_spec(kPinned));
            body.replace(body.find("\"u-1\""), 5, "\"" + json_uid + "\"");
            const auto answer = run(body);
            INFO("length " << length << ", escape at " << escape_at);
            REQUIRE(answer.outcome == ReviewOutcome::allowed);
            CHECK(answer.uid == uid);
        }
    }
}

TEST_CASE("the compact reader and RapidJSON give the same answers", "[admission_review]") {
    // The examples' bodies as they are, and each compact one with an escape
    // added, so that both paths through the reader are taken.
    const std::string examples = std::string(MIW_FIXTURES_DIR) + "/../../examples/reviews/";
    struct Case {
        const char* name;
        std::string body;
    };
    std::vector<Case> cases = {
        {"escaped annotation", envelope(R"({"uid":"e","kind":{"group":"","version":"v1","kind":"Pod"},"operation":"CREATE","object":{"metadata":{"annotations":{"note":"a\"b\u00e9"}},"spec":{"containers":[]}}})")},
        {"fraction and exponent", envelope(R"({"uid":"n","kind":{"group":"","version":"v1","kind":"Pod"},"operation":"CREATE","object":{"spec":{"priority":1.5e3,"containers":[]}}})")},
        {"not JSON", "{\"apiVersion\":"},
        {"too deep", nested_objects(kMaxJsonDepth + 1)},
        {"non-ASCII", envelope(R"({"uid":"caf)" "\xc3\xa9" R"("})")},
    };
    for (const char* name : {"artifact-pinned-create", "artifact-tag-only", "pod-vllm-download-era", "deployment-vllm", "pod-pinned-old-node",
                             "artifact-update-changed", "malformed-operation"}) {
        std::ifstream in(examples + name + ".json", std::ios::binary);
        REQUIRE(in.good());
        cases.push_back({name, std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>())});
    }
    for (const auto& c : cases) {
        for (Endpoint endpoint : {Endpoint::validate, Endpoint::mutate}) {
            DYNAMIC_SECTION(c.name << (endpoint == Endpoint::validate ? " (validate)" : " (mutate)")) {
                ReviewContext context;
                context.endpoint = endpoint;
                context.policy.apiserver = ApiserverVersion::from_text("v1.35.0");
                std::string compact_body = c.body, reference_body = c.body;
                const ReviewResult compact = review(compact_body, context);
                context.json_reader = JsonReader::rapidjson_only;
                const ReviewResult reference = review(reference_body, context);
                CHECK(compact.http_status == reference.http_status);
                CHECK(compact.outcome == reference.outcome);
                CHECK(compact.error == reference.error);
                CHECK(compact.body == reference.body);
            }
        }
    }
}

namespace {

// A budget like the server's bytes in flight: what is taken, at most, and what is still out.
struct CountingMemory final : ReviewMemory {
    std::size_t limit = static_cast<std::size_t>(-1);
    std::size_t in_use = 0;
    std::size_t peak = 0;
    int reserves = 0;
    bool reserve(std::size_t bytes) override {
        ++reserves;
        if (bytes > limit - in_use) return false;
        in_use += bytes;
        peak = std::max(peak, in_use);
        return true;
    }
    void release(std::size_t bytes) override { in_use -= bytes; }
    std::size_t capacity() const override { return limit; }
};

// A Pod review whose object holds `count` small values in one list (a body of
// about 2 bytes a value, which a DOM holds in 16), then `tail` as its last.
std::string review_of_small_values(std::size_t count, std::string_view tail = "") {
    std::string list;
    list.reserve(count * 2 + tail.size() + 1);
    for (std::size_t i = 0; i < count; ++i) list += i == 0 ? "0" : ",0";
    if (!tail.empty()) (list += ',') += tail;
    return envelope(R"({"uid":"u-small","kind":{"group":"","version":"v1","kind":"Pod"},"operation":"CREATE","object":{"metadata":{"name":"p"},"data":[)" +
                    list + "]}}");
}

ReviewResult run_with(std::string body, ReviewMemory* memory, JsonReader reader) {
    ReviewContext context;
    context.endpoint = Endpoint::mutate;
    context.policy.apiserver = ApiserverVersion::from_text("v1.35.0");
    context.memory = memory;
    context.json_reader = reader;
    return review(body, context);
}

}  // namespace

TEST_CASE("the JSON a review reads takes memory from the budget it is given, and gives it back", "[admission_review]") {
    for (const JsonReader reader : {JsonReader::compact_first, JsonReader::rapidjson_only}) {
        DYNAMIC_SECTION((reader == JsonReader::compact_first ? "compact reader" : "RapidJSON alone")) {
            SECTION("a Pod of ordinary size takes nothing beyond its thread's arena") {
                CountingMemory memory;
                const auto r = run_with(review_of_small_values(2000), &memory, reader);
                CHECK(r.outcome == ReviewOutcome::allowed);
                CHECK(memory.reserves == 0);
            }
            SECTION("a large document takes blocks as it grows, all given back") {
                CountingMemory memory;
                const auto r = run_with(review_of_small_values(200000), &memory, reader);
                CHECK(r.outcome == ReviewOutcome::allowed);
                CHECK(r.http_status == 200);
                CHECK(memory.peak >= 200000 * 16);  // at least its values' 16 bytes each in the DOM
                CHECK(memory.in_use == 0);
            }
            SECTION("a document the budget cannot hold while other requests hold part of it is answered busy, to retry, and nothing stays taken") {
                CountingMemory memory;
                memory.limit = 8u << 20;
                memory.in_use = 4u << 20;  // other requests' bodies, in flight
                const auto r = run_with(review_of_small_values(200000), &memory, reader);
                CHECK(r.outcome == ReviewOutcome::busy);
                CHECK(r.http_status == 503);
                CHECK_THAT(r.body, Catch::Contains("--max-body-bytes-in-flight") && Catch::Contains("retry"));
                CHECK(memory.peak <= memory.limit);
                CHECK(memory.in_use == 4u << 20);
            }
            SECTION("a document the whole budget cannot hold with nothing else in flight is answered 413, not told to retry") {
                CountingMemory memory;
                memory.limit = 1u << 20;
                const auto r = run_with(review_of_small_values(200000), &memory, reader);
                CHECK(r.outcome == ReviewOutcome::unreadable);
                CHECK(r.http_status == 413);
                CHECK_THAT(r.body, Catch::Contains("--max-body-bytes-in-flight") && Catch::Contains("1048576 bytes") && Catch::Contains("even with no other request"));
                CHECK_THAT(r.body, !Catch::Contains("retry"));
                CHECK(memory.in_use == 0);
            }
            SECTION("without a budget the same document is read whole") {
                CHECK(run_with(review_of_small_values(200000), nullptr, reader).outcome == ReviewOutcome::allowed);
            }
            SECTION("a document read twice (the compact reader declines at its last value) is counted twice, its arena once") {
                // An escaped surrogate pair: the compact reader declines it after
                // building everything before it, and RapidJSON reads the text again.
                // 24.75 blocks of values a read: the arena's free part, counted
                // for each read, would leave a block of the 49.5 uncounted.
                constexpr std::size_t kValuesPerBlock = (256u << 10) / 32;
                constexpr std::size_t count = kValuesPerBlock * 24 + kValuesPerBlock * 3 / 4;
                CountingMemory memory;
                const auto r = run_with(review_of_small_values(count, R"("\ud83d\ude00")"), &memory, reader);
                CHECK(r.outcome == ReviewOutcome::allowed);
                const std::size_t reads = reader == JsonReader::compact_first ? 2 : 1;
                CHECK(memory.peak + (256u << 10) >= reads * count * 32);
                CHECK(memory.in_use == 0);
            }
        }
    }
}

TEST_CASE("a thread's arena is the small one unless it asks for the large one before its first review", "[admission_review]") {
    struct Case {
        const char* name;
        std::size_t before;  // asked for before the first review (0: nothing)
        std::size_t after;   // asked for after it (0: nothing)
        std::size_t kept;
    };
    const Case cases[] = {
        {"a thread that asks for nothing keeps the small arena", 0, 0, kReviewArenaBytes},
        {"an I/O thread asks for the large one first", kLargeReviewArenaBytes, 0, kLargeReviewArenaBytes},
        {"asking after the first review changes nothing", 0, kLargeReviewArenaBytes, kReviewArenaBytes},
        {"nor does asking for less once it is large", kLargeReviewArenaBytes, kReviewArenaBytes, kLargeReviewArenaBytes},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            // Each case on a thread of its own: the arena is the thread's for its life.
            std::size_t kept = 0;
            ReviewOutcome first = ReviewOutcome::internal_error;
            ReviewOutcome large = ReviewOutcome::internal_error;
            std::thread([&] {
                if (c.before != 0) set_thread_review_arena(c.before);
                first = run_with(review_of_small_values(100), nullptr, JsonReader::compact_first).outcome;
                if (c.after != 0) set_thread_review_arena(c.after);
                // A review larger than the small arena reads the same in either.
                large = run_with(review_of_small_values(40000), nullptr, JsonReader::compact_first).outcome;
                kept = thread_review_arena();
            }).join();
            CHECK(first == ReviewOutcome::allowed);
            CHECK(large == ReviewOutcome::allowed);
            CHECK(kept == c.kept);
        }
    }
}
