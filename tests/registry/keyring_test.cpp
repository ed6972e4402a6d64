// What the keyring interface's users share: registries named on the command
// line, and a credential's identity for the keys of what is kept per credential.
#include "model_image_webhook/registry/keyring.hpp"

#include <catch2/catch.hpp>

using namespace miw;

TEST_CASE("a registry named on the command line is compared without scheme, path or case", "[registry_keyring]") {
    struct Case {
        const char* written;
        const char* key;
    };
    const Case cases[] = {
        {"registry.example.com:5000", "registry.example.com:5000"},
        {"HTTP://Mirror.Example/v2/", "mirror.example"},
        {"https://index.docker.io/v1/", "docker.io"},
        {"registry-1.docker.io", "docker.io"},
        {"127.0.0.1:5000", "127.0.0.1:5000"},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.written) { CHECK(normalize_registry_key(c.written) == c.key); }
    }
}
