// The typed views of an AdmissionReview's request that the policy reads
// (admission.hpp), filled from its DOM: every field type-checked before it is
// read, and only the views the request's rules need (applies()).
#pragma once

#include "json_dom.hpp"

#include <optional>
#include <string>

namespace miw::json {

// A problem with the request itself, told in one line.
struct RequestError {
    std::string message;
};

// Fills req from the request object; the envelope (a non-empty string uid)
// is already known good. The views point into the DOM's strings.
std::optional<RequestError> read_request(const Value* request, Endpoint endpoint, AdmissionRequest& req);

}  // namespace miw::json
