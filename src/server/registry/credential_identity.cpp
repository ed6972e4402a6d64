#include "credential_identity.hpp"

#include "client.hpp"

namespace miw::server {

namespace {

// The hex of a SHA-256, without its "sha256:".
std::string sha256_hex(std::string_view bytes) { return digest_of("sha256", bytes).substr(7); }

}  // namespace

std::string credential_identity(const RegistryCredential& credential) {
    return credential.username + "#" + sha256_hex(credential.password).substr(0, 32);
}

std::string holder_identity(const KubeletKeyring& keyring) {
    if (keyring.empty()) return {};
    std::string held;
    for (const auto& [key, list] : keyring.entries()) {
        // Lengths before each part: no two contents make one text.
        held += std::to_string(key.size()) + ':' + key;
        for (const RegistryCredential& credential : list) {
            const std::string id = credential_identity(credential);
            held += std::to_string(id.size()) + ':' + id;
        }
        held += ';';
    }
    return sha256_hex(held);
}

}  // namespace miw::server
