// The only file that includes RapidJSON. Requests are parsed in place,
// iteratively (no recursion on deep input) and with UTF-8 validation; every
// field is type-checked before it is read; responses are written with a
// Writer, which escapes what it must.
#include "model_image_webhook/admission_review.hpp"

#include "model_image_webhook/admission_policy.hpp"
#include "model_image_webhook/manifest.hpp"
#include "model_image_webhook/rule_scope.hpp"
#include "model_image_webhook/text.hpp"
#include "compact_json_reader.hpp"

// RapidJSON scans the unescaped run of a string 16 bytes at a time with SSE2
// (every x86-64 has it) when it need not validate UTF-8 byte by byte; its
// aligned loads may reach 15 bytes past the end, which kReviewBodySlack covers.
// That scan misses the control characters 0x1A to 0x1F (it tests for 0x19 and
// below), so it only ever sees text without any control character.
#if defined(__SSE2__) && !defined(RAPIDJSON_SSE2)
#define RAPIDJSON_SSE2
#endif
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>

namespace miw {

std::string_view to_string(ReviewOutcome outcome) {
    switch (outcome) {
        case ReviewOutcome::allowed: return "allowed";
        case ReviewOutcome::denied: return "denied";
        case ReviewOutcome::bad_request: return "bad-request";
        case ReviewOutcome::unreadable: return "unreadable";
        case ReviewOutcome::internal_error: return "internal-error";
    }
    return "internal-error";
}

namespace {

using rapidjson::Document;
using rapidjson::SizeType;
using rapidjson::Value;
using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

constexpr std::string_view kReviewApiVersion = "admission.k8s.io/v1";
constexpr unsigned kParseFlags = rapidjson::kParseInsituFlag | rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag;
// Printable ASCII (what the apiserver sends: compact JSON, non-ASCII escaped
// or absent) holds no UTF-8 sequence to validate and no control character:
// the same parse without the per-byte check, its strings scanned with SSE2.
// Anything else, pretty-printed JSON included, takes the byte-by-byte parse.
constexpr unsigned kPrintableAsciiParseFlags = kParseFlags & ~rapidjson::kParseValidateEncodingFlag;

// Builds the Document from SAX events, refusing nesting past kMaxJsonDepth
// so that nothing that walks the tree later can run out of stack.
class DepthLimitedBuilder {
public:
    explicit DepthLimitedBuilder(Document& doc) : doc_(doc) {}

    bool Null() { return doc_.Null(); }
    bool Bool(bool b) { return doc_.Bool(b); }
    bool Int(int i) { return doc_.Int(i); }
    bool Uint(unsigned i) { return doc_.Uint(i); }
    bool Int64(int64_t i) { return doc_.Int64(i); }
    bool Uint64(uint64_t i) { return doc_.Uint64(i); }
    bool Double(double d) { return doc_.Double(d); }
    bool RawNumber(const char* str, SizeType length, bool copy) { return doc_.RawNumber(str, length, copy); }
    bool String(const char* str, SizeType length, bool copy) { return doc_.String(str, length, copy); }
    bool Key(const char* str, SizeType length, bool copy) { return doc_.Key(str, length, copy); }
    bool StartObject() { return enter() && doc_.StartObject(); }
    bool EndObject(SizeType members) { --depth_; return doc_.EndObject(members); }
    bool StartArray() { return enter() && doc_.StartArray(); }
    bool EndArray(SizeType elements) { --depth_; return doc_.EndArray(elements); }

    bool too_deep() const { return too_deep_; }

private:
    bool enter() {
        if (++depth_ <= kMaxJsonDepth) return true;
        too_deep_ = true;
        return false;
    }

    Document& doc_;
    unsigned depth_ = 0;
    bool too_deep_ = false;
};

std::string_view view(const Value& v) { return {v.GetString(), v.GetStringLength()}; }

// The last member of that name, as Go's decoder keeps the last of duplicate
// keys; nullptr when obj is not an object or has none.
const Value* member(const Value* obj, std::string_view name) {
    if (obj == nullptr || !obj->IsObject()) return nullptr;
    const Value* found = nullptr;
    // Length and first byte first: most keys differ there, without a call to memcmp.
    for (auto it = obj->MemberBegin(); it != obj->MemberEnd(); ++it) {
        const Value& key = it->name;
        if (key.GetStringLength() == name.size() && (name.empty() || (key.GetString()[0] == name[0] && std::memcmp(key.GetString(), name.data(), name.size()) == 0))) {
            found = &it->value;
        }
    }
    return found;
}

JsonType type_of(const Value* v) {
    if (v == nullptr) return JsonType::absent;
    switch (v->GetType()) {
        case rapidjson::kNullType: return JsonType::null;
        case rapidjson::kFalseType:
        case rapidjson::kTrueType: return JsonType::boolean;
        case rapidjson::kObjectType: return JsonType::object;
        case rapidjson::kArrayType: return JsonType::array;
        case rapidjson::kStringType: return JsonType::string;
        case rapidjson::kNumberType: return JsonType::number;
    }
    return JsonType::null;
}

// Absent, null, [] and "" all mean "no patterns", as they do to the operator.
bool holds_something(const Value* v) {
    if (v == nullptr || v->IsNull()) return false;
    if (v->IsArray()) return !v->Empty();
    if (v->IsString()) return v->GetStringLength() != 0;
    return true;
}

bool same_json(const Value* a, const Value* b) {
    if (a == nullptr || b == nullptr) return a == b;
    return *a == *b;
}

// A problem with the request itself, told in one line.
struct RequestError {
    std::string message;
};

// Where a value sits in the request, for messages: a chain of names and
// indices that becomes text only when an error is reported.
struct Path {
    const Path* parent = nullptr;
    std::string_view name;  // a member name (or the root's text)
    std::size_t index = 0;
    bool is_index = false;

