// Pods pinned to a node that cannot run image volumes are refused.
#include "model_image_webhook/policy_node.hpp"

#include <catch2/catch.hpp>

using namespace miw;

namespace {

PodSpecView spec_with_image_volume() {
    PodSpecView spec;
    spec.pointer = "/spec";
    spec.field_path = "spec";
    VolumeView v;
    v.name = "gpustack-model";
    v.image = true;
    v.image_reference = "r.io/q@sha256:0";
    spec.volumes.push_back(v);
    return spec;
}

NodeSelectorTermView term(std::vector<std::vector<std::string_view>> constraints) { return NodeSelectorTermView{std::move(constraints)}; }

AdmissionRequest pod_request() {
    AdmissionRequest req;
    req.uid = "u";
    req.kind = {"", "v1", "Pod"};
    req.name = "qwen-0";
    req.operation = Operation::create;
    return req;
}

WorkloadView pod(PodSpecView spec) {
    WorkloadView w;
    w.is_pod = true;
    w.pod_specs.push_back(std::move(spec));
    return w;
}

class UnavailableNodes : public NodeSource {
public:
    NodeLookup lookup(std::string_view) const override {
        NodeLookup out;
        out.status = NodeLookupStatus::unavailable;
        out.detail = "the Kubernetes API did not answer within 2s";
        return out;
    }
    std::string origin() const override { return "the Kubernetes API"; }
};

}  // namespace

TEST_CASE("a Pod is pinned when one node is named", "[policy_node]") {
    struct Case {
        const char* name;
        PodSpecView spec;
        std::optional<std::string_view> node;
    };
    std::vector<Case> cases;
    PodSpecView s;
    cases.push_back({"nothing pins it", s, std::nullopt});
    s.node_name = "gpu-1";
    cases.push_back({"spec.nodeName", s, "gpu-1"});
    s = {};
    s.has_hostname_selector = true;
    s.hostname_selector = "gpu-2";
    cases.push_back({"nodeSelector on kubernetes.io/hostname", s, "gpu-2"});
    s = {};
    s.required_node_terms = {term({{"gpu-3"}})};
    cases.push_back({"required affinity with one hostname", s, "gpu-3"});
    s.required_node_terms = {term({{"gpu-3", "gpu-4"}})};
    cases.push_back({"required affinity with two hostnames", s, std::nullopt});
    s.required_node_terms = {term({{"gpu-3", "gpu-4"}, {"gpu-4"}})};
    cases.push_back({"two constraints narrowing to one", s, "gpu-4"});
    s.required_node_terms = {term({{"gpu-3"}, {"gpu-4"}})};
    cases.push_back({"contradictory constraints", s, std::nullopt});
    s.required_node_terms = {term({{"gpu-5"}}), term({{"gpu-5"}})};
    cases.push_back({"two terms on the same node (DaemonSet matchFields)", s, "gpu-5"});
    s.required_node_terms = {term({{"gpu-5"}}), term({{"gpu-6"}})};
    cases.push_back({"terms on different nodes", s, std::nullopt});
    s.required_node_terms = {term({{"gpu-5"}}), term({})};
    cases.push_back({"a term that allows any node", s, std::nullopt});
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) { CHECK(pinned_node(c.spec) == c.node); }
    }
}

