// The flags' hosts for a registry: where a locator's registry is asked.
#include "../../../src/server/registry/hosts.hpp"

#include <catch2/catch.hpp>

using namespace miw::server;

TEST_CASE("each registry is asked at the host the flags give it", "[registry_hosts]") {
    struct Case {
        const char* registry;
        const char* url;
        const char* authority;
    };
    const Case cases[] = {
        {"docker.io", "https://registry-1.docker.io/v2/library/qwen/manifests/d", "registry-1.docker.io"},
        {"registry.example.com", "https://registry.example.com/v2/library/qwen/manifests/d", "registry.example.com"},
        {"127.0.0.1:5000", "https://127.0.0.1:5000/v2/library/qwen/manifests/d", "127.0.0.1:5000"},
        {"[::1]:5443", "https://[::1]:5443/v2/library/qwen/manifests/d", "[::1]:5443"},
        {"mirror.internal:5000", "http://mirror.internal:5000/v2/library/qwen/manifests/d", "mirror.internal:5000"},
        {"plain.internal:80", "http://plain.internal:80/v2/library/qwen/manifests/d", "plain.internal:80"},
    };
    const FlagRegistryHosts hosts({"mirror.internal:5000", "plain.internal"});
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.registry) {
            const auto found = hosts.hosts_for(c.registry);
            REQUIRE(found.size() == 1);
            CHECK(found[0].url("/library/qwen/manifests/d") == c.url);
            CHECK(found[0].authority() == c.authority);
            CHECK((found[0].capabilities & kHostPull) != 0);
        }
    }
}

TEST_CASE("plain HTTP is for the hosts named insecure, by authority or by host", "[registry_hosts]") {
    const FlagRegistryHosts hosts({"mirror.internal:5000", "plain.internal"});
    CHECK(hosts.insecure("mirror.internal:5000", "mirror.internal"));
    CHECK(hosts.insecure("plain.internal:8080", "plain.internal"));
    CHECK_FALSE(hosts.insecure("mirror.internal:5001", "mirror.internal"));
    CHECK_FALSE(hosts.insecure("registry.example.com", "registry.example.com"));
}
