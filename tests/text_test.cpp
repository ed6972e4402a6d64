#include "model_image_webhook/text.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

TEST_CASE("characters are named so that a user can find them", "[text]") {
    struct Case {
        const char* name;
        std::string text;
        std::size_t offset;
        const char* expected;
    };
    const Case cases[] = {
        {"cyrillic a", "a\xd0\xb0", 1, "U+0430"},
        {"space", "a b", 1, "U+0020 (space)"},
        {"tab", "\t", 0, "U+0009 (tab)"},
        {"NUL", std::string("\0", 1), 0, "U+0000 (NUL)"},
        {"stray continuation byte", "\x80", 0, "byte 0x80"},
        {"truncated sequence", "\xe2\x82", 0, "byte 0xE2"},
        {"overlong lead byte", "\xc0\xaf", 0, "byte 0xC0"},
        {"emoji", "\xf0\x9f\x90\xb3", 0, "U+1F433"},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) { CHECK(miw::describe_byte_at(c.text, c.offset) == c.expected); }
    }
}

TEST_CASE("the code point at an offset is read from its UTF-8 sequence, or not at all", "[text]") {
    struct Case {
        const char* name;
        std::string text;
        std::size_t offset;
        unsigned value;
        std::size_t length;
    };
    const std::vector<Case> cases = {
        {"ASCII", "a=b", 1, '=', 1},
        {"a C1 control in two bytes", "x\xc2\x85y", 1, 0x85, 2},
        {"the line separator in three bytes", "\xe2\x80\xa8", 0, 0x2028, 3},
        {"a non-character in three bytes", "q\xef\xbf\xbe", 1, 0xFFFE, 3},
        {"an emoji in four bytes", "\xf0\x9f\x98\x80", 0, 0x1F600, 4},
        {"a continuation byte", "\xc2\x85", 1, 0, 0},
        {"a sequence cut short", "\xe2\x80", 0, 0, 0},
        {"a byte that starts no sequence", "\xff", 0, 0, 0},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            const miw::CodePoint at = miw::code_point_at(c.text, c.offset);
            CHECK(at.value == c.value);
            CHECK(at.length == c.length);
        }
    }
}

TEST_CASE("prefixes never cut a UTF-8 sequence", "[text]") {
    CHECK(miw::utf8_prefix("abc", 10) == "abc");
    CHECK(miw::utf8_prefix("abc", 2) == "ab");
    CHECK(miw::utf8_prefix("a\xd0\xb0z", 2) == "a");
    CHECK(miw::utf8_prefix("a\xd0\xb0z", 3) == "a\xd0\xb0");
    CHECK(miw::utf8_prefix("\xf0\x9f\x90\xb3", 3).empty());
}

TEST_CASE("a container is named in quotes, its name cut to the 63 bytes a valid one has", "[text]") {
    CHECK(miw::container_named("vllm") == "container \"vllm\"");
    CHECK(miw::container_named(std::string(63, 'c')) == "container \"" + std::string(63, 'c') + "\"");
    CHECK(miw::container_named(std::string(5000, 'c')) == "container \"" + std::string(63, 'c') + "\"");
    CHECK(miw::container_named(std::string(62, 'c') + "\xd0\xb0") == "container \"" + std::string(62, 'c') + "\"");
}

TEST_CASE("values are quoted as Go's %q would, and long ones are cut", "[text]") {
    CHECK(miw::quote_value("repo:tag") == "\"repo:tag\"");
    CHECK(miw::quote_value("a\"b\\c") == "\"a\\\"b\\\\c\"");
    CHECK(miw::quote_value("a\nb\x01") == "\"a\\nb\\x01\"");
    CHECK(miw::quote_value("\xff") == "\"\\xff\"");
    CHECK(miw::quote_value("caf\xc3\xa9") == "\"caf\xc3\xa9\"");
    const std::string long_value(5000, 'x');
    const std::string quoted = miw::quote_value(long_value, 128);
    CHECK(quoted == "\"" + std::string(128, 'x') + "\"... (5000 bytes)");
}

TEST_CASE("warning lines lose control characters and stay short", "[text]") {
    CHECK(miw::printable_line("a\nb\tc\x7f", 100) == "a b c ");
    CHECK(miw::printable_line(std::string(300, 'w'), 256).size() == 256);
}

