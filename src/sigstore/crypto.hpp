// The cryptography a Sigstore verification needs, over OpenSSL: digests,
// public keys (DER SubjectPublicKeyInfo or PEM: ECDSA P-256/P-384, Ed25519,
// RSA) and their signatures, over a message or over a digest already made.
// No OpenSSL in this header.
#pragma once

#include "model_image_webhook/result.hpp"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct x509_st;

namespace miw::sigstore {

// A DER certificate parsed, through a small cache every verification shares:
// OpenSSL 3 spends about a million instructions decoding one, and one
// verification reads its leaf and the trust root's certificates several
// times. Null for bytes that are no certificate, or hold more after it.
std::shared_ptr<x509_st> parsed_certificate(std::string_view der);

std::string sha256(std::string_view bytes);  // raw, 32 bytes
std::string hex(std::string_view bytes);
// The DER of a PEM text's first block (a key or a certificate); nullopt when there is none.
std::optional<std::string> pem_der(std::string_view pem);
// Every certificate of a PEM text, DER, in the order written (leaf first).
std::vector<std::string> pem_certificates(std::string_view pem);

// A public key, from DER (SubjectPublicKeyInfo) or PEM.
class PublicKey {
public:
    static Result<PublicKey> from_der(std::string_view der);
    static Result<PublicKey> from_pem(std::string_view pem);
    // The key of a certificate (DER).
    static Result<PublicKey> of_certificate(std::string_view der);

    // `signature` over `message`, with the hash the key's kind signs with
    // (SHA-256 for P-256 and RSA, SHA-384 for P-384, none for Ed25519).
    bool verifies(std::string_view message, std::string_view signature) const;
    // `signature` over a SHA-256 digest already made (ECDSA and RSA only).
    bool verifies_digest(std::string_view sha256_digest, std::string_view signature) const;
    bool is_ed25519() const;
    // DER SubjectPublicKeyInfo.
    std::string der() const;

    struct Key;  // OpenSSL's EVP_PKEY, owned
    std::shared_ptr<Key> key;
};

}  // namespace miw::sigstore
