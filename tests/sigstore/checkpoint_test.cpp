// Checkpoints (signed notes) read and their log's signature found, on the
// checkpoints of real Rekor v1 and v2 entries (sigstore-conformance's cases).
#include "../../src/sigstore/checkpoint.hpp"

#include "repository_file.hpp"

#include "model_image_webhook/sigstore/bundle.hpp"
#include "model_image_webhook/sigstore/trusted_root.hpp"

#include <catch2/catch.hpp>


using namespace miw;
using namespace miw::sigstore;

namespace {

struct Logged {
    Checkpoint checkpoint;
    PublicKey key;
    std::string log_id;
};

Logged logged(const std::string& case_name, const std::string& root_path) {
    Result<Bundle> bundle = read_bundle(test::repository_file(test::kConformanceCases + case_name + "/bundle.sigstore.json"));
    REQUIRE(bundle);
    Result<TrustedRoot> root = read_trusted_root(test::repository_file(root_path));
    REQUIRE(root);
    const TlogEntry& entry = bundle->tlog_entries.at(0);
    Result<Checkpoint> checkpoint = read_checkpoint(entry.inclusion_proof->checkpoint);
    REQUIRE(checkpoint);
    for (const LogKey& log : root->tlogs) {
        if (log.log_id == entry.log_id) return {*checkpoint, PublicKey::from_der(log.key).value(), log.log_id};
    }
    FAIL("no log of the trusted root signed the entry");
    return {};
}

}  // namespace

TEST_CASE("a checkpoint's text, tree and signatures are read", "[sigstore_checkpoint]") {
    Result<Checkpoint> c = read_checkpoint("rekor.example - 42\n10\nrnpacIXSjoToEDh0qD4CLAKdkPnW1Y4R1DhFMS+AGlI=\nextra\n\n\xE2\x80\x94 witness AAAAAAEC\n\xE2\x80\x94 rekor.example AQIDBAUG\n");
    REQUIRE(c);
    CHECK(c->origin == "rekor.example - 42");
    CHECK(c->size == 10);
    CHECK(c->root_hash.size() == 32);
    CHECK(c->signed_text == "rekor.example - 42\n10\nrnpacIXSjoToEDh0qD4CLAKdkPnW1Y4R1DhFMS+AGlI=\nextra\n");
    REQUIRE(c->signatures.size() == 2);
    CHECK(c->signatures[1].name == "rekor.example");
    CHECK(c->signatures[1].key_hash == std::string("\x01\x02\x03\x04"));
}

TEST_CASE("a checkpoint that is not one says why", "[sigstore_checkpoint]") {
    struct Case {
        const char* name;
        std::string text;
        const char* says;
    };
    const Case cases[] = {
        {"no blank line", "o\n1\nrnpacIXSjoToEDh0qD4CLAKdkPnW1Y4R1DhFMS+AGlI=\n", "no blank line"},
        {"no size: the note ends after its origin", "o\n\nrnpacIXSjoToEDh0qD4CLAKdkPnW1Y4R1DhFMS+AGlI=\n\n\xE2\x80\x94 o AQIDBAUG\n", "tree size"},
        {"a size that is no number", "o\nten\nrnpacIXSjoToEDh0qD4CLAKdkPnW1Y4R1DhFMS+AGlI=\n\n\xE2\x80\x94 o AQIDBAUG\n", "tree size"},
        {"a short root hash", "o\n1\nAAAA\n\n\xE2\x80\x94 o AQIDBAUG\n", "root hash"},
        {"unsigned", "o\n1\nrnpacIXSjoToEDh0qD4CLAKdkPnW1Y4R1DhFMS+AGlI=\n\n", "not signed"},
        {"a signature line without its dash", "o\n1\nrnpacIXSjoToEDh0qD4CLAKdkPnW1Y4R1DhFMS+AGlI=\n\n- o AQIDBAUG\n", "em dash"},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            Result<Checkpoint> read = read_checkpoint(c.text);
            REQUIRE_FALSE(read);
            CHECK_THAT(read.error(), Catch::Contains(c.says));
        }
    }
}

TEST_CASE("a log's signature is found among the checkpoint's, by its key hash, and verified", "[sigstore_checkpoint]") {
    SECTION("Rekor v1, ECDSA: the log id's first bytes") {
        Logged v1 = logged("happy-path-v0.3", "sigstore/trusted_root.public-good.json");
        CHECK(checkpoint_signed_by(v1.checkpoint, v1.key, v1.log_id));
        v1.checkpoint.signed_text[0] ^= 1;
        CHECK_FALSE(checkpoint_signed_by(v1.checkpoint, v1.key, v1.log_id));
    }
    SECTION("Rekor v2, Ed25519: the C2SP key hash, a witness's cosignature passed over") {
        Logged v2 = logged("rekor2-checkpoint-origin-not-first", test::kConformanceCases + "rekor2-checkpoint-origin-not-first/trusted_root.json");
        CHECK(v2.checkpoint.signatures.size() == 2);
        CHECK(checkpoint_signed_by(v2.checkpoint, v2.key, v2.log_id));
        v2.checkpoint.origin += "x";  // another name: another key hash
        CHECK_FALSE(checkpoint_signed_by(v2.checkpoint, v2.key, v2.log_id));
    }
}
