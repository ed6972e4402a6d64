#include "../src/codec/compact_json_reader.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <string>

namespace {

// Writes down each SAX event, as RapidJSON's reader would send them.
struct Recorder {
    std::string events;
    const char* text_begin = nullptr;
    const char* text_end = nullptr;
    bool strings_in_place = true;
    int refuse_after = -1;  // >= 0: the handler stops after that many events

    bool note(const std::string& e) {
        events += e + " ";
        return refuse_after < 0 || --refuse_after >= 0;
    }
    bool in_place(const char* s, unsigned n) { return s >= text_begin && s + n <= text_end; }

    bool Null() { return note("null"); }
    bool Bool(bool b) { return note(b ? "true" : "false"); }
    bool Int(int i) { return note("Int:" + std::to_string(i)); }
    bool Uint(unsigned u) { return note("Uint:" + std::to_string(u)); }
    bool Int64(std::int64_t i) { return note("Int64:" + std::to_string(i)); }
    bool Uint64(std::uint64_t u) { return note("Uint64:" + std::to_string(u)); }
    bool Double(double d) {
        char text[32];
        std::snprintf(text, sizeof text, "%.17g", d);
        return note(std::string("Double:") + text);
    }
    bool String(const char* s, unsigned n, bool copy) {
        strings_in_place = strings_in_place && in_place(s, n) && !copy;
        return note("s:" + std::string(s, n));
    }
    bool Key(const char* s, unsigned n, bool copy) {
        strings_in_place = strings_in_place && in_place(s, n) && !copy;
        return note("k:" + std::string(s, n));
    }
    bool StartObject() { return note("{"); }
    bool EndObject(unsigned members) { return note("}" + std::to_string(members)); }
    bool StartArray() { return note("["); }
    bool EndArray(unsigned elements) { return note("]" + std::to_string(elements)); }
};

template <std::size_t MaxDepth = 8>
miw::CompactRead read(const std::string& text, Recorder& r) {
    r.text_begin = text.data();
    r.text_end = text.data() + text.size();
    return miw::read_compact_json<MaxDepth>(text, r);
}

}  // namespace

TEST_CASE("compact JSON gives the events RapidJSON's reader would", "[compact_json_reader]") {
    struct Case {
        const char* name;
        std::string text;
        const char* events;
    };
    const Case cases[] = {
        {"an AdmissionReview's outline", R"({"kind":"AdmissionReview","request":{"uid":"u","dryRun":false,"options":null}})",
         "{ k:kind s:AdmissionReview k:request { k:uid s:u k:dryRun false k:options null }3 }2 "},
        {"arrays, nested and empty", R"([[],{},[1,[2]],"x"])", "[ [ ]0 { }0 [ Uint:1 [ Uint:2 ]1 ]2 s:x ]4 "},
        {"the empty string and DEL inside a string", "[\"\",\"a\x7f\"]", "[ s: s:a\x7f ]2 "},
        {"a scalar at the top", "true", "true "},
        {"spaces, tabs and line ends between tokens", " {\n\t\"a\" :\r [ 1 , 2 ] } ", "{ k:a [ Uint:1 Uint:2 ]2 }1 "},
        {"long strings, across eight-byte words", R"({"0123456789abcdef0123":"a long value, more than two words long"})",
         "{ k:0123456789abcdef0123 s:a long value, more than two words long }1 "},
        {"duplicate keys, both kept", R"({"a":1,"a":2})", "{ k:a Uint:1 k:a Uint:2 }2 "},
        {"zero", "[0,-0]", "[ Uint:0 Int:0 ]2 "},
        {"the largest 32-bit unsigned", "4294967295", "Uint:4294967295 "},
        {"one past it", "4294967296", "Uint64:4294967296 "},
        {"the largest 64-bit unsigned", "18446744073709551615", "Uint64:18446744073709551615 "},
        {"the smallest 32-bit signed", "-2147483648", "Int:-2147483648 "},
        {"one below it", "-2147483649", "Int64:-2147483649 "},
        {"the smallest 64-bit signed", "-9223372036854775808", "Int64:-9223372036854775808 "},
        // Any other number is a Double, the nearest to its text, as RapidJSON's
        // reader sends it (and where its fast conversion is one unit off, the nearest).
        {"a fraction", "[1.5,-0.0,0.1]", "[ Double:1.5 Double:-0 Double:0.10000000000000001 ]3 "},
        {"an exponent, either case and sign", "[1e3,2E-2,3e+1]", "[ Double:1000 Double:0.02 Double:30 ]3 "},
        {"past 64 bits", "18446744073709551616", "Double:1.8446744073709552e+19 "},
        {"below the smallest 64-bit signed", "-9223372036854775809", "Double:-9.2233720368547758e+18 "},
        {"55 digits, as the YAML reader writes them", "-7.777777777777777e+54", "Double:-7.7777777777777774e+54 "},
        {"many digits", "3.14159265358979323846264338327950288", "Double:3.1415926535897931 "},
        {"a long fraction", "[0." + std::string(62, '0') + "1]", "[ Double:1.0000000000000001e-63 ]1 "},
        {"the largest exponents taken", "[1e308,0e100,1e-307]", "[ Double:1e+308 Double:0 Double:9.9999999999999991e-308 ]3 "},
        {"an integer of 144 digits, as the YAML reader writes it", "-7.777777777777778e+143", "Double:-7.777777777777778e+143 "},
        {"a two-digit exponent", "[-1.5E+99,1e-99]", "[ Double:-1.5000000000000001e+99 Double:1e-99 ]2 "},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            Recorder r;
            REQUIRE(read(c.text, r) == miw::CompactRead::parsed);
            CHECK(r.events == c.events);
            CHECK(r.strings_in_place);
        }
    }
}

