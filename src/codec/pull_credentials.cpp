// Pull Secrets, ServiceAccounts and credential provider answers, read.
#include "model_image_webhook/pull_credentials.hpp"

#include "json_dom.hpp"

#include "model_image_webhook/go_duration.hpp"
#include "model_image_webhook/manifest_text.hpp"
#include "model_image_webhook/registry_answers.hpp"
#include "model_image_webhook/text.hpp"

#include <algorithm>

namespace miw {

using namespace json;

namespace {

// A metav1.Duration, as Go's time.ParseDuration reads it; nullopt when
// unreadable or negative. Whole seconds: what the caches keep answers for.
std::optional<std::chrono::seconds> go_duration(std::string_view text) {
    const std::optional<std::chrono::nanoseconds> d = parse_go_duration(text);
    if (!d || d->count() < 0) return std::nullopt;
    return std::chrono::duration_cast<std::chrono::seconds>(*d);
}

}  // namespace

Result<KubeletKeyring> read_pull_secret(std::string& text) {
    Document doc;
    if (std::string error = parse_document(text, doc); !error.empty()) return fail("the Secret is not JSON: " + error);
    if (!doc.IsObject() || string_or_empty(member(&doc, "kind")) != "Secret") return fail("the answer is not a Secret");
    const std::string_view type = string_or_empty(member(&doc, "type"));
    std::string_view data_key;
    if (type == "kubernetes.io/dockerconfigjson") data_key = ".dockerconfigjson";
    else if (type == "kubernetes.io/dockercfg") data_key = ".dockercfg";
    else return fail("its type is " + (type.empty() ? std::string("not set") : std::string(type)) + ", not kubernetes.io/dockerconfigjson or kubernetes.io/dockercfg");
    const Value* data = member(member(&doc, "data"), data_key);
    if (data == nullptr || !data->IsString()) return fail("it has no data[\"" + std::string(data_key) + "\"]");
    std::optional<std::string> config = base64_decode(view(*data));
    if (!config) return fail("its data[\"" + std::string(data_key) + "\"] is not base64");
    Result<KubeletKeyring> keyring = read_docker_config(*config, type == "kubernetes.io/dockercfg" ? DockerConfigShape::map : DockerConfigShape::auths);
    if (!keyring) return fail("its data[\"" + std::string(data_key) + "\"] cannot be read: " + keyring.error());
    return keyring;
}

Result<std::vector<std::string>> read_service_account_pull_secrets(std::string& text) {
    Document doc;
    if (std::string error = parse_document(text, doc); !error.empty()) return fail("the ServiceAccount is not JSON: " + error);
    if (!doc.IsObject() || string_or_empty(member(&doc, "kind")) != "ServiceAccount") return fail("the answer is not a ServiceAccount");
    std::vector<std::string> names;
    const Value* list = member(&doc, "imagePullSecrets");
    if (list == nullptr || list->IsNull()) return names;
    if (!list->IsArray()) return fail("its imagePullSecrets is not a list");
    for (const Value& ref : list->GetArray()) {
        const std::string_view name = string_or_empty(member(&ref, "name"));
        if (!name.empty()) names.emplace_back(name);
    }
    return names;
}

Result<CredentialProviderResponse> read_credential_provider_response(std::string& text) {
    Document doc;
    if (std::string error = parse_document(text, doc); !error.empty()) return fail("the answer is not JSON: " + error);
    if (!doc.IsObject()) return fail("the answer is not a JSON object");
    if (string_or_empty(member(&doc, "kind")) != "CredentialProviderResponse") return fail("the answer's kind is not CredentialProviderResponse");
    const std::string_view api = string_or_empty(member(&doc, "apiVersion"));
    if (api != "credentialprovider.kubelet.k8s.io/v1") return fail("the answer's apiVersion is not credentialprovider.kubelet.k8s.io/v1");
    CredentialProviderResponse out;
    const std::string_view key_type = string_or_empty(member(&doc, "cacheKeyType"));
    if (key_type == "Image") out.cache_key_type = CredentialProviderResponse::CacheKey::image;
    else if (key_type == "Registry") out.cache_key_type = CredentialProviderResponse::CacheKey::registry;
    else if (key_type == "Global") out.cache_key_type = CredentialProviderResponse::CacheKey::global;
    else return fail("the answer's cacheKeyType is not Image, Registry or Global");
    if (const Value* d = member(&doc, "cacheDuration"); d != nullptr && !d->IsNull()) {
        // One that cannot be read leaves the credentials usable: they are kept for the config's defaultCacheDuration.
        if (d->IsString()) out.cache_duration = go_duration(view(*d));
    }
    const Value* auth = member(&doc, "auth");
    if (auth == nullptr || auth->IsNull()) return out;
    if (!auth->IsObject()) return fail("the answer's auth is not a map");
    for (const auto& entry : auth->GetObject()) {
        if (!entry.value.IsObject()) return fail("an auth entry is not an object");
        RegistryCredential c;
        c.username = std::string(string_or_empty(member(&entry.value, "username")));
        c.password = std::string(string_or_empty(member(&entry.value, "password")));
        out.auth.emplace_back(std::string(view(entry.name)), std::move(c));
    }
    return out;
}

Result<CredentialProviderConfig> read_credential_provider_config(std::string_view text) {
    YamlLoad loaded = read_manifest_text(text);
    if (!loaded.ok()) return fail("it cannot be read as YAML or JSON: " + loaded.error);
    if (loaded.documents.size() != 1) return fail("it must hold one document");
    Document doc;
    if (std::string error = parse_document(loaded.documents[0].json, doc); !error.empty()) return fail(error);
    if (!doc.IsObject() || string_or_empty(member(&doc, "kind")) != "CredentialProviderConfig") return fail("its kind is not CredentialProviderConfig");
    if (string_or_empty(member(&doc, "apiVersion")) != "kubelet.config.k8s.io/v1") return fail("its apiVersion is not kubelet.config.k8s.io/v1");
    const Value* providers = member(&doc, "providers");
    if (providers == nullptr || !providers->IsArray() || providers->Empty()) return fail("it lists no providers");
    CredentialProviderConfig out;
    for (const Value& p : providers->GetArray()) {
        CredentialProvider provider;
        provider.name = std::string(string_or_empty(member(&p, "name")));
        const std::string which = "provider \"" + provider.name + "\"";
        // The kubelet runs BIN_DIR/NAME: a name is a file name, nothing more.
        if (provider.name.empty() || provider.name.find('/') != std::string::npos || provider.name == "." || provider.name == "..") {
            return fail("a provider has no name, or one that is not a file name");
        }
        if (string_or_empty(member(&p, "apiVersion")) != "credentialprovider.kubelet.k8s.io/v1") {
            return fail(which + ": its apiVersion is not credentialprovider.kubelet.k8s.io/v1 (the one the webhook speaks)");
        }
        if (member(&p, "tokenAttributes") != nullptr) return fail(which + ": tokenAttributes (service account tokens for plugins) are not supported");
        const Value* match = member(&p, "matchImages");
        if (match == nullptr || !match->IsArray() || match->Empty()) return fail(which + ": matchImages is empty");
        for (const Value& m : match->GetArray()) {
            if (!m.IsString() || m.GetStringLength() == 0) return fail(which + ": a matchImages entry is not a string");
            provider.match_images.emplace_back(view(m));
        }
        const Value* duration = member(&p, "defaultCacheDuration");
        if (duration == nullptr || !duration->IsString()) return fail(which + ": defaultCacheDuration is required (e.g. 12h)");
        const std::optional<std::chrono::seconds> cache = go_duration(view(*duration));
        if (!cache) return fail(which + ": defaultCacheDuration is not a duration such as 5m or 12h");
        provider.default_cache_duration = *cache;
        if (const Value* args = member(&p, "args"); args != nullptr && !args->IsNull()) {
            if (!args->IsArray()) return fail(which + ": args is not a list");
            for (const Value& a : args->GetArray()) {
                if (!a.IsString()) return fail(which + ": an args entry is not a string");
                provider.args.emplace_back(view(a));
            }
        }
        if (const Value* env = member(&p, "env"); env != nullptr && !env->IsNull()) {
            if (!env->IsArray()) return fail(which + ": env is not a list");
            for (const Value& e : env->GetArray()) {
                const std::string_view name = string_or_empty(member(&e, "name"));
                if (name.empty() || name.find('=') != std::string_view::npos) return fail(which + ": an env entry has no usable name");
                provider.env.emplace_back(std::string(name), std::string(string_or_empty(member(&e, "value"))));
            }
        }
        out.providers.push_back(std::move(provider));
    }
    return out;
}

bool provider_matches(const CredentialProvider& provider, std::string_view image) {
    return std::any_of(provider.match_images.begin(), provider.match_images.end(), [&](const std::string& glob) { return kubelet_key_matches(glob, image); });
}

std::string provider_cache_key(CredentialProviderResponse::CacheKey type, std::string_view image) {
    switch (type) {
        case CredentialProviderResponse::CacheKey::image: return std::string(image);
        case CredentialProviderResponse::CacheKey::registry: return std::string(image.substr(0, image.find('/')));
        case CredentialProviderResponse::CacheKey::global: return {};
    }
    return std::string(image);
}

}  // namespace miw
