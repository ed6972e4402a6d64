#include "model_image_webhook/registry/locator.hpp"

#include "model_image_webhook/image_reference.hpp"

#include <algorithm>

namespace miw {

std::string RegistryLocator::canonical() const { return registry + "/" + repository + "@" + digest; }

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

Result<RegistryLocator> locate_in_registry(std::string_view reference) {
    const ReferenceParse parsed = parse_image_reference(reference);
    if (!parsed.ok()) return fail(parsed.error.message);
    const ImageReference& ref = *parsed.reference;
    if (!ref.has_digest()) return fail("the reference pins no digest");
    RegistryLocator out;
    out.digest = std::string(ref.digest);
    std::string_view domain = ref.domain;
    std::string path(ref.path);
    // distribution/reference's splitDockerDomain: a first component is a
    // registry only with a '.', a ':', an upper-case letter, or as localhost;
    // "vllm/vllm-openai" is Docker Hub's, whatever the grammar's split said.
    const bool has_upper = std::any_of(domain.begin(), domain.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
    if (!domain.empty() && domain.find_first_of(".:") == std::string_view::npos && domain != "localhost" && !has_upper) {
        path = std::string(domain) + "/" + path;
        domain = {};
    }
    if (domain.empty() || domain == "docker.io" || domain == "index.docker.io") {
        out.registry = "docker.io";
        if (path.find('/') == std::string::npos) path = "library/" + path;
    } else {
        if (!split_authority(domain)) return fail("the registry \"" + std::string(domain) + "\" cannot be read as host[:port]");
        out.registry = std::string(domain);
    }
    out.repository = std::move(path);
    return out;
}

std::string canonical_reference(std::string_view reference) {
    if (is_canonical_reference(reference)) return std::string(reference);
    Result<RegistryLocator> located = locate_in_registry(reference);
    return located ? located->canonical() : std::string(reference);
}

bool is_canonical_reference(std::string_view reference) {
    const std::size_t slash = reference.find('/');
    const std::size_t at = reference.find('@');
    if (slash == std::string_view::npos || at == std::string_view::npos || at < slash) return false;
    const std::string_view domain = reference.substr(0, slash);
    // A loop, not find_first_of: that asks memchr of the set for each character.
    const bool dot_or_port = std::any_of(domain.begin(), domain.end(), [](char c) { return c == '.' || c == ':'; });
    if (!dot_or_port && domain != "localhost") return false;
    if (domain == "index.docker.io") return false;
    const std::string_view name = reference.substr(slash + 1, at - slash - 1);
    if (domain == "docker.io" && name.find('/') == std::string_view::npos) return false;
    return name.find(':') == std::string_view::npos;
}

bool is_verifiable_digest(std::string_view digest) {
    std::size_t hex = 0;
    if (digest.rfind("sha256:", 0) == 0) {
        hex = 64;
        digest.remove_prefix(7);
    } else if (digest.rfind("sha512:", 0) == 0) {
        hex = 128;
        digest.remove_prefix(7);
    } else {
        return false;
    }
    if (digest.size() != hex) return false;
    for (const char c : digest) {
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    }
    return true;
}

}  // namespace miw