TEST_CASE("anything but compact JSON without escapes is left to RapidJSON", "[compact_json_reader]") {
    struct Case {
        const char* name;
        std::string text;
    };
    const Case cases[] = {
        {"a positive exponent past 308 (RapidJSON refuses some, as too big)", "[1e309]"},
        {"an integer part of 301 digits (the same)", "[1" + std::string(300, '0') + "]"},
        {"a number past a double's range (RapidJSON reads infinity)", "[2e308]"},
        {"a subnormal number", "[1e-310]"},
        {"a number below a double's range (RapidJSON reads zero)", "[1e-400]"},
        {"a fraction without digits", "[1.]"},
        {"a fraction without an integer part", "[.5]"},
        {"an exponent without digits", "[1e]"},
        {"an exponent with a sign and no digits", "[1e+]"},
        {"a leading zero", "[01]"},
        {"a lone minus", "[-]"},
        {"a plus sign", "[+1]"},
        {"a trailing comma in an array", "[1,]"},
        {"a trailing comma in an object", R"({"a":1,})"},
        {"a missing colon", R"({"a" 1})"},
        {"a missing value", R"({"a":})"},
        {"a key that is not a string", "{1:2}"},
        {"an unterminated string", R"(["abc)"},
        {"an unclosed array", "[1,2"},
        {"a mismatched close", "[1}"},
        {"a control character in a string", std::string("[\"a\x01\"]")},
        {"a tab in a string", "[\"a\tb\"]"},
        {"a NUL between tokens", std::string("[1,\0 2]", 7)},
        {"a misspelt literal", "[tru]"},
        {"a truncated literal", "nul"},
        {"text after the value", "{} {}"},
        {"two values at the top", "1 2"},
        {"nothing", ""},
        {"only spaces", "   "},
        {"a single quote string", "['a']"},
        {"an unknown escape", R"(["\x41"])"},
        {"a short unicode escape", R"(["\u00e"])"},
        {"a unicode escape that is not hex", R"(["\u00g9"])"},
        {"an escape at the end", "[\"a\\"},
        {"an escaped high surrogate (RapidJSON pairs them)", R"(["\ud83d\ude00"])"},
        {"an escaped low surrogate", R"(["\udc00"])"},
        {"an overlong encoding", "[\"\xc0\xaf\"]"},
        {"a lone continuation byte", "[\"\x80\"]"},
        {"a UTF-8 surrogate", "[\"\xed\xa0\x80\"]"},
        {"past U+10FFFF", "[\"\xf4\x90\x80\x80\"]"},
        {"a truncated sequence", "[\"\xe2\x82\"]"},
        {"a sequence cut by the end", "[\"\xe2\x82"},
        {"a byte beyond ASCII between tokens", "[1,\xc3\xa9]"},
        // The text ends, or holds a NUL, where the next token's character is
        // looked for (the reader reads the terminating NUL there).
        {"the end after an opening brace", "{"},
        {"the end after an opening bracket", "["},
        {"the end after a key", R"({"a")"},
        {"the end after a colon", R"({"a":)"},
        {"the end after a comma", "[1,"},
        {"the end after a member's value", R"({"a":1)"},
        {"a NUL where the colon goes", std::string("{\"a\"\0 1}", 8)},
        {"a NUL where the comma goes", std::string("[1\0 2]", 6)},
        {"a NUL after the value", std::string("{}\0", 3)},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            Recorder r;
            CHECK(read(c.text, r) == miw::CompactRead::declined);
        }
    }
}

