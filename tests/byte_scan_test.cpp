#include "../src/core/byte_scan.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

using namespace miw::byte_scan;

namespace {

// The first quote, backslash or control character, as the JSON writer looks for it.
const char* first_to_escape(const std::string& text) {
    return escape_stop(text.data(), text.data() + text.size());
}

bool must_escape(unsigned char c) { return c == '"' || c == '\\' || c < 0x20; }
bool ends_plain_run(unsigned char c) { return must_escape(c) || c >= 0x80; }

}  // namespace

TEST_CASE("both string scans agree with a byte-by-byte test for every byte value at every offset", "[byte_scan]") {
    // Lengths around the 16-byte SSE2 blocks and the 8-byte words behind them.
    for (std::size_t length : {1u, 7u, 8u, 15u, 16u, 17u, 24u, 31u, 32u, 33u, 47u}) {
        for (unsigned value = 0; value < 256; ++value) {
            for (std::size_t at = 0; at < length; ++at) {
                std::string text(length, 'a');
                text[at] = static_cast<char>(value);
                const char* const begin = text.data();
                const char* const end = begin + text.size();
                INFO("length " << length << ", byte " << value << " at " << at);
                CHECK(static_cast<std::size_t>(escape_stop(begin, end) - begin) == (must_escape(static_cast<unsigned char>(value)) ? at : length));
                CHECK(static_cast<std::size_t>(string_stop(begin, end) - begin) == (ends_plain_run(static_cast<unsigned char>(value)) ? at : length));
            }
        }
    }
}

// Every byte value at every offset of texts of each length, in a text of
// `fill` otherwise: scan (begin, end) must stop where stops (byte) says.
template <class Scan, class Stops>
void check_scan_at_every_offset(std::initializer_list<std::size_t> lengths, char fill, Scan scan, Stops stops) {
    for (std::size_t length : lengths) {
        for (unsigned value = 0; value < 256; ++value) {
            for (std::size_t at = 0; at < std::max<std::size_t>(length, 1); ++at) {
                std::string text(length, fill);
                if (length > 0) text[at] = static_cast<char>(value);
                const char* const begin = text.data();
                const bool stopped = length > 0 && stops(static_cast<unsigned char>(value));
                INFO("length " << length << ", byte " << value << " at " << at);
                CHECK(static_cast<std::size_t>(scan(begin, begin + text.size()) - begin) == (stopped ? at : length));
            }
        }
    }
}

TEST_CASE("the reference scans agree with a byte-by-byte test for every byte value at every offset", "[byte_scan]") {
    const std::initializer_list<std::size_t> lengths = {0, 1, 15, 16, 17, 32, 40};
    check_scan_at_every_offset(lengths, 'a', &find_any_of<'*', '?', '[', ']', '{', '}'>,
                               [](unsigned char c) { return c == '*' || c == '?' || c == '[' || c == ']' || c == '{' || c == '}'; });
    check_scan_at_every_offset(lengths, 'a', &find_outside<0x21, 0x7e>, [](unsigned char c) { return c < 0x21 || c > 0x7e; });
}

TEST_CASE("the digest scans agree with a byte-by-byte test for every byte value at every offset", "[byte_scan]") {
    const std::initializer_list<std::size_t> lengths = {0, 1, 15, 16, 17, 64, 70, 128};
    const auto lower_hex = [](unsigned char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); };
    check_scan_at_every_offset(lengths, '7', &find_non_hex<true>, [&](unsigned char c) { return !lower_hex(c); });
    check_scan_at_every_offset(lengths, '7', &find_non_hex<false>, [&](unsigned char c) { return !lower_hex(c) && !(c >= 'A' && c <= 'F'); });
}

TEST_CASE("the string scans stop at the first of two stops, in one block or across blocks", "[byte_scan]") {
    struct Case {
        const char* name;
        std::string text;
        std::size_t escape_at;
        std::size_t plain_at;
    };
    const Case cases[] = {
        {"a byte beyond ASCII before a quote in one block", "abc\xc3\xa9" "def\"", 8, 3},
        {"a quote in the second block after a clean first", std::string(16, 'x') + "yy\"" + std::string(20, 'z'), 18, 18},
        {"a control character in the tail after two clean blocks", std::string(32, 'x') + "ab\x1f", 34, 34},
        {"DEL is plain in both", std::string(20, '\x7f') + "\\", 20, 20},
        {"nothing to stop at", std::string(40, 'q'), 40, 40},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            const char* const begin = c.text.data();
            const char* const end = begin + c.text.size();
            CHECK(static_cast<std::size_t>(escape_stop(begin, end) - begin) == c.escape_at);
            CHECK(static_cast<std::size_t>(string_stop(begin, end) - begin) == c.plain_at);
        }
    }
}

namespace {

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
