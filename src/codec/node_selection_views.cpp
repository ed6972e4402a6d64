#include "node_selection_views.hpp"

#include "model_image_webhook/node_source.hpp"

#include <tuple>

namespace miw::json {

// The values of In constraints on the keys that name a node. Malformed
// affinity is left to the apiserver's own validation: it pins nothing here.
void read_node_terms(const Value& spec, PodSpecView& out) {
    const Value* terms =
        member(member(member(member(&spec, "affinity"), "nodeAffinity"), "requiredDuringSchedulingIgnoredDuringExecution"), "nodeSelectorTerms");
    if (terms == nullptr || !terms->IsArray()) return;
    for (const Value& term : terms->GetArray()) {
        NodeSelectorTermView t;
        constexpr std::tuple<const char*, std::string_view, NodeNamedBy> kNaming[] = {{"matchExpressions", kHostnameLabel, NodeNamedBy::hostname_label},
                                                                                     {"matchFields", "metadata.name", NodeNamedBy::name}};
        for (const auto& [field, key, by] : kNaming) {
            const Value* list = member(&term, field);
            if (list == nullptr || !list->IsArray()) continue;
            for (const Value& requirement : list->GetArray()) {
                const Value* k = member(&requirement, "key");
                const Value* op = member(&requirement, "operator");
                const Value* values = member(&requirement, "values");
                if (k == nullptr || !k->IsString() || view(*k) != key || op == nullptr || !op->IsString() || view(*op) != "In") continue;
                if (values == nullptr || !values->IsArray()) continue;
                NodeConstraintView constraint;
                constraint.by = by;
                for (const Value& v : values->GetArray()) {
                    if (v.IsString()) constraint.values.push_back(view(v));
                }
                t.node_constraints.push_back(std::move(constraint));
            }
        }
        out.required_node_terms.push_back(std::move(t));
    }
}

// What the placement rule compares its term with. Malformed terms are left
// to the apiserver's validation: they are not the rule's term.
void read_affinity(const Value& spec, AffinityView& out) {
    const Value* affinity = member(&spec, "affinity");
    out.affinity = shape_of(affinity, false);
    if (out.affinity != MemberShape::container) return;
    const Value* node_affinity = member(affinity, "nodeAffinity");
    out.node_affinity = shape_of(node_affinity, false);
    if (out.node_affinity != MemberShape::container) return;
    const Value* preferred = member(node_affinity, "preferredDuringSchedulingIgnoredDuringExecution");
    out.preferred = shape_of(preferred, true);
    if (out.preferred != MemberShape::container) return;
    for (const Value& term : preferred->GetArray()) {
        PreferredTermView t;
        const Value* weight = member(&term, "weight");
        t.weight_is_100 = weight != nullptr && weight->IsInt() && weight->GetInt() == 100;
        const Value* preference = member(&term, "preference");
        const Value* expressions = member(preference, "matchExpressions");
        const Value* fields = member(preference, "matchFields");
        const bool no_fields = fields == nullptr || fields->IsNull() || (fields->IsArray() && fields->Empty());
        if (expressions != nullptr && expressions->IsArray() && expressions->Size() == 1 && no_fields) {
            const Value& e = (*expressions)[0];
            const Value* key = member(&e, "key");
            const Value* op = member(&e, "operator");
            const Value* values = member(&e, "values");
            if (key != nullptr && key->IsString() && view(*key) == kHostnameLabel && op != nullptr && op->IsString() && view(*op) == "In" &&
                values != nullptr && values->IsArray()) {
                t.hostname_in_only = true;
                for (const Value& v : values->GetArray()) {
                    if (!v.IsString()) {
                        t.hostname_in_only = false;
                        break;
                    }
                    t.hostnames.push_back(view(v));
                }
            }
        }
        out.preferred_terms.push_back(std::move(t));
    }
}

}  // namespace miw::json
