// What an OCI registry, its token server and a .dockerconfigjson say, read.
#include "model_image_webhook/registry_answers.hpp"

#include "json_dom.hpp"

#include "model_image_webhook/registry/platform.hpp"
#include "model_image_webhook/text.hpp"

#include <algorithm>
#include <limits>

namespace miw {

using namespace json;

namespace {

// A descriptor's size: a non-negative integer (the spec's int64).
Result<std::uint64_t> descriptor_size(const Value& descriptor, std::string_view where) {
    const Value* size = member(&descriptor, "size");
    if (size == nullptr || !size->IsUint64()) return fail(std::string(where) + " has no size, or not a non-negative integer");
    return size->GetUint64();
}

bool is_index_type(std::string_view media_type) { return media_type == kOciIndex || media_type == kDockerManifestList; }
bool is_manifest_type(std::string_view media_type) { return media_type == kOciManifest || media_type == kDockerManifest; }

}  // namespace

Result<ImageManifest> read_image_manifest(std::string& text, std::string_view content_type) {
    Document doc;
    if (std::string error = parse_document(text, doc); !error.empty()) return fail("the manifest is not JSON: " + error);
    if (!doc.IsObject()) return fail("the manifest is not a JSON object");
    std::string_view media_type = string_or_empty(member(&doc, "mediaType"));
    if (media_type.empty()) media_type = content_type.substr(0, content_type.find(';'));
    const Value* manifests = member(&doc, "manifests");
    const Value* layers = member(&doc, "layers");
    ImageManifest out;
    out.media_type = std::string(media_type);
    out.artifact_type = std::string(string_or_empty(member(&doc, "artifactType")));
    // An OCI document may leave out mediaType: what it holds tells then.
    out.is_index = is_index_type(media_type) || (!is_manifest_type(media_type) && manifests != nullptr && layers == nullptr);
    if (out.is_index) {
        if (manifests == nullptr || !manifests->IsArray()) return fail("the index has no manifests array");
        for (const Value& m : manifests->GetArray()) {
            if (!m.IsObject()) return fail("an index entry is not an object");
            IndexEntry entry;
            entry.digest = std::string(string_or_empty(member(&m, "digest")));
            if (entry.digest.empty()) return fail("an index entry has no digest");
            entry.media_type = std::string(string_or_empty(member(&m, "mediaType")));
            const Value* platform = member(&m, "platform");
            entry.os = std::string(string_or_empty(member(platform, "os")));
            entry.architecture = std::string(string_or_empty(member(platform, "architecture")));
            entry.variant = std::string(string_or_empty(member(platform, "variant")));
            out.entries.push_back(std::move(entry));
        }
        return out;
    }
    const Value* config = member(&doc, "config");
    if (config == nullptr || !config->IsObject()) return fail("the manifest has no config descriptor");
    Result<std::uint64_t> total = descriptor_size(*config, "the config descriptor");
    if (!total) return fail(total.error());
    out.config_media_type = std::string(string_or_empty(member(config, "mediaType")));
    if (layers == nullptr || !layers->IsArray()) return fail("the manifest has no layers array");
    std::uint64_t sum = *total;
    for (const Value& layer : layers->GetArray()) {
        Result<std::uint64_t> size = descriptor_size(layer, "a layer descriptor");
        if (!size) return fail(size.error());
        if (*size > std::numeric_limits<std::uint64_t>::max() - sum) return fail("the layers' sizes overflow");
        sum += *size;
        const std::string_view type = string_or_empty(member(&layer, "mediaType"));
        auto kind = std::find_if(out.layer_kinds.begin(), out.layer_kinds.end(), [&](const LayerKind& k) { return k.media_type == type; });
        if (kind == out.layer_kinds.end()) {
            if (out.layer_kinds.size() == kMaxLayerKinds) continue;
            kind = out.layer_kinds.insert(out.layer_kinds.end(), LayerKind{std::string(type), 0, 0});
        }
        ++kind->count;
        kind->bytes += *size;
    }
    out.compressed_bytes = sum;
    return out;
}

const IndexEntry* entry_for_platform(const ImageManifest& index, std::string_view platform) {
    const std::optional<Platform> wanted = parse_platform(platform);
    if (!wanted) return nullptr;
    for (const IndexEntry& e : index.entries) {
        if (platform_matches(*wanted, e.os, e.architecture, e.variant)) return &e;
    }
    return nullptr;
}

Result<RegistryToken> read_registry_token(std::string& text) {
    Document doc;
    if (std::string error = parse_document(text, doc); !error.empty()) return fail("the token answer is not JSON: " + error);
    RegistryToken out;
    out.token = std::string(string_or_empty(member(&doc, "token")));
    if (out.token.empty()) out.token = std::string(string_or_empty(member(&doc, "access_token")));
    if (out.token.empty()) return fail("the token answer holds no token");
    if (const Value* expires = member(&doc, "expires_in"); expires != nullptr && expires->IsInt64() && expires->GetInt64() > 0) {
        out.expires_in_seconds = expires->GetInt64();
    }
    return out;
}

bool registry_error_names(std::string& text, std::string_view code) {
    Document doc;
    if (!parse_document(text, doc).empty()) return false;
    const Value* errors = member(&doc, "errors");
    if (errors == nullptr || !errors->IsArray()) return false;
    for (const Value& e : errors->GetArray()) {
        if (string_or_empty(member(&e, "code")) == code) return true;
    }
    return false;
}

Result<KubeletKeyring> read_docker_config(std::string& text, DockerConfigShape shape) {
    Document doc;
    if (std::string error = parse_document(text, doc); !error.empty()) return fail("not JSON: " + error);
    if (!doc.IsObject()) return fail("not a JSON object");
    // A .dockerconfigjson nests the map under "auths"; a .dockercfg is the map.
    const Value* auths = shape == DockerConfigShape::map ? &doc : member(&doc, "auths");
    KubeletKeyring out;
    if (auths == nullptr && shape == DockerConfigShape::auths) return out;  // the kubelet's json.Unmarshal into DockerConfigJSON: no auths, no credentials
    if (auths == nullptr) auths = &doc;
    if (!auths->IsObject()) return fail("\"auths\" is not an object");
    for (const auto& entry : auths->GetObject()) {
        const std::string key(view(entry.name));
        if (!entry.value.IsObject()) return fail("the entry for \"" + key + "\" is not an object");
        RegistryCredential credential;
        if (const std::string_view auth = string_or_empty(member(&entry.value, "auth")); !auth.empty()) {
            const std::optional<std::string> decoded = base64_decode(auth);
            const std::size_t colon = decoded ? decoded->find(':') : std::string::npos;
            // Never the value itself in the message: it is a secret.
            if (colon == std::string::npos) return fail("the \"auth\" of \"" + key + "\" is not base64 of user:password");
            credential.username = decoded->substr(0, colon);
            credential.password = decoded->substr(colon + 1);
        } else {
            credential.username = std::string(string_or_empty(member(&entry.value, "username")));
            credential.password = std::string(string_or_empty(member(&entry.value, "password")));
        }
        if (credential.username.empty() && credential.password.empty()) continue;  // an entry for a credential helper: nothing to use
        out.add(key, std::move(credential));
    }
    return out;
}

}  // namespace miw
