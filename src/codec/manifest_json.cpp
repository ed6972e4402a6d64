// Manifest objects for the offline `test` command, and the walk over a JSON
// document that the YAML writer uses.
#include "model_image_webhook/manifest.hpp"

#include "json_dom.hpp"

#include "model_image_webhook/json_patch.hpp"
#include "model_image_webhook/pod_spec.hpp"

namespace miw {

using namespace json;

namespace {

std::string read_manifest_object(const Value& item, ManifestObject& out) {
    if (!item.IsObject()) return "a document or List item that is " + std::string(to_string(type_of(&item))) + ", not a Kubernetes object";
    out.api_version = string_member(&item, "apiVersion");
    out.kind = string_member(&item, "kind");
    if (out.api_version.empty() || out.kind.empty()) return "not a Kubernetes object: apiVersion and kind are required";
    const std::size_t slash = out.api_version.find('/');
    out.group = slash == std::string::npos ? std::string() : out.api_version.substr(0, slash);
    out.version = slash == std::string::npos ? out.api_version : out.api_version.substr(slash + 1);
    const Value* metadata = member(&item, "metadata");
    out.name = string_member(metadata, "name");
    out.generate_name = string_member(metadata, "generateName");
    out.namespace_name = string_member(metadata, "namespace");
    if (const Value* labels = member(metadata, "labels"); labels != nullptr && labels->IsObject()) {
        for (auto it = labels->MemberBegin(); it != labels->MemberEnd(); ++it) {
            if (it->value.IsString()) out.labels[std::string(view(it->name))] = std::string(view(it->value));
        }
    }
    const Value* label = member(member(metadata, "labels"), kOptInLabel);
    out.opted_in = label != nullptr && label->IsString() && view(*label) == kOptInValue;
    if (const Value* volumes = member(member(&item, "spec"), "volumes"); volumes != nullptr && volumes->IsArray()) {
        for (const Value& v : volumes->GetArray()) {
            const Value* image = member(&v, "image");
            out.mounts_image_volume = out.mounts_image_volume || (image != nullptr && !image->IsNull());
        }
    }
    out.json = serialize(item);
    return {};
}


void visit(const Value& v, JsonVisitor& visitor) {
    switch (v.GetType()) {
        case rapidjson::kObjectType:
            visitor.start_object();
            for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
                visitor.key(view(it->name));
                visit(it->value, visitor);
            }
            visitor.end_object();
            return;
        case rapidjson::kArrayType:
            visitor.start_array();
            for (const Value& item : v.GetArray()) visit(item, visitor);
            visitor.end_array();
            return;
        case rapidjson::kStringType:
            visitor.string(view(v));
            return;
        default:
            visitor.literal(serialize(v));
    }
}


}  // namespace

Result<std::vector<ManifestObject>> read_manifest_objects(std::string& json) {
    Document doc;
    if (std::string error = parse_document(json, doc); !error.empty()) return fail(error);
    std::vector<ManifestObject> out;
    const Value* items = member(&doc, "items");
    const std::string kind = string_member(&doc, "kind");
    const bool list = doc.IsObject() && kind.size() >= 4 && kind.compare(kind.size() - 4, 4, "List") == 0 && items != nullptr && items->IsArray();
    if (!list) {
        ManifestObject object;
        if (std::string error = read_manifest_object(doc, object); !error.empty()) return fail(error);
        out.push_back(std::move(object));
        return out;
    }
    for (SizeType i = 0; i < items->Size(); ++i) {
        ManifestObject object;
        object.item = i;
        object.from_list = true;
        if (std::string error = read_manifest_object((*items)[i], object); !error.empty()) return fail("item " + std::to_string(i) + " of the List: " + error);
        out.push_back(std::move(object));
    }
    return out;
}

