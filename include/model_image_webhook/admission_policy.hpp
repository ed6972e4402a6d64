// Routes an admission request to the rules that judge it.
#pragma once

#include "model_image_webhook/admission.hpp"
#include "model_image_webhook/decision.hpp"

namespace miw {

// Requests that no rule covers are allowed untouched: a webhook configuration
// that sends more than it should must not block the cluster.
Decision decide(Endpoint endpoint, const AdmissionRequest& req, const PolicyConfig& config);

}  // namespace miw
