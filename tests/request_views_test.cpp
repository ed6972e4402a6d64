// The request's views, read from its DOM: only what the request's rules need,
// every field's type checked, every problem told with its path.
#include "../src/codec/request_views.hpp"

#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <vector>

using namespace miw;
using namespace miw::json;

namespace {

struct Read {
    std::string text;  // the DOM's strings point into it
    Document doc;
    AdmissionRequest req;
    std::optional<RequestError> error;
};

void read(Read& r, std::string request, Endpoint endpoint) {
    r.text = std::move(request);
    REQUIRE(parse_document(r.text, r.doc).empty());
    r.error = read_request(&r.doc, endpoint, r.req);
}

std::string request(const std::string& group, const std::string& kind, const std::string& operation, const std::string& object,
                    const std::string& extra = "") {
    return R"({"uid":"u","kind":{"group":")" + group + R"(","version":"v1","kind":")" + kind + R"("},"operation":")" + operation +
           R"(","namespace":"ns")" + extra + R"(,"object":)" + object + "}";
}

const std::string kOptedInPod = R"({"metadata":{"name":"p","labels":{"gpustack.ai/model-delivery":"image"},)"
                                R"("annotations":{"gpustack.ai/model-image":"r.io/m@sha256:abc"}},)"
                                R"("spec":{"nodeName":"n1","volumes":[{"name":"v","emptyDir":{}}],)"
                                R"("containers":[{"name":"c","args":["--model","x",3],"env":[{"name":"HF_TOKEN","value":"s"}],)"
                                R"("volumeMounts":[{"name":"v","mountPath":"/data"}]}]}})";

}  // namespace

TEST_CASE("a ModelArtifact is routed to its rules with its view, and its name from the object", "[request_views]") {
    Read r;
    read(r, R"({"uid":"u","kind":{"group":"worker.gpustack.ai","version":"v1alpha1","kind":"ModelArtifact"},"operation":"CREATE",)"
            R"("object":{"metadata":{"name":"q"},"spec":{"source":{"image":{"reference":"r.io/m:v1"}}}}})",
         Endpoint::validate);
    REQUIRE_FALSE(r.error);
    CHECK(r.req.rules == RuleSet::model_artifact);
    CHECK(r.req.name == "q");  // from the object when the request names none
    REQUIRE(r.req.model_artifact);
    CHECK(r.req.model_artifact->reference_value == "r.io/m:v1");
    CHECK_FALSE(r.req.workload);
}

