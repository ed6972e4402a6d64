// Image-aware placement: the preferred node-affinity term, added to whatever
// affinity a Pod has, once.
#include "model_image_webhook/policy_placement.hpp"
#include "model_image_webhook/policy_pod.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace miw;

namespace {

const std::string kRef = "registry.example.com/team/qwen@sha256:9372c470eeadd5ecd9c3c74c2b3cb633f8e2f2fad799250a0f70d652b6b825e4";
const std::string kTerm = R"({"weight":100,"preference":{"matchExpressions":[{"key":"kubernetes.io/hostname","operator":"In","values":["gpu-a","gpu-b"]}]}})";
const std::vector<std::string> kWarm = {"gpu-a", "gpu-b"};

PodSpecView pod_spec() {
    PodSpecView s;
    s.pointer = "/spec";
    s.field_path = "spec";
    return s;
}

PreferredTermView ours(std::vector<std::string_view> hosts) {
    PreferredTermView t;
    t.weight_is_100 = true;
    t.hostname_in_only = true;
    t.hostnames = std::move(hosts);
    return t;
}

std::string patch_of(const PodSpecView& s, const std::vector<std::string>& nodes) {
    JsonPatch p;
    render_placement(s, nodes, p);
    return p.empty() ? std::string() : p.to_json();
}

}  // namespace

TEST_CASE("the term is added to whatever affinity the Pod has, disturbing nothing", "[policy_placement]") {
    struct Case {
        const char* name;
        AffinityView affinity;
        std::string patch;
    };
    const auto with = [](MemberShape a, MemberShape n, MemberShape p, std::vector<PreferredTermView> terms = {}) {
        AffinityView v;
        v.affinity = a;
        v.node_affinity = n;
        v.preferred = p;
        v.preferred_terms = std::move(terms);
        return v;
    };
    using S = MemberShape;
    PreferredTermView other_weight = ours({"gpu-a", "gpu-b"});
    other_weight.weight_is_100 = false;
    const std::vector<Case> cases = {
        {"no affinity", with(S::absent, S::absent, S::absent),
         R"([{"op":"add","path":"/spec/affinity","value":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[)" + kTerm + "]}}}]"},
        {"pod affinity only (nodeAffinity absent)", with(S::container, S::absent, S::absent),
         R"([{"op":"add","path":"/spec/affinity/nodeAffinity","value":{"preferredDuringSchedulingIgnoredDuringExecution":[)" + kTerm + "]}}]"},
        {"required node affinity only", with(S::container, S::container, S::absent),
         R"([{"op":"add","path":"/spec/affinity/nodeAffinity/preferredDuringSchedulingIgnoredDuringExecution","value":[)" + kTerm + "]}]"},
        {"preferred terms of its own", with(S::container, S::container, S::container, {ours({"gpu-z"})}),
         R"([{"op":"add","path":"/spec/affinity/nodeAffinity/preferredDuringSchedulingIgnoredDuringExecution/-","value":)" + kTerm + "}]"},
        {"the same nodes at another weight", with(S::container, S::container, S::container, {other_weight}),
         R"([{"op":"add","path":"/spec/affinity/nodeAffinity/preferredDuringSchedulingIgnoredDuringExecution/-","value":)" + kTerm + "}]"},
        {"the term already there", with(S::container, S::container, S::container, {ours({"gpu-z"}), ours({"gpu-a", "gpu-b"})}), ""},
        {"affinity that is not an object", with(S::other, S::absent, S::absent), ""},
        {"nodeAffinity that is not an object", with(S::container, S::other, S::absent), ""},
        {"preferred terms that are not a list", with(S::container, S::container, S::other), ""},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            PodSpecView s = pod_spec();
            s.affinity = c.affinity;
            CHECK(patch_of(s, kWarm) == c.patch);
        }
    }
}

TEST_CASE("no warm node, no term", "[policy_placement]") {
    CHECK(patch_of(pod_spec(), {}).empty());
}

TEST_CASE("the term names the nodes as given, in their order", "[policy_placement]") {
    CHECK(placement_term_json({"a"}) == R"({"weight":100,"preference":{"matchExpressions":[{"key":"kubernetes.io/hostname","operator":"In","values":["a"]}]}})");
    AffinityView a;
    a.preferred_terms = {ours({"gpu-b", "gpu-a"})};
    CHECK_FALSE(has_placement_term(a, kWarm));  // another order is another term
    a.preferred_terms = {ours({"gpu-a"})};
    CHECK_FALSE(has_placement_term(a, kWarm));
}

namespace {

// A Node labelled kubernetes.io/hostname=hostname ("": no label) holding `names`.
NodeInfo holding(std::string hostname, std::vector<std::string> names) {
    NodeInfo n{"v1.35.0", "containerd://2.1.0", std::move(hostname)};
    for (const auto& name : names) n.add_image_name(name);
    return n;
}

WorkloadView opted_in_pod(PodSpecView spec) {
    WorkloadView w;
    w.is_pod = true;
    w.opt_in_label = "image";
    w.has_model_image = true;
    w.model_image = kRef;
    w.pod_specs = {std::move(spec)};
    return w;
}

}  // namespace

