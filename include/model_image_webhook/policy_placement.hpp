// Image-aware placement (design.md 1.5): a Pod that gets the delivery and is
// not pinned to a node prefers the nodes that already hold its image, so it
// starts without pulling tens of gigabytes.
#pragma once

#include "model_image_webhook/json_patch.hpp"
#include "model_image_webhook/pod_spec.hpp"

#include <string>
#include <vector>

namespace miw {

// The preferred node-affinity term towards nodes (sorted names), as JSON:
// weight 100, kubernetes.io/hostname In nodes.
std::string placement_term_json(const std::vector<std::string>& nodes);

// Whether the affinity already holds exactly that term.
bool has_placement_term(const AffinityView& affinity, const std::vector<std::string>& nodes);

// Adds the term to whatever affinity the pod spec has, disturbing nothing
// else; nothing when nodes is empty, when the term is there already, or when
// the affinity is not shaped as the API defines it (the apiserver refuses
// that Pod on its own).
void render_placement(const PodSpecView& spec, const std::vector<std::string>& nodes, JsonPatch& patch);

}  // namespace miw
