// What a pod spec says of the nodes it may run on, read from its DOM for the
// node check (the nodes a required term pins it to) and for placement (the
// preferred terms it already holds).
#pragma once

#include "json_dom.hpp"

#include "model_image_webhook/pod_spec.hpp"

namespace miw::json {

// The values of In constraints on the keys that name a node
// (kubernetes.io/hostname, metadata.name), by required term.
void read_node_terms(const Value& spec, PodSpecView& out);

// The preferred node affinity, as far as the placement rule compares it.
void read_affinity(const Value& spec, AffinityView& out);

// A member as absent (or null), the container it should be, or other.
inline MemberShape shape_of(const Value* v, bool array) {
    if (v == nullptr || v->IsNull()) return MemberShape::absent;
    return (array ? v->IsArray() : v->IsObject()) ? MemberShape::container : MemberShape::other;
}

}  // namespace miw::json
