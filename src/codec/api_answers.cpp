// What the Kubernetes API (or a --nodes file) answers, read: Node objects,
// Lists and arrays of them, and GET /version.
#include "model_image_webhook/admission_review.hpp"

#include "json_dom.hpp"

namespace miw {

using namespace json;

namespace {

std::string add_node(const Value& node, StaticNodeSource& out) {
    const Value* name = member(member(&node, "metadata"), "name");
    if (name == nullptr || !name->IsString() || name->GetStringLength() == 0) return "a Node without metadata.name";
    const Value* info = member(member(&node, "status"), "nodeInfo");
    NodeInfo node_info;
    if (const Value* v = member(info, "kubeletVersion"); v != nullptr && v->IsString()) node_info.kubelet_version = view(*v);
    if (const Value* v = member(info, "containerRuntimeVersion"); v != nullptr && v->IsString()) node_info.container_runtime_version = view(*v);
    out.add(std::string(view(*name)), std::move(node_info));
    return {};
}

bool is_kind(const Value& v, std::string_view kind) {
    const Value* k = member(&v, "kind");
    return k != nullptr && k->IsString() && view(*k) == kind;
}


}  // namespace

Status add_nodes_from_json(std::string& json, StaticNodeSource& out) {
    Document doc;
    if (std::string error = parse_document(json, doc); !error.empty()) return fail(error);
    const Value* items = &doc;
    if (doc.IsObject() && (is_kind(doc, "List") || is_kind(doc, "NodeList"))) items = member(&doc, "items");
    if (items != nullptr && items->IsArray()) {
        for (const Value& item : items->GetArray()) {
            if (!item.IsObject() || !is_kind(item, "Node")) continue;
            if (std::string error = add_node(item, out); !error.empty()) return fail(error);
        }
        return done();
    }
    if (doc.IsObject() && is_kind(doc, "Node")) {
        if (std::string error = add_node(doc, out); !error.empty()) return fail(error);
    }
    return done();
}


std::string read_git_version(std::string& json) {
    Document doc;
    if (!parse_document(json, doc).empty()) return {};
    const Value* version = member(&doc, "gitVersion");
    return version != nullptr && version->IsString() ? std::string(view(*version)) : std::string();
}

}  // namespace miw
