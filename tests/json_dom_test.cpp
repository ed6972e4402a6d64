// The codec's DOM: parsed in place, depth-limited, and read the way Go reads JSON.
#include "../src/codec/json_dom.hpp"

#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace miw;
using namespace miw::json;

TEST_CASE("documents parse in place with either reader, or say why not", "[json_dom]") {
    struct Case {
        const char* name;
        std::string text;
        std::string error;  // a fragment; empty when it parses
    };
    const std::vector<Case> cases = {
        {"compact", R"({"a":[1,2,{"b":"c"}]})", ""},
        {"pretty", "{\n  \"a\": [1, 2]\n}\n", ""},
        {"escapes", R"({"a":"x\"y\u0026z"})", ""},
        {"non-ASCII", "{\"a\":\"\xc3\xa9\"}", ""},
        {"truncated", R"({"a":)", "not valid JSON"},
        {"trailing garbage", R"({"a":1}x)", "not valid JSON"},
        {"invalid UTF-8", "{\"a\":\"\xff\"}", "not valid JSON"},
        {"a NUL inside", std::string("{\"a\":1}\0{}", 10), "a NUL byte at byte 7"},
        {"nested past the limit", std::string(kMaxJsonDepth + 1, '[') + std::string(kMaxJsonDepth + 1, ']'), "deeper than 1000 levels"},
        {"nested to the limit", std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']'), ""},
        {"an escaped surrogate pair", R"({"a":"\ud83d\ude00"})", ""},
        {"an escaped high surrogate alone", R"({"a":"\ud83dx"})", "The surrogate pair in string is invalid."},
        {"an escaped low surrogate alone", R"({"a":"x\udc00"})", "The surrogate pair in string is invalid. (at byte 7)"},
        {"an escaped low surrogate in a key", R"({"k\uDDDD":1})", "The surrogate pair in string is invalid. (at byte 3)"},
        {"a low surrogate after a pair", R"({"a":"\ud83d\ude00\ude00"})", "The surrogate pair in string is invalid. (at byte 18)"},
        {"a low surrogate after an escaped backslash", R"({"a":"\\\udc00"})", "The surrogate pair in string is invalid. (at byte 8)"},
        {"an escaped backslash, then the text of an escape", R"({"a":"\\udc00"})", ""},
        {"an exponent past 308", "[1e400]", "Number too big to be stored in double. (at byte 1)"},
        {"digits and an exponent under 308 that together pass the largest double", R"({"a":77777777037700E0000300})",
         "Number too big to be stored in double. (at byte 5)"},
        {"the same, negative", "[-77777777037700E300]", "Number too big to be stored in double. (at byte 1)"},
        {"the largest double", "[1.7976931348623157e308]", ""},
        {"digits and an exponent that together stay under the largest double", "[17976931348623E294]", ""},
    };
    for (const auto& c : cases) {
        for (JsonReader reader : {JsonReader::compact_first, JsonReader::rapidjson_only}) {
            DYNAMIC_SECTION(c.name << (reader == JsonReader::compact_first ? " (compact first)" : " (RapidJSON only)")) {
                std::string text = c.text;
                Document doc;
                const std::string error = parse_document(text, doc, reader);
                if (c.error.empty()) CHECK(error.empty());
                else CHECK_THAT(error, Catch::Contains(c.error));
                CHECK(text.size() == c.text.size());  // the slack is given back
            }
        }
    }
}

TEST_CASE("both readers build the same document from escapes and UTF-8", "[json_dom]") {
    const std::vector<std::string> texts = {
        R"({"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"annotations\":{\"a\":\"x \u0026 y\"}}}\n"}}})",
        R"({"k\u00e9y":"\u003cb\u003e\t\/\b\f\r\u0000\u20AC"})",
        "{\"caf\xc3\xa9\":[\"\xf0\x9f\x98\x80\\\"\xe2\x82\xac\"]}",
    };
    for (const auto& text : texts) {
        INFO(text);
        std::string a = text, b = text;
        Document compact, reference;
        REQUIRE(parse_document(a, compact, JsonReader::compact_first).empty());
        REQUIRE(parse_document(b, reference, JsonReader::rapidjson_only).empty());
        CHECK(serialize(compact) == serialize(reference));
    }
}

TEST_CASE("numbers are read as the nearest double, and what is written reads back the same", "[json_dom]") {
    // What the YAML reader writes for an integer past 64 bits, or a float, must
    // come back the same from a write and a read (test --show-patched, patches
    // applied offline). The compact reader converts numbers itself; RapidJSON's
    // fast conversion, which reads what the compact reader declines, is one
    // unit in the last place off for some of them. strtod rounds to nearest.
    const std::vector<std::pair<const char*, std::string>> cases = {
        {"a 55-digit negative integer, as a float", "-7.777777777777777e+54"},
        {"2^64, one past the largest unsigned integer", "18446744073709551616"},
        {"a twenty-digit integer", "77777777777777777777"},
        {"one tenth", "0.1"},
        {"an exponent past 22", "6.02214076e23"},
        {"many digits", "3.14159265358979323846264338327950288419716939937510"},
    };
    for (const auto& [name, number] : cases) {
        DYNAMIC_SECTION(name) {
            std::string text = "[" + number + "]";
            Document doc;
            REQUIRE(parse_document(text, doc).empty());
            REQUIRE(doc[0].IsDouble());
            const double nearest = std::strtod(number.c_str(), nullptr);
            const double read = doc[0].GetDouble();
            CHECK(std::memcmp(&nearest, &read, sizeof nearest) == 0);
            const std::string once = serialize(doc);
            std::string again = once;
            Document back;
            REQUIRE(parse_document(again, back).empty());
            CHECK(serialize(back) == once);
        }
    }
}

