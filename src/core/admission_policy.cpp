#include "model_image_webhook/admission_policy.hpp"

#include "model_image_webhook/policy_model_artifact.hpp"
#include "model_image_webhook/policy_node.hpp"
#include "model_image_webhook/policy_pod.hpp"

namespace miw {

Decision decide(Endpoint endpoint, const AdmissionRequest& req, const PolicyConfig& config, const NodeSource* nodes) {
    if (endpoint == Endpoint::validate && req.model_artifact) return judge_model_artifact(req, config);
    if (endpoint == Endpoint::validate && req.workload && req.workload->is_pod) return judge_pinned_pod(req, *req.workload, nodes);
    if (endpoint == Endpoint::mutate && req.workload) return render_model_delivery(req, *req.workload, config);
    return allow();
}

}  // namespace miw
