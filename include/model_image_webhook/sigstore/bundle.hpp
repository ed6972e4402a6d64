// A Sigstore bundle (protobuf-specs' Bundle, as JSON), v0.1 to v0.3, read
// into bytes: every base64 field decoded, every int64 read from its string.
// What it means is judged by src/sigstore/; src/codec/sigstore_bundle.cpp
// reads it. No JSON library here.
#pragma once

#include "model_image_webhook/result.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace miw::sigstore {

enum class BundleVersion : unsigned char { v0_1, v0_2, v0_3 };

struct InclusionProof {
    std::int64_t log_index = 0;
    std::string root_hash;  // raw
    std::int64_t tree_size = 0;
    std::vector<std::string> hashes;  // raw, leaf to root
    std::string checkpoint;  // a signed note's text; empty: none
};

struct TlogEntry {
    std::int64_t log_index = 0;
    std::string log_id;  // raw key id
    std::string kind;  // "hashedrekord", "dsse", "intoto"
    std::string version;  // "0.0.1", "0.0.2"
    std::int64_t integrated_time = 0;  // 0: none (Rekor v2)
    std::string signed_entry_timestamp;  // raw; empty: no inclusion promise
    std::optional<InclusionProof> inclusion_proof;
    std::string canonicalized_body;  // raw
};

struct DsseSignature {
    std::string sig;  // raw
    std::string keyid;
};

struct Bundle {
    BundleVersion version = BundleVersion::v0_3;
    std::string media_type;
    // The signer: certificates (DER, leaf first; a v0.3 bundle has the leaf
    // alone), or a public key named by a hint.
    std::vector<std::string> certificates;
    bool public_key = false;
    std::string public_key_hint;
    std::vector<TlogEntry> tlog_entries;
    std::vector<std::string> rfc3161_timestamps;  // DER
    // The content: a message signature, or a DSSE envelope.
    bool dsse = false;
    std::string digest_algorithm;  // "SHA2_256", ...
    std::string message_digest;  // raw
    std::string signature;  // raw
    std::string payload;  // DSSE: raw
    std::string payload_type;
    std::vector<DsseSignature> dsse_signatures;
};

// A bundle's JSON, or why it is none (an unknown media type, a field of the
// wrong shape, base64 that does not decode, a negative log index).
Result<Bundle> read_bundle(std::string text);

}  // namespace miw::sigstore
