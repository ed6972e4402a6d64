// A --signature-policy TrustRoot made a trusted root: a real bundle of the
// staging instance verifies against the staging root written as a TrustRoot
// (keys and chains base64 of PEM, log ids derived from the keys).
#include "../../src/sigstore/policy_trust_root.hpp"

#include "../../src/sigstore/crypto.hpp"
#include "../../src/sigstore/verify.hpp"
#include "repository_file.hpp"

#include <catch2/catch.hpp>


using namespace miw;
using namespace miw::sigstore;


TEST_CASE("a TrustRoot's keys and chains verify what the trusted root they came from verifies", "[sigstore_policy_trust_root]") {
    const std::string& cases = test::kConformanceCases;
    Result<SignaturePolicy> policy = read_signature_policy(test::repository_file("tests/fixtures/signature-policy/trustroot-staging.yaml"));
    REQUIRE(policy);
    Result<TrustedRoot> root = trusted_root_of(policy->trust_roots.at("staging"));
    REQUIRE(root);
    CHECK(root->tlogs.size() == 2);
    // Derived, as none is given: as the staging trusted root names them (Rekor v2's by its C2SP key hash).
    Result<TrustedRoot> original = read_trusted_root(test::repository_file(cases + "rekor2-happy-path/trusted_root.json"));
    REQUIRE(original);
    for (std::size_t i = 0; i < root->tlogs.size(); ++i) CHECK(hex(root->tlogs[i].log_id) == hex(original->tlogs[i].log_id));
    CHECK(root->certificate_authorities.at(0).chain.size() >= 2);

    Result<Bundle> bundle = read_bundle(test::repository_file(cases + "rekor2-happy-path/bundle.sigstore.json"));
    REQUIRE(bundle);
    Artifact artifact;
    artifact.has_bytes = true;
    artifact.bytes = test::repository_file(cases + "a.txt");
    artifact.sha256 = sha256(artifact.bytes);
    SignerPolicy signer;
    signer.identity =
        "https://github.com/sigstore-conformance/extremely-dangerous-public-oidc-beacon/.github/workflows/extremely-dangerous-oidc-beacon.yml@refs/heads/main";
    signer.issuer = "https://token.actions.githubusercontent.com";
    Result<Verified> verified = verify_bundle(*bundle, *root, artifact, signer, 1796428800);
    INFO((verified ? std::string() : verified.error()));
    CHECK(verified);
}

TEST_CASE("a TrustRoot whose key or chain is not one says which", "[sigstore_policy_trust_root]") {
    PolicyTrustRoot bad_key;
    bad_key.name = "broken";
    bad_key.tlogs.push_back({"https://rekor.example", "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n", ""});
    Result<TrustedRoot> key = trusted_root_of(bad_key);
    REQUIRE_FALSE(key);
    CHECK_THAT(key.error(), Catch::Contains("TrustRoot broken: tLogs https://rekor.example"));
    PolicyTrustRoot bad_chain;
    bad_chain.name = "broken";
    bad_chain.certificate_authorities.push_back({"https://fulcio.example", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"});
    Result<TrustedRoot> chain = trusted_root_of(bad_chain);
    REQUIRE_FALSE(chain);
    CHECK_THAT(chain.error(), Catch::Contains("https://fulcio.example's certChain holds no PEM certificate"));
}
