#include "model_image_webhook/rule.hpp"

#include "model_image_webhook/artifact_reference.hpp"
#include "model_image_webhook/pinned_reference.hpp"
#include "model_image_webhook/policy_model_artifact.hpp"
#include "model_image_webhook/policy_node.hpp"
#include "model_image_webhook/policy_pod.hpp"
#include "model_image_webhook/registry/check.hpp"
#include "model_image_webhook/signature_check.hpp"

namespace miw {

namespace {

constexpr const Rule* kRegistry[] = {
    &kSourceExactlyOne, &kPatternsForbidden, &kReferenceRequired, &kReferenceTooLong, &kReferencePattern, &kReferenceInvalid,
    &kDigestRequired,   &kDigestInvalid,     &kApiserverFloor,    &kSpecImmutable,    &kExpectedDigestForbidden, &kImageStatusShape, &kStatusWriter,    &kTwoWeightSources, &kArtifactNotFound, &kArtifactNotImage, &kArtifactImageConflict, &kArtifactUnavailable, &kRegistryManifestUnknown, &kRegistryDigestMismatch, &kRegistryNotAnImage, &kSignatureUnverified, &kNodeFloor,
    &kNodeNotFound,     &kNodeUnavailable,   &kMalformedRequest,  &kInternalError,
};

}  // namespace

std::span<const Rule* const> rule_registry() { return kRegistry; }

const Rule* find_rule(std::string_view id) {
    for (const Rule* rule : kRegistry) {
        if (rule->id == id) return rule;
    }
    return nullptr;
}

}  // namespace miw
