// Pods pinned to a node that cannot run image volumes are refused.
#include "model_image_webhook/policy_node.hpp"
#include "model_image_webhook/text.hpp"

#include <catch2/catch.hpp>

using namespace miw;

namespace {

const PolicyConfig kDefaults;  // containerd 2.1 only


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

// A term of matchExpressions on kubernetes.io/hostname, one per list of values.
NodeSelectorTermView term(const std::vector<std::vector<std::string_view>>& constraints) {
    NodeSelectorTermView t;
    for (const auto& values : constraints) t.node_constraints.push_back({NodeNamedBy::hostname_label, values});
    return t;
}

// A term of matchFields on metadata.name, as the DaemonSet controller writes it.
NodeSelectorTermView by_name(std::string_view node) { return NodeSelectorTermView{{{NodeNamedBy::name, {node}}}}; }

NodeRef named(std::string_view node) { return {node, NodeNamedBy::name}; }
NodeRef labelled(std::string_view hostname) { return {hostname, NodeNamedBy::hostname_label}; }

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
    NodeLookup lookup(const NodeRef&) const override {
        NodeLookup out;
        out.status = NodeLookupStatus::unavailable;
        out.detail = "the Kubernetes API did not answer within 2s";
        return out;
    }
    std::string origin() const override { return "the Kubernetes API"; }
    std::optional<std::vector<std::string>> nodes_holding(std::string_view, std::size_t) const override { return std::nullopt; }
};

}  // namespace

TEST_CASE("a Pod is pinned when one node is named, by its name or by its hostname label", "[policy_node]") {
    struct Case {
        const char* name;
        PodSpecView spec;
        std::optional<NodeRef> node;
    };
    std::vector<Case> cases;
    PodSpecView s;
    cases.push_back({"nothing pins it", s, std::nullopt});
    s.node_name = "gpu-1";
    cases.push_back({"spec.nodeName names the Node", s, named("gpu-1")});
    s = {};
    s.has_hostname_selector = true;
    s.hostname_selector = "gpu-2";
    cases.push_back({"a nodeSelector on kubernetes.io/hostname names the label's value", s, labelled("gpu-2")});
    s.node_name = "ip-10-0-2-9.ec2.internal";
    cases.push_back({"spec.nodeName wins over the nodeSelector", s, named("ip-10-0-2-9.ec2.internal")});
    s = {};
    s.required_node_terms = {term({{"gpu-3"}})};
    cases.push_back({"required affinity with one hostname", s, labelled("gpu-3")});
    s.required_node_terms = {term({{"gpu-3", "gpu-4"}})};
    cases.push_back({"required affinity with two hostnames", s, std::nullopt});
    s.required_node_terms = {term({{"gpu-3", "gpu-4"}, {"gpu-4"}})};
    cases.push_back({"two constraints narrowing to one", s, labelled("gpu-4")});
    s.required_node_terms = {term({{"gpu-3"}, {"gpu-4"}})};
    cases.push_back({"contradictory constraints", s, std::nullopt});
    s.required_node_terms = {by_name("gpu-5"), by_name("gpu-5")};
    cases.push_back({"two terms on the same Node (DaemonSet matchFields) name it by its name", s, named("gpu-5")});
    s.required_node_terms = {by_name("gpu-5"), by_name("gpu-6")};
    cases.push_back({"terms on different nodes", s, std::nullopt});
    s.required_node_terms = {by_name("gpu-5"), term({})};
    cases.push_back({"a term that allows any node", s, std::nullopt});
    NodeSelectorTermView both = by_name("ip-10-0-2-9.ec2.internal");
    both.node_constraints.push_back({NodeNamedBy::hostname_label, {"ip-10-0-2-9"}});
    s.required_node_terms = {both};
    cases.push_back({"one term naming the node both ways takes its name", s, named("ip-10-0-2-9.ec2.internal")});
    s.required_node_terms = {by_name("gpu-7"), term({{"gpu-7"}})};
    cases.push_back({"terms naming a node in different ways cannot be told to be one", s, std::nullopt});
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
            const std::string problem = node_floor_problem({c.kubelet, c.runtime}, kDefaults.runtime_floors);
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

    SECTION("a node that meets both floors") { CHECK(judge_pinned_pod(pod_request(), pod(pinned_new), &nodes, kDefaults).allowed); }
    SECTION("an unpinned Pod is not checked") { CHECK(judge_pinned_pod(pod_request(), pod(unpinned), &nodes, kDefaults).allowed); }
    SECTION("a Pod without an image volume is not checked") { CHECK(judge_pinned_pod(pod_request(), pod(no_image), &nodes, kDefaults).allowed); }
    SECTION("an old node names the node, the versions and both floors") {
        const Decision d = judge_pinned_pod(pod_request(), pod(pinned_old), &nodes, kDefaults);
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
        const Decision d = judge_pinned_pod(pod_request(), pod(pinned_missing), &nodes, kDefaults);
        CHECK_FALSE(d.allowed);
        CHECK(d.rule_annotation() == "node-not-found");
        CHECK_THAT(d.message, Catch::Contains("\"gpu-gone\", which does not exist (looked up in --nodes nodes.yaml)"));
    }
    SECTION("no node source at all") {
        const Decision d = judge_pinned_pod(pod_request(), pod(pinned_new), nullptr, kDefaults);
        CHECK(d.rule_annotation() == "node-not-found");
    }
    SECTION("a Pod pinned by its hostname label finds the Node carrying it, whatever the Node's name") {
        StaticNodeSource cloud("--nodes nodes.yaml");
        cloud.add("ip-10-0-2-9.ec2.internal", {"v1.34.3", "containerd://2.0.5", "ip-10-0-2-9"});
        cloud.add("ip-10-0-3-1.ec2.internal", {"v1.35.1", "containerd://2.1.4", "ip-10-0-3-1"});
        PodSpecView by_label = spec_with_image_volume();
        by_label.has_hostname_selector = true;
        by_label.hostname_selector = "ip-10-0-2-9";
        const Decision old = judge_pinned_pod(pod_request(), pod(by_label), &cloud, kDefaults);
        CHECK_FALSE(old.allowed);
        CHECK(old.rule_annotation() == "node-floor");
        CHECK_THAT(old.message, Catch::Contains("pinned to the node labelled kubernetes.io/hostname=\"ip-10-0-2-9\" (kubelet \"v1.34.3\""));
        by_label.hostname_selector = "ip-10-0-3-1";
        CHECK(judge_pinned_pod(pod_request(), pod(by_label), &cloud, kDefaults).allowed);
        by_label.hostname_selector = "ip-10-0-3-1.ec2.internal";  // a Node's name is not its label
        const Decision missing = judge_pinned_pod(pod_request(), pod(by_label), &cloud, kDefaults);
        CHECK(missing.rule_annotation() == "node-not-found");
        CHECK_THAT(missing.message, Catch::Contains("kubernetes.io/hostname=\"ip-10-0-3-1.ec2.internal\", which does not exist"));
    }
    SECTION("a lookup that fails says why") {
        UnavailableNodes unavailable;
        const Decision d = judge_pinned_pod(pod_request(), pod(pinned_new), &unavailable, kDefaults);
        CHECK_FALSE(d.allowed);
        CHECK(d.rule_annotation() == "node-unavailable");
        CHECK_THAT(d.message, Catch::Contains("could not be checked (the Kubernetes API did not answer within 2s)"));
    }
}

