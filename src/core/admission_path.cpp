#include "model_image_webhook/admission_path.hpp"

namespace miw {

namespace {
constexpr AdmissionPath kAdmissionPaths[] = {
    {"/validate", Endpoint::validate, std::nullopt},
    {"/mutate", Endpoint::mutate, std::nullopt},
    {"/warn/validate", Endpoint::validate, Enforcement::warn},
    {"/warn/mutate", Endpoint::mutate, Enforcement::warn},
    {"/audit/validate", Endpoint::validate, Enforcement::audit},
    {"/audit/mutate", Endpoint::mutate, Enforcement::audit},
};
}  // namespace

std::span<const AdmissionPath> admission_paths() { return kAdmissionPaths; }

const AdmissionPath* find_admission_path(std::string_view path) {
    for (const auto& p : kAdmissionPaths) {
        if (p.path == path) return &p;
    }
    return nullptr;
}

}  // namespace miw
