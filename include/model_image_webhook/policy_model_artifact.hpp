// The admission rules of a ModelArtifact (design.md 1.1).
#pragma once

#include "model_image_webhook/admission.hpp"
#include "model_image_webhook/decision.hpp"
#include "model_image_webhook/signature_check.hpp"

namespace miw {

inline constexpr Rule kSourceExactlyOne{"source-exactly-one", "spec.source (or spec)", "422 Invalid",
                                        "spec.source holds none, or more than one, of huggingFace, modelScope, persistentVolumeClaim, image"};
inline constexpr Rule kPatternsForbidden{"patterns-forbidden", "spec.allowPatterns, spec.ignorePatterns", "422 Invalid",
                                         "patterns are set on an image source, which is mounted whole"};
inline constexpr Rule kReferenceRequired{"reference-required", "spec.source.image.reference", "422 Invalid",
                                         "the image source has no reference, or it is empty or not a string"};
inline constexpr Rule kSpecImmutable{"spec-immutable", "spec", "422 Invalid", "an UPDATE changes the spec of a ModelArtifact, which is an identity"};
inline constexpr Rule kImageStatusShape{"image-status-shape", "status.resolved, status.nodes", "422 Invalid",
                                        "an image source's status holds more than status.resolved.resolvedTime, or holds status.nodes"};
inline constexpr Rule kStatusWriter{"status-writer", "status", "403 Forbidden", "someone not named in --status-writers writes a ModelArtifact's status"};
inline constexpr Rule kExpectedDigestForbidden{"expected-digest-forbidden", "spec.expectedDigest", "422 Invalid",
                                               "expectedDigest is set on an image source, whose identity is its reference's digest"};
inline constexpr Rule kApiserverFloor{"apiserver-floor", "spec.source.image, or the workload", "422 Invalid on a ModelArtifact, 403 Forbidden on a workload",
                                      "an image delivery while the apiserver is older than 1.35, or its version is unknown or unreadable"};

// req.model_artifact must be set.
Decision judge_model_artifact(const AdmissionRequest& req, const PolicyConfig& config, const RegistrySource* registry = nullptr,
                              const SignatureSource* signatures = nullptr);

// req.model_artifact_status must be set. The spec rules do not run on a
// status write: the status is judged alone.
Decision judge_model_artifact_status(const AdmissionRequest& req, const PolicyConfig& config);

// The refusal of an image-volume delivery on an apiserver below 1.35, or
// whose version is unknown or unreadable; empty when the floor is met.
std::string apiserver_floor_problem(const ApiserverVersion& apiserver);

}  // namespace miw
