// The admission rules of a ModelArtifact (design.md 1.1).
#pragma once

#include "model_image_webhook/admission.hpp"
#include "model_image_webhook/decision.hpp"

namespace miw {

// req.model_artifact must be set.
Decision judge_model_artifact(const AdmissionRequest& req, const PolicyConfig& config);

// The refusal of an image-volume delivery on an apiserver below 1.35, or
// whose version is unknown or unreadable; empty when the floor is met.
std::string apiserver_floor_problem(const ApiserverVersion& apiserver);

}  // namespace miw
