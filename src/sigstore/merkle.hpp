// RFC 6962 Merkle trees, as transparency logs prove inclusion (the
// algorithm of RFC 9162 2.1.3.2, as transparency-dev/merkle writes it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace miw::sigstore {

std::string merkle_leaf_hash(std::string_view leaf);  // SHA-256(0x00 || leaf)

// The root an inclusion proof makes of a leaf's hash at `index` in a tree of
// `size` leaves; nullopt when the proof cannot be one (an index past the
// size, the wrong number of hashes).
std::optional<std::string> merkle_root_from_proof(std::uint64_t index, std::uint64_t size, const std::string& leaf_hash, const std::vector<std::string>& proof);

}  // namespace miw::sigstore
