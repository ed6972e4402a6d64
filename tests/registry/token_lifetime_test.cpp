// How long a registry token is used, whatever its server wrote.
#include "model_image_webhook/registry/token_lifetime.hpp"

#include <catch2/catch.hpp>

#include <limits>

using namespace miw;

TEST_CASE("a token is used for nine tenths of its lifetime, clamped to what registries assume", "[registry_token]") {
    struct Case {
        const char* name;
        std::int64_t expires_in;
        std::int64_t used_for;
    };
    const Case cases[] = {
        {"Docker Hub's 300 s", 300, 270},
        {"shorter than the 60 s registries assume", 5, 54},
        {"zero", 0, 54},
        {"negative", -40, 54},
        {"a day", 86400, 77760},
        {"a year is a day", 365LL * 86400, 77760},
        {"the largest int64, no overflow", std::numeric_limits<std::int64_t>::max(), 77760},
    };
    for (const Case& c : cases) {
        SECTION(c.name) { CHECK(token_reuse_for(c.expires_in).count() == c.used_for); }
    }
    // The clock arithmetic the authorizer does with it stays in range.
    const auto far = std::chrono::steady_clock::now() + token_reuse_for(std::numeric_limits<std::int64_t>::max());
    CHECK(far > std::chrono::steady_clock::now());
}
