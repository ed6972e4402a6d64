// A workload names its model by a ModelArtifact (design.md 1.7): annotation
// gpustack.ai/model-artifact: NAME, in its own namespace, instead of (or
// beside) gpustack.ai/model-image; the delivery mounts that artifact's image.
#pragma once

#include "model_image_webhook/admission.hpp"
#include "model_image_webhook/artifact_source.hpp"
#include "model_image_webhook/decision.hpp"
#include "model_image_webhook/pod_spec.hpp"

#include <optional>
#include <string>

namespace miw {

inline constexpr std::string_view kModelArtifactAnnotation = "gpustack.ai/model-artifact";

inline constexpr Rule kArtifactNotFound{"artifact-not-found", "metadata.annotations[gpustack.ai/model-artifact]", "403 Forbidden",
                                        "the ModelArtifact the workload names does not exist in its namespace"};
inline constexpr Rule kArtifactNotImage{"artifact-not-image", "metadata.annotations[gpustack.ai/model-artifact]", "403 Forbidden",
                                        "the ModelArtifact the workload names has no image source: there is nothing to mount"};
inline constexpr Rule kArtifactImageConflict{"artifact-image-conflict", "metadata.annotations[gpustack.ai/model-image]", "403 Forbidden",
                                             "gpustack.ai/model-image and the ModelArtifact gpustack.ai/model-artifact names are different images"};
inline constexpr Rule kArtifactUnavailable{"artifact-unavailable", "metadata.annotations[gpustack.ai/model-artifact]", "403 Forbidden",
                                           "the ModelArtifacts could not be read, so the one named cannot be resolved (fail closed)"};

// The reference the workload's delivery mounts: its gpustack.ai/model-image
// annotation, or the image of the ModelArtifact it names (artifacts may be
// null: none is known). A refusal, as a Decision, where the artifact does
// not exist, has no image source, or names another image than the
// annotation beside it.
struct NamedImage {
    std::string reference;  // empty when the workload names no image at all
    std::optional<Decision> refusal;
};
NamedImage named_image(const AdmissionRequest& req, const WorkloadView& workload, const ArtifactSource* artifacts);

}  // namespace miw