    Path member(std::string_view n) const { return Path{this, n, 0, false}; }
    Path at(std::size_t i) const { return Path{this, {}, i, true}; }
    std::string str() const {
        std::string out = parent != nullptr ? parent->str() : std::string();
        if (is_index) return out + "[" + std::to_string(index) + "]";
        if (!out.empty()) out += '.';
        return out + std::string(name);
    }
};

// Reads an optional string member; an error when it holds anything else.
std::optional<RequestError> optional_string(const Value* obj, std::string_view name, const Path& parent, std::string_view& out) {
    const Value* v = member(obj, name);
    if (v == nullptr || v->IsNull()) return std::nullopt;
    if (!v->IsString()) return RequestError{parent.member(name).str() + " must be a string, not " + std::string(to_string(type_of(v)))};
    out = view(*v);
    return std::nullopt;
}

std::optional<RequestError> read_kind(const Value* request, GroupVersionKind& kind) {
    const Value* k = member(request, "kind");
    if (k == nullptr || !k->IsObject()) return RequestError{"request.kind must be an object with group, version and kind"};
    const Path path{nullptr, "request.kind"};
    if (auto e = optional_string(k, "group", path, kind.group)) return e;
    if (auto e = optional_string(k, "version", path, kind.version)) return e;
    if (auto e = optional_string(k, "kind", path, kind.kind)) return e;
    if (kind.kind.empty()) return RequestError{"request.kind.kind is missing or empty"};
    return std::nullopt;
}

ModelArtifactView read_model_artifact(const Value* object, const Value* old_object) {
    ModelArtifactView view;
    const Value* spec = member(object, "spec");
    view.spec = type_of(spec);
    const Value* source = member(spec, "source");
    view.source = type_of(source);
    for (std::string_view name : kSourceMembers) {
        const Value* m = member(source, name);
        if (m != nullptr && !m->IsNull()) view.sources_present.push_back(name);
    }
    const Value* image = member(source, "image");
    view.image = type_of(image);
    const Value* reference = member(image, "reference");
    view.reference = type_of(reference);
    if (reference != nullptr && reference->IsString()) view.reference_value = miw::view(*reference);
    view.allow_patterns_set = holds_something(member(spec, "allowPatterns"));
    view.ignore_patterns_set = holds_something(member(spec, "ignorePatterns"));
    if (old_object != nullptr) view.spec_unchanged = same_json(spec, member(old_object, "spec"));
    return view;
}

// ---------------------------------------------------------------- pod specs

// Python-like truthiness: what a typed decoder keeps of an optional field.
bool truthy(const Value& v) {
    switch (v.GetType()) {
        case rapidjson::kNullType:
        case rapidjson::kFalseType: return false;
        case rapidjson::kTrueType: return true;
        case rapidjson::kNumberType: return v.GetDouble() != 0.0;
        case rapidjson::kStringType: return v.GetStringLength() != 0;
        case rapidjson::kArrayType: return !v.Empty();
        case rapidjson::kObjectType: return v.MemberCount() != 0;
    }
    return false;
}

// An optional array member: absent or null leaves present false; anything
// but an array is an error.
std::optional<RequestError> optional_array(const Value& obj, std::string_view name, const Path& parent, const Value*& out, bool& present) {
    out = member(&obj, name);
    present = out != nullptr && !out->IsNull();
    if (present && !out->IsArray()) return RequestError{parent.member(name).str() + " must be an array, not " + std::string(to_string(type_of(out)))};
    if (!present) out = nullptr;
    return std::nullopt;
}

std::optional<RequestError> object_element(const Value& element, const Path& path) {
    if (!element.IsObject()) return RequestError{path.str() + " must be an object, not " + std::string(to_string(type_of(&element)))};
    return std::nullopt;
}

std::optional<RequestError> read_env(const Value& container, const Path& path, ContainerView& c) {
    const Value* env = nullptr;
    if (auto e = optional_array(container, "env", path, env, c.has_env)) return e;
    if (env == nullptr) return std::nullopt;
    const Path list = path.member("env");
    c.env.reserve(env->Size());
    for (SizeType i = 0; i < env->Size(); ++i) {
        const Value& item = (*env)[i];
        const Path item_path = list.at(i);
        if (auto e = object_element(item, item_path)) return e;
        EnvVarView var;
        if (auto e = optional_string(&item, "name", item_path, var.name)) return e;
        if (const Value* value = member(&item, "value"); value != nullptr && value->IsString()) {
            var.has_string_value = true;
            var.value = view(*value);
        }
        c.env.push_back(var);
    }
    return std::nullopt;
}

std::optional<RequestError> read_mounts(const Value& container, const Path& path, ContainerView& c) {
    const Value* mounts = nullptr;
    if (auto e = optional_array(container, "volumeMounts", path, mounts, c.has_volume_mounts)) return e;
    if (mounts == nullptr) return std::nullopt;
    const Path list = path.member("volumeMounts");
    c.volume_mounts.reserve(mounts->Size());
    for (SizeType i = 0; i < mounts->Size(); ++i) {
        const Value& item = (*mounts)[i];
        const Path item_path = list.at(i);
        if (auto e = object_element(item, item_path)) return e;
        VolumeMountView m;
        if (auto e = optional_string(&item, "name", item_path, m.name)) return e;
        if (auto e = optional_string(&item, "mountPath", item_path, m.mount_path)) return e;
        for (auto it = item.MemberBegin(); it != item.MemberEnd(); ++it) {
            const std::string_view key = view(it->name);
            if (key == "readOnly") m.read_only = it->value.IsTrue();
            else if (key != "name" && key != "mountPath") m.has_other_settings = m.has_other_settings || truthy(it->value);
        }
        c.volume_mounts.push_back(m);
    }
    return std::nullopt;
}

std::optional<RequestError> read_argv(const Value& container, std::string_view name, const Path& path, std::vector<ArgView>& out) {
    const Value* argv = nullptr;
    bool present = false;
    if (auto e = optional_array(container, name, path, argv, present)) return e;
    if (argv == nullptr) return std::nullopt;
    out.reserve(argv->Size());
    for (SizeType i = 0; i < argv->Size(); ++i) {
        const Value& a = (*argv)[i];
        out.push_back(a.IsString() ? ArgView{true, view(a)} : ArgView{false, {}});
    }
    return std::nullopt;
}

std::optional<RequestError> read_containers(const Value& spec, std::string_view field, const Path& spec_path, std::vector<ContainerView>& out) {
    const Value* list = nullptr;
    bool present = false;
    if (auto e = optional_array(spec, field, spec_path, list, present)) return e;
    if (list == nullptr) return std::nullopt;
    const Path list_path = spec_path.member(field);
    out.reserve(list->Size());
    for (SizeType i = 0; i < list->Size(); ++i) {
        const Value& item = (*list)[i];
        const Path path = list_path.at(i);
        if (auto e = object_element(item, path)) return e;
        ContainerView c;
        if (auto e = optional_string(&item, "name", path, c.name)) return e;
        if (auto e = read_env(item, path, c)) return e;
        if (auto e = read_mounts(item, path, c)) return e;
        if (const Value* env_from = member(&item, "envFrom")) c.has_env_from = truthy(*env_from);
        if (auto e = read_argv(item, "args", path, c.args)) return e;
        if (auto e = read_argv(item, "command", path, c.command)) return e;
        out.push_back(std::move(c));
    }
    return std::nullopt;
}

// Only a volume with a name and an image {reference, pullPolicy} is the
// delivery as rendered; anything else beside them makes it another volume.
bool only_image_source(const Value& volume) {
    for (auto it = volume.MemberBegin(); it != volume.MemberEnd(); ++it) {
        const std::string_view key = view(it->name);
        if (key != "name" && key != "image" && !it->value.IsNull()) return false;
    }
    const Value* image = member(&volume, "image");
    for (auto it = image->MemberBegin(); it != image->MemberEnd(); ++it) {
        const std::string_view key = view(it->name);
        if (key != "reference" && key != "pullPolicy" && !it->value.IsNull()) return false;
    }
    return true;
}

std::optional<RequestError> read_volumes(const Value& spec, const Path& spec_path, PodSpecView& out) {
    const Value* list = nullptr;
    if (auto e = optional_array(spec, "volumes", spec_path, list, out.has_volumes)) return e;
    if (list == nullptr) return std::nullopt;
    const Path list_path = spec_path.member("volumes");
    out.volumes.reserve(list->Size());
    for (SizeType i = 0; i < list->Size(); ++i) {
        const Value& item = (*list)[i];
        const Path path = list_path.at(i);
        if (auto e = object_element(item, path)) return e;
        VolumeView v;
        if (auto e = optional_string(&item, "name", path, v.name)) return e;
        const Value* empty_dir = member(&item, "emptyDir");
        v.empty_dir = empty_dir != nullptr && !empty_dir->IsNull();
        const Value* image = member(&item, "image");
        if (image != nullptr && !image->IsNull()) {
            const Path image_path = path.member("image");
            if (auto e = object_element(*image, image_path)) return e;
            v.image = true;
            if (auto e = optional_string(image, "reference", image_path, v.image_reference)) return e;
            if (auto e = optional_string(image, "pullPolicy", image_path, v.image_pull_policy)) return e;
            v.only_image_source = only_image_source(item);
        }
        out.volumes.push_back(v);
    }
    return std::nullopt;
}

// The values of In constraints on the keys that name a node. Malformed
// affinity is left to the apiserver's own validation: it pins nothing here.
void read_node_terms(const Value& spec, PodSpecView& out) {
    const Value* terms =
        member(member(member(member(&spec, "affinity"), "nodeAffinity"), "requiredDuringSchedulingIgnoredDuringExecution"), "nodeSelectorTerms");
    if (terms == nullptr || !terms->IsArray()) return;
    for (const Value& term : terms->GetArray()) {
        NodeSelectorTermView t;
        for (const auto& [field, key] : {std::pair{"matchExpressions", kHostnameLabel}, std::pair{"matchFields", std::string_view("metadata.name")}}) {
            const Value* list = member(&term, field);
            if (list == nullptr || !list->IsArray()) continue;
            for (const Value& requirement : list->GetArray()) {
                const Value* k = member(&requirement, "key");
                const Value* op = member(&requirement, "operator");
                const Value* values = member(&requirement, "values");
                if (k == nullptr || !k->IsString() || view(*k) != key || op == nullptr || !op->IsString() || view(*op) != "In") continue;
                if (values == nullptr || !values->IsArray()) continue;
                std::vector<std::string_view> names;
                for (const Value& v : values->GetArray()) {
                    if (v.IsString()) names.push_back(view(v));
                }
                t.node_name_constraints.push_back(std::move(names));
            }
        }
        out.required_node_terms.push_back(std::move(t));
    }
}

std::optional<RequestError> read_pod_spec(const Value& spec, std::string_view pointer, PodSpecView& out) {
    out.pointer = pointer;
    out.field_path = std::string(pointer.substr(1));
    std::replace(out.field_path.begin(), out.field_path.end(), '/', '.');
    const Path object{nullptr, "request.object"};
    const Path path = object.member(out.field_path);
    if (auto e = read_volumes(spec, path, out)) return e;
    if (auto e = read_containers(spec, "initContainers", path, out.init_containers)) return e;
    if (auto e = read_containers(spec, "containers", path, out.containers)) return e;
    if (auto e = optional_string(&spec, "nodeName", path, out.node_name)) return e;
    if (const Value* host = member(member(&spec, "nodeSelector"), kHostnameLabel); host != nullptr && host->IsString()) {
        out.has_hostname_selector = true;
        out.hostname_selector = view(*host);
    }
    read_node_terms(spec, out);
    return std::nullopt;
}

// The value at a JSON Pointer made of plain member names ("/spec/template/spec").
const Value* at_pointer(const Value* root, std::string_view pointer) {
    const Value* at = root;
    while (at != nullptr && !pointer.empty()) {
        pointer.remove_prefix(1);
        const std::size_t slash = pointer.find('/');
        at = member(at, pointer.substr(0, slash));
        pointer = slash == std::string_view::npos ? std::string_view() : pointer.substr(slash);
    }
    return at;
}

std::optional<RequestError> read_annotation(const Value* annotations, std::string_view key, bool& present, std::string_view& out) {
    const Value* v = member(annotations, key);
    present = v != nullptr && !v->IsNull();
    if (!present) return std::nullopt;
    if (!v->IsString()) return RequestError{"request.object.metadata.annotations[" + std::string(key) + "] must be a string"};
    out = view(*v);
    return std::nullopt;
}

// The opt-in from the object's own metadata and, where the rules need them,
// its pod specs.
std::optional<RequestError> read_workload(const Value& object, const std::vector<std::string_view>& locations, bool is_pod, bool pod_specs_always,
                                          WorkloadView& out) {
    out.is_pod = is_pod;
    const Value* metadata = member(&object, "metadata");
    if (const Value* label = member(member(metadata, "labels"), kOptInLabel); label != nullptr && label->IsString()) out.opt_in_label = view(*label);
    const Value* annotations = member(metadata, "annotations");
    if (auto e = read_annotation(annotations, kModelImageAnnotation, out.has_model_image, out.model_image)) return e;
    if (auto e = read_annotation(annotations, kModelContainersAnnotation, out.has_model_containers, out.model_containers)) return e;
    // Objects that do not opt in are not rendered: their pod specs are not read.
    if (!pod_specs_always && out.opt_in_label != kOptInValue) return std::nullopt;
    for (std::string_view pointer : locations) {
        const Value* spec = at_pointer(&object, pointer);
        if (spec == nullptr || spec->IsNull()) continue;
        PodSpecView view;
        if (!spec->IsObject()) return RequestError{"request.object" + std::string(pointer) + " must be an object"};
        if (auto e = read_pod_spec(*spec, pointer, view)) return e;
        out.pod_specs.push_back(std::move(view));
    }
    return std::nullopt;
}

// Fills req from the request object; the envelope is already known good.
std::optional<RequestError> read_request(const Value* request, Endpoint endpoint, AdmissionRequest& req) {
    const Value* uid = member(request, "uid");
    req.uid = view(*uid);
    if (auto e = read_kind(request, req.kind)) return e;

    const Value* op = member(request, "operation");
    if (op == nullptr || !op->IsString()) return RequestError{"request.operation must be a string: CREATE, UPDATE, DELETE or CONNECT"};
    const auto operation = parse_operation(view(*op));
    if (!operation) return RequestError{"request.operation " + quote_value(view(*op), 64) + " is not one of CREATE, UPDATE, DELETE, CONNECT"};
    req.operation = *operation;

    const Path path{nullptr, "request"};
    if (auto e = optional_string(request, "name", path, req.name)) return e;
    if (auto e = optional_string(request, "namespace", path, req.namespace_name)) return e;
    if (auto e = optional_string(request, "subResource", path, req.sub_resource)) return e;
    const Value* dry_run = member(request, "dryRun");
    if (dry_run != nullptr && !dry_run->IsNull() && !dry_run->IsBool()) return RequestError{"request.dryRun must be a boolean"};
    req.dry_run = dry_run != nullptr && dry_run->IsTrue();

    const Value* object = member(request, "object");
    const Value* old_object = member(request, "oldObject");
    for (const auto& [value, path] : {std::pair{object, "request.object"}, std::pair{old_object, "request.oldObject"}}) {
        if (value != nullptr && !value->IsNull() && !value->IsObject()) {
            return RequestError{std::string(path) + " must be an object, not " + std::string(to_string(type_of(value)))};
        }
    }
    if (req.name.empty()) {
        if (const Value* name = member(member(object, "metadata"), "name"); name != nullptr && name->IsString()) req.name = view(*name);
    }

    req.rules = applies(endpoint, req.kind, req.operation, req.sub_resource);
    if (req.rules == RuleSet::model_artifact) {
        if (object == nullptr || !object->IsObject()) return RequestError{"request.object is required for a ModelArtifact " + std::string(to_string(req.operation))};
        if (req.operation == Operation::update && (old_object == nullptr || !old_object->IsObject())) {
            return RequestError{"request.oldObject is required for a ModelArtifact UPDATE"};
        }
        req.model_artifact = read_model_artifact(object, req.operation == Operation::update ? old_object : nullptr);
    }
    const bool is_pod = req.kind.group.empty() && req.kind.kind == "Pod";
    const bool node_checked = req.rules == RuleSet::pinned_pod;
    if ((req.rules == RuleSet::delivery || node_checked) && object != nullptr && object->IsObject()) {
        const auto locations = pod_spec_locations(req.kind.group, req.kind.kind);
        WorkloadView workload;
        if (auto e = read_workload(*object, locations, is_pod, node_checked, workload)) return e;
        req.workload = std::move(workload);
    }
    return std::nullopt;
}

void write_string(JsonWriter& w, std::string_view s) { w.String(s.data(), static_cast<SizeType>(s.size())); }

void write_key(JsonWriter& w, std::string_view s) { w.Key(s.data(), static_cast<SizeType>(s.size())); }

void write_status(JsonWriter& w, const Decision& d) {
    write_key(w, "status");
    w.StartObject();
    write_key(w, "metadata");
    w.StartObject();
    w.EndObject();
    write_key(w, "status");
    write_string(w, "Failure");
    write_key(w, "message");
    write_string(w, d.message);
    write_key(w, "reason");
    write_string(w, d.reason);
    if (!d.causes.empty()) {
        write_key(w, "details");
        w.StartObject();
        // Go's StatusDetails omits empty fields.
        if (!d.details_name.empty()) { write_key(w, "name"); write_string(w, d.details_name); }
        if (!d.details_group.empty()) { write_key(w, "group"); write_string(w, d.details_group); }
        if (!d.details_kind.empty()) { write_key(w, "kind"); write_string(w, d.details_kind); }
        write_key(w, "causes");
        w.StartArray();
        for (const auto& cause : d.causes) {
            w.StartObject();
            write_key(w, "reason");
            write_string(w, to_string(cause.type));
            write_key(w, "message");
            write_string(w, cause.body);
            write_key(w, "field");
            write_string(w, cause.field);
            w.EndObject();
        }
        w.EndArray();
        w.EndObject();
    }
    write_key(w, "code");
    w.Int(d.code);
    w.EndObject();
}

// Field order follows admission/v1 AdmissionResponse, as Go marshals it.
std::string write_review(std::string_view api_version, std::string_view uid, const Decision& d) {
    // Room for the whole answer up front: the buffer would otherwise grow by
    // halves, a reallocation and a copy each time.
    std::size_t estimate = 512 + uid.size() + d.message.size() + d.patch.size() / 3 * 4;
    for (const auto& warning : d.warnings) estimate += warning.size() + 8;
    for (const auto& cause : d.causes) estimate += cause.field.size() + cause.body.size() + 64;
    rapidjson::StringBuffer buffer;
    buffer.Reserve(estimate);
    JsonWriter w(buffer);
    w.StartObject();
    write_key(w, "apiVersion");
    write_string(w, api_version);
    write_key(w, "kind");
    write_string(w, "AdmissionReview");
    write_key(w, "response");
    w.StartObject();
    write_key(w, "uid");
    write_string(w, uid);
    write_key(w, "allowed");
    w.Bool(d.allowed);
    if (!d.allowed) write_status(w, d);
    if (!d.patch.empty()) {
        write_key(w, "patch");
        // base64 needs no escaping: encoded straight into the answer. The
        // empty raw value writes the separator; the quoted text follows it.
        w.RawValue("", 0, rapidjson::kStringType);
        const std::size_t length = base64_length(d.patch.size());
        char* out = buffer.Push(length + 2);
        out[0] = '"';
        base64_encode_into(d.patch, out + 1);
        out[length + 1] = '"';
        write_key(w, "patchType");
        write_string(w, "JSONPatch");
    }
    if (const std::string rules = d.rule_annotation(); !rules.empty()) {
        write_key(w, "auditAnnotations");
        w.StartObject();
        write_key(w, "rule");
        write_string(w, rules);
        w.EndObject();
    }
    if (!d.warnings.empty()) {
        write_key(w, "warnings");
        w.StartArray();
        // The apiserver drops warnings with control characters or over 256 bytes.
        for (const auto& warning : d.warnings) write_string(w, printable_line(warning, 256));
        w.EndArray();
    }
    w.EndObject();
    w.EndObject();
    return std::string(buffer.GetString(), buffer.GetSize());
}

ReviewResult unreadable(std::string message) {
    ReviewResult r;
    r.http_status = 400;
    r.content_type = "text/plain; charset=utf-8";
    r.outcome = ReviewOutcome::unreadable;
    r.error = message;
    r.body = std::move(message) + "\n";
    return r;
}

// A request's uid as a log line or a report shows it: the client chooses its
// length, and only the answer must carry it whole.
std::string summary_text(std::string_view text) {
    constexpr std::size_t kKept = 256;
    if (text.size() <= kKept) return std::string(text);
    std::size_t keep = kKept;
    while (keep > 0 && (static_cast<unsigned char>(text[keep]) & 0xC0) == 0x80) --keep;  // not inside a UTF-8 sequence
    return std::string(text.substr(0, keep)) + "...(cut, " + std::to_string(text.size()) + " bytes)";
}

void summarize(const AdmissionRequest& req, ReviewResult& r) {
    r.uid = summary_text(req.uid);
    r.group = req.kind.group;
    r.version = req.kind.version;
    r.kind = req.kind.kind;
    r.namespace_name = req.namespace_name;
    r.name = req.name;
    r.operation = to_string(req.operation);
    r.dry_run = req.dry_run;
}

// An answer to a request whose uid is known but whose content is not usable.
ReviewResult review_error(std::string_view api_version, std::string_view uid, Decision d, ReviewOutcome outcome) {
    ReviewResult r;
    r.outcome = outcome;
    r.error = d.message;
    r.uid = summary_text(uid);
    r.rules = d.rule_annotation();
    r.body = write_review(api_version, uid, d);
    return r;
}

// The text gets kReviewBodySlack NULs more while it is parsed, for two reasons:
// RapidJSON's UTF-8 validation takes the tail bytes of a multi-byte sequence
// before it judges them (a lead byte at the very end would read, and write
// back in situ, up to three bytes past the terminator; a NUL is never a valid
// tail byte, so the parse fails where it should), and its SSE2 string scan
// loads 16 aligned bytes at a time. Every read stays inside the text.
//
// Parses text in place into doc; an error message, or empty.
std::string parse_document(std::string& text, Document& doc, JsonReader reader_choice = JsonReader::compact_first) {
    const std::size_t length = text.size();
    // No need to look at the bytes first: the compact reader declines what it
    // does not take (an escape, a byte outside printable ASCII) where it meets it.
    if (reader_choice == JsonReader::compact_first) {
        DepthLimitedBuilder compact_builder(doc);
        bool read = false;
        auto generate = [&](Document&) {
            read = read_compact_json<kMaxJsonDepth>(text, compact_builder) == CompactRead::parsed;
            return read;
        };
        doc.Populate(generate);
        if (read) return {};
        // Declined: the text is as it came, and RapidJSON reads it and words any error.
    }
    const bool printable = is_printable_ascii(text);
    text.append(kReviewBodySlack, '\0');
    DepthLimitedBuilder builder(doc);
    rapidjson::InsituStringStream stream(text.data());
    rapidjson::ParseResult parsed;
    auto generate = [&](Document&) {
        rapidjson::Reader reader;
        parsed = printable ? reader.Parse<kPrintableAsciiParseFlags>(stream, builder) : reader.Parse<kParseFlags>(stream, builder);
        return !parsed.IsError();
    };
    doc.Populate(generate);
    text.resize(length);  // shrinking keeps the buffer the DOM's strings point into
    if (builder.too_deep()) return "it nests JSON deeper than " + std::to_string(kMaxJsonDepth) + " levels; no Kubernetes object does";
    if (parsed.IsError()) {
        return std::string("it is not valid JSON: ") + rapidjson::GetParseError_En(parsed.Code()) + " (at byte " + std::to_string(parsed.Offset()) + ")";
    }
    if (stream.Tell() != length) return "it is not valid JSON: a NUL byte at byte " + std::to_string(stream.Tell());
    return {};
}

// The DOM of a review lives in a per-thread arena: no allocation for the
// common request, and pages beyond it only for large objects.
constexpr std::size_t kArenaBytes = 256u << 10;
constexpr std::size_t kParseStackBytes = 16u << 10;

// uid_seen is left pointing at the uid for an answer after a failure: into
// the body where the parse left it in place (no copy of what may be megabytes),
// else into uid_storage.
ReviewResult answer(std::string& body, const ReviewContext& context, std::string_view& uid_seen, std::string& uid_storage, std::string& api_version_seen) {
    thread_local const std::unique_ptr<char[]> arena(new char[kArenaBytes]);
    rapidjson::MemoryPoolAllocator<> pool(arena.get(), kArenaBytes, 1u << 20);
    // The parser's work stack starts big enough for a Pod's nesting, not at 1 KiB doubling.
    Document doc(&pool, kParseStackBytes);
    if (std::string error = parse_document(body, doc, context.json_reader); !error.empty()) return unreadable("the request body cannot be read: " + error);
    if (!doc.IsObject()) return unreadable("the request body must be an AdmissionReview object, not " + std::string(to_string(type_of(&doc))));

    const Value* request = member(&doc, "request");
    if (request == nullptr || !request->IsObject()) return unreadable("the AdmissionReview has no request object");
    const Value* uid = member(request, "uid");
    if (uid == nullptr || !uid->IsString() || uid->GetStringLength() == 0) {
        return unreadable("request.uid is missing, empty or not a string: the answer could not be matched to the request");
    }
    uid_seen = view(*uid);
    if (uid_seen.data() < body.data() || uid_seen.data() + uid_seen.size() > body.data() + body.size()) {
        uid_storage = uid_seen;
        uid_seen = uid_storage;
    }

    // From here on the answer is an AdmissionReview: the apiserver matches
    // it by uid and expects its own apiVersion back.
    const Value* api_version = member(&doc, "apiVersion");
    if (api_version != nullptr && api_version->IsString()) api_version_seen = view(*api_version);
    const std::string_view echo = api_version_seen.empty() ? kReviewApiVersion : std::string_view(api_version_seen);
    const Value* kind = member(&doc, "kind");
    if (kind == nullptr || !kind->IsString() || view(*kind) != "AdmissionReview") {
        return review_error(echo, uid_seen, bad_request("kind must be \"AdmissionReview\"", kMalformedRequest), ReviewOutcome::bad_request);
    }
    if (echo != kReviewApiVersion) {
        return review_error(echo, uid_seen,
                            bad_request("apiVersion " + quote_value(echo, 64) + " is not served: this webhook speaks admission.k8s.io/v1; "
                                        "set admissionReviewVersions: [\"v1\"] in the webhook configuration",
                                        kMalformedRequest),
                            ReviewOutcome::bad_request);
    }

    AdmissionRequest req;
    if (auto error = read_request(request, context.endpoint, req)) {
        ReviewResult r = review_error(echo, uid_seen, bad_request(error->message, kMalformedRequest), ReviewOutcome::bad_request);
        summarize(req, r);
        return r;
    }
    const Decision decision = decide(req, context.policy, context.nodes);
    ReviewResult r;
    summarize(req, r);
    r.outcome = decision.allowed ? ReviewOutcome::allowed : ReviewOutcome::denied;
    r.rules = decision.rule_annotation();
    r.warnings = decision.warnings;
    r.patch = decision.patch;
    r.message = decision.message;
    r.body = write_review(echo, req.uid, decision);
    return r;
}

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

std::string add_nodes_from_json(std::string& json, StaticNodeSource& out) {
    Document doc;
    if (std::string error = parse_document(json, doc); !error.empty()) return error;
    const Value* items = &doc;
    if (doc.IsObject() && (is_kind(doc, "List") || is_kind(doc, "NodeList"))) items = member(&doc, "items");
    if (items != nullptr && items->IsArray()) {
        for (const Value& item : items->GetArray()) {
            if (!item.IsObject() || !is_kind(item, "Node")) continue;
            if (std::string error = add_node(item, out); !error.empty()) return error;
        }
        return {};
    }
    if (doc.IsObject() && is_kind(doc, "Node")) return add_node(doc, out);
    return {};
}

// ------------------------------------------------------------ manifests

namespace {

std::string serialize(const Value& v) {
    rapidjson::StringBuffer buffer;
    JsonWriter w(buffer);
    v.Accept(w);
    return std::string(buffer.GetString(), buffer.GetSize());
}

std::string string_member(const Value* obj, std::string_view name) {
    const Value* v = member(obj, name);
    return v != nullptr && v->IsString() ? std::string(view(*v)) : std::string();
}

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
    if (out.name.empty()) out.name = string_member(metadata, "generateName");
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

// RFC 6901 reference tokens of a pointer, unescaped.
bool pointer_tokens(std::string_view pointer, std::vector<std::string>& out) {
    if (pointer.empty()) return true;
    if (pointer.front() != '/') return false;
    std::size_t start = 1;
    while (true) {
        const std::size_t slash = pointer.find('/', start);
        std::string token(pointer.substr(start, slash == std::string_view::npos ? pointer.npos : slash - start));
        std::string unescaped;
        for (std::size_t i = 0; i < token.size(); ++i) {
            if (token[i] == '~' && i + 1 < token.size() && (token[i + 1] == '0' || token[i + 1] == '1')) {
                unescaped += token[i + 1] == '0' ? '~' : '/';
                ++i;
            } else if (token[i] == '~') {
                return false;
            } else {
                unescaped += token[i];
            }
        }
        out.push_back(std::move(unescaped));
        if (slash == std::string_view::npos) return true;
        start = slash + 1;
    }
}

std::optional<std::size_t> array_index(const std::string& token, std::size_t size, bool allow_end) {
    if (token.empty() || token.size() > 9 || token.find_first_not_of("0123456789") != std::string::npos || (token.size() > 1 && token[0] == '0')) {
        return std::nullopt;
    }
    const std::size_t i = std::stoul(token);
    if (i > size || (i == size && !allow_end)) return std::nullopt;
    return i;
}

// The last member of that name, as member() reads it: a patch lands where
// the rules looked, even in an object with duplicate keys.
Value::MemberIterator find_last_member(Value& obj, std::string_view name) {
    auto found = obj.MemberEnd();
    for (auto it = obj.MemberBegin(); it != obj.MemberEnd(); ++it) {
        if (view(it->name) == name) found = it;
    }
    return found;
}

std::string apply_op(Document& doc, const Value& op) {
    const std::string kind = string_member(&op, "op");
    const Value* path_value = member(&op, "path");
    if (path_value == nullptr || !path_value->IsString()) return "an operation without a path";
    const std::string path(view(*path_value));
    std::vector<std::string> tokens;
    if (!pointer_tokens(path, tokens) || tokens.empty()) return "path \"" + path + "\" is not a JSON Pointer to a member";
    Value* parent = &doc;
    for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
        if (parent->IsObject()) {
            auto it = find_last_member(*parent, tokens[i]);
            if (it == parent->MemberEnd()) return "path \"" + path + "\" goes through a missing member";
            parent = &it->value;
        } else if (parent->IsArray()) {
            const auto index = array_index(tokens[i], parent->Size(), false);
            if (!index) return "path \"" + path + "\" has a bad array index";
            parent = &(*parent)[static_cast<SizeType>(*index)];
        } else {
            return "path \"" + path + "\" goes through a scalar";
        }
    }
    const std::string& last = tokens.back();
    const Value* value = member(&op, "value");
    auto& alloc = doc.GetAllocator();
    if ((kind == "add" || kind == "replace") && value == nullptr) return kind + " without a value";
    if (parent->IsObject()) {
        Value key(last.c_str(), static_cast<SizeType>(last.size()), alloc);
        auto it = find_last_member(*parent, last);
        if (kind == "remove" || kind == "replace") {
            if (it == parent->MemberEnd()) return kind + " of the missing member \"" + path + "\"";
            if (kind == "remove") parent->EraseMember(it);
            else it->value.CopyFrom(*value, alloc);
        } else if (kind == "add") {
            if (it != parent->MemberEnd()) it->value.CopyFrom(*value, alloc);
            else parent->AddMember(key, Value(*value, alloc), alloc);
        } else {
            return "operation \"" + kind + "\" is not supported";
        }
        return {};
    }
    if (!parent->IsArray()) return "path \"" + path + "\" goes through a scalar";
    if (kind == "add") {
        if (last == "-") {
            parent->PushBack(Value(*value, alloc), alloc);
            return {};
        }
        const auto index = array_index(last, parent->Size(), true);
        if (!index) return "path \"" + path + "\" has a bad array index";
        parent->PushBack(Value(), alloc);
        for (SizeType i = parent->Size() - 1; i > *index; --i) (*parent)[i].Swap((*parent)[i - 1]);
        (*parent)[static_cast<SizeType>(*index)].CopyFrom(*value, alloc);
        return {};
    }
    const auto index = array_index(last, parent->Size(), false);
    if (!index) return "path \"" + path + "\" has a bad array index";
    if (kind == "remove") parent->Erase(parent->Begin() + *index);
    else if (kind == "replace") (*parent)[static_cast<SizeType>(*index)].CopyFrom(*value, alloc);
    else return "operation \"" + kind + "\" is not supported";
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

std::string read_manifest_objects(std::string& json, std::vector<ManifestObject>& out) {
    Document doc;
    if (std::string error = parse_document(json, doc); !error.empty()) return error;
    const Value* items = member(&doc, "items");
    const std::string kind = string_member(&doc, "kind");
    const bool list = doc.IsObject() && kind.size() >= 4 && kind.compare(kind.size() - 4, 4, "List") == 0 && items != nullptr && items->IsArray();
    if (!list) {
        ManifestObject object;
        if (std::string error = read_manifest_object(doc, object); !error.empty()) return error;
        out.push_back(std::move(object));
        return {};
    }
    for (SizeType i = 0; i < items->Size(); ++i) {
        ManifestObject object;
        object.item = i;
        object.from_list = true;
        if (std::string error = read_manifest_object((*items)[i], object); !error.empty()) return "item " + std::to_string(i) + " of the List: " + error;
        out.push_back(std::move(object));
    }
    return {};
}

std::string apply_json_patch(const std::string& document, const std::string& patch, std::string& out) {
    std::string document_text = document;
    std::string patch_text = patch;
    Document doc;
    Document ops;
    if (std::string error = parse_document(document_text, doc); !error.empty()) return "the document: " + error;
    if (std::string error = parse_document(patch_text, ops); !error.empty()) return "the patch: " + error;
    if (!ops.IsArray()) return "the patch is not a JSON array";
    for (const Value& op : ops.GetArray()) {
        if (!op.IsObject()) return "a patch operation that is not an object";
        if (std::string error = apply_op(doc, op); !error.empty()) return error;
    }
    out = serialize(doc);
    return {};
}

bool visit_json(const std::string& json, JsonVisitor& visitor) {
    std::string text = json;
    Document doc;
    if (!parse_document(text, doc).empty()) return false;
    visit(doc, visitor);
    return true;
}

std::string read_git_version(std::string& json) {
    Document doc;
    if (!parse_document(json, doc).empty()) return {};
    const Value* version = member(&doc, "gitVersion");
    return version != nullptr && version->IsString() ? std::string(view(*version)) : std::string();
}

ReviewResult review(std::string& body, const ReviewContext& context) {
    std::string_view uid;
    std::string uid_storage;
    std::string api_version;
    try {
        return answer(body, context, uid, uid_storage, api_version);
    } catch (const std::bad_alloc&) {
        // Out of memory on one request must not take the server down with it.
        const char* message = "the webhook ran out of memory answering this request";
        if (uid.empty()) {
            ReviewResult r = unreadable(message);
            r.http_status = 500;
            r.outcome = ReviewOutcome::internal_error;
            return r;
        }
        Decision d;
        d.allowed = false;
        d.code = 500;
        d.reason = "InternalError";
        d.message = message;
        d.rules.push_back(std::string(kInternalError.id));
        return review_error(api_version.empty() ? kReviewApiVersion : std::string_view(api_version), uid, d, ReviewOutcome::internal_error);
    }
}

}  // namespace miw