TEST_CASE("a Pod's views are read for the rules it is routed to", "[request_views]") {
    SECTION("mutate: the delivery reads the pod spec") {
        Read r;
        read(r, request("", "Pod", "CREATE", kOptedInPod), Endpoint::mutate);
        REQUIRE_FALSE(r.error);
        CHECK(r.req.rules == RuleSet::delivery);
        REQUIRE(r.req.workload);
        const WorkloadView& w = *r.req.workload;
        CHECK(w.is_pod);
        CHECK(w.opt_in_label == "image");
        CHECK(w.model_image == "r.io/m@sha256:abc");
        REQUIRE(w.pod_specs.size() == 1);
        const PodSpecView& spec = w.pod_specs[0];
        CHECK(spec.pointer == "/spec");
        CHECK(spec.node_name == "n1");
        REQUIRE(spec.containers.size() == 1);
        CHECK(spec.containers[0].env.size() == 1);
        CHECK(spec.containers[0].volume_mounts.size() == 1);
        REQUIRE(spec.containers[0].args.size() == 3);
        CHECK((spec.containers[0].args[1].is_string && spec.containers[0].args[1].text == "x"));
        CHECK_FALSE(spec.containers[0].args[2].is_string);  // a number stays what it is
        CHECK_FALSE(w.being_deleted);
    }
    SECTION("an object being deleted says so: its finalizers coming off are not looked up in a registry") {
        const std::string deployment = R"({"metadata":{"name":"d","deletionTimestamp":"2026-12-05T08:00:00Z","finalizers":["foregroundDeletion"],)"
                                       R"("labels":{"gpustack.ai/model-delivery":"image"},"annotations":{"gpustack.ai/model-image":"r.io/m@sha256:abc"}},)"
                                       R"("spec":{"template":{"spec":{"containers":[{"name":"c"}]}}}})";
        Read r;
        read(r, request("apps", "Deployment", "UPDATE", deployment), Endpoint::mutate);
        REQUIRE_FALSE(r.error);
        REQUIRE(r.req.workload);
        CHECK(r.req.workload->being_deleted);
    }
    SECTION("an environment variable's name and value, as Go's decoder keeps them") {
        Read r;
        const std::string pod = R"({"metadata":{"name":"p","labels":{"gpustack.ai/model-delivery":"image"}},"spec":{"containers":[{"name":"c",)"
                                R"("env":[{"value":"first","name":"A","value":"last","name":"HF_TOKEN"},{"name":"B","valueFrom":{"secretKeyRef":{}}},)"
                                R"({"name":null,"value":7},{}]}]}})";
        read(r, request("", "Pod", "CREATE", pod), Endpoint::mutate);
        REQUIRE_FALSE(r.error);
        REQUIRE(r.req.workload);
        const std::vector<EnvVarView>& env = r.req.workload->pod_specs.at(0).containers.at(0).env;
        REQUIRE(env.size() == 4);
        CHECK((env[0].name == "HF_TOKEN" && env[0].has_string_value && env[0].value == "last"));  // the last of duplicate keys
        CHECK((env[1].name == "B" && !env[1].has_string_value));
        CHECK((env[2].name.empty() && !env[2].has_string_value));  // null is absent; a number is no string value
        CHECK((env[3].name.empty() && !env[3].has_string_value));
    }
    SECTION("a container's and a mount's members, the last of duplicates read, as Go's decoder keeps them") {
        Read r;
        const std::string pod = R"({"metadata":{"name":"p","labels":{"gpustack.ai/model-delivery":"image"}},"spec":{"containers":[)"
                                R"({"image":"first","name":"a","args":["x"],"resources":{},"name":"b","image":"last","envFrom":[{}],"args":["y","z"],)"
                                R"("command":["vllm"],"volumeMounts":[{"mountPath":"/a","readOnly":false,"name":"m","mountPath":"/b","readOnly":true,)"
                                R"("subPath":"s"}],"env":[{"name":"A"}]},{"name":"c","envFrom":[]}]}})";
        read(r, request("", "Pod", "CREATE", pod), Endpoint::mutate);
        REQUIRE_FALSE(r.error);
        REQUIRE(r.req.workload);
        const auto& containers = r.req.workload->pod_specs.at(0).containers;
        REQUIRE(containers.size() == 2);
        const ContainerView& c = containers[0];
        CHECK((c.name == "b" && c.image == "last" && c.has_env_from && c.env.size() == 1));
        REQUIRE(c.args.size() == 2);
        CHECK(c.args[0].text == "y");
        REQUIRE(c.command.size() == 1);
        REQUIRE(c.volume_mounts.size() == 1);
        const VolumeMountView& m = c.volume_mounts[0];
        CHECK((m.name == "m" && m.mount_path == "/b" && m.read_only && m.has_other_settings));
        CHECK((containers[1].name == "c" && !containers[1].has_env_from && !containers[1].has_volume_mounts && containers[1].args.empty()));
    }
    SECTION("validate: the node check reads the pod spec even without the opt-in") {
        Read r;
        read(r, request("", "Pod", "CREATE", R"({"metadata":{"name":"p"},"spec":{"nodeName":"n1","containers":[]}})"), Endpoint::validate);
        REQUIRE_FALSE(r.error);
        CHECK(r.req.rules == RuleSet::pinned_pod);
        REQUIRE(r.req.workload);
        CHECK(r.req.workload->pod_specs.size() == 1);
    }
    SECTION("a workload without the opt-in: its pod specs are not read") {
        Read r;
        read(r, request("apps", "Deployment", "CREATE", R"({"metadata":{"name":"d"},"spec":{"template":{"spec":{"containers":"not a list"}}}})"),
             Endpoint::mutate);
        REQUIRE_FALSE(r.error);  // the wrong type is never looked at
        REQUIRE(r.req.workload);
        CHECK(r.req.workload->pod_specs.empty());
    }
    SECTION("a request no rule covers: no views") {
        Read r;
        read(r, request("apps", "Deployment", "CREATE", kOptedInPod), Endpoint::validate);
        REQUIRE_FALSE(r.error);
        CHECK(r.req.rules == RuleSet::none);
        CHECK_FALSE(r.req.workload);
        CHECK_FALSE(r.req.model_artifact);
    }
}