TEST_CASE("a warning reaches the user as the apiserver passes it: printable, and cut rather than dropped", "[text]") {
    struct Case {
        const char* name;
        std::string text;
        std::string line;
    };
    const std::string c1_control = "a\xc2\x85z";  // U+0085, NEXT LINE
    const std::vector<Case> cases = {
        {"short and printable", "container \"vllm\": a shell string", "container \"vllm\": a shell string"},
        {"control characters", "line\nbreak\tand\x01\x7f", "line break and  "},
        {"a C1 control", c1_control, "a z"},
        {"other non-ASCII kept", "caf\xc3\xa9 \xe2\x80\x94 ok", "caf\xc3\xa9 \xe2\x80\x94 ok"},
        {"exactly 256 bytes", std::string(256, 'w'), std::string(256, 'w')},
        {"257 bytes", std::string(257, 'w'), std::string(253, 'w') + "..."},
        {"a cut that would split a character", std::string(252, 'w') + "\xc3\xa9\xc3\xa9\xc3\xa9", std::string(252, 'w') + "..."},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            const std::string line = miw::warning_line(c.text);
            CHECK(line == c.line);
            CHECK(line.size() <= miw::kMaxWarningBytes);
        }
    }
}

TEST_CASE("percent-encoding keeps the unreserved characters and those asked for", "[text]") {
    CHECK(miw::percent_encode("abcXYZ019-._~") == "abcXYZ019-._~");
    CHECK(miw::percent_encode("eyJ2Ijoi+/=") == "eyJ2Ijoi%2B%2F%3D");  // a continue token
    CHECK(miw::percent_encode("dir/a b.yaml", "/") == "dir/a%20b.yaml");
    CHECK(miw::percent_encode("caf\xc3\xa9") == "caf%C3%A9");
    CHECK(miw::percent_encode("") == "");
}

TEST_CASE("lists are joined with a separator", "[text]") {
    const std::string_view items[] = {"huggingFace", "image"};
    CHECK(miw::join(items, 2, ", ") == "huggingFace, image");
    CHECK(miw::join(items, 0, ", ").empty());
}

