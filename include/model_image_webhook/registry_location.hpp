// Where a digest-pinned reference is fetched from over the OCI distribution
// API, as containerd resolves it: the registry host (Docker Hub's names and
// a bare path mean registry-1.docker.io, a one-component path there gains
// "library/"), the repository, and the digest.
#pragma once

#include "model_image_webhook/result.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace miw {

struct RegistryLocation {
    std::string host;  // "registry.example.com", "127.0.0.1", "::1"
    std::string port;  // empty: the scheme's own
    std::string authority;  // host[:port] as the reference wrote it: what credentials are keyed by
    std::string repository;  // "team/qwen"
    std::string digest;  // "sha256:..."

    // /v2/<repository>/manifests/<digest>
    std::string manifest_path() const { return manifest_path_for(digest); }
    std::string manifest_path_for(std::string_view digest_text) const;
};

// An authority's host and port: "[::1]:5000" is ::1 and 5000, "r.io" is r.io
// and no port; nullopt where a '[' is never closed.
struct HostPort {
    std::string host;
    std::string port;  // empty when the authority names none
};
std::optional<HostPort> split_authority(std::string_view authority);

// reference: one that passed the pinned reference rules (a digest is required).
Result<RegistryLocation> locate_in_registry(std::string_view reference);

}  // namespace miw
