#include "model_image_webhook/webhook_selection.hpp"

#include "model_image_webhook/admission_path.hpp"

#include <algorithm>

namespace miw {

namespace {

bool listed(const std::vector<std::string>& list, std::string_view item) {
    return std::any_of(list.begin(), list.end(), [&](const std::string& x) { return x == "*" || x == item; });
}

}  // namespace

bool LabelSelector::matches(const std::map<std::string, std::string>& labels) const {
    for (const auto& [key, value] : match_labels) {
        const auto it = labels.find(key);
        if (it == labels.end() || it->second != value) return false;
    }
    for (const auto& r : match_expressions) {
        const auto it = labels.find(r.key);
        const bool has = it != labels.end();
        const bool in = has && std::find(r.values.begin(), r.values.end(), it->second) != r.values.end();
        if (r.op == "In" && !in) return false;
        if (r.op == "NotIn" && in) return false;
        if (r.op == "Exists" && !has) return false;
        if (r.op == "DoesNotExist" && has) return false;
    }
    return true;
}

std::string LabelSelector::describe() const {
    std::string out;
    auto add = [&](const std::string& part) { out += (out.empty() ? "" : ", ") + part; };
    for (const auto& [key, value] : match_labels) add(key + "=" + value);
    for (const auto& r : match_expressions) {
        std::string values;
        for (const auto& v : r.values) values += (values.empty() ? "" : ",") + v;
        if (r.op == "In") add(r.key + " in (" + values + ")");
        else if (r.op == "NotIn") add(r.key + " notin (" + values + ")");
        else if (r.op == "Exists") add(r.key);
        else add("!" + r.key);
    }
    return out.empty() ? "everything" : out;
}

bool WebhookEntry::covers(std::string_view group, std::string_view version, std::string_view resource, std::string_view operation) const {
    return std::any_of(rules.begin(), rules.end(), [&](const WebhookRule& r) {
        return listed(r.api_groups, group) && listed(r.api_versions, version) && listed(r.operations, operation) && listed(r.resources, resource);
    });
}

Selection select(const std::vector<WebhookEntry>& webhooks, Endpoint endpoint, Enforcement configured, std::string_view group, std::string_view version,
                 std::string_view resource, const std::map<std::string, std::string>& namespace_labels,
                 const std::map<std::string, std::string>& object_labels) {
    Selection out;
    // Why not, when nothing sends it: a webhook that took its namespace but
    // not the object says more than one (of a mode's set) that did not take
    // the namespace.
    std::string namespace_refusal, object_refusal;
    for (const WebhookEntry& w : webhooks) {
        const AdmissionPath* at = find_admission_path(w.path);
        if (at == nullptr || at->endpoint != endpoint || !w.covers(group, version, resource, "CREATE")) continue;
        if (!w.namespace_selector.matches(namespace_labels)) {
            if (namespace_refusal.empty()) namespace_refusal = "the namespaceSelector of " + w.name + " (" + w.namespace_selector.describe() + ") does not select its namespace";
            continue;
        }
        if (!w.object_selector.matches(object_labels)) {
            if (object_refusal.empty()) object_refusal = "the objectSelector of " + w.name + " (" + w.object_selector.describe() + ") does not select it";
            continue;
        }
        // deny < warn < audit in the enum: the strictest mode is the smallest.
        const Enforcement mode = at->mode(configured);
        if (!out.sent || mode < out.mode) out.mode = mode;
        out.sent = true;
    }
    if (!out.sent) out.why_not = object_refusal.empty() ? namespace_refusal : object_refusal;
    return out;
}

}  // namespace miw
