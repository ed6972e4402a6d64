// cosign's legacy simple-signing payloads and Rekor bundle annotations, read.
#include "model_image_webhook/sigstore/simple_signing.hpp"

#include "model_image_webhook/text.hpp"

#include <catch2/catch.hpp>

using namespace miw;
using namespace miw::sigstore;

TEST_CASE("the digest a simple-signing payload signs, its keys matched as Go's decoder does", "[simple_signing]") {
    struct Case {
        const char* name;
        std::string payload;
        std::string digest;
    };
    const Case cases[] = {
        {"as cosign writes it", R"({"critical":{"identity":{"docker-reference":"r/m"},"image":{"docker-manifest-digest":"sha256:ab"},"type":"cosign container image signature"},"optional":null})",
         "sha256:ab"},
        {"keys in another case", R"({"Critical":{"IMAGE":{"Docker-Manifest-Digest":"sha256:cd"}}})", "sha256:cd"},
        {"an exact key wins over a folded one", R"({"critical":{"image":{"DOCKER-MANIFEST-DIGEST":"sha256:no","docker-manifest-digest":"sha256:yes"}}})", "sha256:yes"},
    };
    for (const Case& c : cases) {
        SECTION(c.name) {
            const auto digest = simple_signing_digest(c.payload);
            REQUIRE(digest);
            CHECK(*digest == c.digest);
        }
    }
}

TEST_CASE("a payload that names no digest is refused", "[simple_signing]") {
    for (const std::string& payload : {std::string("{"), std::string(R"({"critical":{}})"), std::string(R"({"critical":{"image":{"docker-manifest-digest":5}}})")}) {
        CAPTURE(payload);
        CHECK_FALSE(simple_signing_digest(payload));
    }
}

TEST_CASE("a Rekor bundle annotation is a log entry with its kind from the body", "[simple_signing]") {
    const std::string body = R"({"apiVersion":"0.0.1","kind":"hashedrekord","spec":{"data":{"hash":{"algorithm":"sha256","value":"ab"}},"signature":{"content":"","publicKey":{"content":""}}}})";
    const std::string annotation = R"({"SignedEntryTimestamp":"c2V0","Payload":{"body":")" + base64_encode(body) +
                                   R"(","integratedTime":1700000000,"logIndex":42,"logID":"c0d23d6ad406973f9559f3ba2d1ca01f84147d8ffc5b8445c224f98b9591801d"}})";
    const auto entry = read_cosign_rekor_bundle(annotation);
    REQUIRE(entry);
    CHECK(entry->kind == "hashedrekord");
    CHECK(entry->version == "0.0.1");
    CHECK(entry->integrated_time == 1700000000);
    CHECK(entry->log_index == 42);
    CHECK(entry->signed_entry_timestamp == "set");
    CHECK(entry->canonicalized_body == body);
    CHECK(hex_encode(entry->log_id) == "c0d23d6ad406973f9559f3ba2d1ca01f84147d8ffc5b8445c224f98b9591801d");
}

TEST_CASE("a Rekor bundle annotation that lacks a part is refused", "[simple_signing]") {
    const std::string cases[] = {
        "not json",
        R"({"SignedEntryTimestamp":"c2V0"})",
        R"({"SignedEntryTimestamp":"c2V0","Payload":{"body":"e30=","integratedTime":1,"logIndex":-1,"logID":"00"}})",
        R"({"SignedEntryTimestamp":"!!","Payload":{"body":"e30=","integratedTime":1,"logIndex":1,"logID":"00"}})",
        R"({"SignedEntryTimestamp":"c2V0","Payload":{"body":"e30=","integratedTime":"1","logIndex":1,"logID":"00"}})",
    };
    for (const std::string& text : cases) {
        CAPTURE(text);
        CHECK_FALSE(read_cosign_rekor_bundle(text));
    }
}
