// A registry credential, and the keyring interface the registry client asks
// for the credentials to try at a host (kubelet_keyring.hpp holds them as the
// kubelet does; read_docker_config in registry_answers.hpp fills one).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace miw {

struct RegistryCredential {
    std::string username;
    std::string password;
};

using Deadline = std::chrono::steady_clock::time_point;

// A keyring's answer where a source of credentials may fail to answer (a
// credential provider plugin that fails or hangs): what it could give, and
// which source could not give, in words a tenant may read (never a secret);
// the cause in the source's own words (a plugin's stderr) for the log only.
struct KeyringAnswer {
    std::vector<RegistryCredential> credentials;
    std::string problem;
    std::string log_problem;
};

// The credentials to try for a host being asked, as containerd and the
// kubelet hand them to their authorizers: tried in order until one is not
// refused; none, anonymous. Feeders: --registry-auth (a KubeletKeyring) and
// the credential provider plugins.
class Keyring {
public:
    virtual ~Keyring() = default;
    // registry: the name credentials are keyed by (the registry's, or a mirror's host[:port]); repository: the one pulled from.
    virtual std::vector<RegistryCredential> lookup(std::string_view registry, std::string_view repository) const = 0;
    // The same, bounded by a deadline, with what could not be had.
    virtual KeyringAnswer lookup_until(std::string_view registry, std::string_view repository, Deadline) const { return {lookup(registry, repository), {}, {}}; }
};

// Whom a look is made for (design.md 1.8): the credentials of a Pod's pull
// secrets, tried before the node's own (--registry-auth, the plugins) as the
// kubelet's keyring puts them, and who holds them. A digest found with them
// is found for those who hold the same, not for everyone.
struct PullCredentials {
    std::string identity;  // empty: the node's credentials alone; else a digest of every key and credential held
    std::shared_ptr<const Keyring> keyring;  // null: none
};

// A registry named on the command line (--registry-insecure) as it is
// compared with hosts: without scheme or path, lower case, Docker Hub's
// names as "docker.io".
std::string normalize_registry_key(std::string_view key);

}  // namespace miw
