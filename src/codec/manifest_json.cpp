// Manifest objects for the offline `test` command, and the walk over a JSON
// document that the YAML writer uses.
#include "model_image_webhook/manifest.hpp"

#include "json_dom.hpp"

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

bool visit_json(const std::string& json, JsonVisitor& visitor) {
    std::string text = json;
    Document doc;
    if (!parse_document(text, doc).empty()) return false;
    visit(doc, visitor);
    return true;
}

}  // namespace miw
