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

}  // namespace miw