TEST_CASE("what no rule reads is checked but not kept", "[json_dom]") {
    const std::string review = R"({"request":{"uid":"u","object":{"metadata":{"name":"p","managedFields":[{"manager":"kubectl","fieldsV1":{"f:spec":{"f:containers":{}}}}],"annotations":{"a":"kept","kubectl.kubernetes.io/last-applied-configuration":"{\"kind\":\"Pod\"}\n"}},"spec":{"managedFields":"kept: not under metadata"}}}})";
    std::string text = review;
    Document doc;
    REQUIRE(parse_document(text, doc, JsonReader::compact_first, UnreadValues::skipped).empty());
    const std::string out = serialize(doc);
    CHECK_THAT(out, Catch::Contains(R"("managedFields":null)"));
    CHECK_THAT(out, Catch::Contains(R"("kubectl.kubernetes.io/last-applied-configuration":null)"));
    CHECK_THAT(out, Catch::Contains(R"("a":"kept")"));
    CHECK_THAT(out, Catch::Contains(R"("spec":{"managedFields":"kept: not under metadata"})"));
    CHECK_THAT(out, Catch::Contains(R"("name":"p")"));

    text = review;
    Document whole;
    REQUIRE(parse_document(text, whole, JsonReader::compact_first, UnreadValues::kept).empty());
    CHECK_THAT(serialize(whole), Catch::Contains(R"("manager":"kubectl")"));

    SECTION("a skipped value that is not valid JSON still makes the body invalid") {
        for (std::string bad : {std::string(R"({"metadata":{"managedFields":[1,}}})"), std::string("{\"metadata\":{\"annotations\":{\"kubectl.kubernetes.io/last-applied-configuration\":\"\xff\"}}}"),
                                std::string(R"({"metadata":{"managedFields":"\q"}})")}) {
            INFO(bad);
            Document d;
            CHECK_THAT(parse_document(bad, d, JsonReader::compact_first, UnreadValues::skipped), Catch::Contains("not valid JSON"));
        }
    }
    SECTION("a skipped value nested past the limit is refused as deep") {
        std::string deep = R"({"metadata":{"managedFields":)" + std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']') + "}}";
        Document d;
        CHECK_THAT(parse_document(deep, d, JsonReader::compact_first, UnreadValues::skipped), Catch::Contains("deeper than 1000 levels"));
    }
}

TEST_CASE("members are found as Go's decoder finds them", "[json_dom]") {
    std::string text = R"({"a":1,"b":"x","a":2,"":3,"list":[],"obj":{},"n":null,"t":true})";
    Document doc;
    REQUIRE(parse_document(text, doc).empty());
    CHECK(member(&doc, "a")->GetInt() == 2);  // the last of duplicate keys
    CHECK(member(&doc, "")->GetInt() == 3);
    CHECK(member(&doc, "missing") == nullptr);
    CHECK(member(member(&doc, "b"), "x") == nullptr);  // a string has no members
    CHECK(member(nullptr, "a") == nullptr);
    CHECK(type_of(member(&doc, "missing")) == JsonType::absent);
    CHECK(type_of(member(&doc, "n")) == JsonType::null);
    CHECK(type_of(member(&doc, "t")) == JsonType::boolean);
    CHECK(type_of(member(&doc, "a")) == JsonType::number);
    CHECK(type_of(member(&doc, "b")) == JsonType::string);
    CHECK(type_of(member(&doc, "list")) == JsonType::array);
    CHECK(type_of(member(&doc, "obj")) == JsonType::object);
    CHECK(view(*member(&doc, "b")) == "x");
    CHECK(string_member(&doc, "b") == "x");
    CHECK(string_member(&doc, "a").empty());
    CHECK(serialize(*member(&doc, "obj")) == "{}");
}

TEST_CASE("control characters are written escaped wherever they fall in a string", "[json_dom]") {
    // RapidJSON's StringBuffer writer scans 16 bytes at a time and lets 0x1A to
    // 0x1F through raw; every one of the 32, in short and long strings and keys,
    // must come out escaped and read back as it was.
    for (int c = 0; c < 0x20; ++c) {
        char escape[8];
        std::snprintf(escape, sizeof escape, "\\u%04X", c);
        for (std::size_t before : {0u, 3u, 17u, 40u}) {
            DYNAMIC_SECTION("0x" << std::hex << c << std::dec << " after " << before << " bytes") {
                const std::string padded = std::string(before, 'a') + escape + std::string(20, 'b');
                std::string json = "{\"" + padded + "\":\"" + padded + "\"}";
                Document doc;
                REQUIRE(parse_document(json, doc, JsonReader::rapidjson_only).empty());
                const std::string written = serialize(doc);
                for (char w : written) CHECK(static_cast<unsigned char>(w) >= 0x20);
                std::string again = written;
                Document back;
                REQUIRE(parse_document(again, back).empty());
                CHECK(serialize(back) == written);
                REQUIRE(back.IsObject());
                REQUIRE(back.MemberCount() == 1);
                CHECK(std::string(back.MemberBegin()->name.GetString(), back.MemberBegin()->name.GetStringLength()) ==
                      std::string(before, 'a') + static_cast<char>(c) + std::string(20, 'b'));
            }
        }
    }
}
