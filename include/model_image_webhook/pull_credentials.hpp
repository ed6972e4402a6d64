// What the kubelet reads to assemble a pull's credentials (design.md 1.8),
// read: a pull Secret (kubernetes.io/dockerconfigjson or
// kubernetes.io/dockercfg, its data base64), a ServiceAccount's
// imagePullSecrets, and a credential provider plugin's
// CredentialProviderResponse. Malformed objects are errors naming what is
// wrong, never a secret's value.
#pragma once

#include "model_image_webhook/registry/kubelet_keyring.hpp"
#include "model_image_webhook/result.hpp"

#include <string_view>

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace miw {

// A Secret object (GET /api/v1/namespaces/NS/secrets/NAME), as a keyring.
// text is parsed in place.
Result<KubeletKeyring> read_pull_secret(std::string& text);

// The names a ServiceAccount object's imagePullSecrets list, in order.
Result<std::vector<std::string>> read_service_account_pull_secrets(std::string& text);

// A credentialprovider.kubelet.k8s.io/v1 CredentialProviderResponse.
struct CredentialProviderResponse {
    enum class CacheKey { image, registry, global };
    CacheKey cache_key_type = CacheKey::image;
    std::optional<std::chrono::seconds> cache_duration;  // nullopt: the config's defaultCacheDuration
    std::vector<std::pair<std::string, RegistryCredential>> auth;  // by the keyring key it is for, in the answer's order
};
Result<CredentialProviderResponse> read_credential_provider_response(std::string& text);

// One plugin of a kubelet.config.k8s.io/v1 CredentialProviderConfig.
struct CredentialProvider {
    std::string name;  // the executable's name in --image-credential-provider-bin-dir
    std::vector<std::string> match_images;  // globs as the keyring's keys ("*.dkr.ecr.*.amazonaws.com")
    std::chrono::seconds default_cache_duration{0};
    std::vector<std::string> args;
    std::vector<std::pair<std::string, std::string>> env;
};
struct CredentialProviderConfig {
    std::vector<CredentialProvider> providers;
};

// The kubelet's --image-credential-provider-config file, YAML or JSON.
Result<CredentialProviderConfig> read_credential_provider_config(std::string_view text);

// Whether a plugin is run for an image (registry/repository): one of its matchImages matches it.
bool provider_matches(const CredentialProvider& provider, std::string_view image);

// What a plugin's answer is kept by, as its cacheKeyType says: the image, its registry, or one key for all.
std::string provider_cache_key(CredentialProviderResponse::CacheKey type, std::string_view image);

}  // namespace miw
