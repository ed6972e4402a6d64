#include "model_image_webhook/policy_placement.hpp"

#include <algorithm>

namespace miw {

namespace {
constexpr std::string_view kPreferred = "preferredDuringSchedulingIgnoredDuringExecution";
}  // namespace

std::string placement_term_json(const std::vector<std::string>& nodes) {
    std::string values;
    for (const auto& n : nodes) values += (values.empty() ? "" : ",") + json_string(n);
    return "{\"weight\":100,\"preference\":{\"matchExpressions\":[{\"key\":" + json_string(kHostnameLabel) + ",\"operator\":\"In\",\"values\":[" + values +
           "]}]}}";
}

bool has_placement_term(const AffinityView& affinity, const std::vector<std::string>& nodes) {
    return std::any_of(affinity.preferred_terms.begin(), affinity.preferred_terms.end(), [&](const PreferredTermView& t) {
        return t.weight_is_100 && t.hostname_in_only && std::equal(t.hostnames.begin(), t.hostnames.end(), nodes.begin(), nodes.end());
    });
}

void render_placement(const PodSpecView& spec, const std::vector<std::string>& nodes, JsonPatch& patch) {
    const AffinityView& a = spec.affinity;
    if (nodes.empty() || has_placement_term(a, nodes)) return;
    const std::string term = placement_term_json(nodes);
    const std::string affinity = spec.pointer + "/affinity";
    const std::string node_affinity = affinity + "/nodeAffinity";
    const std::string preferred = node_affinity + "/" + std::string(kPreferred);
    const std::string preferred_json = "{\"" + std::string(kPreferred) + "\":[" + term + "]}";
    switch (a.affinity) {
        case MemberShape::other: return;
        case MemberShape::absent: patch.add(affinity, "{\"nodeAffinity\":" + preferred_json + "}"); return;
        case MemberShape::container: break;
    }
    switch (a.node_affinity) {
        case MemberShape::other: return;
        case MemberShape::absent: patch.add(node_affinity, preferred_json); return;
        case MemberShape::container: break;
    }
    switch (a.preferred) {
        case MemberShape::other: return;
        case MemberShape::absent: patch.add(preferred, "[" + term + "]"); return;
        case MemberShape::container: patch.add(preferred + "/-", term); return;
    }
}

}  // namespace miw
