// What the Kubernetes API (or a --nodes file) answers, read: Node objects,
// Lists and arrays of them, and GET /version.
#include "model_image_webhook/api_answers.hpp"

#include "json_dom.hpp"

#include "model_image_webhook/quantity.hpp"
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
    if (const Value* v = member(member(status, "capacity"), "ephemeral-storage"); v != nullptr && v->IsString()) {
        out.info.ephemeral_storage_bytes = parse_quantity(view(*v));
    }
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

// Each object of `kind` in one JSON document (the object itself, a List or
// KIND+"List" of them, or an array of them) handed to add, which answers an
// error or nothing; objects of other kinds are passed over.
template <typename Add>
Status add_each_of_kind(std::string& json, std::string_view kind, const Add& add) {
    Document doc;
    if (std::string error = parse_document(json, doc); !error.empty()) return fail(error);
    const Value* items = &doc;
    if (doc.IsObject() && (is_kind(doc, "List") || is_kind(doc, std::string(kind) + "List"))) items = member(&doc, "items");
    if (items != nullptr && items->IsArray()) {
        for (const Value& item : items->GetArray()) {
            if (!item.IsObject() || !is_kind(item, kind)) continue;
            if (std::string error = add(item); !error.empty()) return fail(error);
        }
        return done();
    }
    if (doc.IsObject() && is_kind(doc, kind)) {
        if (std::string error = add(doc); !error.empty()) return fail(error);
    }
    return done();
}

// What the rules read of a ModelArtifact: where it is, and its source.
Result<ArtifactRecord> read_artifact(const Value& artifact) {
    const Value* metadata = member(&artifact, "metadata");
    ArtifactRecord out;
    out.name = string_at(metadata, "name");
    if (out.name.empty()) return fail("a ModelArtifact without metadata.name");
    out.namespace_name = string_at(metadata, "namespace");
    if (out.namespace_name.empty()) out.namespace_name = "default";
    const Value* source = member(member(&artifact, "spec"), "source");
    int kinds = 0;
    for (const char* k : {"huggingFace", "modelScope", "persistentVolumeClaim", "image"}) {
        const Value* v = member(source, k);
        if (v == nullptr || v->IsNull()) continue;
        ++kinds;
        out.info.source = k;
    }
    if (kinds != 1) out.info.source.clear();  // none, or several: no image to mount either way
    if (out.info.source == "image") out.info.image_reference = string_at(member(source, "image"), "reference");
    return out;
}

// One page of a list (GET .../nodes?limit=N), each item read by read_item.
template <typename Page, typename ReadItem>
Result<Page> read_list_page(std::string& json, std::string_view what, const ReadItem& read_item) {
    Document doc;
    if (std::string error = parse_document(json, doc, JsonReader::compact_first, UnreadValues::skipped); !error.empty()) {
        return fail("the " + std::string(what) + " list cannot be read: " + error);
    }
    const Value* items = member(&doc, "items");
    if (!doc.IsObject() || items == nullptr || !items->IsArray()) return fail("the " + std::string(what) + " list has no items array");
    Page page;
    const Value* metadata = member(&doc, "metadata");
    page.resource_version = string_at(metadata, "resourceVersion");
    page.continue_token = string_at(metadata, "continue");
    page.items.reserve(items->Size());
    for (const Value& item : items->GetArray()) {
        auto record = read_item(item);
        if (!record) return fail(record.error());
        page.items.push_back(std::move(*record));
    }
    return page;
}

// One line of a watch (GET ...?watch=1), its object read by read_item.
template <typename Event, typename ReadItem>
Result<Event> read_watch_line(std::string& json, const ReadItem& read_item) {
    Document doc;
    if (std::string error = parse_document(json, doc, JsonReader::compact_first, UnreadValues::skipped); !error.empty()) return fail("a watch event cannot be read: " + error);
    const Value* type = member(&doc, "type");
    const Value* object = member(&doc, "object");
    if (type == nullptr || !type->IsString() || object == nullptr || !object->IsObject()) return fail("a watch event without a type and an object");
    Event event;
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
    auto record = read_item(*object);
    if (!record) return fail(record.error());
    event.object = std::move(*record);
    return event;
}

}  // namespace

Status add_nodes_from_json(std::string& json, StaticNodeSource& out) {
    return add_each_of_kind(json, "Node", [&](const Value& node) { return add_node(node, out); });
}

Status add_artifacts_from_json(std::string& json, StaticArtifactSource& out) {
    return add_each_of_kind(json, "ModelArtifact", [&](const Value& artifact) -> std::string {
        Result<ArtifactRecord> record = read_artifact(artifact);
        if (!record) return record.error();
        out.add(std::move(record->namespace_name), std::move(record->name), std::move(record->info));
        return {};
    });
}

Result<NodeListPage> read_node_list(std::string& json) { return read_list_page<NodeListPage>(json, "Node", read_node); }

Result<NodeWatchEvent> read_node_watch_event(std::string& json) { return read_watch_line<NodeWatchEvent>(json, read_node); }

Result<ArtifactListPage> read_artifact_list(std::string& json) { return read_list_page<ArtifactListPage>(json, "ModelArtifact", read_artifact); }

Result<ArtifactWatchEvent> read_artifact_watch_event(std::string& json) { return read_watch_line<ArtifactWatchEvent>(json, read_artifact); }

Result<ArtifactRecord> read_one_artifact(std::string& json) {
    Document doc;
    if (std::string error = parse_document(json, doc); !error.empty()) return fail("the ModelArtifact cannot be read: " + error);
    if (!doc.IsObject()) return fail("the ModelArtifact answer is not an object");
    return read_artifact(doc);
}

std::string read_git_version(std::string& json) {
    Document doc;
    if (!parse_document(json, doc).empty()) return {};
    const Value* version = member(&doc, "gitVersion");
    return version != nullptr && version->IsString() ? std::string(view(*version)) : std::string();
}

}  // namespace miw
