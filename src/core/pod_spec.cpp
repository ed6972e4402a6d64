#include "model_image_webhook/pod_spec.hpp"

namespace miw {

std::vector<std::string_view> pod_spec_locations(std::string_view group, std::string_view kind) {
    if (group.empty() && kind == "Pod") return {"/spec"};
    if (group == "apps" && (kind == "Deployment" || kind == "StatefulSet" || kind == "DaemonSet" || kind == "ReplicaSet")) {
        return {"/spec/template/spec"};
    }
    if (group == "batch" && kind == "Job") return {"/spec/template/spec"};
    if (group == "batch" && kind == "CronJob") return {"/spec/jobTemplate/spec/template/spec"};
    if (group == "leaderworkerset.x-k8s.io" && kind == "LeaderWorkerSet") {
        // The leader template is optional: without it the leader uses the worker's.
        return {"/spec/leaderWorkerTemplate/leaderTemplate/spec", "/spec/leaderWorkerTemplate/workerTemplate/spec"};
    }
    return {};
}

}  // namespace miw
