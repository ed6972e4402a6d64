// What the Kubernetes API (or a --nodes file) answers, read: Node objects,
// Lists and arrays of them, and GET /version.
#include "model_image_webhook/api_answers.hpp"

#include "json_dom.hpp"

#include "model_image_webhook/text.hpp"

namespace miw {

using namespace json;

namespace {

// What the rules read of a Node: its name, status.nodeInfo's versions and the
// digest-pinned names of status.images (hashed).
Result<NodeRecord> read_node(const Value& node) {
    const Value* name = member(member(&node, "metadata"), "name");
    if (name == nullptr || !name->IsString() || name->GetStringLength() == 0) return fail("a Node without metadata.name");
    const Value* status = member(&node, "status");
    const Value* info = member(status, "nodeInfo");
    NodeRecord out;
    out.name = view(*name);
    if (const Value* v = member(info, "kubeletVersion"); v != nullptr && v->IsString()) out.info.kubelet_version = view(*v);
    if (const Value* v = member(info, "containerRuntimeVersion"); v != nullptr && v->IsString()) out.info.container_runtime_version = view(*v);
    if (const Value* v = member(member(member(&node, "metadata"), "labels"), kHostnameLabel); v != nullptr && v->IsString()) out.info.hostname = view(*v);
    if (const Value* images = member(status, "images"); images != nullptr && images->IsArray()) {
        for (const Value& image : images->GetArray()) {
            const Value* names = member(&image, "names");
            if (names == nullptr || !names->IsArray()) continue;
            for (const Value& n : names->GetArray()) {
                if (n.IsString()) out.info.add_image_name(view(n));
            }
        }
    }
    return out;
}

std::string add_node(const Value& node, StaticNodeSource& out) {
    Result<NodeRecord> record = read_node(node);
    if (!record) return record.error();
    out.add(std::move(record->name), std::move(record->info));
    return {};
}

std::string string_at(const Value* object, const char* key) {
    const Value* v = member(object, key);
    return v != nullptr && v->IsString() ? std::string(view(*v)) : std::string();
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


Result<NodeListPage> read_node_list(std::string& json) {
    Document doc;
    if (std::string error = parse_document(json, doc, JsonReader::compact_first, UnreadValues::skipped); !error.empty()) return fail("the Node list cannot be read: " + error);
    const Value* items = member(&doc, "items");
    if (!doc.IsObject() || items == nullptr || !items->IsArray()) return fail("the Node list has no items array");
    NodeListPage page;
    const Value* metadata = member(&doc, "metadata");
    page.resource_version = string_at(metadata, "resourceVersion");
    page.continue_token = string_at(metadata, "continue");
    page.nodes.reserve(items->Size());
    for (const Value& item : items->GetArray()) {
        Result<NodeRecord> record = read_node(item);
        if (!record) return fail(record.error());
        page.nodes.push_back(std::move(*record));
    }
    return page;
}

Result<NodeWatchEvent> read_node_watch_event(std::string& json) {
    Document doc;
    if (std::string error = parse_document(json, doc, JsonReader::compact_first, UnreadValues::skipped); !error.empty()) return fail("a watch event cannot be read: " + error);
    const Value* type = member(&doc, "type");
    const Value* object = member(&doc, "object");
    if (type == nullptr || !type->IsString() || object == nullptr || !object->IsObject()) return fail("a watch event without a type and an object");
    NodeWatchEvent event;
    const std::string_view t = view(*type);
    if (t == "ADDED") event.type = WatchEventType::added;
    else if (t == "MODIFIED") event.type = WatchEventType::modified;
    else if (t == "DELETED") event.type = WatchEventType::deleted;
    else if (t == "BOOKMARK") event.type = WatchEventType::bookmark;
    else if (t == "ERROR") event.type = WatchEventType::error;
    else return fail("a watch event of an unknown type " + quote_value(t, 32));
    event.resource_version = string_at(member(object, "metadata"), "resourceVersion");
    if (event.type == WatchEventType::error) {
        const Value* code = member(object, "code");
        event.code = code != nullptr && code->IsInt() ? code->GetInt() : 0;
        event.message = string_at(object, "message");
        return event;
    }
    if (event.type == WatchEventType::bookmark) return event;
    Result<NodeRecord> record = read_node(*object);
    if (!record) return fail(record.error());
    event.node = std::move(*record);
    return event;
}

std::string read_git_version(std::string& json) {
    Document doc;
    if (!parse_document(json, doc).empty()) return {};
    const Value* version = member(&doc, "gitVersion");
    return version != nullptr && version->IsString() ? std::string(view(*version)) : std::string();
}

}  // namespace miw