TEST_CASE("escapes are decoded and UTF-8 is taken as RapidJSON takes them", "[compact_json_reader]") {
    struct Case {
        const char* name;
        std::string text;
        std::string events;
        bool in_place;
    };
    const Case cases[] = {
        {"kubectl's last-applied annotation", R"({"a":"{\"kind\":\"Pod\"}\n"})", "{ k:a s:{\"kind\":\"Pod\"}\n }1 ", false},
        {"Go's escapes of & < >", R"(["a\u0026b\u003cc\u003e"])", "[ s:a&b<c> ]1 ", false},
        {"every simple escape", R"(["\"\\\/\b\f\n\r\t"])", "[ s:\"\\/\b\f\n\r\t ]1 ", false},
        {"two- and three-byte escapes, upper and lower hex", R"(["\u00E9\u20ac"])", "[ s:\xc3\xa9\xe2\x82\xac ]1 ", false},
        {"an escaped NUL", R"(["a\u0000b"])", std::string("[ s:a\0b ]1 ", 11), false},
        {"an escape in a key", R"({"a\"b":1})", "{ k:a\"b Uint:1 }1 ", false},
        {"UTF-8 of every length, in place", "[\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"]", "[ s:caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 ]1 ", true},
        {"UTF-8 beside an escape", "[\"\xc3\xa9\\n\xc3\xa9\"]", "[ s:\xc3\xa9\n\xc3\xa9 ]1 ", false},
        {"the edges of the ranges", "[\"\xe0\xa0\x80\xed\x9f\xbf\xf0\x90\x80\x80\xf4\x8f\xbf\xbf\"]",
         "[ s:\xe0\xa0\x80\xed\x9f\xbf\xf0\x90\x80\x80\xf4\x8f\xbf\xbf ]1 ", true},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            Recorder r;
            REQUIRE(read(c.text, r) == miw::CompactRead::parsed);
            CHECK(r.events == c.events);
            CHECK(r.strings_in_place == c.in_place);
        }
    }
}

TEST_CASE("nesting deeper than the reader's stack is declined, not overflowed", "[compact_json_reader]") {
    Recorder ok, deep;
    CHECK(read<4>("[[[[1]]]]", ok) == miw::CompactRead::parsed);
    CHECK(read<4>("[[[[[1]]]]]", deep) == miw::CompactRead::declined);
    Recorder many;
    CHECK(read<1000>(std::string(200000, '['), many) == miw::CompactRead::declined);
}

TEST_CASE("a handler that stops ends the read", "[compact_json_reader]") {
    Recorder r;
    r.refuse_after = 2;
    CHECK(read(R"({"a":[1,2,3]})", r) == miw::CompactRead::declined);
    CHECK(r.events == "{ k:a [ ");
}

