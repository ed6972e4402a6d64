// Index entries picked as containerd's platform matcher picks them.
#include "model_image_webhook/registry/platform.hpp"

#include <catch2/catch.hpp>

using namespace miw;

TEST_CASE("a platform matches the index entries containerd's matcher would pull for it", "[registry_platform]") {
    struct Case {
        const char* name;
        const char* wanted;
        const char* os;
        const char* arch;
        const char* variant;
        bool matches;
    };
    const Case cases[] = {
        {"the same platform", "linux/amd64", "linux", "amd64", "", true},
        {"arm64/v8 and an entry without a variant", "linux/arm64/v8", "linux", "arm64", "", true},
        {"arm64 and an entry with v8", "linux/arm64", "linux", "arm64", "v8", true},
        {"aarch64 is arm64", "linux/aarch64", "linux", "arm64", "v8", true},
        {"x86_64 is amd64", "linux/x86_64", "linux", "amd64", "", true},
        {"amd64's v1 is its default", "linux/amd64", "linux", "amd64", "v1", true},
        {"arm's v7 is its default", "linux/arm", "linux", "arm", "v7", true},
        {"armhf is arm/v7", "linux/armhf", "linux", "arm", "v7", true},
        {"case is not a difference", "Linux/AMD64", "linux", "amd64", "", true},
        {"arm64/v9 is not v8", "linux/arm64/v9", "linux", "arm64", "v8", false},
        {"arm/v6 is not v7", "linux/arm/v6", "linux", "arm", "", false},
        {"another architecture", "linux/amd64", "linux", "arm64", "", false},
        {"another os", "linux/amd64", "windows", "amd64", "", false},
    };
    for (const Case& c : cases) {
        SECTION(c.name) {
            const auto wanted = parse_platform(c.wanted);
            REQUIRE(wanted);
            CHECK(platform_matches(*wanted, c.os, c.arch, c.variant) == c.matches);
        }
    }
}

TEST_CASE("a platform is os/arch[/variant]", "[registry_platform]") {
    CHECK(parse_platform("linux/arm64/v8")->variant == "v8");
    CHECK(parse_platform("linux/amd64")->architecture == "amd64");
    for (const char* bad : {"linux", "/amd64", "linux/", "linux/arm64/", "linux/arm64/v8/x", ""}) {
        DYNAMIC_SECTION(bad) { CHECK_FALSE(parse_platform(bad)); }
    }
}
