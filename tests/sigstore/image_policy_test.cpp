// A policy's authorities judged against the signatures found for a digest:
// legacy simple signatures made here with OpenSSL (a key), real bundles of
// sigstore-conformance (an SLSA provenance, which is no signature), and the
// policies that cannot be used refused at start with why.
#include "../../src/sigstore/image_policy.hpp"

#include "../../src/sigstore/crypto.hpp"
#include "repository_file.hpp"
#include "test_key.hpp"

#include "model_image_webhook/sigstore/trusted_root.hpp"
#include "model_image_webhook/text.hpp"

#include <catch2/catch.hpp>

#include <memory>

using namespace miw;
using namespace miw::sigstore;

namespace {

constexpr std::int64_t kNow = 1796428800;  // 2026-12-05
const std::string kDigest = "sha256:" + std::string(64, 'a');

using test::TestKey;

SimpleSignature simple(const TestKey& key, const std::string& digest) {
    SimpleSignature s;
    s.payload = R"({"critical":{"identity":{"docker-reference":"registry.example.com/models/qwen"},"image":{"docker-manifest-digest":")" + digest +
                R"("},"type":"cosign container image signature"},"optional":null})";
    s.signature = base64_encode(key.sign(s.payload));
    return s;
}

SignaturePolicy key_policy(const TestKey& key, bool ctlog = false) {
    PolicyAuthority a;
    a.name = "release-key";
    a.key_pem = key.public_pem();
    a.ctlog = ctlog;
    ImagePolicy p;
    p.name = "models";
    p.authorities = {a};
    SignaturePolicy out;
    out.policies = {p};
    return out;
}

std::shared_ptr<const ImagePolicyVerifier> verifier_of(const SignaturePolicy& policy) {
    Result<TrustedRoot> root = read_trusted_root(test::repository_file("sigstore/trusted_root.public-good.json"));
    REQUIRE(root);
    auto made = ImagePolicyVerifier::create(policy, *root);
    INFO((made ? std::string() : made.error()));
    REQUIRE(made);
    return *made;
}

}  // namespace

TEST_CASE("a legacy signature by the policy's key verifies; each other way it fails says why", "[image_policy]") {
    const TestKey release;
    const TestKey other;
    struct Case {
        const char* name;
        FoundSignatures found;
        bool ctlog;
        SignatureStatus status;
        const char* detail;
    };
    FoundSignatures wrong_key;
    wrong_key.simple = {simple(other, kDigest)};
    FoundSignatures good;
    good.simple = {simple(release, kDigest)};
    FoundSignatures another_digest;
    another_digest.simple = {simple(release, "sha256:" + std::string(64, 'b'))};
    FoundSignatures changed = good;
    changed.simple[0].payload.insert(1, " ");
    FoundSignatures nothing;
    FoundSignatures both = wrong_key;
    both.simple.push_back(good.simple[0]);
    const Case cases[] = {
        {"the key's signature", good, false, SignatureStatus::verified, ""},
        {"another key's beside it: any signature suffices", both, false, SignatureStatus::verified, ""},
        {"another key", wrong_key, false, SignatureStatus::mismatch, "release-key: the signature does not verify over the artifact with the signer's key"},
        {"a payload changed after signing", changed, false, SignatureStatus::mismatch, "release-key: the signature does not verify"},
        {"a payload naming another digest", another_digest, false, SignatureStatus::unsigned_image, "a .sig payload names sha256:bbbb"},
        {"nothing found", nothing, false, SignatureStatus::unsigned_image, "no sigstore bundle referrer and no .sig tag"},
        {"ctlog asked for, and not logged", good, true, SignatureStatus::mismatch, "release-key: the bundle has no transparency log entry"},
    };
    for (const Case& c : cases) {
        SECTION(c.name) {
            const auto verifier = verifier_of(key_policy(release, c.ctlog));
            const SignatureOutcome out = verifier->verify(c.found, kDigest, 0, kNow);
            CHECK(to_string(out.status) == to_string(c.status));
            CHECK_THAT(out.detail, Catch::Contains(c.detail));
        }
    }
}

TEST_CASE("a bundle of another predicate type is no signature, and says what it is", "[image_policy]") {
    const std::string dir = test::kConformanceCases + "happy-path-intoto-in-dsse-v3/";
    FoundSignatures found;
    found.bundles = {test::repository_file(dir + "bundle.sigstore.json")};
    found.other_referrers = 2;
    const TestKey key;
    const SignatureOutcome out = verifier_of(key_policy(key))->verify(found, "sha256:a0cfc71271d6e278e57cd332ff957c3f7043fdda354c4cbb190a30d56efa01bf", 0, kNow);
    CHECK(out.status == SignatureStatus::unsigned_image);
    CHECK_THAT(out.detail, Catch::Contains("3 referrers or .sig layers, none a signature of it: an attestation of https://slsa.dev/provenance/v1"));
}

TEST_CASE("what is not a sha256 digest is never taken as verified", "[image_policy]") {
    const TestKey key;
    FoundSignatures found;
    found.simple = {simple(key, kDigest)};
    const SignatureOutcome out = verifier_of(key_policy(key))->verify(found, "sha512:" + std::string(128, 'a'), 0, kNow);
    CHECK(out.status == SignatureStatus::mismatch);
}

TEST_CASE("a policy that cannot be used is refused at start, naming the authority", "[image_policy]") {
    Result<TrustedRoot> root = read_trusted_root(test::repository_file("sigstore/trusted_root.public-good.json"));
    REQUIRE(root);
    struct Case {
        const char* name;
        PolicyAuthority authority;
        const char* error;
    };
    PolicyAuthority bad_key;
    bad_key.name = "k";
    bad_key.key_pem = "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n";
    PolicyAuthority bad_pattern;
    bad_pattern.name = "ci";
    bad_pattern.keyless = true;
    bad_pattern.ctlog = true;
    bad_pattern.identities = {{"https://token.actions.githubusercontent.com", "", "", "^https://github.com/(acme"}};
    PolicyAuthority missing_root = bad_pattern;
    missing_root.identities = {{"https://token.actions.githubusercontent.com", "x", "", ""}};
    missing_root.trust_root_ref = "private";
    const Case cases[] = {
        {"a key that is none", bad_key, "ClusterImagePolicy models, authority k: its key.data is"},
        {"a pattern RE2 cannot read", bad_pattern, "authority ci subjectRegExp: \"^https://github.com/(acme\" is not a regular expression RE2 (Go's syntax) reads"},
        {"a trust root not in the file", missing_root, "the TrustRoot private is not in the policy file"},
    };
    for (const Case& c : cases) {
        SECTION(c.name) {
            ImagePolicy p;
            p.name = "models";
            p.authorities = {c.authority};
            SignaturePolicy policy;
            policy.policies = {p};
            auto made = ImagePolicyVerifier::create(policy, *root);
            REQUIRE_FALSE(made);
            CHECK_THAT(made.error(), Catch::Contains(c.error));
        }
    }
}
