// Routes an admission request to the rules that judge it.
#pragma once

#include "model_image_webhook/admission.hpp"
#include "model_image_webhook/artifact_source.hpp"
#include "model_image_webhook/decision.hpp"
#include "model_image_webhook/node_source.hpp"
#include "model_image_webhook/signature_check.hpp"

namespace miw {

// Routes on req.rules, which the codec set with applies() (rule_scope.hpp).
// Requests that no rule covers are allowed untouched: a webhook configuration
// that sends more than it should must not block the cluster.
// nodes may be null: the node check then finds no Node.
// artifacts may be null: a workload's gpustack.ai/model-artifact then cannot be resolved.
Decision decide(const AdmissionRequest& req, const PolicyConfig& config, const NodeSource* nodes, const ArtifactSource* artifacts = nullptr,
                const RegistrySource* registry = nullptr, const SignatureSource* signatures = nullptr);

}  // namespace miw
