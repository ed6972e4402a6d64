#include "model_image_webhook/policy_pod.hpp"

#include "model_image_webhook/artifact_reference.hpp"
#include "model_image_webhook/download_env.hpp"
#include "model_image_webhook/engine_args.hpp"
#include "model_image_webhook/json_patch.hpp"
#include "model_image_webhook/pinned_reference.hpp"
#include "model_image_webhook/policy_model_artifact.hpp"
#include "model_image_webhook/policy_node.hpp"
#include "model_image_webhook/policy_placement.hpp"
#include "model_image_webhook/registry/check.hpp"
#include "model_image_webhook/template_opt_in.hpp"
#include "model_image_webhook/text.hpp"
#include "model_image_webhook/warning.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace miw {

namespace {

constexpr std::string_view kCacheMountPath = "/var/lib/gpustack/model-cache";
constexpr std::array<std::string_view, 2> kCachePaths = {kCacheMountPath, kModelMountPath};
constexpr std::array<std::string_view, 2> kCachePrefixes = {"/root/.cache/huggingface", "/root/.cache/modelscope"};
constexpr std::array<std::string_view, 5> kCacheEnv = {"HF_HOME", "HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "TRANSFORMERS_CACHE", "MODELSCOPE_CACHE"};

template <class List>
bool contains(const List& list, std::string_view item) {
    return std::find(list.begin(), list.end(), item) != list.end();
}

// A mount path as the kubelet reads it: trailing slashes do not matter.
std::string_view clean_path(std::string_view path) {
    if (path.empty()) return path;
    while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
    return path;
}

bool is_cache_path(std::string_view mount_path, const std::vector<std::string_view>& env_paths) {
    const std::string_view p = clean_path(mount_path);
    if (p.empty()) return false;
    if (contains(kCachePaths, p) || contains(env_paths, p)) return true;
    for (std::string_view prefix : kCachePrefixes) {
        if (p == prefix || (p.size() > prefix.size() && p.substr(0, prefix.size()) == prefix && p[prefix.size()] == '/')) return true;
    }
    return false;
}

template <class F>
void for_each_container(const PodSpecView& spec, F&& f) {
    for (const auto& c : spec.init_containers) f(c);
    for (const auto& c : spec.containers) f(c);
}

// Names looked up once for each mount or container (a Pod may hold tens of
// thousands): sorted once, each lookup a binary search, so no list of them
// costs the square of its length.
std::vector<std::string_view> sorted_unique(std::vector<std::string_view> names) {
    if (names.size() < 2) return names;
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
}

// A short list is searched in place: string_view's == passes over most names
// on their length alone, where each step of a binary search compares bytes.
bool sorted_contains(const std::vector<std::string_view>& sorted, std::string_view name) {
    if (sorted.size() <= 8) return std::find(sorted.begin(), sorted.end(), name) != sorted.end();
    return std::binary_search(sorted.begin(), sorted.end(), name);
}

// The volumes that go, sorted by name: gpustack-model-cache, and every
// emptyDir that some container mounts where model caches live. The model
// volume never does.
std::vector<std::string_view> cache_volumes(const PodSpecView& spec) {
    // By name, the first of each name first: the one the kubelet takes. A
    // handful of volumes, as most Pods have, is searched in place: sorting
    // them cost more than it saved (4,000 instructions a small mutation).
    constexpr std::size_t kSearchedInPlace = 16;
    std::vector<const VolumeView*> by_name;
    if (spec.volumes.size() > kSearchedInPlace) {
        by_name.reserve(spec.volumes.size());
        for (const auto& v : spec.volumes) by_name.push_back(&v);
        std::stable_sort(by_name.begin(), by_name.end(), [](const VolumeView* a, const VolumeView* b) { return a->name < b->name; });
    }
    const auto volume_named = [&](std::string_view name) -> const VolumeView* {
        if (by_name.empty()) {
            const auto at = std::find_if(spec.volumes.begin(), spec.volumes.end(), [&](const VolumeView& v) { return v.name == name; });
            return at != spec.volumes.end() ? &*at : nullptr;
        }
        const auto at = std::lower_bound(by_name.begin(), by_name.end(), name, [](const VolumeView* v, std::string_view n) { return v->name < n; });
        return at != by_name.end() && (*at)->name == name ? *at : nullptr;
    };
    std::vector<std::string_view> out;
    if (volume_named(kCacheVolume)) out.push_back(kCacheVolume);
    for_each_container(spec, [&](const ContainerView& c) {
        std::vector<std::string_view> env_paths;
        for (const auto& e : c.env) {
            if (contains(kCacheEnv, e.name) && e.has_string_value && !e.value.empty()) env_paths.push_back(clean_path(e.value));
        }
        for (const auto& m : c.volume_mounts) {
            const VolumeView* v = volume_named(m.name);
            if (v == nullptr || v->name == kModelVolume || !v->empty_dir) continue;
            if (is_cache_path(m.mount_path, env_paths)) out.push_back(v->name);
        }
    });
    return sorted_unique(std::move(out));
}

// Whatever its pullPolicy: the apiserver defaults it to IfNotPresent after
// mutation, and Never is how air-gapped nodes with preloaded images run.
bool volume_is_the_delivery(const VolumeView& v, std::string_view reference) { return v.image && v.only_image_source && v.image_reference == reference; }

bool mount_is_the_delivery(const VolumeMountView& m) {
    return m.name == kModelVolume && m.mount_path == kModelMountPath && m.read_only && !m.has_other_settings;
}

std::string model_volume_json(std::string_view reference) {
    return "{\"name\":" + json_string(kModelVolume) + ",\"image\":{\"reference\":" + json_string(reference) + "}}";
}

// The mount is the same in every container: its JSON is built once, from the
// same constants the rules read.
const std::string& model_mount_json() {
    static const std::string json = "{\"name\":" + json_string(kModelVolume) + ",\"mountPath\":" + json_string(kModelMountPath) + ",\"readOnly\":true}";
    return json;
}

// The apiserver passes on about 4 KiB of a webhook's warnings (sixteen of
// 256 bytes): past this many, one line says there are more, and the rest are
// not kept (a Pod of thousands of containers would otherwise give thousands,
// each checked against the others).
constexpr std::size_t kMaxWarnings = 64;

void add_warning(std::vector<std::string>& warnings, std::string warning) {
    if (warnings.size() > kMaxWarnings || contains(warnings, warning)) return;
    if (warnings.size() == kMaxWarnings) {
        warnings.push_back("more warnings than " + std::to_string(kMaxWarnings) + ": the rest are not shown");
        return;
    }
    warnings.push_back(std::move(warning));
}

void container_warnings(const ContainerView& c, std::vector<std::string>& warnings) {
    if (c.has_env_from) {
        add_warning(warnings, Warning("container ").quote(c.name, 63).say(": envFrom is not inspected; HF_*, MODELSCOPE_* or proxy variables may still come from it").text());
    }
}

std::vector<std::string_view> selected_container_names(const WorkloadView& w) {
    std::vector<std::string_view> names;
    if (!w.has_model_containers) return names;
    std::string_view rest = w.model_containers;
    while (!rest.empty()) {
        const std::size_t comma = rest.find(',');
        std::string_view item = rest.substr(0, comma);
        rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
        while (!item.empty() && std::isspace(static_cast<unsigned char>(item.front()))) item.remove_prefix(1);
        while (!item.empty() && std::isspace(static_cast<unsigned char>(item.back()))) item.remove_suffix(1);
        if (!item.empty()) names.push_back(item);
    }
    return names;
}

// The container as a field path for messages: "spec.template.spec.containers[1]".
std::string container_field_path(const PodSpecView& spec, std::string_view field, std::size_t index) {
    return spec.field_path + "." + std::string(field) + "[" + std::to_string(index) + "]";
}

// How a mount path stands to a protected path: at it, inside it, or around it
// (a parent, which would hide it); nowhere otherwise.
enum class Overlap { none, at, inside, around };

Overlap overlap(std::string_view mount, std::string_view guarded) {
    mount = clean_path(mount);
    if (mount.empty()) return Overlap::none;
    if (mount == guarded) return Overlap::at;
    const auto under = [](std::string_view path, std::string_view parent) {
        return parent == "/" ? path.size() > 1 : path.size() > parent.size() && path.substr(0, parent.size()) == parent && path[parent.size()] == '/';
    };
    if (under(mount, guarded)) return Overlap::inside;
    if (under(guarded, mount)) return Overlap::around;
    return Overlap::none;
}

std::string_view to_string(Overlap o) {
    switch (o) {
        case Overlap::at: return "at";
        case Overlap::inside: return "inside";
        case Overlap::around: return "around";
        case Overlap::none: break;
    }
    return "";
}

// In a selected container, a mount of another volume at, inside or around the
// model path (or of a non-cache volume at, inside or around the cache path)
// is a second source of weights beside the image. cache and names come
// sorted (sorted_unique), as sorted_contains needs them.
std::string second_weight_source(const PodSpecView& spec, const std::vector<std::string_view>& cache, const std::vector<std::string_view>& names) {
    for (std::size_t i = 0; i < spec.containers.size(); ++i) {
        const ContainerView& c = spec.containers[i];
        if (!names.empty() && !sorted_contains(names, c.name)) continue;
        for (const auto& m : c.volume_mounts) {
            if (m.name == kModelVolume || sorted_contains(cache, m.name)) continue;
            for (std::string_view guarded : {kModelMountPath, kCacheMountPath}) {
                const Overlap o = overlap(m.mount_path, guarded);
                if (o == Overlap::none) continue;
                const std::string where = o == Overlap::at ? std::string(guarded) + " itself"
                                                           : quote_value(clean_path(m.mount_path), 256) + ", " + std::string(to_string(o)) + " " + std::string(guarded);
                return container_named(c.name) + " (" + container_field_path(spec, "containers", i) + ") mounts volume \"" +
                       std::string(utf8_prefix(m.name, 63)) + "\" at " + where +
                       ": that is a second source of weights beside the model image; remove that mount or move it elsewhere, "
                       "or remove the label " + std::string(kOptInLabel) + " to keep the volume instead of the image";
            }
        }
    }
    return {};
}

// Adds index i of a list of n to the indices to remove; the first one makes
// room for all that may follow, so a long env list that loses many variables
// is not regrown a power of two at a time.
void note_removal(std::vector<std::size_t>& gone, std::size_t i, std::size_t n) {
    if (gone.empty()) gone.reserve(n - i);
    gone.push_back(i);
}

// Buffers a pod spec's rendering reuses from one list and container to the
// next, rather than allocating them for each: the indices a list loses, and
// a JSON pointer under the container.
struct RenderBuffers {
    std::vector<std::size_t> gone;
    std::string pointer;
};

void render_volumes(const PodSpecView& spec, const std::vector<std::string_view>& cache, std::string_view reference, JsonPatch& patch, RenderBuffers& buffers) {
    std::string& base = buffers.pointer;
    base.assign(spec.pointer);
    base += "/volumes";
    std::vector<std::size_t>& gone = buffers.gone;
    gone.clear();
    std::size_t kept = 0;
    std::size_t model_at = std::string::npos;  // index after the removals
    const VolumeView* model = nullptr;
    for (std::size_t i = 0; i < spec.volumes.size(); ++i) {
        if (sorted_contains(cache, spec.volumes[i].name)) {
            note_removal(gone, i, spec.volumes.size());
            continue;
        }
        if (model == nullptr && spec.volumes[i].name == kModelVolume) {
            model = &spec.volumes[i];
            model_at = kept;
        }
        ++kept;
    }
    patch.remove_indices(base, gone);
    if (model != nullptr) {
        if (!volume_is_the_delivery(*model, reference)) patch.replace(pointer_child(base, model_at), model_volume_json(reference));
    } else if (!spec.has_volumes) {
        patch.add(base, "[" + model_volume_json(reference) + "]");
    } else {
        base += "/-";
        patch.add(base, model_volume_json(reference));
    }
}

void render_mounts(const ContainerView& c, const std::string& base, bool selected, const std::vector<std::string_view>& cache, JsonPatch& patch,
                   RenderBuffers& buffers) {
    std::vector<std::size_t>& gone = buffers.gone;
    gone.clear();
    std::size_t kept = 0;
    std::size_t model_at = std::string::npos;
    const VolumeMountView* model = nullptr;
    for (std::size_t j = 0; j < c.volume_mounts.size(); ++j) {
        const VolumeMountView& m = c.volume_mounts[j];
        const bool ours = selected && m.name == kModelVolume;
        // A selected container keeps its first model mount (corrected below)
        // and loses any duplicate of it.
        if (sorted_contains(cache, m.name) || (ours && model != nullptr)) {
            note_removal(gone, j, c.volume_mounts.size());
            continue;
        }
        if (ours) {
            model = &m;
            model_at = kept;
        }
        ++kept;
    }
    patch.remove_indices(base, "volumeMounts", gone);
    if (!selected) return;
    std::string& mounts = buffers.pointer;
    mounts.assign(base);
    mounts += "/volumeMounts";
    if (model != nullptr) {
        if (!mount_is_the_delivery(*model)) patch.replace(pointer_child(mounts, model_at), model_mount_json());
    } else if (!c.has_volume_mounts) {
        patch.add(mounts, "[" + model_mount_json() + "]");
    } else {
        mounts += "/-";
        patch.add(mounts, model_mount_json());
    }
}

// Replacements first (by the original indices), then removals from the
// highest index down, then what is appended.
void render_argv(const ContainerView& c, const std::string& base, const ArgvEdits& edits, JsonPatch& patch) {
    for (const auto& r : edits.replacements) {
        patch.replace(pointer_child(pointer_child(base, r.in_command ? "command" : "args"), r.index), json_string(r.value));
    }
    patch.remove_indices(base, "args", edits.args_removed);
    patch.remove_indices(base, "command", edits.command_removed);
    if (edits.appended_args.empty()) return;
    const std::string args = base + "/args";
    if (c.args.empty()) {
        std::string list = "[";
        for (const auto& a : edits.appended_args) list += (list.size() > 1 ? "," : "") + json_string(a);
        patch.add(args, list + "]");
        return;
    }
    for (const auto& a : edits.appended_args) patch.add(args + "/-", json_string(a));
}

void render_container(const ContainerView& c, const std::string& base, bool selected, const std::vector<std::string_view>& cache, JsonPatch& patch,
                      std::vector<std::string>& warnings, RenderBuffers& buffers) {
    render_mounts(c, base, selected, cache, patch, buffers);
    std::vector<std::size_t>& env_gone = buffers.gone;
    env_gone.clear();
    for (std::size_t j = 0; j < c.env.size(); ++j) {
        if (is_download_env(c.env[j].name)) note_removal(env_gone, j, c.env.size());
    }
    patch.remove_indices(base, "env", env_gone);
    ArgvEdits edits = plan_argv_edits(c, selected);
    render_argv(c, base, edits, patch);
    for (auto& w : edits.warnings) add_warning(warnings, std::move(w));
}

void render_pod_spec(const PodSpecView& spec, const std::vector<std::string_view>& cache, std::string_view reference,
                     const std::vector<std::string_view>& names, JsonPatch& patch, std::vector<std::string>& warnings) {
    RenderBuffers buffers;
    render_volumes(spec, cache, reference, patch, buffers);
    // One JSON pointer buffer for every container of a list: ".../containers/" and its index.
    std::string base;
    auto container_pointer = [&](std::string_view list, std::size_t i) -> const std::string& {
        base.assign(spec.pointer);
        base += '/';
        base.append(list.data(), list.size());
        append_pointer_index(base, i);
        return base;
    };
    for (std::size_t i = 0; i < spec.init_containers.size(); ++i) {
        render_container(spec.init_containers[i], container_pointer("initContainers", i), false, cache, patch, warnings, buffers);
    }
    for (std::size_t i = 0; i < spec.containers.size(); ++i) {
        const bool selected = names.empty() || sorted_contains(names, spec.containers[i].name);
        render_container(spec.containers[i], container_pointer("containers", i), selected, cache, patch, warnings, buffers);
    }
}

std::string annotation_field(std::string_view key) { return "metadata.annotations[" + std::string(key) + "]"; }

}  // namespace

Decision render_model_delivery(const AdmissionRequest& req, const WorkloadView& named, const PolicyConfig& config, const NodeSource* nodes,
                               const ArtifactSource* artifacts, const RegistrySource* registry, const SignatureSource* signatures) {
    // Which operations and kinds get here is applies()'s to say (rule_scope.hpp).
    if (named.opt_in_label != kOptInValue) return allow();
    // A workload that names a ModelArtifact is rendered as if it named the
    // artifact's image (a copy of its view, made for those alone).
    NamedImage image;
    std::optional<WorkloadView> resolved;
    if (named.has_model_artifact) {
        image = named_image(req, named, artifacts);
        if (image.refusal) return std::move(*image.refusal);
        resolved = named;
        resolved->has_model_image = true;
        resolved->model_image = image.reference;
    }
    const WorkloadView& w = resolved ? *resolved : named;
    if (!w.has_model_image || w.model_image.empty()) {
        return allow({"label " + std::string(kOptInLabel) + "=image is set but annotation " + std::string(kModelImageAnnotation) + " (or " +
                      std::string(kModelArtifactAnnotation) + ") is missing or empty, so no model is mounted"});
    }
    PinnedReferenceCheck check = check_pinned_reference(w.model_image, config.digest_algorithms);
    if (!check.ok()) {
        return forbidden(annotation_field(kModelImageAnnotation) + ": Invalid value: " + quote_value(w.model_image) + ": " + check.detail, *check.rule);
    }
    if (std::string floor = apiserver_floor_problem(config.apiserver); !floor.empty()) return forbidden(std::move(floor), kApiserverFloor);

    std::vector<std::string> warnings;
    for (auto& warning : check.warnings) warnings.push_back(warning.prefix(annotation_field(kModelImageAnnotation) + ": ").text());
    // An object being deleted is not looked up: an image removed from its
    // registry since must not hold its workload's finalizers, and its deletion.
    // Named by an artifact, the image is the artifact's: its lookup is told by the annotation that named it.
    const std::string image_field = annotation_field(named.has_model_artifact ? kModelArtifactAnnotation : kModelImageAnnotation);
    if (config.registry_check != RegistryCheck::off && registry != nullptr && !w.being_deleted) {
        const std::string& field = image_field;
        // Each pod spec's Pods pull with their own credentials; the same ones are asked once.
        std::vector<PullSecretsRef> pullers;
        for (const PodSpecView& spec : w.pod_specs) {
            PullSecretsRef who{req.namespace_name, spec.image_pull_secrets, spec.service_account_name};
            if (std::find(pullers.begin(), pullers.end(), who) == pullers.end()) pullers.push_back(std::move(who));
        }
        if (pullers.empty()) pullers.push_back(PullSecretsRef{req.namespace_name, {}, {}});
        for (const PullSecretsRef& who : pullers) {
            RegistryVerdict registry_verdict = check_in_registry(field, w.model_image, config.registry_check, registry, &who);
            if (registry_verdict.refusal) return forbidden(field + ": " + quote_value(w.model_image) + ": " + *registry_verdict.refusal, *registry_verdict.rule);
            for (std::string& warning : registry_verdict.warnings) {
                if (std::find(warnings.begin(), warnings.end(), warning) == warnings.end()) warnings.push_back(std::move(warning));
            }
        }
    }
    // Who built the weights: a signature is the digest's, whoever pulls it, so
    // it is fetched with the first pod spec's credentials.
    if (config.signature_policy != nullptr && signatures != nullptr && !w.being_deleted) {
        PullSecretsRef who{req.namespace_name, {}, {}};
        if (!w.pod_specs.empty()) who = PullSecretsRef{req.namespace_name, w.pod_specs.front().image_pull_secrets, w.pod_specs.front().service_account_name};
        SignatureVerdict signed_by = check_signatures(image_field, w.model_image, config.signature_policy.get(), signatures, &who);
        if (signed_by.refusal) return forbidden(image_field + ": " + quote_value(w.model_image) + ": " + *signed_by.refusal, kSignatureUnverified);
        for (std::string& warning : signed_by.warnings) {
            if (std::find(warnings.begin(), warnings.end(), warning) == warnings.end()) warnings.push_back(std::move(warning));
        }
    }
    const std::vector<std::string_view> names = selected_container_names(w);
    const std::vector<std::string_view> sorted_names = sorted_unique(names);
    JsonPatch patch;
    for (const PodSpecView& spec : w.pod_specs) {
        const std::vector<std::string_view> cache = cache_volumes(spec);
        if (std::string second = second_weight_source(spec, cache, sorted_names); !second.empty()) return forbidden(std::move(second), kTwoWeightSources);
        for_each_container(spec, [&](const ContainerView& c) { container_warnings(c, warnings); });
        render_pod_spec(spec, cache, w.model_image, sorted_names, patch, warnings);
        // A Job's template cannot change after creation: an UPDATE that
        // touched it would be refused by the apiserver.
        const bool template_frozen = req.kind.group == "batch" && req.kind.kind == "Job" && req.operation != Operation::create;
        if (spec.template_metadata && !template_frozen) copy_opt_in_to_template(w, *spec.template_metadata, patch);
        // Kueue's topology-aware scheduling owns the placement of a Pod it marks.
        if (w.is_pod && req.operation == Operation::create && config.prefer_nodes_with_image && nodes != nullptr && !w.has_kueue_preferred_topology &&
            !pinned_node(spec)) {
            if (const auto warm = nodes->nodes_holding(w.model_image, kMaxPreferredNodes)) render_placement(spec, *warm, patch);
        }
        std::vector<std::string_view> container_names;
        if (!names.empty()) {
            container_names.reserve(spec.containers.size());
            for (const ContainerView& c : spec.containers) container_names.push_back(c.name);
            container_names = sorted_unique(std::move(container_names));
        }
        for (std::string_view name : names) {
            if (!sorted_contains(container_names, name)) {
                add_warning(warnings, Warning("annotation ").say(kModelContainersAnnotation).say(" names ").quote(name, 63).say(", which is not a container of ").say(
                                          spec.field_path).say("; it gets no mount").text());
            }
        }
    }
    Decision d = allow(std::move(warnings));
    if (!patch.empty()) d.patch = std::move(patch).to_json();
    return d;
}

}  // namespace miw
