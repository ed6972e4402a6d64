#include "../src/codec/json_skip_blocks.hpp"

#include <catch2/catch.hpp>

#include <array>
#include <string>

#if defined(__SSE2__)
namespace {

// The value at the start of text, skipped with room for `room` open
// containers: where it stopped (0: not taken, p left where it was).
std::size_t skipped_length(const std::string& text, std::size_t room = 32) {
    std::array<bool, 64> object_at{};
    const char* p = text.data();
    if (!miw::compact_json::skip_container_blocks(p, text.data() + text.size(), room, object_at.data())) {
        REQUIRE(p == text.data());
        return 0;
    }
    return static_cast<std::size_t>(p - text.data());
}

// What follows a skipped member's value in an object, long enough that the
// value's last block is whole.
const std::string kRest = R"(,"spec":{"containers":[{"name":"vllm","image":"vllm/vllm-openai@sha256:0123456789abcdef"}]}})";

}  // namespace

TEST_CASE("a value of objects, arrays and strings is taken whole, to its last byte", "[json_skip_blocks]") {
    struct Case {
        const char* name;
        std::string value;
    };
    const std::string long_key(70, 'k');
    const Case cases[] = {
        {"an empty object", "{}"},
        {"an empty array", "[]"},
        {"managedFields as the apiserver writes them",
         R"([{"manager":"kubectl-client-side-apply","operation":"Update","apiVersion":"v1","time":"2026-11-30T10:00:00Z",)"
         R"("fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":)"
         R"({"k:{\"name\":\"vllm\"}":{".":{},"f:args":{},"f:env":{"k:{\"name\":\"HF_HOME\"}":{".":{},"f:name":{}}}}}}}}])"},
        {"arrays of arrays and empty containers", R"([[],[[]],["a"],{"k":[]},[{}],{"":""}])"},
        {"strings ending in escaped backslashes", R"({"a\\":"b\\\\","c\"\\\"":["\\"]})"},
        {"a key running across a block's end", "{\"" + long_key + "\\\"" + long_key + "\":{\"x\":[\"\\\\\",\"y\"]}}"},
        {"an empty object across a block's end", "{\"" + std::string(59, 'k') + "\":{}}"},
        {"a value that closes on a block's last byte", "{\"" + std::string(58, 'k') + "\":\"v\"}"},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) { CHECK(skipped_length(c.value + kRest) == c.value.size()); }
    }
    SECTION("a key of every length up to three blocks, then an escaped quote and an empty object") {
        for (std::size_t n = 0; n < 200; ++n) {
            const std::string value = "{\"a\":[\"" + std::string(n, 'x') + "\\\"\",{}],\"b\":{}}";
            INFO("length " << n);
            CHECK(skipped_length(value + kRest) == value.size());
        }
    }
    SECTION("nesting as deep as the room given, and no deeper") {
        std::string value = "{}";
        for (int depth = 1; depth < 8; ++depth) value = "{\"k\":" + value + "}";  // 8 containers
        CHECK(skipped_length(value + kRest, 8) == value.size());
        CHECK(skipped_length(value + kRest, 7) == 0);
    }
}

TEST_CASE("anything else is left to the reader, the text where it was", "[json_skip_blocks]") {
    struct Case {
        const char* name;
        std::string value;
    };
    const Case cases[] = {
        {"a string, not a container", R"("a")"},
        {"a number", R"({"a":1})"},
        {"a literal", R"({"a":true})"},
        {"a space between tokens", R"({"a": "b"})"},
        {"an escaped newline", R"({"a":"b\nc"})"},
        {"a \\u escape", R"({"a":"b\u0026c"})"},
        {"a byte beyond ASCII", "{\"a\":\"caf\xc3\xa9\"}"},
        {"a control character in a string", "{\"a\":\"b\x01\"}"},
        {"a key without a value", R"({"a"})"},
        {"a member without a key", R"({"a":"b","c"})"},
        {"a second colon", R"({"a":"b":"c"})"},
        {"a colon after a container", R"({"a":{}:"c"})"},
        {"a colon in an array", R"(["a":"b"])"},
        {"a trailing comma", R"({"a":"b",})"},
        {"a comma first", R"([,"a"])"},
        {"an object as a key", R"({{}:"a"})"},
        {"a container after a comma in an object", R"({"a":"b",{}})"},
        {"two strings with nothing between", R"(["a""b"])"},
        {"a bracket closing a brace", R"({"a":["b"}})"},
        {"a brace closing a bracket", R"([{"a":"b"]])"},
        {"a backslash outside a string", R"({"a":\"b"})"},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            CHECK(skipped_length(c.value + kRest) == 0);
            CHECK(skipped_length(c.value + kRest + kRest) == 0);
        }
    }
    SECTION("a value that ends within 64 bytes of the text's end") { CHECK(skipped_length(R"({"a":"b"})") == 0); }
}
#endif
