// What a digest-pinned reference asks a registry for, with no host in it
// (containerd's resolver and go-containerregistry's name package keep the
// two apart): the registry's name as distribution/reference normalises it
// (Docker Hub's names are "docker.io", its one-component paths gain
// "library/"), the repository and the digest. Which hosts serve a registry
// is the hosts provider's to say (src/server/registry/hosts.hpp).
#pragma once

#include "model_image_webhook/result.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace miw {

struct RegistryLocator {
    std::string registry;  // "docker.io", "registry.example.com", "127.0.0.1:5000", "[::1]:5443"
    std::string repository;  // "library/qwen", "team/qwen"
    std::string digest;  // "sha256:..."

    // "registry/repository@digest": one string for every way of writing one
    // digest ("qwen@d" and "docker.io/library/qwen@d" alike), the cache's key.
    std::string canonical() const;
};

// reference: one that passed the pinned reference rules (a digest is required).
Result<RegistryLocator> locate_in_registry(std::string_view reference);

// A reference as one string for every way of writing it: its canonical
// locator ("qwen@d", "index.docker.io/library/qwen:v1@d" and
// "docker.io/library/qwen@d" are all the last), or the reference itself
// where it cannot be located. is_canonical_reference says, without a parse,
// that a reference already is its canonical form (most are: a registry with a
// dot, a port or localhost, and no tag beside the digest).
std::string canonical_reference(std::string_view reference);
bool is_canonical_reference(std::string_view reference);

// An authority's host and port: "[::1]:5000" is ::1 and 5000, "r.io" is r.io
// and no port; nullopt where a '[' is never closed.
struct HostPort {
    std::string host;
    std::string port;  // empty when the authority names none
};
std::optional<HostPort> split_authority(std::string_view authority);

// A digest the webhook can check content against and may put in a request
// path: sha256 and 64, or sha512 and 128, lowercase hex digits.
bool is_verifiable_digest(std::string_view digest);

}  // namespace miw
