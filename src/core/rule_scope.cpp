#include "model_image_webhook/rule_scope.hpp"

namespace miw {

namespace {

// Pods are rendered at CREATE only: a Pod's volumes cannot change after it is
// created. Workloads are rendered on UPDATE too, since a new template rolls out.
constexpr RuleScope kScopes[] = {
    {Endpoint::validate, kArtifactGroup, kArtifactKind, "modelartifacts", true, true, RuleSet::model_artifact},
    {Endpoint::validate, kArtifactGroup, kArtifactKind, "modelartifacts/status", false, true, RuleSet::model_artifact_status},
    {Endpoint::validate, "", "Pod", "pods", true, false, RuleSet::pinned_pod},
    {Endpoint::mutate, "", "Pod", "pods", true, false, RuleSet::delivery},
    {Endpoint::mutate, "apps", "Deployment", "deployments", true, true, RuleSet::delivery},
    {Endpoint::mutate, "apps", "StatefulSet", "statefulsets", true, true, RuleSet::delivery},
    {Endpoint::mutate, "apps", "DaemonSet", "daemonsets", true, true, RuleSet::delivery},
    {Endpoint::mutate, "apps", "ReplicaSet", "replicasets", true, true, RuleSet::delivery},
    {Endpoint::mutate, "batch", "Job", "jobs", true, true, RuleSet::delivery},
    {Endpoint::mutate, "batch", "CronJob", "cronjobs", true, true, RuleSet::delivery},
    {Endpoint::mutate, "leaderworkerset.x-k8s.io", "LeaderWorkerSet", "leaderworkersets", true, true, RuleSet::delivery},
};

}  // namespace

std::string_view to_string(RuleSet rules) {
    switch (rules) {
        case RuleSet::none: return "none";
        case RuleSet::model_artifact: return "model-artifact";
        case RuleSet::model_artifact_status: return "model-artifact-status";
        case RuleSet::pinned_pod: return "pinned-pod";
        case RuleSet::delivery: return "delivery";
    }
    return "none";
}

std::span<const RuleScope> rule_scopes() { return kScopes; }

RuleSet applies(Endpoint endpoint, const GroupVersionKind& kind, Operation operation, std::string_view subresource) {
    for (const RuleScope& s : kScopes) {
        if (s.endpoint != endpoint || s.group != kind.group || s.kind != kind.kind) continue;
        const std::size_t slash = s.resource.find('/');
        const std::string_view scope_subresource = slash == std::string_view::npos ? std::string_view() : s.resource.substr(slash + 1);
        if (scope_subresource != subresource) continue;
        const bool operation_covered = (operation == Operation::create && s.on_create) || (operation == Operation::update && s.on_update);
        return operation_covered ? s.rules : RuleSet::none;
    }
    return RuleSet::none;
}

}  // namespace miw