TEST_CASE("runtime floors set which runtimes may run image volumes, and from which version", "[policy_node]") {
    PolicyConfig crio;
    crio.set_runtime_floor(*parse_runtime_floor("cri-o=1.31"));
    PolicyConfig newer_containerd;
    newer_containerd.set_runtime_floor(*parse_runtime_floor("containerd=2.2"));
    struct Case {
        const char* name;
        const PolicyConfig& config;
        const char* runtime;
        const char* problem;  // a fragment, or "" when the node is fine
    };
    const Case cases[] = {
        {"cri-o admitted from its floor", crio, "cri-o://1.31.0", ""},
        {"cri-o above its floor", crio, "cri-o://1.33.2", ""},
        {"cri-o below its floor", crio, "cri-o://1.30.4", "its cri-o 1.30.4 is older than 1.31"},
        {"containerd keeps 2.1 beside cri-o", crio, "containerd://2.1.0", ""},
        {"containerd below 2.1 beside cri-o", crio, "containerd://2.0.5", "its containerd 2.0.5 is older than 2.1"},
        {"another runtime still refused", crio, "docker://27.0", "not containerd or cri-o"},
        {"containerd's floor raised", newer_containerd, "containerd://2.1.6", "its containerd 2.1.6 is older than 2.2"},
        {"containerd's floor raised, met", newer_containerd, "containerd://2.2.0", ""},
        {"cri-o without a floor", kDefaults, "cri-o://1.33.0", "not containerd"},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            const std::string problem = node_floor_problem({"v1.35.0", c.runtime}, c.config.runtime_floors);
            if (std::string_view(c.problem).empty()) CHECK(problem.empty());
            else CHECK_THAT(problem, Catch::Contains(c.problem));
        }
    }
    CHECK(newer_containerd.runtime_floors.size() == 1);  // replaced, not added
    CHECK(crio.runtime_floors.size() == 2);
}

TEST_CASE("runtime floors are read as RUNTIME=VERSION", "[policy_node]") {
    CHECK(parse_runtime_floor("cri-o=1.31")->runtime == "cri-o");
    CHECK(parse_runtime_floor("cri-o=v1.31.2")->floor == KubeVersion{1, 31});
    CHECK_FALSE(parse_runtime_floor("cri-o"));
    CHECK_FALSE(parse_runtime_floor("=1.31"));
    CHECK_FALSE(parse_runtime_floor("cri-o=new"));
    CHECK_FALSE(parse_runtime_floor("CRI O=1.31"));
}