TEST_CASE("fields of the wrong type are named with their path", "[request_views]") {
    struct Case {
        const char* name;
        std::string request;
        Endpoint endpoint;
        std::string error;
    };
    const std::vector<Case> cases = {
        {"an unknown operation", request("", "Pod", "PATCH", "{}"), Endpoint::mutate, "request.operation \"PATCH\" is not one of"},
        {"a kind without kind", R"({"uid":"u","kind":{"group":""},"operation":"CREATE"})", Endpoint::mutate, "request.kind.kind is missing"},
        {"a namespace that is a number", R"({"uid":"u","kind":{"kind":"Pod"},"operation":"CREATE","namespace":3})", Endpoint::mutate,
         "request.namespace must be a string, not a number"},
        {"dryRun a string", R"({"uid":"u","kind":{"kind":"Pod"},"operation":"CREATE","dryRun":"yes"})", Endpoint::mutate, "request.dryRun must be a boolean"},
        {"an object that is a list", request("", "Pod", "CREATE", "[]"), Endpoint::mutate, "request.object must be an object, not an array"},
        {"env not a list", request("", "Pod", "CREATE", R"({"metadata":{"labels":{"gpustack.ai/model-delivery":"image"}},"spec":{"containers":[{"name":"c","env":{}}]}})"),
         Endpoint::mutate, "request.object.spec.containers[0].env must be an array"},
        {"a container's image that is a number", request("", "Pod", "CREATE", R"({"metadata":{"labels":{"gpustack.ai/model-delivery":"image"}},"spec":{"containers":[{"name":"c","image":1}]}})"),
         Endpoint::mutate, "request.object.spec.containers[0].image must be a string, not a number"},
        {"args not a list", request("", "Pod", "CREATE", R"({"metadata":{"labels":{"gpustack.ai/model-delivery":"image"}},"spec":{"containers":[{"name":"c","args":"--model"}]}})"),
         Endpoint::mutate, "request.object.spec.containers[0].args must be an array, not a string"},
        {"command not a list", request("", "Pod", "CREATE", R"({"metadata":{"labels":{"gpustack.ai/model-delivery":"image"}},"spec":{"containers":[{"command":{}}]}})"),
         Endpoint::mutate, "request.object.spec.containers[0].command must be an array, not an object"},
        {"a mount's path that is a list", request("", "Pod", "CREATE", R"({"metadata":{"labels":{"gpustack.ai/model-delivery":"image"}},"spec":{"containers":[{"volumeMounts":[{"name":"m","mountPath":[]}]}]}})"),
         Endpoint::mutate, "request.object.spec.containers[0].volumeMounts[0].mountPath must be a string, not an array"},
        {"an artifact CREATE without its object", R"({"uid":"u","kind":{"group":"worker.gpustack.ai","kind":"ModelArtifact"},"operation":"CREATE"})",
         Endpoint::validate, "request.object is required for a ModelArtifact CREATE"},
        {"an annotation that is not a string", request("", "Pod", "CREATE", R"({"metadata":{"annotations":{"gpustack.ai/model-image":1}}})"),
         Endpoint::mutate, "annotations[gpustack.ai/model-image] must be a string"},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            Read r;
            read(r, c.request, c.endpoint);
            REQUIRE(r.error);
            CHECK_THAT(r.error->message, Catch::Contains(c.error));
        }
    }
}

TEST_CASE("a pod spec's pull secrets and service account are read as the kubelet reads them", "[request_views]") {
    struct Case {
        const char* name;
        std::string spec;  // members of the pod spec besides its containers
        std::vector<std::string_view> secrets;
        std::string_view account;
    };
    const Case cases[] = {
        {"secrets in order", R"("imagePullSecrets":[{"name":"first"},{"name":"second"}],"serviceAccountName":"puller",)", {"first", "second"}, "puller"},
        {"none", "", {}, ""},
        {"the deprecated serviceAccount where serviceAccountName is not set", R"("serviceAccount":"old-style",)", {}, "old-style"},
        {"serviceAccountName before serviceAccount", R"("serviceAccount":"old","serviceAccountName":"new",)", {}, "new"},
        {"entries without a usable name are passed over", R"("imagePullSecrets":[{},{"name":""},{"name":7},"x",{"name":"ok"}],)", {"ok"}, ""},
        {"a list of another type names none", R"("imagePullSecrets":{"name":"x"},"serviceAccountName":5,)", {}, ""},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            Read r;
            read(r,
                 request("", "Pod", "CREATE",
                         R"({"metadata":{"name":"p","labels":{"gpustack.ai/model-delivery":"image"},"annotations":{"gpustack.ai/model-image":"r.io/m@sha256:abc"}},)"
                         R"("spec":{)" + c.spec + R"("containers":[{"name":"c"}]}})"),
                 Endpoint::mutate);
            REQUIRE_FALSE(r.error);
            REQUIRE(r.req.workload);
            REQUIRE(r.req.workload->pod_specs.size() == 1);
            CHECK(r.req.workload->pod_specs[0].image_pull_secrets == c.secrets);
            CHECK(r.req.workload->pod_specs[0].service_account_name == c.account);
        }
    }
}
