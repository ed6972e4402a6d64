// Where a pinned reference is fetched from.
#include "model_image_webhook/registry_location.hpp"

#include <catch2/catch.hpp>

using namespace miw;

namespace {
const std::string kDigest = "sha256:" + std::string(64, 'a');
}

TEST_CASE("a pinned reference locates its registry host, repository and digest as containerd resolves them", "[registry_location]") {
    struct Case {
        const char* name;
        std::string reference;
        const char* host;
        const char* port;
        const char* authority;
        const char* repository;
    };
    const Case cases[] = {
        {"a registry with a path", "registry.example.com/team/qwen@" + kDigest, "registry.example.com", "", "registry.example.com", "team/qwen"},
        {"a port", "127.0.0.1:5000/models/qwen@" + kDigest, "127.0.0.1", "5000", "127.0.0.1:5000", "models/qwen"},
        {"IPv6 with a port", "[::1]:5443/m/q@" + kDigest, "::1", "5443", "[::1]:5443", "m/q"},
        {"Docker Hub by name", "docker.io/vllm/vllm-openai@" + kDigest, "registry-1.docker.io", "", "docker.io", "vllm/vllm-openai"},
        {"Docker Hub's official image", "docker.io/ubuntu@" + kDigest, "registry-1.docker.io", "", "docker.io", "library/ubuntu"},
        {"a bare path is Docker Hub's", "ubuntu@" + kDigest, "registry-1.docker.io", "", "docker.io", "library/ubuntu"},
        {"a tag beside the digest is not asked for", "ghcr.io/org/model:v1@" + kDigest, "ghcr.io", "", "ghcr.io", "org/model"},
    };
    for (const Case& c : cases) {
        SECTION(c.name) {
            const auto loc = locate_in_registry(c.reference);
            REQUIRE(loc.ok());
            CHECK(loc->host == c.host);
            CHECK(loc->port == c.port);
            CHECK(loc->authority == c.authority);
            CHECK(loc->repository == c.repository);
            CHECK(loc->digest == kDigest);
            CHECK(loc->manifest_path() == "/v2/" + std::string(c.repository) + "/manifests/" + kDigest);
        }
    }
}

TEST_CASE("a reference without a digest has no manifest to look up", "[registry_location]") {
    CHECK_FALSE(locate_in_registry("registry.example.com/team/qwen:v1").ok());
    CHECK_FALSE(locate_in_registry("not a reference").ok());
}

TEST_CASE("an authority is split into its host and port", "[registry_location]") {
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
