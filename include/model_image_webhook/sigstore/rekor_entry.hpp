// What a transparency log entry's body says (Rekor's canonicalized body:
// hashedrekord 0.0.1 and 0.0.2, dsse 0.0.1 and 0.0.2, intoto 0.0.2), and what an in-toto statement's subjects
// are: read by src/codec/sigstore_rekor.cpp, compared with the bundle by
// src/sigstore/. No JSON library here.
#pragma once

#include "model_image_webhook/result.hpp"

#include <string>
#include <vector>

namespace miw::sigstore {

struct RekorEntry {
    std::string kind;
    std::string api_version;
    // hashedrekord
    std::string hash_algorithm;  // "sha256" (v1), "SHA2_256" (v2)
    std::string hash_hex;
    std::string signature;  // raw
    std::string public_key;  // raw: a PEM certificate or key (v1), DER (v2)
    // dsse, intoto
    std::string payload_hash_hex;
    struct DsseSignature {
        std::string signature;  // raw
        std::string verifier;  // raw: a PEM certificate or key (v1), DER (v2)
    };
    std::vector<DsseSignature> dsse_signatures;
};

Result<RekorEntry> read_rekor_entry(std::string body);

struct StatementSubject {
    std::string name;
    std::string sha256_hex;  // empty: none
};

// An in-toto Statement's type, predicate type and subjects.
struct Statement {
    std::string type;
    std::string predicate_type;
    std::vector<StatementSubject> subjects;
};
Result<Statement> read_statement(std::string payload);

}  // namespace miw::sigstore
