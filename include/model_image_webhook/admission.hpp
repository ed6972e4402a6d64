// The typed view of an admission request that the policy reads. The codec
// fills it from the AdmissionReview; its string_views point into the request
// body and live as long as that does.
#pragma once

#include "model_image_webhook/kube_version.hpp"
#include "model_image_webhook/pod_spec.hpp"
#include "model_image_webhook/registry/source.hpp"
#include "model_image_webhook/signature_policy.hpp"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace miw {

enum class Operation { create, update, remove, connect };

std::optional<Operation> parse_operation(std::string_view text);
std::string_view to_string(Operation op);

enum class Endpoint { validate, mutate };

// Which rules judge a request; rule_scope.hpp says which requests get which.
enum class RuleSet {
    none,  // no rule covers the request: allowed untouched
    model_artifact,  // the ModelArtifact rules (validate)
    model_artifact_status,  // the rules of a ModelArtifact's status writes (validate, subresource status)
    pinned_pod,  // the node check of Pods pinned to a node (validate)
    delivery,  // the rendering of the model delivery (mutate)
};

std::optional<Endpoint> parse_endpoint(std::string_view text);
std::string_view to_string(Endpoint endpoint);

struct GroupVersionKind {
    std::string_view group;
    std::string_view version;
    std::string_view kind;
};

// What a JSON value at some path is, without saying what it holds.
enum class JsonType { absent, null, boolean, number, string, array, object };

std::string_view to_string(JsonType type);

inline constexpr std::string_view kArtifactGroup = "worker.gpustack.ai";
inline constexpr std::string_view kArtifactKind = "ModelArtifact";

bool is_model_artifact(const GroupVersionKind& kind);

// The members of spec.source, in the order messages list them.
inline constexpr std::string_view kSourceMembers[] = {"huggingFace", "modelScope", "persistentVolumeClaim", "image"};

// The parts of a ModelArtifact the rules read.
struct ModelArtifactView {
    JsonType spec = JsonType::absent;
    JsonType source = JsonType::absent;
    std::vector<std::string_view> sources_present;  // non-null members of kSourceMembers, in that order
    JsonType image = JsonType::absent;
    JsonType reference = JsonType::absent;
    std::string_view reference_value;  // when reference is a string
    bool allow_patterns_set = false;  // anything but absent, null, [] or ""
    bool ignore_patterns_set = false;
    bool expected_digest_set = false;  // spec.expectedDigest, anything but absent, null or ""
    // UPDATE: spec equals oldObject's spec, a member that is absent counting
    // as equal to one that holds its zero value (null, "", 0, false, [], {}).
    bool spec_unchanged = false;
};

// The status a ModelArtifact's status write brings, as far as its rules read it.
struct ModelArtifactStatusView {
    bool image_source = false;  // spec.source.image is set (and no other source judges the status)
    // Members of status.resolved other than resolvedTime that hold something.
    std::vector<std::string_view> resolved_extra;
    JsonType resolved = JsonType::absent;
    bool nodes_present = false;  // status.nodes holds something
};

// request.userInfo: who is writing.
struct UserInfoView {
    std::string_view username;
    std::vector<std::string_view> groups;
};

struct AdmissionRequest {
    std::string_view uid;
    GroupVersionKind kind;
    std::string_view name;  // request.name, or the object's metadata.name
    std::string_view namespace_name;
    std::string_view sub_resource;
    Operation operation = Operation::create;
    bool dry_run = false;
    // Which rules judge the request (rule_scope.hpp's applies()); the views
    // below are read for those rules only.
    RuleSet rules = RuleSet::none;
    std::optional<ModelArtifactView> model_artifact;  // set for a ModelArtifact with an object to judge
    std::optional<ModelArtifactStatusView> model_artifact_status;  // set for a ModelArtifact status write
    UserInfoView user;
    std::optional<WorkloadView> workload;  // set for a Pod or a workload kind with pod templates
};

// Which digest algorithms a pinned reference may use (--digest-algorithms).
struct DigestAlgorithms {
    bool sha256 = true;
    bool sha512 = false;
};

// "sha256", "sha256,sha512", "sha512"; nullopt for anything else.
std::optional<DigestAlgorithms> parse_digest_algorithms(std::string_view text);

// The apiserver version as configured or discovered; text is what was seen
// ("" when nothing has been seen yet), parsed is empty when it cannot be read.
struct ApiserverVersion {
    std::string text;
    std::optional<KubeVersion> parsed;

    static ApiserverVersion from_text(std::string_view text);
};

// Image volumes are in containerd from 2.1.0-beta.0.
inline constexpr KubeVersion kContainerdFloor{2, 1};

// A container runtime whose Nodes may run image volumes, and the oldest
// version that can (--runtime-floor RUNTIME=VERSION).
struct RuntimeFloor {
    std::string runtime;  // as Node status.nodeInfo.containerRuntimeVersion names it: "containerd", "cri-o"
    KubeVersion floor;
};

// "cri-o=1.31"; nullopt for anything else.
std::optional<RuntimeFloor> parse_runtime_floor(std::string_view text);

struct PolicyConfig {
    ApiserverVersion apiserver;
    DigestAlgorithms digest_algorithms;
    // --status-writers: user names, "group:NAME" entries, or
    // system:serviceaccount:NS:NAME; empty: any writer passes.
    std::vector<std::string> status_writers;
    // containerd 2.1 unless a --runtime-floor names it; a runtime not here is refused.
    std::vector<RuntimeFloor> runtime_floors{{"containerd", kContainerdFloor}};
    // --prefer-nodes-with-image: the placement rule (design.md 1.5).
    bool prefer_nodes_with_image = true;
    // --registry-check: whether pinned digests are looked up in their registry (design.md 1.6).
    RegistryCheck registry_check = RegistryCheck::off;
    // --signature-policy: the ClusterImagePolicies the model image must pass
    // (design.md 1.11); null: signatures are not checked.
    std::shared_ptr<const SignaturePolicy> signature_policy;

    // Sets a runtime's floor, replacing any it had.
    void set_runtime_floor(RuntimeFloor floor);
};

}  // namespace miw