TEST_CASE("base64 as RFC 4648 writes it", "[text]") {
    const std::pair<std::string, std::string> cases[] = {
        {"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"}, {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"},
        {std::string("\xff\xfe\0", 3), "//4A"},
        // Every byte value, as Python's base64.b64encode(bytes(range(256))) writes it.
        {[] { std::string s; for (int c = 0; c < 256; ++c) s += static_cast<char>(c); return s; }(),
         "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4OTo7PD0+P0BBQkNERUZHSElKS0xNTk9QUVJTVFVWV1hZWltcXV5fYGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6e3x9fn+AgYKDhIWGh4iJiouMjY6PkJGSk5SVlpeYmZqbnJ2en6ChoqOkpaanqKmqq6ytrq+wsbKztLW2t7i5uru8vb6/wMHCw8TFxsfIycrLzM3Oz9DR0tPU1dbX2Nna29zd3t/g4eLj5OXm5+jp6uvs7e7v8PHy8/T19vf4+fr7/P3+/w=="},
    };
    for (const auto& [in, out] : cases) {
        DYNAMIC_SECTION("\"" << out.substr(0, 16) << "\"") {
            CHECK(miw::base64_encode(in) == out);
            REQUIRE(miw::base64_length(in.size()) == out.size());
            std::string into(out.size(), '?');
            miw::base64_encode_into(in, into.data());
            CHECK(into == out);
        }
    }
}

TEST_CASE("base64 of every length and position matches a bit-by-bit encoding", "[text]") {
    // Long inputs are encoded 12 bytes at a time where the CPU allows: each
    // length from 0 to 100, from each of 3 offsets, against the alphabet
    // applied 6 bits at a time.
    const auto reference = [](std::string_view in) {
        constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        std::string out;
        std::size_t bits = 0, count = 0;
        for (unsigned char c : in) {
            bits = (bits << 8) | c;
            count += 8;
            while (count >= 6) out += kAlphabet[(bits >> (count -= 6)) & 63];
        }
        if (count > 0) out += kAlphabet[(bits << (6 - count)) & 63];
        while (out.size() % 4 != 0) out += '=';
        return out;
    };
    std::string bytes;
    std::uint32_t state = 2463534242u;  // xorshift: every byte value, in no order an encoder could favour
    for (int i = 0; i < 103; ++i) {
        state ^= state << 13, state ^= state >> 17, state ^= state << 5;
        bytes += static_cast<char>(state >> 24);
    }
    for (std::size_t offset = 0; offset < 3; ++offset) {
        for (std::size_t length = 0; length <= 100; ++length) {
            const std::string_view in = std::string_view(bytes).substr(offset, length);
            std::string into(miw::base64_length(length), '?');
            miw::base64_encode_into(in, into.data());
            INFO("offset " << offset << ", length " << length);
            REQUIRE(into == reference(in));
        }
    }
}

TEST_CASE("printable ASCII is told from text with a control character or a byte of 0x80 or more", "[text]") {
    struct Case {
        std::string name;
        std::string text;
        bool printable;
    };
    const std::string long_text(1000, 'a');
    const auto with_byte_at = [&](std::size_t at, char byte) {
        std::string s = long_text;
        s[at] = byte;
        return s;
    };
    const std::vector<Case> cases = {
        {"empty", "", true},
        {"short JSON", "{\"a\":1}", true},
        {"every printable byte and DEL", [] { std::string s; for (int c = 0x20; c < 0x80; ++c) s += static_cast<char>(c); return s; }(), true},
        {"long text", long_text, true},
        {"a UTF-8 letter", "caf\xc3\xa9", false},
        {"0x80 at the start of a long text", with_byte_at(0, '\x80'), false},
        {"0xFF in the middle of a long text", with_byte_at(500, '\xff'), false},
        {"0x80 as the last byte after a whole block", std::string(32, 'a') + "\x80", false},
        {"0x80 as the last byte of a block", std::string(31, 'a') + "\x80", false},
        {"a newline in a short text", "{\n}", false},
        {"NUL in a long text", with_byte_at(700, '\0'), false},
        {"0x1F in the second word", with_byte_at(9, '\x1f'), false},
        {"0x20 and 0x7F at word edges", with_byte_at(7, ' ') + "\x7f", true},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) { CHECK(miw::is_printable_ascii(c.text) == c.printable); }
    }
    // One section, not one each: Catch2 runs the test case again for every
    // section, and a thousand sections took half a minute.
    SECTION("every control character, at every offset of a 32-byte block") {
        for (int c = 0; c < 0x20; ++c) {
            for (std::size_t at = 0; at < 32; ++at) {
                INFO("control 0x" << std::hex << c << std::dec << " at " << at);
                CHECK_FALSE(miw::is_printable_ascii(with_byte_at(at, static_cast<char>(c))));
            }
        }
    }
}


TEST_CASE("a comma-separated flag value's items, trimmed, the empty ones dropped", "[text]") {
    struct Case {
        const char* text;
        std::vector<std::string_view> items;
    };
    const Case cases[] = {
        {"", {}},
        {"a", {"a"}},
        {"a,b", {"a", "b"}},
        {" a , b ,", {"a", "b"}},
        {",,a,,", {"a"}},
        {"group:ops, user:x", {"group:ops", "user:x"}},
    };
    for (const Case& c : cases) {
        INFO(c.text);
        CHECK(miw::comma_separated(c.text) == c.items);
    }
}

TEST_CASE("bytes are written as lowercase hex", "[text]") {
    CHECK(miw::hex_encode("") == "");
    CHECK(miw::hex_encode(std::string("\x00\x0f\xab\xff", 4)) == "000fabff");
}

TEST_CASE("hex digits are read as bytes, or not at all", "[text]") {
    CHECK(miw::hex_decode("000fABff") == std::string("\x00\x0f\xab\xff", 4));
    CHECK(miw::hex_decode("") == std::string());
    CHECK_FALSE(miw::hex_decode("abc"));
    CHECK_FALSE(miw::hex_decode("zz"));
    CHECK_FALSE(miw::hex_decode("0x"));
}
