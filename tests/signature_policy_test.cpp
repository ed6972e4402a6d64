// --signature-policy documents read as policy-controller's CRDs define them,
// every field this webhook does not implement refused by its path.
#include "model_image_webhook/signature_policy.hpp"

#include "model_image_webhook/text.hpp"

#include <catch2/catch.hpp>

using namespace miw;

namespace {

const std::string kKey = "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAExRRST79+PsrRBnGAI4cMu6Omz2Jh\n-----END PUBLIC KEY-----\n";

std::string policy(const std::string& spec) {
    return "apiVersion: policy.sigstore.dev/v1beta1\nkind: ClusterImagePolicy\nmetadata:\n  name: models\nspec:\n" + spec;
}

const std::string kKeylessSpec =
    "  images:\n  - glob: registry.example.com/models/**\n"
    "  authorities:\n  - keyless:\n      identities:\n      - issuer: https://token.actions.githubusercontent.com\n"
    "        subject: https://github.com/org/models/.github/workflows/release.yml@refs/heads/main\n"
    "      - issuerRegExp: .*\\.example\\.com\n        subjectRegExp: .*@example\\.com\n      trustRootRef: mock\n";

}  // namespace

TEST_CASE("a keyless and a keyed ClusterImagePolicy, and the TrustRoot one names, are read", "[signature_policy]") {
    const std::string trust_root = "---\napiVersion: policy.sigstore.dev/v1alpha1\nkind: TrustRoot\nmetadata:\n  name: mock\nspec:\n  sigstoreKeys:\n"
                                   "    tLogs:\n    - baseURL: https://rekor.example\n      hashAlgorithm: sha-256\n      publicKey: " + base64_encode(kKey) + "\n"
                                   "      logID: 0a0b\n"
                                   "    certificateAuthorities:\n    - uri: https://fulcio.example\n      certChain: " + base64_encode("-----BEGIN CERTIFICATE-----\nx\n") + "\n";
    const std::string keyed = "---\n" + policy("  mode: warn\n  images:\n  - glob: \"*\"\n  authorities:\n  - name: release-key\n    key:\n      data: |\n" +
                                               std::string("        -----BEGIN PUBLIC KEY-----\n        MFkw\n        -----END PUBLIC KEY-----\n    ctlog: {}\n"));
    Result<SignaturePolicy> read = read_signature_policy(policy(kKeylessSpec) + trust_root + keyed);
    REQUIRE(read);
    REQUIRE(read->policies.size() == 2);
    const ImagePolicy& keyless = read->policies[0];
    CHECK(keyless.enforce);
    CHECK(keyless.images.at(0).matches("registry.example.com/models/qwen@sha256:" + std::string(64, 'a')));
    const PolicyAuthority& a = keyless.authorities.at(0);
    CHECK(a.keyless);
    CHECK(a.ctlog);
    CHECK(a.trust_root_ref == "mock");
    REQUIRE(a.identities.size() == 2);
    CHECK(a.identities[0].subject == "https://github.com/org/models/.github/workflows/release.yml@refs/heads/main");
    CHECK(a.identities[1].issuer_regexp == ".*\\.example\\.com");
    const ImagePolicy& key = read->policies[1];
    CHECK_FALSE(key.enforce);
    CHECK(key.authorities.at(0).name == "release-key");
    CHECK(key.authorities.at(0).ctlog);
    CHECK(key.images.at(0).text() == "index.docker.io/library/*");
    const PolicyTrustRoot& root = read->trust_roots.at("mock");
    REQUIRE(root.tlogs.size() == 1);
    CHECK(root.tlogs[0].public_key_pem == kKey);
    CHECK(root.tlogs[0].log_id == std::string("\x0a\x0b"));
    CHECK(root.certificate_authorities.at(0).uri == "https://fulcio.example");
}

TEST_CASE("a field this webhook does not implement is refused with its path, never ignored", "[signature_policy]") {
    struct Case {
        const char* name;
        std::string text;
        const char* says;
    };
    const std::string images = "  images:\n  - glob: registry.example.com/**\n";
    const Case cases[] = {
        {"kms", policy(images + "  authorities:\n  - key:\n      kms: awskms:///alias/x\n"), "spec.authorities[0].key.kms is not supported"},
        {"secretRef", policy(images + "  authorities:\n  - key:\n      secretRef:\n        name: k\n"), "spec.authorities[0].key.secretRef is not supported"},
        {"static", policy(images + "  authorities:\n  - static:\n      action: pass\n"), "spec.authorities[0].static is not supported"},
        {"attestations", policy(images + "  authorities:\n  - key:\n      data: \"" + std::string("-----BEGIN PUBLIC KEY-----") + "\"\n    attestations: []\n"),
         "spec.authorities[0].attestations is not supported"},
        {"policy", policy(images + "  authorities:\n  - keyless:\n      identities: [{issuer: i, subject: s}]\n  policy:\n    type: cue\n"), "spec.policy is not supported"},
        {"a regex image", policy("  images:\n  - regex: .*\n  authorities: []\n"), "spec.images[0].regex is not supported"},
        {"a remote TrustRoot", "apiVersion: policy.sigstore.dev/v1alpha1\nkind: TrustRoot\nmetadata:\n  name: r\nspec:\n  remote:\n    mirror: https://tuf.example\n",
         "TrustRoot r: spec.remote is not supported"},
        {"an unknown field", policy(images + "  authorities:\n  - keyless:\n      identities: [{issuer: i, subject: s}]\n  colour: blue\n"), "spec.colour is not a field"},
        {"both key and keyless", policy(images + "  authorities:\n  - key:\n      data: x\n    keyless:\n      identities: [{issuer: i, subject: s}]\n"), "exactly one of key and keyless"},
        {"an identity without its issuer", policy(images + "  authorities:\n  - keyless:\n      identities: [{subject: s}]\n"), "exactly one of issuer and issuerRegExp"},
        {"a mode that is none", policy(images + "  mode: audit\n  authorities:\n  - keyless:\n      identities: [{issuer: i, subject: s}]\n"), "mode audit is not enforce or warn"},
        {"a TrustRoot not in the file", policy(kKeylessSpec), "names TrustRoot mock, which the file does not hold"},
        {"a glob with a bracket", policy("  images:\n  - glob: \"registry/[a]\"\n  authorities:\n  - keyless:\n      identities: [{issuer: i, subject: s}]\n"), "images[0].glob"},
        {"a log id that is not hex", "apiVersion: policy.sigstore.dev/v1alpha1\nkind: TrustRoot\nmetadata:\n  name: r\nspec:\n  sigstoreKeys:\n    tLogs:\n"
                                     "    - baseURL: https://rekor.example\n      publicKey: " + base64_encode(kKey) + "\n      logID: zz\n",
         "tLogs[0].logID is not hex"},
        {"another kind", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n", "neither a ClusterImagePolicy nor a TrustRoot"},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            Result<SignaturePolicy> read = read_signature_policy(c.text);
            REQUIRE_FALSE(read);
            CHECK_THAT(read.error(), Catch::Contains(c.says));
        }
    }
}