TEST_CASE("node versions against both floors", "[policy_node]") {
    struct Case {
        const char* kubelet;
        const char* runtime;
        const char* problem;  // a fragment, or "" when the node is fine
    };
    const Case cases[] = {
        {"v1.35.0", "containerd://2.1.0", ""},
        {"v1.35.0-rc.1", "containerd://2.1.0-beta.0-18-g8237c496", ""},
        {"v1.36.2", "containerd://2.1.6+bottlerocket", ""},
        {"v1.35.7", "containerd://2.2.6", ""},
        {"v2.0.0", "containerd://3.0.0", ""},
        {"v1.34.2", "containerd://2.1.0", "kubelet v1.34.2 is older than 1.35"},
        {"v1.35.0", "containerd://2.0.5", "containerd 2.0.5 is older than 2.1"},
        {"v1.35.0", "containerd://1.7.27", "containerd 1.7.27 is older than 2.1"},
        {"v1.35.0", "containerd://Unknown", "containerd version \"Unknown\" cannot be read"},
        {"v1.35.0", "containerd://", "containerd version \"\" cannot be read"},
        {"v1.35.0", "cri-o://1.33.0", "runtime is \"cri-o://1.33.0\", not containerd"},
        {"v1.35.0", "docker://27.0", "runtime is \"docker://27.0\", not containerd"},
        {"v1.35.0", "", "runtime is not reported"},
        {"v1.35.0", "containerd 2.1.0", "not containerd"},
        {"", "containerd://2.1.0", "kubelet version \"\" cannot be read"},
        {"v1.33.1", "cri-o://1.33.0", "kubelet v1.33.1 is older than 1.35; its container runtime is \"cri-o://1.33.0\""},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.kubelet << " / " << c.runtime) {
            const std::string problem = node_floor_problem({c.kubelet, c.runtime});
            if (std::string_view(c.problem).empty()) CHECK(problem.empty());
            else CHECK_THAT(problem, Catch::Contains(c.problem));
        }
    }
}

TEST_CASE("pinned Pods that mount an image volume are checked against their node", "[policy_node]") {
    StaticNodeSource nodes("--nodes nodes.yaml");
    nodes.add("gpu-new", {"v1.35.1", "containerd://2.1.4"});
    nodes.add("gpu-old", {"v1.34.3", "containerd://2.0.5"});
    PodSpecView pinned_new = spec_with_image_volume();
    pinned_new.node_name = "gpu-new";
    PodSpecView pinned_old = spec_with_image_volume();
    pinned_old.node_name = "gpu-old";
    PodSpecView pinned_missing = spec_with_image_volume();
    pinned_missing.node_name = "gpu-gone";
    PodSpecView unpinned = spec_with_image_volume();
    PodSpecView no_image = pinned_old;
    no_image.volumes.clear();

    SECTION("a node that meets both floors") { CHECK(judge_pinned_pod(pod_request(), pod(pinned_new), &nodes).allowed); }
    SECTION("an unpinned Pod is not checked") { CHECK(judge_pinned_pod(pod_request(), pod(unpinned), &nodes).allowed); }
    SECTION("a Pod without an image volume is not checked") { CHECK(judge_pinned_pod(pod_request(), pod(no_image), &nodes).allowed); }
    SECTION("an old node names the node, the versions and both floors") {
        const Decision d = judge_pinned_pod(pod_request(), pod(pinned_old), &nodes);
        CHECK_FALSE(d.allowed);
        CHECK(d.code == 403);
        CHECK(d.reason == "Forbidden");
        CHECK(d.rule_annotation() == "node-floor");
        CHECK(d.message ==
              "Pod \"qwen-0\" mounts an image volume and is pinned to node \"gpu-old\" (kubelet \"v1.34.3\", runtime \"containerd://2.0.5\"), which cannot run "
              "it: its kubelet v1.34.3 is older than 1.35; its containerd 2.0.5 is older than 2.1; image volumes need kubelet 1.35 or newer and containerd 2.1 or "
              "newer: pin the Pod to a node that meets both, or upgrade the node");
    }
    SECTION("a node that does not exist") {
        const Decision d = judge_pinned_pod(pod_request(), pod(pinned_missing), &nodes);
        CHECK_FALSE(d.allowed);
        CHECK(d.rule_annotation() == "node-not-found");
        CHECK_THAT(d.message, Catch::Contains("\"gpu-gone\", which does not exist (looked up in --nodes nodes.yaml)"));
    }
    SECTION("no node source at all") {
        const Decision d = judge_pinned_pod(pod_request(), pod(pinned_new), nullptr);
        CHECK(d.rule_annotation() == "node-not-found");
    }
    SECTION("a lookup that fails says why") {
        UnavailableNodes unavailable;
        const Decision d = judge_pinned_pod(pod_request(), pod(pinned_new), &unavailable);
        CHECK_FALSE(d.allowed);
        CHECK(d.rule_annotation() == "node-unavailable");
        CHECK_THAT(d.message, Catch::Contains("could not be checked (the Kubernetes API did not answer within 2s)"));
    }
}
