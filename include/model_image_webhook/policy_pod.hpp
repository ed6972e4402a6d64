// The image-source delivery rendered into an opted-in Pod or workload
// (design.md 1.2): one image volume mounted read-only at
// /var/lib/gpustack/model, and nothing else.
#pragma once

#include "model_image_webhook/admission.hpp"
#include "model_image_webhook/artifact_source.hpp"
#include "model_image_webhook/decision.hpp"
#include "model_image_webhook/node_source.hpp"
#include "model_image_webhook/pod_spec.hpp"
#include "model_image_webhook/signature_check.hpp"

namespace miw {

inline constexpr Rule kTwoWeightSources{"two-weight-sources", "volumeMounts", "403 Forbidden",
                                        "a container mounts a volume other than the model image or a cache at /var/lib/gpustack/model"};

// The decision for a Pod or workload sent to /mutate, with the patch that
// makes each pod spec hold exactly the delivery (empty when it already does).
// A workload's pod templates also get its opt-in copied into their metadata;
// a Pod created here and not pinned to a node prefers the nodes (from nodes,
// which may be null) that hold its image.
// artifacts resolves gpustack.ai/model-artifact (artifact_reference.hpp); may be null.
Decision render_model_delivery(const AdmissionRequest& req, const WorkloadView& workload, const PolicyConfig& config, const NodeSource* nodes = nullptr,
                               const ArtifactSource* artifacts = nullptr, const RegistrySource* registry = nullptr,
                               const SignatureSource* signatures = nullptr);

}  // namespace miw
