// A workload's opt-in copied into its pod templates (design.md 1.5), so the
// Pods they create carry it and pass through the Pod rules themselves: the
// delivery (already there, an empty patch), placement, and the node check.
#pragma once

#include "model_image_webhook/json_patch.hpp"
#include "model_image_webhook/pod_spec.hpp"

namespace miw {

// Adds to patch what makes the template's labels and annotations carry the
// workload's opt-in label, model image and (when set) model containers;
// nothing for what is there already, or for metadata not shaped as objects.
void copy_opt_in_to_template(const WorkloadView& workload, const TemplateMetadataView& metadata, JsonPatch& patch);

}  // namespace miw
