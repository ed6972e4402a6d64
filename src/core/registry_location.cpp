#include "model_image_webhook/registry_location.hpp"

#include "model_image_webhook/image_reference.hpp"

namespace miw {

std::string RegistryLocation::manifest_path_for(std::string_view digest_text) const {
    return "/v2/" + repository + "/manifests/" + std::string(digest_text);
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
        // [v6]:port, host:port, or a host alone.
        if (domain.front() == '[') {
            const std::size_t close = domain.find(']');
            out.host = std::string(domain.substr(1, close - 1));
            if (close + 1 < domain.size() && domain[close + 1] == ':') out.port = std::string(domain.substr(close + 2));
        } else if (const std::size_t colon = domain.rfind(':'); colon != std::string_view::npos) {
            out.host = std::string(domain.substr(0, colon));
            out.port = std::string(domain.substr(colon + 1));
        } else {
            out.host = std::string(domain);
        }
    }
    out.repository = std::move(path);
    return out;
}

}  // namespace miw
