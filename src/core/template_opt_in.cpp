#include "model_image_webhook/template_opt_in.hpp"

#include <string>
#include <utility>
#include <vector>

namespace miw {

namespace {

// Members of one metadata map (labels or annotations) to set: key and value.
using Members = std::vector<std::pair<std::string_view, std::string_view>>;

std::string object_json(const Members& members) {
    std::string out = "{";
    for (const auto& [key, value] : members) out += (out.size() > 1 ? "," : "") + json_string(key) + ":" + json_string(value);
    return out + "}";
}

// Adds the missing members under metadata/<map>: the map whole when it is
// absent, else one member at a time (an add on a present member replaces it).
void set_members(const TemplateMetadataView& t, std::string_view map, MemberShape shape, const Members& members, JsonPatch& patch) {
    if (members.empty() || shape == MemberShape::other) return;
    const std::string base = pointer_child(t.pointer, map);
    if (shape == MemberShape::absent) {
        patch.add(base, object_json(members));
        return;
    }
    for (const auto& [key, value] : members) patch.add(pointer_child(base, key), json_string(value));
}

}  // namespace

void copy_opt_in_to_template(const WorkloadView& w, const TemplateMetadataView& t, JsonPatch& patch) {
    if (t.metadata == MemberShape::other) return;
    Members labels, annotations;
    if (!t.has_opt_in_label || t.opt_in_label != kOptInValue) labels.emplace_back(kOptInLabel, kOptInValue);
    if (!t.has_model_image || t.model_image != w.model_image) annotations.emplace_back(kModelImageAnnotation, w.model_image);
    if (w.has_model_containers && (!t.has_model_containers || t.model_containers != w.model_containers)) {
        annotations.emplace_back(kModelContainersAnnotation, w.model_containers);
    }
    if (labels.empty() && annotations.empty()) return;
    if (t.metadata == MemberShape::absent) {
        std::string metadata = "{";
        if (!labels.empty()) metadata += "\"labels\":" + object_json(labels);
        if (!annotations.empty()) metadata += std::string(labels.empty() ? "" : ",") + "\"annotations\":" + object_json(annotations);
        patch.add(t.pointer, metadata + "}");
        return;
    }
    set_members(t, "labels", t.labels, labels, patch);
    set_members(t, "annotations", t.annotations, annotations, patch);
}

}  // namespace miw
