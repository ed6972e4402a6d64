#include "merkle.hpp"

#include "crypto.hpp"

#include <bit>

namespace miw::sigstore {

namespace {

std::string hash_children(const std::string& left, const std::string& right) { return sha256(std::string(1, '\x01') + left + right); }

}  // namespace

std::string merkle_leaf_hash(std::string_view leaf) { return sha256(std::string(1, '\0') + std::string(leaf)); }

std::optional<std::string> merkle_root_from_proof(std::uint64_t index, std::uint64_t size, const std::string& leaf_hash, const std::vector<std::string>& proof) {
    if (size == 0 || index >= size) return std::nullopt;
    // The proof's inner part climbs from the leaf while the tree is full on
    // both sides; its border part joins the right edge's subtrees.
    const std::size_t inner = static_cast<std::size_t>(std::bit_width(index ^ (size - 1)));
    // Go's shift of 64 or more is 0; C++'s is undefined (found by the fuzz target).
    const std::size_t border = inner >= 64 ? 0 : static_cast<std::size_t>(std::popcount(index >> inner));
    if (proof.size() != inner + border) return std::nullopt;
    std::string seed = leaf_hash;
    for (std::size_t i = 0; i < inner; ++i) {
        if (proof[i].size() != 32) return std::nullopt;
        seed = ((index >> i) & 1) == 0 ? hash_children(seed, proof[i]) : hash_children(proof[i], seed);
    }
    for (std::size_t i = inner; i < proof.size(); ++i) {
        if (proof[i].size() != 32) return std::nullopt;
        seed = hash_children(proof[i], seed);
    }
    return seed;
}

}  // namespace miw::sigstore
