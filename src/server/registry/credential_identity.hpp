// Who holds a credential, or a keyring of them, as the keys of what is kept
// per holder (a registry's tokens, the registry cache's answers): SHA-256
// over what is held, never the secret itself. A 64-bit std::hash would let
// two holders share an answer by a collision, and is no one-way function of
// a password; SHA-256 is both.
#pragma once

#include "model_image_webhook/registry/keyring.hpp"
#include "model_image_webhook/registry/kubelet_keyring.hpp"

#include <string>

namespace miw::server {

// The user name and the first 128 bits of the password's SHA-256, in hex.
std::string credential_identity(const RegistryCredential& credential);

// The SHA-256, in hex, of every key and credential identity a keyring holds,
// in key order: the same for the same contents, however they were added;
// empty for an empty keyring.
std::string holder_identity(const KubeletKeyring& keyring);

}  // namespace miw::server
