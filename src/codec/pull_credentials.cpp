// Pull Secrets, ServiceAccounts and credential provider answers, read.
#include "model_image_webhook/pull_credentials.hpp"

#include "json_dom.hpp"

#include "model_image_webhook/registry_answers.hpp"
#include "model_image_webhook/text.hpp"

namespace miw {

using namespace json;

namespace {

std::string_view string_or_empty(const Value* v) { return v != nullptr && v->IsString() ? view(*v) : std::string_view(); }

// A Go duration as metav1.Duration writes it ("12h", "5m30s", "0s"); nullopt when unreadable.
std::optional<std::chrono::seconds> go_duration(std::string_view text) {
    if (text.empty()) return std::nullopt;
    std::int64_t total_ms = 0;
    while (!text.empty()) {
        std::size_t digits = 0;
        std::int64_t value = 0;
        while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') {
            if (value > 1'000'000'000) return std::nullopt;
            value = value * 10 + (text[digits] - '0');
            ++digits;
        }
        if (digits == 0) return std::nullopt;
        text.remove_prefix(digits);
        std::int64_t unit_ms = 0;
        if (text.substr(0, 2) == "ms") {
            unit_ms = 1;
            text.remove_prefix(2);
        } else if (!text.empty() && (text[0] == 'h' || text[0] == 'm' || text[0] == 's')) {
            unit_ms = text[0] == 'h' ? 3'600'000 : text[0] == 'm' ? 60'000 : 1'000;
            text.remove_prefix(1);
        } else {
            return std::nullopt;
        }
        total_ms += value * unit_ms;
        if (total_ms > 400LL * 24 * 3'600'000) return std::nullopt;
    }
    return std::chrono::seconds(total_ms / 1000);
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
    Result<KubeletKeyring> keyring = read_docker_config(*config);
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
        if (!d->IsString()) return fail("the answer's cacheDuration is not a duration");
        out.cache_duration = go_duration(view(*d));
        if (!out.cache_duration) return fail("the answer's cacheDuration is not a duration such as 5m or 12h");
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

}  // namespace miw
