// Credentials by registry, matched as the kubelet matches a .dockerconfigjson.
#include "model_image_webhook/registry/keyring.hpp"

#include <catch2/catch.hpp>

using namespace miw;

TEST_CASE("credentials are found by the registry's authority, exactly or by a wildcard label", "[registry_credentials]") {
    RegistryCredentials creds;
    creds.add("https://index.docker.io/v1/", {"hub", "h"});
    creds.add("registry.example.com:5000", {"port", "p"});
    creds.add("*.corp.example", {"wild", "w"});
    creds.add("HTTPS://Mirror.Example/v2/", {"mirror", "m"});
    struct Case {
        const char* authority;
        const char* user;  // nullptr: none
    };
    const Case cases[] = {
        {"docker.io", "hub"},
        {"registry-1.docker.io", "hub"},
        {"registry.example.com:5000", "port"},
        {"registry.example.com", nullptr},  // the port is part of the key
        {"models.corp.example", "wild"},
        {"a.models.corp.example", nullptr},  // '*' is one label
        {"corp.example", nullptr},
        {"models.corp.example:443", nullptr},
        {"mirror.example", "mirror"},
        {"ghcr.io", nullptr},
    };
    for (const Case& c : cases) {
        INFO(c.authority);
        const RegistryCredential* found = creds.find(c.authority);
        if (c.user == nullptr) {
            CHECK(found == nullptr);
        } else {
            REQUIRE(found != nullptr);
            CHECK(found->username == c.user);
        }
    }
    CHECK(creds.size() == 4);
}
