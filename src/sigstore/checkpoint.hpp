// A transparency log's checkpoint: a signed note (C2SP signed-note,
// tlog-checkpoint): origin, tree size, root hash, then after a blank line one
// or more signature lines "— NAME BASE64(KEY_HASH[4] || SIGNATURE)".
#pragma once

#include "crypto.hpp"

#include "model_image_webhook/result.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace miw::sigstore {

struct NoteSignature {
    std::string name;
    std::string key_hash;  // 4 bytes
    std::string signature;
};

struct Checkpoint {
    std::string origin;
    std::uint64_t size = 0;
    std::string root_hash;  // raw
    std::string signed_text;  // what the signatures sign: the note's text through its last newline
    std::vector<NoteSignature> signatures;
};

Result<Checkpoint> read_checkpoint(std::string_view envelope);

// Whether one of the note's signatures is the log's, its signature over the
// text verified by the log's key: found by its key hash, the first 4 bytes of
// the log id for an ECDSA key (Rekor v1), or for an Ed25519 key the first 4
// bytes of SHA-256(name || 0x0A || 0x01 || key) as C2SP signed-note has it,
// the name being the checkpoint's origin (a witness's cosignature, under
// another name or key, is passed over).
bool checkpoint_signed_by(const Checkpoint& checkpoint, const PublicKey& key, const std::string& log_id);

// A log's id where a trust root gives none: for an Ed25519 key (Rekor v2)
// the C2SP signed-note key hash under its origin, the host of its base URL;
// for any other key the SHA-256 of its DER.
std::string derived_log_id(const PublicKey& key, std::string_view base_url);

}  // namespace miw::sigstore