TEST_CASE("a refusal names every accepted runtime's floor", "[policy_node]") {
    PolicyConfig crio;
    crio.set_runtime_floor(*parse_runtime_floor("cri-o=1.31"));
    StaticNodeSource nodes("--nodes nodes.yaml");
    nodes.add("gpu-docker", {"v1.35.1", "docker://27.0"});
    PodSpecView spec = spec_with_image_volume();
    spec.node_name = "gpu-docker";
    const Decision d = judge_pinned_pod(pod_request(), pod(spec), &nodes, crio);
    CHECK_FALSE(d.allowed);
    CHECK_THAT(d.message, Catch::Contains("image volumes need kubelet 1.35 or newer and containerd 2.1 or newer or cri-o 1.31 or newer"));
}

namespace {

// A registry whose every image has one size of tar layers, or is a ModelPack artifact.
class SizedRegistry : public RegistrySource {
public:
    std::uint64_t tar_bytes = 0;
    bool artifact = false;
    mutable int looks = 0;
    RegistryLookup lookup(std::string_view) const override {
        ++looks;
        RegistryLookup found;
        found.status = RegistryLookupStatus::found;
        found.compressed_bytes = tar_bytes;
        found.facts.config_media_type = artifact ? "application/vnd.cncf.model.config.v1+json" : "application/vnd.oci.image.config.v1+json";
        found.facts.layer_kinds = {{artifact ? "application/vnd.cncf.model.weight.v1.raw" : "application/vnd.oci.image.layer.v1.tar", 1, tar_bytes}};
        return found;
    }
};

}  // namespace

TEST_CASE("a pinned Pod's model image is weighed against its node's disk, in warnings only", "[policy_node]") {
    constexpr std::uint64_t kGiB = 1ull << 30;
    struct Case {
        const char* name;
        std::optional<std::uint64_t> capacity;
        std::uint64_t tar_bytes;  // on disk: twice this
        RegistryCheck mode;
        bool artifact;
        const char* says;  // "" for no warning
    };
    const Case cases[] = {
        {"an image larger than the disk", 100 * kGiB, 60 * kGiB, RegistryCheck::warn, false,
         "spec.volumes[gpustack-model]: the model image needs about 120.0 GiB on disk, more than the 100.0 GiB of ephemeral storage on node \"gpu-a\": "
         "its pull would fail unless imagefs is another disk; pin the Pod to a larger node"},
        {"an image past 85% of it", 100 * kGiB, 43 * kGiB, RegistryCheck::deny, false,
         "spec.volumes[gpustack-model]: the model image needs about 86.0 GiB on disk, over 85% of the 100.0 GiB on node \"gpu-a\": past the kubelet's "
         "imageGCHighThresholdPercent, its other unused images will be collected"},
        {"an image with room", 100 * kGiB, 42 * kGiB, RegistryCheck::deny, false, ""},
        {"a node that reports no capacity", std::nullopt, 60 * kGiB, RegistryCheck::deny, false, ""},
        {"registry checks off", 100 * kGiB, 60 * kGiB, RegistryCheck::off, false, ""},
        {"an artifact (refused at mutation) is not weighed", 100 * kGiB, 60 * kGiB, RegistryCheck::warn, true, ""},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            StaticNodeSource nodes("--nodes nodes.yaml");
            NodeInfo info{"v1.35.1", "containerd://2.1.4"};
            info.ephemeral_storage_bytes = c.capacity;
            nodes.add("gpu-a", info);
            PodSpecView spec = spec_with_image_volume();
            spec.node_name = "gpu-a";
            PolicyConfig config;
            config.registry_check = c.mode;
            SizedRegistry registry;
            registry.tar_bytes = c.tar_bytes;
            registry.artifact = c.artifact;
            const Decision d = judge_pinned_pod(pod_request(), pod(spec), &nodes, config, &registry);
            CHECK(d.allowed);
            if (std::string_view(c.says).empty()) {
                CHECK(d.warnings.empty());
            } else {
                REQUIRE(d.warnings.size() == 1);
                CHECK(d.warnings[0] == c.says);
                CHECK(d.warnings[0].size() <= kMaxWarningBytes);
            }
        }
    }
}

TEST_CASE("the disk warning names a node found by its hostname label, and fits a warning", "[policy_node]") {
    const std::string long_label(63, 'n');
    const auto warning = disk_warning(labelled(long_label), 10ull << 30, 20ull << 30);
    REQUIRE(warning);
    CHECK_THAT(*warning, Catch::Contains("the node labelled kubernetes.io/hostname="));
    CHECK(warning->size() <= kMaxWarningBytes);
    CHECK_FALSE(disk_warning(named("gpu-a"), 100, 85));
    CHECK(disk_warning(named("gpu-a"), 100, 86));
}
