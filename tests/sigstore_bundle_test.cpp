// Sigstore bundles read as protobuf's JSON mapping writes them.
#include "model_image_webhook/sigstore/bundle.hpp"

#include <catch2/catch.hpp>

using namespace miw;
using namespace miw::sigstore;

namespace {

std::string bundle(const std::string& media_type, const std::string& material, const std::string& content) {
    return R"({"mediaType":")" + media_type + R"(","verificationMaterial":)" + material + "," + content + "}";
}

const std::string kKeyMaterial =
    R"({"publicKey":{"hint":"abc"},"tlogEntries":[{"logIndex":"7","logId":{"keyId":"AQID"},"kindVersion":{"kind":"hashedrekord","version":"0.0.1"},)"
    R"("integratedTime":"1700000000","inclusionPromise":{"signedEntryTimestamp":"BAUG"},"inclusionProof":{"logIndex":"3","rootHash":"AAAA","treeSize":"9",)"
    R"("hashes":["AQ==","Ag=="],"checkpoint":{"envelope":"o\n9\nAAAA\n\n"}},"canonicalizedBody":"e30="}]})";
const std::string kMessage = R"("messageSignature":{"messageDigest":{"algorithm":"SHA2_256","digest":"AQI="},"signature":"AwQ="})";

}  // namespace

TEST_CASE("a bundle's versions, signer, log entries and content are read into bytes", "[sigstore_bundle]") {
    for (const char* media_type : {"application/vnd.dev.sigstore.bundle+json;version=0.1", "application/vnd.dev.sigstore.bundle+json;version=0.2",
                                   "application/vnd.dev.sigstore.bundle+json;version=0.3", "application/vnd.dev.sigstore.bundle.v0.3+json"}) {
        DYNAMIC_SECTION(media_type) {
            Result<Bundle> b = read_bundle(bundle(media_type, kKeyMaterial, kMessage));
            REQUIRE(b);
            CHECK(b->public_key);
            REQUIRE(b->tlog_entries.size() == 1);
            const TlogEntry& e = b->tlog_entries[0];
            CHECK(e.log_index == 7);
            CHECK(e.log_id == std::string("\x01\x02\x03"));
            CHECK(e.kind == "hashedrekord");
            CHECK(e.integrated_time == 1700000000);
            CHECK(e.signed_entry_timestamp == std::string("\x04\x05\x06"));
            REQUIRE(e.inclusion_proof);
            CHECK(e.inclusion_proof->tree_size == 9);
            CHECK(e.inclusion_proof->hashes.size() == 2);
            CHECK(e.inclusion_proof->checkpoint == "o\n9\nAAAA\n\n");
            CHECK(e.canonicalized_body == "{}");
            CHECK_FALSE(b->dsse);
            CHECK(b->message_digest == std::string("\x01\x02"));
            CHECK(b->signature == std::string("\x03\x04"));
        }
    }
    Result<Bundle> dsse = read_bundle(bundle("application/vnd.dev.sigstore.bundle.v0.3+json", R"({"certificate":{"rawBytes":"MAA="}})",
                                             R"("dsseEnvelope":{"payload":"e30=","payloadType":"application/vnd.in-toto+json","signatures":[{"sig":"AQ==","keyid":""}]})"));
    REQUIRE(dsse);
    CHECK(dsse->dsse);
    CHECK(dsse->certificates.size() == 1);
    CHECK(dsse->payload == "{}");
    CHECK(dsse->dsse_signatures.at(0).sig == std::string("\x01"));
}

TEST_CASE("base64 is read as Go reads it: line breaks passed over", "[sigstore_bundle]") {
    Result<Bundle> b = read_bundle(bundle("application/vnd.dev.sigstore.bundle.v0.3+json", kKeyMaterial,
                                          R"("messageSignature":{"messageDigest":{"algorithm":"SHA2_256","digest":"AQI="},"signature":"Aw\nQ=\r\n"})"));
    REQUIRE(b);
    CHECK(b->signature == std::string("\x03\x04"));
}

TEST_CASE("a bundle that is not one says which field, and why", "[sigstore_bundle]") {
    struct Case {
        const char* name;
        std::string text;
        const char* says;
    };
    const std::string v3 = "application/vnd.dev.sigstore.bundle.v0.3+json";
    const Case cases[] = {
        {"not JSON", "{", "not JSON"},
        {"an unknown version", bundle("application/vnd.dev.sigstore.bundle+json;version=99.9", kKeyMaterial, kMessage), "99.9"},
        {"a version past 0.3", bundle("application/vnd.dev.sigstore.bundle.v0.4+json", kKeyMaterial, kMessage), "not a bundle version"},
        {"no signer", bundle(v3, R"({"tlogEntries":[]})", kMessage), "no certificate and no public key"},
        {"an empty chain", bundle(v3, R"({"x509CertificateChain":{"certificates":[]}})", kMessage), "holds no certificate"},
        {"no content", bundle(v3, kKeyMaterial, R"("other":1)"), "neither a messageSignature nor a dsseEnvelope"},
        {"a signature not base64", bundle(v3, kKeyMaterial, R"("messageSignature":{"signature":"!!"})"), "messageSignature.signature: not base64"},
        {"a negative log index", bundle(v3, std::string(kKeyMaterial).replace(kKeyMaterial.find("\"7\""), 3, "\"-1\""), kMessage), "logIndex: negative"},
        {"a log index not a number", bundle(v3, std::string(kKeyMaterial).replace(kKeyMaterial.find("\"7\""), 3, "\"7x\""), kMessage), "logIndex: not an integer"},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            Result<Bundle> b = read_bundle(c.text);
            REQUIRE_FALSE(b);
            CHECK_THAT(b.error(), Catch::Contains(c.says));
        }
    }
}