namespace {

// Skips the value of every member named "skip", as the review's builder skips
// the last-applied annotation: checked, reported as null, not read.
struct SkippingRecorder : Recorder {
    bool skip = false;
    bool Key(const char* s, unsigned n, bool copy) {
        skip = std::string_view(s, n) == "skip";
        return Recorder::Key(s, n, copy);
    }
    bool SkipValue() const { return skip; }
};

// The same document read with the string skipped and with it read: both
// readers must take or decline it alike, and agree on everything around it.
void check_skip_agrees(const std::string& inner) {
    const std::string text = R"({"skip":")" + inner + R"(","after":[1,"x"]})";
    Recorder read_whole;
    SkippingRecorder skipping;
    skipping.text_begin = text.data();
    skipping.text_end = text.data() + text.size();
    const auto whole = read(text, read_whole);
    const auto skipped = miw::read_compact_json<8>(text, skipping);
    INFO("string: " << inner);
    REQUIRE(skipped == whole);
    if (whole == miw::CompactRead::parsed) CHECK(skipping.events == "{ k:skip null k:after [ Uint:1 s:x ]2 }2 ");
}

}  // namespace

TEST_CASE("a skipped string is taken or declined exactly as the same string read", "[compact_json_reader]") {
    SECTION("an escape at every offset, across the 16-byte scan blocks") {
        for (const char* escape : {"\\\"", "\\\\", "\\/", "\\n", "\\u0041", "\\x", "\\ud83d", "\xc3\xa9", "\xff", "\x01", "\""}) {
            for (std::size_t offset = 0; offset < 140; ++offset) {
                check_skip_agrees(std::string(offset, 'a') + escape + std::string(80, 'b'));
                check_skip_agrees(std::string(offset, 'a') + escape);
            }
        }
    }
    SECTION("runs of backslashes ending at every offset") {
        for (std::size_t run = 1; run <= 6; ++run) {
            for (std::size_t offset = 50; offset < 140; ++offset) {
                check_skip_agrees(std::string(offset, 'a') + std::string(run, '\\') + "\"" + std::string(70, 'c'));
            }
        }
    }
    SECTION("after an escaped quote, anything at every offset across the 64-byte blocks") {
        // An escaped quote sets the reader on to whole 64-byte blocks, which
        // must hand back to the byte-by-byte loop at whatever they do not take.
        for (const char* thing : {"\\\"", "\\\\", "\\/", "\\n", "\\u0041", "\\x", "\\ud83d\\ude00", "\xc3\xa9", "\xff", "\x01", "\x7f", "\""}) {
            for (std::size_t offset = 0; offset < 200; ++offset) {
                check_skip_agrees("\\\"" + std::string(offset, 'a') + thing + std::string(150, 'b'));
                check_skip_agrees("x\\\"" + std::string(offset, 'a') + thing + "\\\"" + std::string(offset % 70, 'c'));
            }
        }
    }
    SECTION("after an escaped quote, runs of backslashes ending at every offset, across the blocks") {
        for (std::size_t run = 1; run <= 9; ++run) {
            for (std::size_t offset = 0; offset < 200; ++offset) {
                // The run escapes the quote after it when odd; an even run leaves it closing the string.
                check_skip_agrees("\\\"" + std::string(offset, 'a') + std::string(run, '\\') + "\"" + std::string(140, 'c'));
                check_skip_agrees("\\\"" + std::string(offset, 'a') + std::string(run, '\\') + "n" + std::string(140, 'c'));
            }
        }
    }
    SECTION("kubectl-like annotations made of random pieces") {
        const char* pieces[] = {"a", "bc", "\\\"", "\\\\", "\\/", "\\n", "\\t", "\\u0026", "\\u003c", "{", "}", ":", ",", " ",
                                "\xc3\xa9", "\xe2\x82\xac", "\\ud83d\\ude00", "\\q", "\x1f", "\xc0\xaf"};
        std::uint32_t state = 12345;
        const auto next = [&state] { return state = state * 1664525u + 1013904223u; };  // a fixed sequence
        for (int i = 0; i < 3000; ++i) {
            std::string inner;
            const std::size_t count = next() % 120;
            // Mostly the common pieces, now and then a rare one.
            for (std::size_t k = 0; k < count; ++k) inner += pieces[next() % 100 < 97 ? next() % 9 : 9 + next() % 11];
            check_skip_agrees(inner);
        }
    }
}

