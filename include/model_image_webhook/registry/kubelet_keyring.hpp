// Registry credentials held and matched as the kubelet's keyring holds and
// matches them (pkg/credentialprovider, BasicDockerKeyring): a key is a
// .dockerconfigjson auths key without its scheme, and without a leading
// /v1/ or /v2/ ("https://index.docker.io/v1/" is "index.docker.io"); an
// image (registry/repository) matches a key whose host has as many labels,
// each matched as a glob ("*.example.com"), whose port is the same, and
// whose path is a prefix of the image's. Every matching key's credentials
// are returned, the keys taken in reverse lexical order (so
// "quay.io/team" before "quay.io"); where none matches and the image pulls
// from Docker Hub, those of "index.docker.io". Several keyrings asked in
// order (a Pod's pull secrets, then the cluster's) are a UnionKeyring.
#pragma once

#include "model_image_webhook/registry/keyring.hpp"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace miw {

class KubeletKeyring : public Keyring {
public:
    // An auths entry: its key as written, its credential.
    void add(std::string_view location, RegistryCredential credential);

    // The credentials for an image ("docker.io/library/qwen",
    // "registry.example.com:5000/team/qwen"), most specific key first.
    std::vector<RegistryCredential> lookup_image(std::string_view image) const;
    std::vector<RegistryCredential> lookup(std::string_view registry, std::string_view repository) const override;

    // Every key and credential of `other` as well: the kubelet puts all of a
    // Pod's pull secrets into one keyring, each key's credentials in order.
    void add_all(const KubeletKeyring& other);
    // Every key, as the kubelet keeps it, and its credentials in the order
    // added (src/server/registry/credential_identity.hpp makes who holds them of it).
    const std::map<std::string, std::vector<RegistryCredential>, std::less<>>& entries() const { return creds_; }
    // About the bytes it keeps, for the budgets of what keeps keyrings.
    std::size_t bytes() const;

    bool empty() const { return index_.empty(); }
    std::size_t size() const { return index_.size(); }

private:
    std::map<std::string, std::vector<RegistryCredential>, std::less<>> creds_;
    std::vector<std::string> index_;  // every key once, reverse sorted
};

// The keyrings asked in order, their answers put one after another; a
// credential two of them hold (a pull secret and --registry-auth alike) is
// given once, where it first stands.
class UnionKeyring : public Keyring {
public:
    explicit UnionKeyring(std::vector<const Keyring*> parts) : parts_(std::move(parts)) {}
    std::vector<RegistryCredential> lookup(std::string_view registry, std::string_view repository) const override;
    KeyringAnswer lookup_until(std::string_view registry, std::string_view repository, Deadline deadline) const override;

private:
    std::vector<const Keyring*> parts_;
};

// A keyring's key as the kubelet keeps it: scheme, userinfo and a leading
// /v1/ or /v2/ dropped, "host[:port][/path]".
std::string kubelet_keyring_key(std::string_view location);

// Whether an image's key matches a keyring key (URLsMatchStr).
bool kubelet_key_matches(std::string_view key, std::string_view image);

}  // namespace miw
