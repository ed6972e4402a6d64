#include "model_image_webhook/registry/keyring.hpp"

#include <algorithm>
#include <cctype>
#include <functional>

namespace miw {

std::string normalize_registry_key(std::string_view key) {
    if (const std::size_t scheme = key.find("://"); scheme != std::string_view::npos) key.remove_prefix(scheme + 3);
    key = key.substr(0, key.find('/'));
    std::string out(key);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (out == "index.docker.io" || out == "registry-1.docker.io" || out == "registry.hub.docker.com") out = "docker.io";
    return out;
}

void RegistryCredentials::add(std::string key, RegistryCredential credential) {
    by_key_.insert_or_assign(normalize_registry_key(key), std::move(credential));
}

namespace {

// A wildcard key's host matches label by label, each '*' one whole label;
// the ports must be equal (both absent, or the same).
bool wildcard_matches(std::string_view pattern, std::string_view authority) {
    const auto split_port = [](std::string_view a) {
        const std::size_t colon = a.rfind(':');
        if (colon == std::string_view::npos || a.find(']', colon) != std::string_view::npos) return std::pair(a, std::string_view());
        return std::pair(a.substr(0, colon), a.substr(colon + 1));
    };
    auto [p_host, p_port] = split_port(pattern);
    auto [a_host, a_port] = split_port(authority);
    if (p_port != a_port) return false;
    while (true) {
        const std::size_t pd = p_host.find('.');
        const std::size_t ad = a_host.find('.');
        const std::string_view pl = p_host.substr(0, pd);
        const std::string_view al = a_host.substr(0, ad);
        if (pl != "*" && pl != al) return false;
        if (pd == std::string_view::npos || ad == std::string_view::npos) return pd == ad;
        p_host.remove_prefix(pd + 1);
        a_host.remove_prefix(ad + 1);
    }
}

}  // namespace

const RegistryCredential* RegistryCredentials::find(std::string_view authority) const {
    const std::string wanted = normalize_registry_key(authority);
    if (const auto it = by_key_.find(wanted); it != by_key_.end()) return &it->second;
    for (const auto& [key, credential] : by_key_) {
        if (key.find('*') != std::string::npos && wildcard_matches(key, wanted)) return &credential;
    }
    return nullptr;
}

std::vector<RegistryCredential> RegistryCredentials::lookup(std::string_view authority, std::string_view) const {
    if (const RegistryCredential* c = find(authority)) return {*c};
    return {};
}

std::string credential_identity(const RegistryCredential& credential) {
    return credential.username + "#" + std::to_string(std::hash<std::string>{}(credential.password));
}

}  // namespace miw
