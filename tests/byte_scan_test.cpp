#include "../src/core/byte_scan.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace miw::byte_scan;

namespace {

// The first quote, backslash or control character, as the JSON writer looks for it.
const char* first_to_escape(const std::string& text) {
    return find_first(
        text.data(), text.data() + text.size(), [](std::uint64_t w) { return equal(w, '"') | equal(w, '\\') | below(w, 0x20); },
        [](unsigned char c) { return c == '"' || c == '\\' || c < 0x20; });
}

}  // namespace

TEST_CASE("the first byte that matters is found at every offset, in a word or in the tail", "[byte_scan]") {
    struct Case {
        const char* name;
        char byte;
        bool found;
    };
    const Case cases[] = {
        {"a quote", '"', true},       {"a backslash", '\\', true}, {"a NUL", '\0', true},      {"a line feed", '\n', true},
        {"unit separator 0x1F", '\x1f', true}, {"a space", ' ', false},     {"a tilde", '~', false},    {"DEL", '\x7f', false},
        {"a byte beyond ASCII", '\xc3', false},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            for (std::size_t length : {1u, 7u, 8u, 9u, 16u, 23u, 40u}) {
                for (std::size_t at = 0; at < length; ++at) {
                    std::string text(length, 'a');
                    text[at] = c.byte;
                    const std::size_t found = static_cast<std::size_t>(first_to_escape(text) - text.data());
                    INFO("length " << length << ", at " << at);
                    CHECK(found == (c.found ? at : length));
                }
            }
        }
    }
}

TEST_CASE("a match lower in a word is found before a later one, whatever lies between", "[byte_scan]") {
    // Borrows from a match flag bytes above it; the lowest flag must be the match.
    std::string text = "ab\x01\xff\"\\zz";
    CHECK(first_to_escape(text) - text.data() == 2);
    text = "\xff\xfe\x80\x81\x7f~ \"";
    CHECK(first_to_escape(text) - text.data() == 7);
    CHECK(below(load("\x1f\x20\x00\x7f\x80\xff\x01\x19"), 0x20) != 0);
    CHECK(high(load("abcdefgh")) == 0);
    CHECK(high(load("abcdefg\x80")) != 0);
}
