#include "model_image_webhook/admission_policy.hpp"

#include "model_image_webhook/policy_model_artifact.hpp"
#include "model_image_webhook/policy_node.hpp"
#include "model_image_webhook/policy_pod.hpp"

namespace miw {

Decision decide(const AdmissionRequest& req, const PolicyConfig& config, const NodeSource* nodes, const ArtifactSource* artifacts, const RegistrySource* registry, const SignatureSource* signatures) {
    switch (req.rules) {
        case RuleSet::model_artifact:
            if (req.model_artifact) return judge_model_artifact(req, config, registry, signatures);
            break;
        case RuleSet::model_artifact_status:
            if (req.model_artifact_status) return judge_model_artifact_status(req, config);
            break;
        case RuleSet::pinned_pod:
            if (req.workload) return judge_pinned_pod(req, *req.workload, nodes, config, registry);
            break;
        case RuleSet::delivery:
            if (req.workload) return render_model_delivery(req, *req.workload, config, nodes, artifacts, registry, signatures);
            break;
        case RuleSet::none:
            break;
    }
    return allow();
}

}  // namespace miw
