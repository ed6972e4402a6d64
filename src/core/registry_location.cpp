#include "model_image_webhook/registry_location.hpp"

#include "model_image_webhook/image_reference.hpp"

namespace miw {

std::string RegistryLocation::manifest_path_for(std::string_view digest_text) const {
    return "/v2/" + repository + "/manifests/" + std::string(digest_text);
}

std::optional<HostPort> split_authority(std::string_view authority) {
    HostPort out;
    if (!authority.empty() && authority.front() == '[') {
        const std::size_t close = authority.find(']');
        if (close == std::string_view::npos) return std::nullopt;
        out.host = std::string(authority.substr(1, close - 1));
        if (close + 1 < authority.size() && authority[close + 1] == ':') out.port = std::string(authority.substr(close + 2));
    } else if (const std::size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
        out.host = std::string(authority.substr(0, colon));
        out.port = std::string(authority.substr(colon + 1));
    } else {
        out.host = std::string(authority);
    }
    return out;
}

Result<RegistryLocation> locate_in_registry(std::string_view reference) {
    const ReferenceParse parsed = parse_image_reference(reference);
    if (!parsed.ok()) return fail(parsed.error.message);
    const ImageReference& ref = *parsed.reference;
    if (!ref.has_digest()) return fail("the reference pins no digest");
    RegistryLocation out;
    out.digest = std::string(ref.digest);
    std::string_view domain = ref.domain;
    std::string path(ref.path);
    if (domain.empty() || domain == "docker.io" || domain == "index.docker.io") {
        // Docker Hub: its API host, and official images under library/.
        out.authority = "docker.io";
        out.host = "registry-1.docker.io";
        if (path.find('/') == std::string::npos) path = "library/" + path;
    } else {
        out.authority = std::string(domain);
        std::optional<HostPort> split = split_authority(domain);
        if (!split) return fail("the registry \"" + out.authority + "\" cannot be read as host[:port]");
        out.host = std::move(split->host);
        out.port = std::move(split->port);
    }
    out.repository = std::move(path);
    return out;
}

}  // namespace miw
