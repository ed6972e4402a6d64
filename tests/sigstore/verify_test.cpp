// A bundle verified, and each way one is refused saying why: on
// sigstore-conformance's cases (real bundles of the public-good and staging
// instances), with the reason each refusal must give.
#include "../../src/sigstore/verify.hpp"

#include "../../src/sigstore/crypto.hpp"
#include "repository_file.hpp"

#include <catch2/catch.hpp>


using namespace miw;
using namespace miw::sigstore;

namespace {

const std::string kIdentity =
    "https://github.com/sigstore-conformance/extremely-dangerous-public-oidc-beacon/.github/workflows/extremely-dangerous-oidc-beacon.yml@refs/heads/main";
const std::string kIssuer = "https://token.actions.githubusercontent.com";
constexpr std::int64_t kNow = 1796428800;  // 2026-12-05

Result<Verified> verify_case(const std::string& name, SignerPolicy signer = {}) {
    const std::string dir = test::kConformanceCases + name + "/";
    Result<Bundle> bundle = read_bundle(test::repository_file(dir + "bundle.sigstore.json"));
    if (!bundle) return fail(bundle.error());
    Result<TrustedRoot> root = read_trusted_root(
        test::repository_file(test::repository_has(dir + "trusted_root.json") ? dir + "trusted_root.json" : "sigstore/trusted_root.public-good.json"));
    if (!root) return fail(root.error());
    Artifact artifact;
    artifact.has_bytes = true;
    artifact.bytes = test::repository_file(test::repository_has(dir + "artifact") ? dir + "artifact" : test::kConformanceCases + "a.txt");
    artifact.sha256 = sha256(artifact.bytes);
    if (signer.key_pem.empty() && signer.identity.empty()) {
        if (test::repository_has(dir + "key.pub")) {
            signer.key_pem = test::repository_file(dir + "key.pub");
        } else {
            signer.identity = kIdentity;
            signer.issuer = kIssuer;
        }
    }
    return verify_bundle(*bundle, *root, artifact, signer, kNow);
}

}  // namespace

TEST_CASE("bundles of each version, content and log verify", "[sigstore_verify]") {
    for (const char* name : {"happy-path-v0.1", "happy-path-v0.2", "happy-path-v0.3", "happy-path-v0.3-new-mediaType", "happy-path-intoto-in-dsse-v3",
                             "managed-key-happy-path", "rekor2-happy-path", "rekor2-dsse-happy-path", "rekor2-timestamp-with-expired-cert-chain"}) {
        DYNAMIC_SECTION(name) {
            Result<Verified> v = verify_case(name);
            INFO((v ? std::string() : v.error()));
            CHECK(v);
        }
    }
}

TEST_CASE("a refusal says why", "[sigstore_verify]") {
    struct Case {
        const char* name;
        const char* says;
    };
    const Case cases[] = {
        {"signature-mismatch_fail", "the signature does not verify"},
        {"message-digest-mismatch_fail", "message digest is not the artifact's"},
        {"bundle-from-wrong-instance_fail", "a transparency log the trusted root does not name"},
        {"set-invalid-signature_fail", "signed entry timestamp does not verify"},
        {"invalid-inclusion-proof_fail", "inclusion proof does not lead to its root hash"},
        {"checkpoint-wrong-roothash_fail", "the checkpoint's tree is not the inclusion proof's"},
        {"invalid-ct-key_fail", "SCT"},
        {"intoto-expired-certificate_fail", "does not chain to the trusted root at its time"},
        {"dsse-mismatch-envelope_fail", "another DSSE payload"},
        {"wrong-hashedrekord-cert-and-sig_fail", "another signature"},
        {"rekor2-no-timestamp_fail", "no verified time"},
        {"rekor2-timestamp-payload-mismatch_fail", "message imprint mismatch"},
        {"bundle-with-root-cert_fail", "holds a root certificate"},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            Result<Verified> v = verify_case(c.name);
            REQUIRE_FALSE(v);
            CHECK_THAT(v.error(), Catch::Contains(c.says));
        }
    }
}

TEST_CASE("a keyless signer's identity and issuer are compared exactly, never as patterns", "[sigstore_verify]") {
    struct Case {
        const char* name;
        std::string identity;
        std::string issuer;
        const char* says;
    };
    const Case cases[] = {
        {"another identity", "https://github.com/someone/else/.github/workflows/release.yml@refs/heads/main", kIssuer, "not https://github.com/someone"},
        {"a prefix of it", kIdentity.substr(0, 40), kIssuer, "the certificate names"},
        {"a pattern matching it", "https://github.com/sigstore-conformance/.*", kIssuer, "the certificate names"},
        {"another issuer", kIdentity, "https://accounts.google.com", "OIDC issuer"},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            SignerPolicy signer;
            signer.identity = c.identity;
            signer.issuer = c.issuer;
            Result<Verified> v = verify_case("happy-path-v0.3", signer);
            REQUIRE_FALSE(v);
            CHECK_THAT(v.error(), Catch::Contains(c.says));
        }
    }
}
