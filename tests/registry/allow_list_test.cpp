// --registry-allow: which registries the check may ask.
#include "model_image_webhook/registry/allow_list.hpp"

#include <catch2/catch.hpp>

using namespace miw;

TEST_CASE("a registry is asked only where a glob of the list matches its whole name", "[registry_allow]") {
    struct Case {
        const char* list;
        const char* registry;
        bool allowed;
    };
    const Case cases[] = {
        {"", "anything.example:22", true},
        {"registry.example.com", "registry.example.com", true},
        {"registry.example.com", "REGISTRY.example.com", true},
        {"registry.example.com", "registry.example.com:5000", false},
        {"registry.example.com", "evil.example.com", false},
        {"registry.example.com:*", "registry.example.com:5000", true},
        {"*.example.com", "registry.example.com", true},
        {"*.example.com", "example.com", false},
        {"*.example.com", "10.0.0.1", false},
        {"*.dkr.ecr.*.amazonaws.com", "123456789012.dkr.ecr.us-east-1.amazonaws.com", true},
        {"docker.io", "docker.io", true},
        {"index.docker.io", "docker.io", true},
        {"docker.io", "index.docker.io", true},
        {"docker.io, ghcr.io", "ghcr.io", true},
        {"docker.io,ghcr.io", "127.0.0.1:5000", false},
        {"127.0.0.1:*", "127.0.0.1:5000", true},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.list << " / " << c.registry) {
            Result<RegistryAllowList> list = RegistryAllowList::parse(c.list);
            REQUIRE(list);
            CHECK(list->allows(c.registry) == c.allowed);
        }
    }
}

TEST_CASE("an allow list entry that is no host glob is refused, saying what to give", "[registry_allow]") {
    for (const char* bad : {"registry.example.com/team", "user@registry.example.com", "https://registry.example.com"}) {
        INFO(bad);
        Result<RegistryAllowList> list = RegistryAllowList::parse(bad);
        REQUIRE_FALSE(list);
        CHECK_THAT(list.error(), Catch::Contains("host[:port]"));
    }
}
