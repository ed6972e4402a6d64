// Registry credentials as the kubelet keys them (a .dockerconfigjson's
// auths): by registry authority, with "*.example.com" wildcards and Docker
// Hub's several names as one. Read by read_docker_config (registry_answers.hpp).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace miw {

struct RegistryCredential {
    std::string username;
    std::string password;
};

// Who a credential is, for the keys of what is kept per credential (a
// registry's tokens): the user name and a hash of the secret, never the secret.
std::string credential_identity(const RegistryCredential& credential);

// The credentials to try for a host being asked, as containerd and the
// kubelet hand them to their authorizers: tried in order until one is not
// refused; none, anonymous. Feeders: --registry-auth (RegistryCredentials).
class Keyring {
public:
    virtual ~Keyring() = default;
    // authority: the host actually contacted, host[:port]; repository: the one pulled from.
    virtual std::vector<RegistryCredential> lookup(std::string_view authority, std::string_view repository) const = 0;
};

// The credentials of --registry-auth, by registry.
class RegistryCredentials : public Keyring {
public:
    std::vector<RegistryCredential> lookup(std::string_view authority, std::string_view repository) const override;
    void add(std::string key, RegistryCredential credential);
    // The credential for a registry authority ("registry.example.com:5000"):
    // the key naming it exactly, else a wildcard key ("*.example.com")
    // matching it label by label, as the kubelet matches; nullptr for none.
    const RegistryCredential* find(std::string_view authority) const;
    std::size_t size() const { return by_key_.size(); }
    // Each entry, by its normalized key: what a KubeletKeyring is filled from.
    template <class Visit>
    void each(Visit&& visit) const {
        for (const auto& [key, credential] : by_key_) visit(key, credential);
    }

private:
    std::map<std::string, RegistryCredential, std::less<>> by_key_;  // normalized keys
};

// A key as the kubelet reads it: without scheme or path, Docker Hub's names as "docker.io".
std::string normalize_registry_key(std::string_view key);

}  // namespace miw
