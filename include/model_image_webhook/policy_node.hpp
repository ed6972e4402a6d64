// Pods pinned to a node are checked against that node (design.md 1.3): image
// volumes need kubelet 1.35 and containerd 2.1 or newer.
#pragma once

#include "model_image_webhook/admission.hpp"
#include "model_image_webhook/decision.hpp"
#include "model_image_webhook/node_source.hpp"
#include "model_image_webhook/pod_spec.hpp"
#include "model_image_webhook/registry/source.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace miw {


inline constexpr Rule kNodeFloor{"node-floor", "spec.nodeName (or the node the Pod is pinned to)", "403 Forbidden",
                                 "the Pod mounts an image volume and is pinned to a node whose kubelet is older than 1.35 or whose runtime cannot run it"};
inline constexpr Rule kNodeNotFound{"node-not-found", "spec.nodeName (or the node the Pod is pinned to)", "403 Forbidden",
                                    "the node the Pod is pinned to does not exist, so its versions cannot be checked"};
inline constexpr Rule kNodeUnavailable{"node-unavailable", "spec.nodeName (or the node the Pod is pinned to)", "403 Forbidden",
                                       "the node could not be read from the Kubernetes API in time (fail closed)"};

// The node a pod spec names: spec.nodeName, a nodeSelector on
// kubernetes.io/hostname, or required node affinity that allows one node only.
std::optional<NodeRef> pinned_node(const PodSpecView& spec);

bool mounts_image_volume(const PodSpecView& spec);

// Why the node cannot run image volumes; empty when it can.
std::string node_floor_problem(const NodeInfo& info, const std::vector<RuntimeFloor>& runtime_floors);

// The decision for a Pod sent to /validate. nodes may be null: no Node is
// known. registry (--registry-check on): the model image's size is compared
// with the node's disk, in warnings only (the image filesystem may be
// another disk).
Decision judge_pinned_pod(const AdmissionRequest& req, const WorkloadView& pod, const NodeSource* nodes, const PolicyConfig& config,
                          const RegistrySource* registry = nullptr);

// The kubelet's default imageGCHighThresholdPercent: past it, image garbage
// collection removes the node's unused images.
inline constexpr double kImageGcHighThreshold = 0.85;

// What a node's disk makes of an image of `on_disk` bytes (design.md 1.9):
// a warning when its ephemeral storage is smaller, or when the image takes
// more than the collection threshold of it; nothing otherwise.
std::optional<std::string> disk_warning(const NodeRef& node, std::uint64_t capacity, std::uint64_t on_disk);

}  // namespace miw
