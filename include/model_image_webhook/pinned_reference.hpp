// The digest contract of an image source: a reference must name one image
// by its manifest digest. Shared by the ModelArtifact rules and the Pod
// opt-in annotation.
#pragma once

#include "model_image_webhook/admission.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace miw {

inline constexpr std::size_t kMaxReferenceLength = 1024;

struct PinnedReferenceCheck {
    std::string rule;  // empty when the reference is acceptable
    std::string detail;  // why not, and what to write instead
    std::vector<std::string> warnings;  // for an acceptable one (a tag beside the digest)

    bool ok() const { return rule.empty(); }
};

// Judges a non-empty reference string. Warnings and details do not repeat
// the reference or name the field: the caller adds both.
PinnedReferenceCheck check_pinned_reference(std::string_view reference, const DigestAlgorithms& algorithms);

}  // namespace miw
