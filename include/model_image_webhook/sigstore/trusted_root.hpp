// A Sigstore trusted root (protobuf-specs' TrustedRoot, `trusted_root.json`):
// the transparency logs, certificate authorities, CT logs and timestamp
// authorities a verification trusts, each with its validity window, read
// into bytes (keys and certificates DER, times in Unix seconds).
// src/codec/sigstore_trusted_root.cpp reads it. No JSON library here.
#pragma once

#include "model_image_webhook/result.hpp"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace miw::sigstore {

struct Validity {
    std::int64_t start = std::numeric_limits<std::int64_t>::min();
    std::int64_t end = std::numeric_limits<std::int64_t>::max();  // inclusive
    bool contains(std::int64_t t) const { return t >= start && t <= end; }
};

struct LogKey {
    std::string base_url;
    std::string key;  // DER SubjectPublicKeyInfo
    std::string key_details;  // "PKIX_ECDSA_P256_SHA_256", "PKIX_ED25519", ...
    std::string log_id;  // raw; empty where the document gives none (then the SHA-256 of the key, src/sigstore)
    Validity valid;
};

struct Authority {
    std::string uri;
    std::vector<std::string> chain;  // DER, leaf (or intermediate) first, root last
    Validity valid;
};

struct TrustedRoot {
    std::vector<LogKey> tlogs;
    std::vector<Authority> certificate_authorities;
    std::vector<LogKey> ctlogs;
    std::vector<Authority> timestamp_authorities;
};

Result<TrustedRoot> read_trusted_root(std::string text);

}  // namespace miw::sigstore
