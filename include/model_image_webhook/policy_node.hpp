// Pods pinned to a node are checked against that node (design.md 1.3): image
// volumes need kubelet 1.35 and containerd 2.1 or newer.
#pragma once

#include "model_image_webhook/admission.hpp"
#include "model_image_webhook/decision.hpp"
#include "model_image_webhook/node_source.hpp"
#include "model_image_webhook/pod_spec.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace miw {

inline constexpr KubeVersion kContainerdFloor{2, 1};

// The node a pod spec names: spec.nodeName, a nodeSelector on
// kubernetes.io/hostname, or required node affinity that allows one node only.
std::optional<std::string_view> pinned_node(const PodSpecView& spec);

bool mounts_image_volume(const PodSpecView& spec);

// Why the node cannot run image volumes; empty when it can.
std::string node_floor_problem(const NodeInfo& info);

// The decision for a Pod sent to /validate. nodes may be null: no Node is known.
Decision judge_pinned_pod(const AdmissionRequest& req, const WorkloadView& pod, const NodeSource* nodes);

}  // namespace miw
