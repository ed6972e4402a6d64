// The AdmissionReview answer, written as Go's encoding/json writes an
// admission/v1 AdmissionResponse: its fields in that order, empty ones left out.
#pragma once

#include "model_image_webhook/decision.hpp"

#include <string>
#include <string_view>

namespace miw::json {

std::string write_review(std::string_view api_version, std::string_view uid, const Decision& d);

}  // namespace miw::json
