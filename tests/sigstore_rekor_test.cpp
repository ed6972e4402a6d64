// Rekor entry bodies of each kind and version, and in-toto statements, read.
#include "model_image_webhook/sigstore/rekor_entry.hpp"

#include "model_image_webhook/text.hpp"

#include <catch2/catch.hpp>

using namespace miw;
using namespace miw::sigstore;

TEST_CASE("a log entry's body is read for what it says of the signature", "[sigstore_rekor]") {
    SECTION("hashedrekord 0.0.1: a hex digest, a PEM signer") {
        Result<RekorEntry> e = read_rekor_entry(R"({"apiVersion":"0.0.1","kind":"hashedrekord","spec":{"data":{"hash":{"algorithm":"sha256","value":"abcd"}},)"
                                                R"("signature":{"content":"AQI=","publicKey":{"content":")" + base64_encode("-----BEGIN PUBLIC KEY-----") + R"("}}}})");
        REQUIRE(e);
        CHECK(e->hash_algorithm == "sha256");
        CHECK(e->hash_hex == "abcd");
        CHECK(e->signature == std::string("\x01\x02"));
        CHECK(e->public_key == "-----BEGIN PUBLIC KEY-----");
    }
    SECTION("hashedrekord 0.0.2: a base64 digest, a DER signer") {
        Result<RekorEntry> e = read_rekor_entry(R"({"apiVersion":"0.0.2","kind":"hashedrekord","spec":{"hashedRekordV002":{"data":{"algorithm":"SHA2_256","digest":"q80="},)"
                                                R"("signature":{"content":"AQI=","verifier":{"keyDetails":"PKIX_ECDSA_P256_SHA_256","x509Certificate":{"rawBytes":"MAA="}}}}}})");
        REQUIRE(e);
        CHECK(e->hash_algorithm == "SHA2_256");
        CHECK(e->hash_hex == "abcd");
        CHECK(e->public_key == std::string("\x30\x00", 2));
    }
    SECTION("dsse 0.0.2") {
        Result<RekorEntry> e = read_rekor_entry(R"({"apiVersion":"0.0.2","kind":"dsse","spec":{"dsseV002":{"payloadHash":{"algorithm":"SHA2_256","digest":"q80="},)"
                                                R"("signatures":[{"content":"AQI=","verifier":{"publicKey":{"rawBytes":"MAA="}}}]}}})");
        REQUIRE(e);
        CHECK(e->payload_hash_hex == "abcd");
        REQUIRE(e->dsse_signatures.size() == 1);
        CHECK(e->dsse_signatures[0].signature == std::string("\x01\x02"));
    }
    SECTION("intoto 0.0.2: a signature base64 of its base64") {
        Result<RekorEntry> e = read_rekor_entry(R"({"apiVersion":"0.0.2","kind":"intoto","spec":{"content":{"payloadHash":{"algorithm":"sha256","value":"abcd"},)"
                                                R"("envelope":{"signatures":[{"sig":")" + base64_encode("AQI=") + R"(","publicKey":"LS0t"}]}}}})");
        REQUIRE(e);
        CHECK(e->payload_hash_hex == "abcd");
        CHECK(e->dsse_signatures.at(0).signature == std::string("\x01\x02"));
        CHECK(e->dsse_signatures.at(0).verifier == "---");
    }
    CHECK_FALSE(read_rekor_entry("[]"));
    CHECK_FALSE(read_rekor_entry(R"({"kind":"hashedrekord"})"));
}

TEST_CASE("an in-toto statement's subjects and predicate type are read", "[sigstore_rekor]") {
    Result<Statement> s = read_statement(R"({"_type":"https://in-toto.io/Statement/v1","subject":[{"name":"a","digest":{"sha256":"abcd"}},{"name":"b","digest":{"sha512":"ef"}}],)"
                                         R"("predicateType":"https://sigstore.dev/cosign/sign/v1"})");
    REQUIRE(s);
    CHECK(s->predicate_type == "https://sigstore.dev/cosign/sign/v1");
    REQUIRE(s->subjects.size() == 2);
    CHECK(s->subjects[0].sha256_hex == "abcd");
    CHECK(s->subjects[1].sha256_hex.empty());
    CHECK_FALSE(read_statement("not json"));
}
