// Durations read as Go's time.ParseDuration reads them (its own table of
// cases, time/time_test.go's parseDurationTests, in the shapes that matter
// here: what the apiserver and a credential provider write).
#include "model_image_webhook/go_duration.hpp"

#include <catch2/catch.hpp>

#include <cstdint>

using namespace miw;
using std::chrono::nanoseconds;

TEST_CASE("a Go duration is read as time.ParseDuration reads it", "[go_duration]") {
    constexpr std::int64_t s = 1'000'000'000;
    struct Case {
        const char* text;
        std::optional<nanoseconds> expected;
    };
    const Case cases[] = {
        {"0", nanoseconds(0)},
        {"+0", nanoseconds(0)},
        {"-0", nanoseconds(0)},
        {"0s", nanoseconds(0)},
        {"10s", nanoseconds(10 * s)},
        {"500ms", nanoseconds(500'000'000)},
        {"500us", nanoseconds(500'000)},
        {"500\xC2\xB5s", nanoseconds(500'000)},
        {"500\xCE\xBCs", nanoseconds(500'000)},
        {"7ns", nanoseconds(7)},
        {"1.5h", nanoseconds(5400 * s)},
        {"2.5s", nanoseconds(2500'000'000)},
        {"1h2m3s", nanoseconds(3723 * s)},
        {"6h0m0s", nanoseconds(21600 * s)},
        {"5m30s", nanoseconds(330 * s)},
        {".5s", nanoseconds(500'000'000)},
        {"1.s", nanoseconds(s)},
        {"-1.5s", nanoseconds(-1500'000'000)},
        {"1.0000000000000000000000001s", nanoseconds(s)},
        {"9223372036854775807ns", nanoseconds(INT64_MAX)},
        {"-9223372036854775808ns", nanoseconds(INT64_MIN)},
        {"2562047h", nanoseconds(2562047LL * 3600 * s)},
        {"", std::nullopt},
        {"3", std::nullopt},
        {"-", std::nullopt},
        {"s", std::nullopt},
        {".", std::nullopt},
        {"-.", std::nullopt},
        {".s", std::nullopt},
        {"+.s", std::nullopt},
        {"1d", std::nullopt},
        {"10S", std::nullopt},
        {"1h 2m", std::nullopt},
        {"9223372036854775808ns", std::nullopt},
        {"2562048h", std::nullopt},
        {"99999999999999999999s", std::nullopt},
    };
    for (const Case& c : cases) {
        INFO(c.text);
        CHECK(parse_go_duration(c.text) == c.expected);
    }
}
