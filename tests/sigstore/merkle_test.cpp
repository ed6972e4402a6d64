// RFC 6962 inclusion proofs, against a tree of seven leaves built by the
// RFC's own recursion (MTH and PATH, computed apart from this code).
#include "../../src/sigstore/merkle.hpp"

#include "../../src/sigstore/crypto.hpp"

#include "model_image_webhook/text.hpp"

#include <catch2/catch.hpp>

using namespace miw::sigstore;

namespace {

const std::string kRoot7 = "3560191803028444b232018ac047fdb561c09c23a7a6876c85e08b5e4d48e9f3";

}  // namespace

TEST_CASE("an inclusion proof leads from its leaf to the tree's root", "[sigstore_merkle]") {
    struct Case {
        std::uint64_t index;
        std::vector<std::string> proof;
    };
    const Case cases[] = {
        {0, {"b413f47d13ee2fe6c845b2ee141af81de858df4ec549a58b7970bb96645bc8d2", "52c56b473e5246933e7852989cd9feba3b38f078742b93afff1e65ed46797825",
             "89c929834ed1459b07f65b5e1a2143a8cf5d8efdf30f49ffffa328bb1d9133bb"}},
        {3, {"fcf0a6c700dd13e274b6fba8deea8dd9b26e4eedde3495717cac8408c9c5177f", "a20bf9a7cc2dc8a08f5f415a71b19f6ac427bab54d24eec868b5d3103449953a",
             "89c929834ed1459b07f65b5e1a2143a8cf5d8efdf30f49ffffa328bb1d9133bb"}},
        {6, {"4b8c129ed14cce2c08cfc6766db7f8cdb133b5f698b8de3d5890ea7ff7f0a8d1", "9bcd51240af4005168f033121ba85be5a6ed4f0e6a5fac262066729b8fbfdecb"}},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION("leaf " << c.index << " of 7") {
            std::vector<std::string> proof;
            for (const std::string& h : c.proof) proof.push_back(miw::hex_decode(h).value());
            const std::string leaf = merkle_leaf_hash(std::string(1, static_cast<char>(c.index)));
            const auto root = merkle_root_from_proof(c.index, 7, leaf, proof);
            REQUIRE(root);
            CHECK(hex(*root) == kRoot7);
            // Another leaf, or a hash flipped, leads elsewhere.
            CHECK(merkle_root_from_proof(c.index, 7, merkle_leaf_hash("x"), proof) != root);
            proof.front()[0] ^= 1;
            CHECK(merkle_root_from_proof(c.index, 7, leaf, proof) != root);
        }
    }
    CHECK(hex(*merkle_root_from_proof(0, 1, merkle_leaf_hash(std::string(1, '\0')), {})) == "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7");
}

TEST_CASE("a proof that cannot be one is none", "[sigstore_merkle]") {
    const std::string leaf = merkle_leaf_hash("a");
    const std::string h(32, 'h');
    CHECK_FALSE(merkle_root_from_proof(7, 7, leaf, {h, h, h}));  // the index past the tree
    CHECK_FALSE(merkle_root_from_proof(0, 0, leaf, {}));
    CHECK_FALSE(merkle_root_from_proof(0, 7, leaf, {h, h}));  // a hash short
    CHECK_FALSE(merkle_root_from_proof(0, 7, leaf, {h, h, h, h}));  // one too many
    CHECK_FALSE(merkle_root_from_proof(0, 7, leaf, {h, "short", h}));
    // A tree of 2^64 - 1 leaves: a proof of 64 inner hashes, no border (a shift of 64 is no shift).
    CHECK_FALSE(merkle_root_from_proof(UINT64_MAX - 1, UINT64_MAX, leaf, {h}));
}
