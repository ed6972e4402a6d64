#include "request_views.hpp"

#include "model_artifact_views.hpp"
#include "node_selection_views.hpp"

#include "model_image_webhook/artifact_reference.hpp"
#include "model_image_webhook/rule_scope.hpp"
#include "model_image_webhook/text.hpp"

#include <algorithm>
#include <tuple>

namespace miw::json {

namespace {

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
// Worded only when it happens, out of line: the checks that call it stay
// small enough to inline, and they run for every field of every container.
[[gnu::cold, gnu::noinline]] RequestError wrong_type(const Path& at, std::string_view expected, const Value* v) {
    return RequestError{at.str() + " must be " + std::string(expected) + ", not " + std::string(to_string(type_of(v)))};
}

// v is the member `name` of parent, or nullptr when it has none.
std::optional<RequestError> string_value(const Value* v, std::string_view name, const Path& parent, std::string_view& out) {
    if (v == nullptr || v->IsNull()) return std::nullopt;
    if (!v->IsString()) return wrong_type(parent.member(name), "a string", v);
    out = view(*v);
    return std::nullopt;
}

std::optional<RequestError> optional_string(const Value* obj, std::string_view name, const Path& parent, std::string_view& out) {
    return string_value(member(obj, name), name, parent, out);
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
std::optional<RequestError> array_value(const Value* v, std::string_view name, const Path& parent, const Value*& out, bool& present) {
    out = v;
    present = out != nullptr && !out->IsNull();
    if (present && !out->IsArray()) return wrong_type(parent.member(name), "an array", out);
    if (!present) out = nullptr;
    return std::nullopt;
}

std::optional<RequestError> optional_array(const Value& obj, std::string_view name, const Path& parent, const Value*& out, bool& present) {
    return array_value(member(&obj, name), name, parent, out, present);
}

std::optional<RequestError> object_element(const Value& element, const Path& path) {
    if (!element.IsObject()) return wrong_type(path, "an object", &element);
    return std::nullopt;
}

// A container's members the rules read, found in one pass over its members
// (the last of duplicates wins, as member() has it): a container holds a
// dozen or so, of which seven are read, and a pass for each cost seven.
struct ContainerMembers {
    const Value* name = nullptr;
    const Value* image = nullptr;
    const Value* env = nullptr;
    const Value* env_from = nullptr;
    const Value* volume_mounts = nullptr;
    const Value* args = nullptr;
    const Value* command = nullptr;
};

ContainerMembers container_members(const Value& container) {
    ContainerMembers m;
    for (auto it = container.MemberBegin(); it != container.MemberEnd(); ++it) {
        const std::string_view key = view(it->name);
        const Value* v = &it->value;
        switch (key.size()) {
            case 3:
                if (key == "env") m.env = v;
                break;
            case 4:
                if (key == "name") m.name = v;
                else if (key == "args") m.args = v;
                break;
            case 5:
                if (key == "image") m.image = v;
                break;
            case 7:
                if (key == "envFrom") m.env_from = v;
                else if (key == "command") m.command = v;
                break;
            case 12:
                if (key == "volumeMounts") m.volume_mounts = v;
                break;
            default: break;
        }
    }
    return m;
}

std::optional<RequestError> read_env(const Value* list_value, const Path& path, ContainerView& c) {
    const Value* env = nullptr;
    if (auto e = array_value(list_value, "env", path, env, c.has_env)) return e;
    if (env == nullptr) return std::nullopt;
    const Path list = path.member("env");
    c.env.reserve(env->Size());
    for (SizeType i = 0; i < env->Size(); ++i) {
        const Value& item = (*env)[i];
        const Path item_path = list.at(i);
        if (auto e = object_element(item, item_path)) return e;
        // Both members in one pass (a Pod may carry thousands of variables);
        // the last of duplicates wins, as member() has it.
        const Value* name = nullptr;
        const Value* value = nullptr;
        for (auto it = item.MemberBegin(); it != item.MemberEnd(); ++it) {
            const std::string_view key = view(it->name);
            if (key == "name") name = &it->value;
            else if (key == "value") value = &it->value;
        }
        // The string case inline: string_value's optional error costs more
        // than the read itself, thousands of times over in a large Pod.
        EnvVarView& var = c.env.emplace_back();
        if (name != nullptr && name->IsString()) var.name = view(*name);
        else if (auto e = string_value(name, "name", item_path, var.name)) return e;
        if (value != nullptr && value->IsString()) {
            var.has_string_value = true;
            var.value = view(*value);
        }
    }
    return std::nullopt;
}

std::optional<RequestError> read_mounts(const Value* list_value, const Path& path, ContainerView& c) {
    const Value* mounts = nullptr;
    if (auto e = array_value(list_value, "volumeMounts", path, mounts, c.has_volume_mounts)) return e;
    if (mounts == nullptr) return std::nullopt;
    const Path list = path.member("volumeMounts");
    c.volume_mounts.reserve(mounts->Size());
    for (SizeType i = 0; i < mounts->Size(); ++i) {
        const Value& item = (*mounts)[i];
        const Path item_path = list.at(i);
        if (auto e = object_element(item, item_path)) return e;
        // Every member in one pass; the last of duplicates wins, as member() has it.
        VolumeMountView m;
        const Value* name = nullptr;
        const Value* mount_path = nullptr;
        for (auto it = item.MemberBegin(); it != item.MemberEnd(); ++it) {
            const std::string_view key = view(it->name);
            if (key == "name") name = &it->value;
            else if (key == "mountPath") mount_path = &it->value;
            else if (key == "readOnly") m.read_only = it->value.IsTrue();
            else m.has_other_settings = m.has_other_settings || truthy(it->value);
        }
        if (auto e = string_value(name, "name", item_path, m.name)) return e;
        if (auto e = string_value(mount_path, "mountPath", item_path, m.mount_path)) return e;
        c.volume_mounts.push_back(m);
    }
    return std::nullopt;
}

std::optional<RequestError> read_argv(const Value* list_value, std::string_view name, const Path& path, std::vector<ArgView>& out) {
    const Value* argv = nullptr;
    bool present = false;
    if (auto e = array_value(list_value, name, path, argv, present)) return e;
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
        const ContainerMembers m = container_members(item);
        if (auto e = string_value(m.name, "name", path, c.name)) return e;
        if (auto e = string_value(m.image, "image", path, c.image)) return e;
        if (auto e = read_env(m.env, path, c)) return e;
        if (auto e = read_mounts(m.volume_mounts, path, c)) return e;
        if (m.env_from != nullptr) c.has_env_from = truthy(*m.env_from);
        if (auto e = read_argv(m.args, "args", path, c.args)) return e;
        if (auto e = read_argv(m.command, "command", path, c.command)) return e;
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

// A pod template's metadata, beside its spec ("/spec/template/spec" ->
// "/spec/template/metadata"). Values that are not strings count as absent:
// the copy writes the workload's over them.
void read_template_metadata(const Value& object, std::string_view spec_pointer, TemplateMetadataView& out) {
    out.pointer = std::string(spec_pointer.substr(0, spec_pointer.rfind('/'))) + "/metadata";
    const Value* metadata = at_pointer(&object, out.pointer);
    out.metadata = shape_of(metadata, false);
    if (out.metadata != MemberShape::container) return;
    const Value* labels = member(metadata, "labels");
    const Value* annotations = member(metadata, "annotations");
    out.labels = shape_of(labels, false);
    out.annotations = shape_of(annotations, false);
    const auto string_member = [](const Value* map, std::string_view key, bool& present, std::string_view& value) {
        const Value* v = member(map, key);
        present = v != nullptr && v->IsString();
        if (present) value = view(*v);
    };
    string_member(labels, kOptInLabel, out.has_opt_in_label, out.opt_in_label);
    string_member(annotations, kModelImageAnnotation, out.has_model_image, out.model_image);
    string_member(annotations, kModelContainersAnnotation, out.has_model_containers, out.model_containers);
}

// A name the schema makes a string; another type (a hand-written file) names nothing.
void read_pull_identity(const Value& spec, PodSpecView& out) {
    if (const Value* secrets = member(&spec, "imagePullSecrets"); secrets != nullptr && secrets->IsArray()) {
        for (const Value& ref : secrets->GetArray()) {
            if (const Value* name = member(&ref, "name"); name != nullptr && name->IsString() && name->GetStringLength() != 0) out.image_pull_secrets.push_back(view(*name));
        }
    }
    for (std::string_view field : {"serviceAccountName", "serviceAccount"}) {
        if (const Value* name = member(&spec, field); name != nullptr && name->IsString() && name->GetStringLength() != 0) {
            out.service_account_name = view(*name);
            break;
        }
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
    read_pull_identity(spec, out);
    if (const Value* host = member(member(&spec, "nodeSelector"), kHostnameLabel); host != nullptr && host->IsString()) {
        out.has_hostname_selector = true;
        out.hostname_selector = view(*host);
    }
    read_node_terms(spec, out);
    read_affinity(spec, out.affinity);
    return std::nullopt;
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
    if (auto e = read_annotation(annotations, kModelArtifactAnnotation, out.has_model_artifact, out.model_artifact)) return e;
    out.has_kueue_preferred_topology = member(annotations, kKueuePreferredTopologyAnnotation) != nullptr;
    if (const Value* deletion = member(metadata, "deletionTimestamp"); deletion != nullptr && !deletion->IsNull()) out.being_deleted = true;
    // Objects that do not opt in are not rendered: their pod specs are not read.
    if (!pod_specs_always && out.opt_in_label != kOptInValue) return std::nullopt;
    for (std::string_view pointer : locations) {
        const Value* spec = at_pointer(&object, pointer);
        if (spec == nullptr || spec->IsNull()) continue;
        PodSpecView view;
        if (!spec->IsObject()) return RequestError{"request.object" + std::string(pointer) + " must be an object"};
        if (auto e = read_pod_spec(*spec, pointer, view)) return e;
        if (!is_pod) read_template_metadata(object, pointer, view.template_metadata.emplace());
        out.pod_specs.push_back(std::move(view));
    }
    return std::nullopt;
}


}  // namespace

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
    if (const Value* user = member(request, "userInfo"); user != nullptr && user->IsObject()) {
        const Path user_path{nullptr, "request.userInfo"};
        if (auto e = optional_string(user, "username", user_path, req.user.username)) return e;
        if (const Value* groups = member(user, "groups"); groups != nullptr && groups->IsArray()) {
            req.user.groups.reserve(groups->Size());
            for (const Value& g : groups->GetArray()) {
                if (g.IsString()) req.user.groups.push_back(view(g));
            }
        }
    }
    if (req.rules == RuleSet::model_artifact_status) {
        if (object == nullptr || !object->IsObject()) return RequestError{"request.object is required for a ModelArtifact status UPDATE"};
        req.model_artifact_status = read_model_artifact_status(*object);
    }
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

}  // namespace miw::json
