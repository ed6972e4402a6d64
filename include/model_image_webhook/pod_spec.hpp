// Typed views of a Pod or a workload's pod templates: the parts the delivery
// rules read. The codec fills them; their string_views point into the request.
#pragma once

#include "model_image_webhook/node_source.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace miw {

inline constexpr std::string_view kOptInLabel = "gpustack.ai/model-delivery";
inline constexpr std::string_view kOptInValue = "image";
inline constexpr std::string_view kModelImageAnnotation = "gpustack.ai/model-image";
inline constexpr std::string_view kModelContainersAnnotation = "gpustack.ai/model-containers";
inline constexpr std::string_view kModelVolume = "gpustack-model";
inline constexpr std::string_view kCacheVolume = "gpustack-model-cache";
inline constexpr std::string_view kModelMountPath = "/var/lib/gpustack/model";
// Kueue's topology-aware scheduling places a Pod carrying this annotation:
// no placement preference is added to it.
inline constexpr std::string_view kKueuePreferredTopologyAnnotation = "kueue.x-k8s.io/podset-preferred-topology";

struct EnvVarView {
    std::string_view name;
    bool has_string_value = false;  // value is a string (not valueFrom)
    std::string_view value;
};

struct VolumeMountView {
    std::string_view name;
    std::string_view mount_path;
    bool read_only = false;  // readOnly is true
    bool has_other_settings = false;  // subPath, subPathExpr, mountPropagation, ... set to a non-empty value
};

// One element of args or command: only strings can be flags.
struct ArgView {
    bool is_string = false;
    std::string_view text;
};

struct ContainerView {
    std::string_view name;
    std::string_view image;
    bool has_env = false;  // env present and not null
    std::vector<EnvVarView> env;
    bool has_volume_mounts = false;
    std::vector<VolumeMountView> volume_mounts;
    bool has_env_from = false;  // envFrom holds at least one source
    std::vector<ArgView> args;
    std::vector<ArgView> command;
};

struct VolumeView {
    std::string_view name;
    bool empty_dir = false;  // emptyDir present and not null
    bool image = false;  // image present and not null
    std::string_view image_reference;
    std::string_view image_pull_policy;
    bool only_image_source = false;  // nothing but name and image{reference, pullPolicy}
};

// One constraint of a node selector term that names nodes, with operator In:
// matchFields on metadata.name (by the Node's name) or matchExpressions on
// kubernetes.io/hostname (by its label).
struct NodeConstraintView {
    NodeNamedBy by = NodeNamedBy::hostname_label;
    std::vector<std::string_view> values;
};

// requiredDuringScheduling node selector terms, reduced to the constraints
// that name a node.
struct NodeSelectorTermView {
    std::vector<NodeConstraintView> node_constraints;
};

// One preferredDuringSchedulingIgnoredDuringExecution term of node affinity,
// as far as the placement rule compares it with its own.
struct PreferredTermView {
    bool weight_is_100 = false;
    // The preference is exactly one matchExpressions entry, key
    // kubernetes.io/hostname, operator In, and no matchFields: its values.
    bool hostname_in_only = false;
    std::vector<std::string_view> hostnames;
};

// What a JSON member is, as far as a patch that adds under it must know:
// absent or null (add it whole), an object or array (add inside it), or
// something else (leave it to the apiserver's validation; add nothing).
enum class MemberShape { absent, container, other };

struct AffinityView {
    MemberShape affinity = MemberShape::absent;  // spec.affinity
    MemberShape node_affinity = MemberShape::absent;  // .nodeAffinity
    MemberShape preferred = MemberShape::absent;  // .preferredDuringSchedulingIgnoredDuringExecution
    std::vector<PreferredTermView> preferred_terms;
};

// A pod template's own metadata (templates only, not a Pod): where the
// rendering copies the workload's opt-in, so that its Pods carry it.
struct TemplateMetadataView {
    std::string pointer;  // "/spec/template/metadata"
    MemberShape metadata = MemberShape::absent;
    MemberShape labels = MemberShape::absent;
    MemberShape annotations = MemberShape::absent;
    bool has_opt_in_label = false;
    std::string_view opt_in_label;
    bool has_model_image = false;  // a string value
    std::string_view model_image;
    bool has_model_containers = false;
    std::string_view model_containers;
};

struct PodSpecView {
    std::string pointer;  // JSON Pointer of the pod spec: "/spec", "/spec/template/spec", ...
    std::string field_path;  // the same for messages: "spec", "spec.template.spec", ...
    bool has_volumes = false;
    std::vector<VolumeView> volumes;
    std::vector<ContainerView> init_containers;
    std::vector<ContainerView> containers;

    std::string_view node_name;
    // Whose credentials the kubelet pulls with (design.md 1.8): the
    // imagePullSecrets names in order, and the service account (its
    // serviceAccountName, else the deprecated serviceAccount; empty: none named).
    std::vector<std::string_view> image_pull_secrets;
    std::string_view service_account_name;
    bool has_hostname_selector = false;
    std::string_view hostname_selector;  // nodeSelector["kubernetes.io/hostname"]
    std::vector<NodeSelectorTermView> required_node_terms;
    AffinityView affinity;
    std::optional<TemplateMetadataView> template_metadata;  // set for a workload's pod template
};

// The object that carries the opt-in (a Pod, or a workload) and the pod
// specs inside it.
struct WorkloadView {
    bool is_pod = false;
    std::string_view opt_in_label;  // the label's value, empty when absent
    bool has_model_image = false;  // the annotation is present
    std::string_view model_image;
    bool has_model_containers = false;
    std::string_view model_containers;
    bool has_model_artifact = false;  // gpustack.ai/model-artifact (artifact_reference.hpp)
    std::string_view model_artifact;
    bool has_kueue_preferred_topology = false;  // the object's own annotation
    // metadata.deletionTimestamp is set: the UPDATEs left are finalizers
    // coming off, which nothing that has changed since creation may block.
    bool being_deleted = false;
    std::vector<PodSpecView> pod_specs;
};

// Where the pod specs of a kind live, as JSON Pointers from the object; an
// empty list for a kind that holds no pods. group is the API group ("" for
// core). A location the object does not have is passed over.
std::vector<std::string_view> pod_spec_locations(std::string_view group, std::string_view kind);

}  // namespace miw
