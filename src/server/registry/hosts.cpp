#include "hosts.hpp"

#include "model_image_webhook/registry/locator.hpp"

#include <algorithm>

namespace miw::server {

std::string RegistryHost::authority() const {
    std::string out = host.find(':') != std::string::npos ? "[" + host + "]" : host;
    if (!port.empty()) out += ":" + port;
    return out;
}

std::string RegistryHost::url(std::string_view path) const { return scheme + "://" + authority() + path_prefix + std::string(path); }

bool FlagRegistryHosts::insecure(std::string_view authority, std::string_view host) const {
    return std::any_of(insecure_.begin(), insecure_.end(), [&](const std::string& h) { return h == authority || h == host; });
}

std::vector<RegistryHost> FlagRegistryHosts::hosts_for(std::string_view registry) const {
    RegistryHost out;
    if (registry == "docker.io") {
        out.host = "registry-1.docker.io";  // the API host: the one connected to, named in Host and SNI
    } else {
        std::optional<HostPort> split = split_authority(registry);
        if (!split) return {};
        out.host = std::move(split->host);
        out.port = std::move(split->port);
    }
    if (insecure(registry, out.host)) out.scheme = "http";
    out.keyring_name = std::string(registry);
    return {std::move(out)};
}

}  // namespace miw::server
