// RFC 3339 times as protobuf's JSON writes a Timestamp.
#include "model_image_webhook/rfc3339.hpp"

#include <catch2/catch.hpp>

TEST_CASE("an RFC 3339 time is read as Unix seconds", "[rfc3339]") {
    struct Case {
        const char* text;
        std::optional<std::int64_t> seconds;
    };
    const Case cases[] = {
        {"1970-01-01T00:00:00Z", 0},
        {"2021-01-12T11:53:27Z", 1610452407},
        {"2022-12-31T23:59:59.999Z", 1672531199},
        {"2025-06-12T12:02:20Z", 1749729740},
        {"2000-02-29T00:00:00Z", 951782400},
        {"2021-01-12T12:53:27+01:00", 1610452407},
        {"2021-01-12t11:53:27z", 1610452407},
        {"2021-01-12 11:53:27Z", std::nullopt},
        {"2021-01-12T11:53:27", std::nullopt},
        {"2021-13-12T11:53:27Z", std::nullopt},
        {"2021-01-12T11:53:27.Z", std::nullopt},
        {"2021-01-12T11:53:27Zjunk", std::nullopt},
        {"", std::nullopt},
    };
    for (const Case& c : cases) {
        INFO(c.text);
        CHECK(miw::parse_rfc3339(c.text) == c.seconds);
    }
}
