#include "model_image_webhook/admission_policy.hpp"

#include "model_image_webhook/policy_model_artifact.hpp"

namespace miw {

Decision decide(Endpoint endpoint, const AdmissionRequest& req, const PolicyConfig& config) {
    if (endpoint == Endpoint::validate && req.model_artifact) return judge_model_artifact(req, config);
    return allow();
}

}  // namespace miw
