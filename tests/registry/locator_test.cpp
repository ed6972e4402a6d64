// What a pinned reference asks a registry for, with no host in it.
#include "model_image_webhook/registry/locator.hpp"

#include <catch2/catch.hpp>

using namespace miw;

namespace {
const std::string kDigest = "sha256:" + std::string(64, 'a');
}

TEST_CASE("a pinned reference names its registry, repository and digest as distribution/reference normalises them", "[registry_locator]") {
    struct Case {
        const char* name;
        std::string reference;
        const char* registry;
        const char* repository;
    };
    const Case cases[] = {
        {"a registry with a path", "registry.example.com/team/qwen@" + kDigest, "registry.example.com", "team/qwen"},
        {"a port", "127.0.0.1:5000/models/qwen@" + kDigest, "127.0.0.1:5000", "models/qwen"},
        {"IPv6 with a port", "[::1]:5443/m/q@" + kDigest, "[::1]:5443", "m/q"},
        {"Docker Hub by name", "docker.io/vllm/vllm-openai@" + kDigest, "docker.io", "vllm/vllm-openai"},
        {"Docker Hub's index name", "index.docker.io/vllm/vllm-openai@" + kDigest, "docker.io", "vllm/vllm-openai"},
        {"Docker Hub's official image", "docker.io/ubuntu@" + kDigest, "docker.io", "library/ubuntu"},
        {"a bare path is Docker Hub's", "ubuntu@" + kDigest, "docker.io", "library/ubuntu"},
        {"a first component without a dot is Docker Hub's user", "vllm/vllm-openai@" + kDigest, "docker.io", "vllm/vllm-openai"},
        {"localhost is a registry", "localhost/models/qwen@" + kDigest, "localhost", "models/qwen"},
        {"localhost with a port", "localhost:5000/qwen@" + kDigest, "localhost:5000", "qwen"},
        {"a tag beside the digest is not asked for", "ghcr.io/org/model:v1@" + kDigest, "ghcr.io", "org/model"},
    };
    for (const Case& c : cases) {
        SECTION(c.name) {
            const auto loc = locate_in_registry(c.reference);
            REQUIRE(loc.ok());
            CHECK(loc->registry == c.registry);
            CHECK(loc->repository == c.repository);
            CHECK(loc->digest == kDigest);
            CHECK(loc->canonical() == std::string(c.registry) + "/" + c.repository + "@" + kDigest);
        }
    }
}

TEST_CASE("every way of writing one Docker Hub digest is one canonical locator", "[registry_locator]") {
    const std::string canonical = "docker.io/library/qwen@" + kDigest;
    for (const std::string& written : {"qwen@" + kDigest, "docker.io/qwen@" + kDigest, "index.docker.io/library/qwen@" + kDigest,
                                       "docker.io/library/qwen:v1@" + kDigest, canonical}) {
        DYNAMIC_SECTION(written) {
            const auto loc = locate_in_registry(written);
            REQUIRE(loc.ok());
            CHECK(loc->canonical() == canonical);
        }
    }
}

TEST_CASE("a reference without a digest has no manifest to look up", "[registry_locator]") {
    CHECK_FALSE(locate_in_registry("registry.example.com/team/qwen:v1").ok());
    CHECK_FALSE(locate_in_registry("not a reference").ok());
}

TEST_CASE("an authority is split into its host and port", "[registry_locator]") {
    struct Case {
        const char* authority;
        const char* host;
        const char* port;
    };
    const Case cases[] = {
        {"registry.example.com", "registry.example.com", ""},
        {"127.0.0.1:5000", "127.0.0.1", "5000"},
        {"[::1]:5000", "::1", "5000"},
        {"[fd00::2]", "fd00::2", ""},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.authority) {
            const auto split = split_authority(c.authority);
            REQUIRE(split);
            CHECK(split->host == c.host);
            CHECK(split->port == c.port);
        }
    }
    CHECK_FALSE(split_authority("[::1:5000"));
}

TEST_CASE("only a digest the webhook can check may go into a request path", "[registry_locator]") {
    struct Case {
        const char* name;
        std::string digest;
        bool verifiable;
    };
    const Case cases[] = {
        {"sha256 and 64 hex", "sha256:" + std::string(64, 'f'), true},
        {"sha512 and 128 hex", "sha512:" + std::string(128, '0'), true},
        {"upper-case hex", "sha256:" + std::string(64, 'F'), false},
        {"too short", "sha256:" + std::string(63, 'a'), false},
        {"another algorithm", "md5:" + std::string(32, 'a'), false},
        {"a path in it", "sha256:../../../v2/other/blobs/x", false},
        {"a query in it", "sha256:" + std::string(60, 'a') + "?x=1", false},
        {"empty", "", false},
    };
    for (const Case& c : cases) {
        SECTION(c.name) { CHECK(is_verifiable_digest(c.digest) == c.verifiable); }
    }
}
