// The digest contract of an image source: a reference must name one image
// by its manifest digest. Shared by the ModelArtifact rules and the Pod
// opt-in annotation.
#pragma once

#include "model_image_webhook/warning.hpp"

#include "model_image_webhook/admission.hpp"
#include "model_image_webhook/rule.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace miw {

inline constexpr std::size_t kMaxReferenceLength = 1024;

// The digest contract, for a ModelArtifact's spec.source.image.reference and a
// workload's gpustack.ai/model-image annotation alike.
inline constexpr std::string_view kReferenceFields = "spec.source.image.reference, or the gpustack.ai/model-image annotation";
inline constexpr std::string_view kReferenceVerdict = "422 Invalid on a ModelArtifact, 403 Forbidden on a workload";
inline constexpr Rule kReferenceTooLong{"reference-too-long", kReferenceFields, kReferenceVerdict, "the reference is longer than 1024 characters"};
inline constexpr Rule kReferencePattern{"reference-pattern", kReferenceFields, kReferenceVerdict,
                                        "the reference holds a pattern character (* ? [ ] { }): an image is mounted whole"};
inline constexpr Rule kReferenceInvalid{"reference-invalid", kReferenceFields, kReferenceVerdict, "the reference is outside the distribution/reference grammar"};
inline constexpr Rule kDigestRequired{"digest-required", kReferenceFields, kReferenceVerdict,
                                      "a tag only, or a bare name: a tag is mutable, so the reference must pin a digest"};
inline constexpr Rule kDigestInvalid{"digest-invalid", kReferenceFields, kReferenceVerdict,
                                     "the digest is not sha256: and 64 lowercase hex (or sha512: and 128, where --digest-algorithms allows it)"};

struct PinnedReferenceCheck {
    const Rule* rule = nullptr;  // null when the reference is acceptable
    std::string detail;  // why not, and what to write instead
    std::vector<Warning> warnings;  // for an acceptable one (a tag beside the digest)

    bool ok() const { return rule == nullptr; }
};

// Judges a non-empty reference string. Warnings and details do not repeat
// the reference or name the field: the caller adds both.
PinnedReferenceCheck check_pinned_reference(std::string_view reference, const DigestAlgorithms& algorithms);

}  // namespace miw
