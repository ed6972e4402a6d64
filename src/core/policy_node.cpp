#include "model_image_webhook/policy_node.hpp"

#include "model_image_webhook/registry/check.hpp"
#include "model_image_webhook/registry/image_facts.hpp"
#include "model_image_webhook/text.hpp"
#include "model_image_webhook/warning.hpp"

namespace miw {

namespace {

// The one node a term allows, if its constraints narrow it to one. Where it
// names the node both ways, by the Node's name (the more exact).
std::optional<NodeRef> term_node(const NodeSelectorTermView& term) {
    std::optional<std::string_view> by_name, by_label;
    for (const auto& constraint : term.node_constraints) {
        if (constraint.values.size() != 1) continue;
        auto& node = constraint.by == NodeNamedBy::name ? by_name : by_label;
        if (node && *node != constraint.values.front()) return std::nullopt;  // two different nodes: nothing matches
        node = constraint.values.front();
    }
    if (by_name) return NodeRef{*by_name, NodeNamedBy::name};
    if (by_label) return NodeRef{*by_label, NodeNamedBy::hostname_label};
    return std::nullopt;
}

std::string versions_seen(const NodeInfo& info) {
    return "kubelet " + (info.kubelet_version.empty() ? std::string("(none reported)") : quote_value(info.kubelet_version, 64)) + ", runtime " +
           (info.container_runtime_version.empty() ? std::string("(none reported)") : quote_value(info.container_runtime_version, 64));
}

// The model volume's reference, where the delivery rendered one.
std::string_view model_image_of(const PodSpecView& spec) {
    for (const auto& v : spec.volumes) {
        if (v.name == kModelVolume && v.image) return v.image_reference;
    }
    return {};
}

// The model image's room on the node's disk, as its registry tells its size.
std::vector<std::string> disk_warnings(const AdmissionRequest& req, const PodSpecView& spec, const NodeRef& node, const NodeInfo& info,
                                       const PolicyConfig& config, const RegistrySource* registry) {
    if (config.registry_check == RegistryCheck::off || registry == nullptr || !info.ephemeral_storage_bytes) return {};
    const std::string_view reference = model_image_of(spec);
    if (reference.empty()) return {};
    const RegistryLookup found = registry->lookup_for(reference, PullSecretsRef{req.namespace_name, spec.image_pull_secrets, spec.service_account_name});
    const std::optional<DiskEstimate> disk = disk_estimate(found);
    if (!disk || not_an_image(found.facts)) return {};
    std::optional<std::string> warning = disk_warning(node, *info.ephemeral_storage_bytes, disk->bytes);
    if (!warning) return {};
    return {std::move(*warning)};
}

}  // namespace

std::optional<std::string> disk_warning(const NodeRef& node, std::uint64_t capacity, std::uint64_t on_disk) {
    const bool too_small = on_disk > capacity;
    if (!too_small && static_cast<double>(on_disk) <= kImageGcHighThreshold * static_cast<double>(capacity)) return std::nullopt;
    Warning w("spec.volumes[gpustack-model]");
    w.say(": the model image needs about ").say(format_bytes(on_disk));
    if (too_small) {
        w.say(" on disk, more than the ").say(format_bytes(capacity)).say(" of ephemeral storage on ").bare(describe(node), 110);
        w.say(": its pull would fail unless imagefs is another disk; pin the Pod to a larger node");
    } else {
        w.say(" on disk, over 85% of the ").say(format_bytes(capacity)).say(" on ").bare(describe(node), 110);
        w.say(": past the kubelet's imageGCHighThresholdPercent, its other unused images will be collected");
    }
    return w.text();
}

std::optional<NodeRef> pinned_node(const PodSpecView& spec) {
    if (!spec.node_name.empty()) return NodeRef{spec.node_name, NodeNamedBy::name};
    if (spec.has_hostname_selector && !spec.hostname_selector.empty()) return NodeRef{spec.hostname_selector, NodeNamedBy::hostname_label};
    // Terms are ORed: the Pod is pinned only when every term allows the same one node.
    std::optional<NodeRef> node;
    for (const auto& term : spec.required_node_terms) {
        const auto one = term_node(term);
        if (!one || (node && *node != *one)) return std::nullopt;
        node = one;
    }
    return node;
}

bool mounts_image_volume(const PodSpecView& spec) {
    for (const auto& v : spec.volumes) {
        if (v.image) return true;
    }
    return false;
}

std::string node_floor_problem(const NodeInfo& info, const std::vector<RuntimeFloor>& runtime_floors) {
    std::string problems;
    auto note = [&](const std::string& p) { problems += (problems.empty() ? "" : "; ") + p; };
    const auto kubelet = parse_kube_version(info.kubelet_version);
    if (!kubelet) {
        note("its kubelet version " + quote_value(info.kubelet_version, 64) + " cannot be read");
    } else if (!kubelet->at_least(kImageVolumeKubeFloor)) {
        note("its kubelet " + info.kubelet_version + " is older than " + kImageVolumeKubeFloor.to_string());
    }
    const std::string_view runtime = info.container_runtime_version;
    const std::size_t scheme_end = runtime.find("://");
    const std::string_view scheme = runtime.substr(0, scheme_end);
    const RuntimeFloor* floor = nullptr;
    for (const auto& f : runtime_floors) {
        if (scheme_end != std::string_view::npos && f.runtime == scheme) floor = &f;
    }
    if (floor == nullptr) {
        std::string accepted;
        for (const auto& f : runtime_floors) accepted += (accepted.empty() ? "" : " or ") + f.runtime;
        note("its container runtime is " + (runtime.empty() ? std::string("not reported") : quote_value(runtime, 64)) + ", not " +
             (accepted.empty() ? std::string("a runtime with a --runtime-floor") : accepted));
    } else {
        const std::string_view version = runtime.substr(scheme_end + 3);
        const auto parsed = parse_kube_version(version);
        if (!parsed) {
            note("its " + floor->runtime + " version " + quote_value(version, 64) + " cannot be read");
        } else if (!parsed->at_least(floor->floor)) {
            note("its " + floor->runtime + " " + std::string(version) + " is older than " + floor->floor.to_string());
        }
    }
    return problems;
}

Decision judge_pinned_pod(const AdmissionRequest& req, const WorkloadView& pod, const NodeSource* nodes, const PolicyConfig& config,
                          const RegistrySource* registry) {
    // A Pod CREATE, routed here by applies().
    if (pod.pod_specs.empty()) return allow();
    const PodSpecView& spec = pod.pod_specs.front();
    if (!mounts_image_volume(spec)) return allow();
    const auto node = pinned_node(spec);
    if (!node) return allow();  // the scheduler picks the node; nothing to check yet

    std::string runtimes;
    for (const auto& f : config.runtime_floors) runtimes += (runtimes.empty() ? "" : " or ") + f.runtime + " " + f.floor.to_string() + " or newer";
    const std::string floors = "image volumes need kubelet " + kImageVolumeKubeFloor.to_string() + " or newer and " + runtimes;
    const std::string who = "Pod " + quote_value(req.name, 253) + " mounts an image volume and is pinned to " + describe(*node);
    const NodeLookup found = nodes ? nodes->lookup(*node) : NodeLookup{};
    switch (found.status) {
        case NodeLookupStatus::not_found:
            return forbidden(who + ", which does not exist (looked up in " + (nodes ? nodes->origin() : std::string("no Node source")) + "); " + floors +
                                 ": pin the Pod to an existing node that meets both",
                             kNodeNotFound);
        case NodeLookupStatus::unavailable:
            return forbidden(who + ", which could not be checked (" + found.detail + "); " + floors + ": retry, or leave the Pod unpinned", kNodeUnavailable);
        case NodeLookupStatus::found:
            break;
    }
    const std::string problem = node_floor_problem(found.info, config.runtime_floors);
    if (problem.empty()) return allow(disk_warnings(req, spec, *node, found.info, config, registry));
    return forbidden(who + " (" + versions_seen(found.info) + "), which cannot run it: " + problem + "; " + floors +
                         ": pin the Pod to a node that meets both, or upgrade the node",
                     kNodeFloor);
}

}  // namespace miw
