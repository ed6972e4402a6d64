// Quantities as Nodes write their capacity, read as resource.Quantity reads them.
#include "model_image_webhook/quantity.hpp"

#include <catch2/catch.hpp>

using namespace miw;

TEST_CASE("a Node's ephemeral-storage capacity is read in bytes", "[quantity]") {
    struct Case {
        const char* text;
        std::optional<std::uint64_t> bytes;
    };
    const Case cases[] = {
        {"104854512Ki", 104854512ull * 1024},  // a kubeadm node's 100 GiB disk
        {"100Gi", 100ull << 30},
        {"1Ti", 1ull << 40},
        {"500G", 500'000'000'000ull},
        {"1.5Gi", 3ull << 29},
        {"107374182400", 107374182400ull},
        {"5e9", 5'000'000'000ull},
        {"5E3", 5000},
        {"1500m", 2},  // 1.5, rounded up as Value() does
        {"+1k", 1000},
        {"0", 0},
        {"16Ei", std::nullopt},  // past 2^64
        {"-1Gi", std::nullopt},
        {"", std::nullopt},
        {"Gi", std::nullopt},
        {"1GB", std::nullopt},
        {"1 Gi", std::nullopt},
        {"1e", std::nullopt},
        {"1e1234", std::nullopt},
        {"abc", std::nullopt},
        {"1.2.3", std::nullopt},
    };
    for (const Case& c : cases) {
        CAPTURE(c.text);
        CHECK(parse_quantity(c.text) == c.bytes);
    }
}