TEST_CASE("placement in the rendering: which Pods get it", "[policy_placement]") {
    StaticNodeSource nodes("the test's Nodes");
    // Named as clouds name Nodes, sorted otherwise by name than by label.
    nodes.add("ip-10-0-1-7.ec2.internal", holding("gpu-b", {kRef, "docker.io/library/busybox@sha256:aaaa"}));
    nodes.add("ip-10-0-2-3.ec2.internal", holding("gpu-a", {"registry.example.com/team/qwen:v1", kRef}));
    nodes.add("ip-10-0-0-1.ec2.internal", holding("gpu-c", {"registry.example.com/team/qwen:v1"}));  // the tag only: not the pinned reference
    nodes.add("ip-10-0-0-2.ec2.internal", holding("", {kRef}));  // warm, but no label to prefer it by
    nodes.add("ip-10-0-0-3.ec2.internal", holding("cpu-1", {}));
    PolicyConfig config;
    config.apiserver = ApiserverVersion::from_text("v1.35.0");
    AdmissionRequest create;
    create.kind = {"", "v1", "Pod"};
    create.operation = Operation::create;

    // An already rendered Pod, as its workload's template makes it: only placement is added.
    PodSpecView rendered = pod_spec();
    VolumeView volume;
    volume.name = kModelVolume;
    volume.image = true;
    volume.image_reference = kRef;
    volume.only_image_source = true;
    rendered.has_volumes = true;
    rendered.volumes = {volume};
    ContainerView c;
    c.name = "vllm";
    c.has_volume_mounts = true;
    c.volume_mounts = {VolumeMountView{kModelVolume, kModelMountPath, true, false}};
    rendered.containers = {c};

    const std::string placed = R"([{"op":"add","path":"/spec/affinity","value":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[)" + kTerm + "]}}}]";
    SECTION("warm nodes by their hostname label, sorted by it; a node without the label left out") { CHECK(render_model_delivery(create, opted_in_pod(rendered), config, &nodes).patch == placed); }
    SECTION("a second pass finds its term and adds nothing") {
        PodSpecView again = rendered;
        again.affinity.affinity = again.affinity.node_affinity = again.affinity.preferred = MemberShape::container;
        again.affinity.preferred_terms = {ours({"gpu-a", "gpu-b"})};
        CHECK(render_model_delivery(create, opted_in_pod(again), config, &nodes).patch.empty());
    }
    SECTION("no node holds the image") {
        WorkloadView w = opted_in_pod(rendered);
        const std::string other = "registry.example.com/team/llama@sha256:" + std::string(64, 'b');
        w.model_image = other;
        w.pod_specs[0].volumes[0].image_reference = other;
        CHECK(render_model_delivery(create, w, config, &nodes).patch.empty());
    }
    SECTION("a Pod that Kueue's topology-aware scheduling places gets no term, and still its delivery") {
        WorkloadView kueued = opted_in_pod(pod_spec());
        kueued.has_kueue_preferred_topology = true;
        const std::string patch = render_model_delivery(create, kueued, config, &nodes).patch;
        CHECK_THAT(patch, Catch::Contains(R"("path":"/spec/volumes")"));
        CHECK_THAT(patch, !Catch::Contains("nodeAffinity"));
        kueued.pod_specs = {rendered};
        CHECK(render_model_delivery(create, kueued, config, &nodes).patch.empty());
    }
    SECTION("Pods of one group carry one term: it is a function of the warm set, not of the Pod or the Nodes' order") {
        StaticNodeSource reordered("the same Nodes, added in another order");
        reordered.add("ip-10-0-0-3.ec2.internal", holding("cpu-1", {}));
        reordered.add("ip-10-0-2-3.ec2.internal", holding("gpu-a", {kRef}));
        reordered.add("ip-10-0-1-7.ec2.internal", holding("gpu-b", {kRef}));
        WorkloadView leader = opted_in_pod(rendered), worker = opted_in_pod(rendered);
        AdmissionRequest leader_create = create, worker_create = create;
        leader_create.name = "vllm-0";
        worker_create.name = "vllm-0-1";
        CHECK(render_model_delivery(leader_create, leader, config, &nodes).patch == placed);
        CHECK(render_model_delivery(worker_create, worker, config, &reordered).patch == placed);
    }
    SECTION("a Pod pinned to a node is left to the node check") {
        PodSpecView pinned = rendered;
        pinned.node_name = "gpu-c";
        CHECK(render_model_delivery(create, opted_in_pod(pinned), config, &nodes).patch.empty());
    }
    SECTION("--prefer-nodes-with-image=false") {
        PolicyConfig off = config;
        off.prefer_nodes_with_image = false;
        CHECK(render_model_delivery(create, opted_in_pod(rendered), off, &nodes).patch.empty());
    }
    SECTION("no Node source") { CHECK(render_model_delivery(create, opted_in_pod(rendered), config, nullptr).patch.empty()); }
    SECTION("a source that does not know every Node yet") {
        struct Unsynced : NodeSource {
            NodeLookup lookup(const NodeRef&) const override { return {}; }
            std::string origin() const override { return "a watch before its first list"; }
            std::optional<std::vector<std::string>> nodes_holding(std::string_view, std::size_t) const override { return std::nullopt; }
        } unsynced;
        CHECK(render_model_delivery(create, opted_in_pod(rendered), config, &unsynced).patch.empty());
    }
    SECTION("more than 16 warm nodes: the first 16 by hostname label") {
        StaticNodeSource many("many");
        // Node names in the opposite order to their labels: the cut follows the labels.
        for (int i = 0; i < 40; ++i) {
            many.add("node-" + std::to_string(1000 - i), holding("gpu-" + std::string(i < 10 ? "0" : "") + std::to_string(i), {kRef}));
        }
        const auto warm = many.nodes_holding(kRef, kMaxPreferredNodes);
        REQUIRE(warm);
        REQUIRE(warm->size() == 16);
        CHECK(warm->front() == "gpu-00");
        CHECK(warm->back() == "gpu-15");
        CHECK_THAT(render_model_delivery(create, opted_in_pod(rendered), config, &many).patch, Catch::Contains(R"("gpu-14","gpu-15"]})"));
    }
}
