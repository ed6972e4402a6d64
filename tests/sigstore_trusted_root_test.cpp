// Sigstore trusted roots read, the public-good one shipped among them.
#include "model_image_webhook/sigstore/trusted_root.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

using namespace miw;
using namespace miw::sigstore;

TEST_CASE("the shipped public-good trusted root is read: its logs, authorities and windows", "[sigstore_trusted_root]") {
    std::ifstream in(std::string(MIW_SOURCE_DIR) + "/sigstore/trusted_root.public-good.json");
    std::ostringstream text;
    text << in.rdbuf();
    Result<TrustedRoot> root = read_trusted_root(text.str());
    REQUIRE(root);
    REQUIRE_FALSE(root->tlogs.empty());
    CHECK(root->tlogs[0].base_url == "https://rekor.sigstore.dev");
    CHECK(root->tlogs[0].log_id.size() == 32);
    CHECK(root->tlogs[0].valid.start == 1610452407);  // 2021-01-12T11:53:27Z
    CHECK_FALSE(root->certificate_authorities.empty());
    CHECK_FALSE(root->ctlogs.empty());
    CHECK_FALSE(root->timestamp_authorities.empty());
    // A window's end is inclusive.
    const Validity first_fulcio = root->certificate_authorities[0].valid;
    CHECK(first_fulcio.contains(first_fulcio.end));
    CHECK_FALSE(first_fulcio.contains(first_fulcio.end + 1));
}

TEST_CASE("a trusted root that cannot be trusted says why", "[sigstore_trusted_root]") {
    const std::string key = R"("publicKey":{"rawBytes":"AQID","keyDetails":"PKIX_ED25519")";
    struct Case {
        const char* name;
        std::string text;
        const char* says;
    };
    const Case cases[] = {
        {"not JSON", "[", "not JSON"},
        {"another kind of document", R"({"mediaType":"application/json"})", "mediaType"},
        {"a log without the start of its window", R"({"mediaType":"application/vnd.dev.sigstore.trustedroot+json;version=0.1","tlogs":[{)" + key + R"(}}]})",
         "validFor.start is missing"},
        {"a window that is no time", R"({"mediaType":"application/vnd.dev.sigstore.trustedroot+json;version=0.1","tlogs":[{)" + key + R"(,"validFor":{"start":"yesterday"}}}]})",
         "not an RFC 3339 time"},
        {"an authority without certificates", R"({"mediaType":"application/vnd.dev.sigstore.trustedroot+json;version=0.1","certificateAuthorities":[{"certChain":{"certificates":[]}}]})",
         "holds no certificate"},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            Result<TrustedRoot> root = read_trusted_root(c.text);
            REQUIRE_FALSE(root);
            CHECK_THAT(root.error(), Catch::Contains(c.says));
        }
    }
}
