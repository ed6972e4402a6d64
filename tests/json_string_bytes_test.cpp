// The bytes of JSON strings: UTF-8 sequences as RFC 3629 allows them, escapes
// as RapidJSON takes them, code points written back.
#include "../src/codec/json_string_bytes.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace miw::compact_json;

TEST_CASE("a UTF-8 sequence is as long as it is well formed, else 0", "[json_string_bytes]") {
    struct Case {
        const char* name;
        std::string bytes;
        std::size_t length;
    };
    const std::vector<Case> cases = {
        {"two bytes", "\xc3\xa9", 2},          {"three bytes", "\xe2\x82\xac", 3},      {"four bytes", "\xf0\x9f\x98\x80", 4},
        {"overlong", "\xc0\xaf", 0},           {"a surrogate", "\xed\xa0\x80", 0},      {"past U+10FFFF", "\xf4\x90\x80\x80", 0},
        {"cut short", "\xe2\x82", 0},          {"a lone continuation", "\x80", 0},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) { CHECK(utf8_sequence(c.bytes.data(), c.bytes.data() + c.bytes.size()) == c.length); }
    }
}

TEST_CASE("escapes are read for their length and code point", "[json_string_bytes]") {
    struct Case {
        const char* name;
        std::string text;
        std::size_t length;
        unsigned cp;
    };
    const std::vector<Case> cases = {
        {"a quote", "\\\"", 2, '"'},          {"a newline", "\\n", 2, '\n'},      {"a \\u escape", "\\u00e9", 6, 0xe9},
        {"an unknown escape", "\\x", 0, 0},   {"short hex", "\\u00e", 0, 0},      {"a surrogate half", "\\ud83d", 0, 0},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            unsigned cp = 0;
            CHECK(read_escape(c.text.data(), c.text.data() + c.text.size(), cp) == c.length);
            if (c.length != 0) CHECK(cp == c.cp);
        }
    }
    CHECK(hex4("00Ff") == 0xff);
    CHECK(hex4("12g4") == -1);
}

TEST_CASE("a code point is written back as the UTF-8 it was", "[json_string_bytes]") {
    std::string out;
    append_utf8(out, 'A');
    append_utf8(out, 0xe9);
    append_utf8(out, 0x20ac);
    CHECK(out == "A\xc3\xa9\xe2\x82\xac");
}