namespace {

std::vector<std::string> strings_of(const Value* list) {
    std::vector<std::string> out;
    if (list == nullptr || !list->IsArray()) return out;
    for (const Value& v : list->GetArray()) {
        if (v.IsString()) out.emplace_back(view(v));
    }
    return out;
}

LabelSelector selector_of(const Value* s) {
    LabelSelector out;
    if (const Value* labels = member(s, "matchLabels"); labels != nullptr && labels->IsObject()) {
        for (auto it = labels->MemberBegin(); it != labels->MemberEnd(); ++it) {
            if (it->value.IsString()) out.match_labels[std::string(view(it->name))] = std::string(view(it->value));
        }
    }
    if (const Value* exprs = member(s, "matchExpressions"); exprs != nullptr && exprs->IsArray()) {
        for (const Value& e : exprs->GetArray()) out.match_expressions.push_back({string_member(&e, "key"), string_member(&e, "operator"), strings_of(member(&e, "values"))});
    }
    return out;
}

}  // namespace

Result<ManifestObject> pod_of_template(const ManifestObject& workload) {
    const auto locations = pod_spec_locations(workload.group, workload.kind);
    if (locations.empty() || locations.front() == "/spec") return fail(workload.kind + " has no pod template");
    std::string text = workload.json;
    Document doc;
    if (std::string error = parse_document(text, doc); !error.empty()) return fail(error);
    // The template is the spec's parent: "/spec/template" of "/spec/template/spec".
    const std::string_view spec_pointer = locations.front();
    const Value* at = at_pointer(&doc, spec_pointer.substr(0, spec_pointer.rfind('/')));
    const Value* spec = member(at, "spec");
    if (at == nullptr || spec == nullptr || !spec->IsObject()) return fail(workload.kind + " has no pod template");
    const Value* metadata = member(at, "metadata");
    std::string meta = metadata != nullptr && metadata->IsObject() ? serialize(*metadata) : std::string("{}");
    // The template's metadata, with the Pod's namespace and a name of its own.
    meta.pop_back();
    const std::string extra = "\"name\":" + json_string(workload.name + "-*") + ",\"namespace\":" + json_string(workload.namespace_name);
    meta += (meta.size() > 1 ? "," : "") + extra + "}";
    std::string pod = "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":" + meta + ",\"spec\":" + serialize(*spec) + "}";
    Result<std::vector<ManifestObject>> objects = read_manifest_objects(pod);
    if (!objects) return fail(objects.error());
    return std::move(objects->front());
}

Result<std::vector<WebhookEntry>> read_webhook_configuration(std::string& json) {
    Document doc;
    if (std::string error = parse_document(json, doc); !error.empty()) return fail(error);
    std::vector<WebhookEntry> out;
    const std::string kind = string_member(&doc, "kind");
    if (kind != "ValidatingWebhookConfiguration" && kind != "MutatingWebhookConfiguration") return out;
    const Value* hooks = member(&doc, "webhooks");
    if (hooks == nullptr || !hooks->IsArray()) return out;
    for (const Value& h : hooks->GetArray()) {
        WebhookEntry w;
        w.name = string_member(&h, "name");
        w.path = string_member(member(member(&h, "clientConfig"), "service"), "path");
        if (w.path.empty()) w.path = kind == "ValidatingWebhookConfiguration" ? "/validate" : "/mutate";
        if (const Value* rules = member(&h, "rules"); rules != nullptr && rules->IsArray()) {
            for (const Value& r : rules->GetArray()) {
                w.rules.push_back({strings_of(member(&r, "apiGroups")), strings_of(member(&r, "apiVersions")), strings_of(member(&r, "operations")),
                                   strings_of(member(&r, "resources"))});
            }
        }
        w.namespace_selector = selector_of(member(&h, "namespaceSelector"));
        w.object_selector = selector_of(member(&h, "objectSelector"));
        out.push_back(std::move(w));
    }
    return out;
}

bool visit_json(const std::string& json, JsonVisitor& visitor) {
    std::string text = json;
    Document doc;
    if (!parse_document(text, doc).empty()) return false;
    visit(doc, visitor);
    return true;
}

}  // namespace miw
