// Token realms read, and redirect targets told without their secrets.
#include "model_image_webhook/registry/url.hpp"

#include <catch2/catch.hpp>

using namespace miw;

TEST_CASE("a token realm is read into what the webhook connects to", "[registry_url]") {
    struct Case {
        const char* text;
        bool tls;
        const char* host;
        const char* port;
        const char* path;
    };
    const Case cases[] = {
        {"https://auth.docker.io/token", true, "auth.docker.io", "443", "/token"},
        {"http://127.0.0.1:5001/token?x=1", false, "127.0.0.1", "5001", "/token?x=1"},
        {"https://[::1]:8443", true, "::1", "8443", "/"},
        {"https://ghcr.io?service=ghcr.io", true, "ghcr.io", "443", "/?service=ghcr.io"},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.text) {
            const auto url = parse_url(c.text);
            REQUIRE(url);
            CHECK(url->tls == c.tls);
            CHECK(url->host == c.host);
            CHECK(url->port == c.port);
            CHECK(url->path_and_query == c.path);
        }
    }
    for (const char* bad : {"ftp://x/y", "https://user:pass@x/token", "https:///token", "token", "https://x:port/"}) {
        DYNAMIC_SECTION(bad) { CHECK_FALSE(parse_url(bad)); }
    }
}

TEST_CASE("a redirect's target is told without its query, fragment or userinfo", "[registry_url]") {
    struct Case {
        const char* name;
        std::string location;
        std::string shown;
    };
    const Case cases[] = {
        {"an S3 presigned URL", "https://bucket.s3.amazonaws.com/docker/registry/v2/blobs/sha256/ab/data?X-Amz-Credential=AKIA%2F&X-Amz-Signature=deadbeef",
         "https://bucket.s3.amazonaws.com/docker/registry/v2/blobs/sha256/ab/data?..."},
        {"a CDN token in the fragment", "https://cdn.example/m#token=abc", "https://cdn.example/m?..."},
        {"userinfo", "https://user:secret@mirror.example/v2/x", "https://mirror.example/v2/x"},
        {"a plain path", "https://mirror.example/v2/x", "https://mirror.example/v2/x"},
        {"a relative target", "/v2/x/manifests/y?sig=1", "/v2/x/manifests/y?..."},
        {"a long path is cut", "https://m.example/" + std::string(300, 'p'), "https://m.example/" + std::string(159, 'p') + "..."},
    };
    for (const Case& c : cases) {
        SECTION(c.name) {
            const std::string shown = redact_url(c.location);
            CHECK(shown == c.shown);
            CHECK(shown.find("secret") == std::string::npos);
            CHECK(shown.find("Signature") == std::string::npos);
        }
    }
}