TEST_CASE("a skipped number is taken or declined as the same number read", "[compact_json_reader]") {
    const std::pair<const char*, miw::CompactRead> cases[] = {
        {"1.5", miw::CompactRead::parsed},
        {"-2e-3", miw::CompactRead::parsed},
        {"18446744073709551616", miw::CompactRead::parsed},
        {"1e400", miw::CompactRead::declined},
        {"1.", miw::CompactRead::declined},
        {"-", miw::CompactRead::declined},
    };
    for (const auto& [number, expected] : cases) {
        DYNAMIC_SECTION(number) {
            const std::string text = std::string(R"({"skip":[)") + number + R"(],"after":[)" + number + "]}";
            Recorder read_whole;
            SkippingRecorder skipping;
            CHECK(read(text, read_whole) == expected);
            CHECK(miw::read_compact_json<8>(text, skipping) == expected);
            if (expected == miw::CompactRead::parsed) CHECK_THAT(skipping.events, Catch::StartsWith("{ k:skip null k:after [ Double:"));
        }
    }
}

namespace {

// A value shaped as metadata.managedFields is: objects keyed "f:name",
// "k:{\"name\":\"x\"}" and ".", mostly empty; arrays of strings and objects;
// now and then a number, a literal or a space, which the 64-byte blocks
// leave to the byte-by-byte loop.
struct FieldsGenerator {
    std::uint32_t state = 2024;
    std::uint32_t next() { return state = state * 1664525u + 1013904223u; }  // a fixed sequence

    std::string string() {
        const char* pieces[] = {"f:name", "k:{\\\"name\\\":\\\"model\\\"}", ".", "", "v:\\\\", "x"};
        return std::string("\"") + pieces[next() % 6] + "\"";
    }
    std::string value(int depth) {
        const std::uint32_t kind = next() % 100;
        if (depth >= 6 || kind < 35) {
            if (kind < 2) return "12";
            if (kind < 3) return "true";
            return next() % 3 == 0 ? "{}" : string();
        }
        const bool object = kind < 80;
        std::string out(1, object ? '{' : '[');
        const std::uint32_t count = next() % 4;
        for (std::uint32_t i = 0; i < count; ++i) {
            if (i != 0) out += next() % 200 == 0 ? ", " : ",";
            if (object) out += string() + ":";
            out += value(depth + 1);
        }
        return out + (object ? '}' : ']');
    }
};

// The same document read with the value skipped and with it read, with room
// after the value for whole 64-byte blocks and without.
void check_skipped_value_agrees(const std::string& value) {
    for (const std::string& rest : {std::string(R"(,"after":[1,"x"]})"), R"(,"after":[1,"x"],"pad":")" + std::string(90, 'p') + "\"}"}) {
        const std::string text = R"({"skip":)" + value + rest;
        Recorder read_whole;
        SkippingRecorder skipping;
        const auto whole = read(text, read_whole);
        const auto skipped = miw::read_compact_json<8>(text, skipping);
        INFO("document: " << text);
        REQUIRE(skipped == whole);
        if (whole == miw::CompactRead::parsed) CHECK_THAT(skipping.events, Catch::StartsWith("{ k:skip null k:after [ Uint:1 s:x ]2 "));
    }
}

}  // namespace

TEST_CASE("a skipped object or array is taken or declined exactly as the same value read", "[compact_json_reader]") {
    FieldsGenerator generate;
    SECTION("values shaped as managedFields, nested up to and past the reader's depth") {
        for (int i = 0; i < 400; ++i) check_skipped_value_agrees(generate.value(static_cast<int>(generate.next() % 4)));
    }
    SECTION("each of them with a byte taken out, put in or changed at every offset") {
        const char* bytes[] = {"{", "}", "[", "]", ":", ",", "\"", "\\", "a", " ", "1"};
        for (int i = 0; i < 60; ++i) {
            const std::string value = generate.value(0);
            for (std::size_t at = 0; at < value.size(); ++at) {
                check_skipped_value_agrees(value.substr(0, at) + value.substr(at + 1));
                const char* byte = bytes[generate.next() % 11];
                check_skipped_value_agrees(value.substr(0, at) + byte + value.substr(at));
                check_skipped_value_agrees(value.substr(0, at) + byte + value.substr(at + 1));
            }
        }
    }
}
