// The paths the webhook answers reviews on, and what each one means: the
// server routes by them and the test mode reads them from the webhook
// configurations' clientConfig, so both agree on what a path does.
#pragma once

#include "model_image_webhook/admission.hpp"
#include "model_image_webhook/enforcement.hpp"

#include <optional>
#include <span>
#include <string_view>

namespace miw {

struct AdmissionPath {
    std::string_view path;
    Endpoint endpoint;
    // Set under /warn/ and /audit/: that mode whatever --enforcement says, so
    // a webhook configuration picks a mode per namespace with no lookup.
    std::optional<Enforcement> forced;

    Enforcement mode(Enforcement configured) const { return forced.value_or(configured); }
};

// /validate, /mutate, /warn/validate, /warn/mutate, /audit/validate, /audit/mutate.
std::span<const AdmissionPath> admission_paths();

// nullptr for a path that is not one of them (the query already removed).
const AdmissionPath* find_admission_path(std::string_view path);

}  // namespace miw
