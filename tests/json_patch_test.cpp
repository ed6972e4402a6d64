#include "model_image_webhook/json_patch.hpp"

#include <catch2/catch.hpp>

using namespace miw;

TEST_CASE("pointer tokens escape ~ before /", "[json_patch]") {
    struct Case {
        const char* key;
        const char* token;
    };
    const Case cases[] = {
        {"plain", "plain"}, {"a/b", "a~1b"}, {"a~b", "a~0b"}, {"~1", "~01"}, {"/~", "~1~0"}, {"gpustack.ai/model-image", "gpustack.ai~1model-image"}, {"", ""},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.key) { CHECK(pointer_token(c.key) == c.token); }
    }
    CHECK(pointer_child("/metadata/annotations", "example.com/x~y") == "/metadata/annotations/example.com~1x~0y");
    CHECK(pointer_child("/spec/volumes", std::size_t{12}) == "/spec/volumes/12");
    std::string built = "/spec/containers";
    append_pointer_index(built, 0);
    CHECK(built == "/spec/containers/0");
    built.resize(16);
    append_pointer_index(built, 18446744073709551615u);
    CHECK(built == "/spec/containers/18446744073709551615");
}

TEST_CASE("JSON strings are escaped", "[json_patch]") {
    CHECK(json_string("a") == "\"a\"");
    CHECK(json_string("a\"b\\c") == "\"a\\\"b\\\\c\"");
    CHECK(json_string(std::string("\n\t\x01\0", 4)) == "\"\\n\\t\\u0001\\u0000\"");
    CHECK(json_string("\b\f\r\x1f") == "\"\\b\\f\\r\\u001f\"");
    CHECK(json_string("caf\xc3\xa9") == "\"caf\xc3\xa9\"");
}

TEST_CASE("a JSON string written into room made for it is the one appended, for every byte at every offset", "[json_patch]") {
    for (std::size_t length : {1u, 15u, 16u, 17u, 40u}) {
        for (unsigned value = 0; value < 256; ++value) {
            for (std::size_t at = 0; at < length; ++at) {
                std::string text(length, 'k');
                text[at] = static_cast<char>(value);
                INFO("length " << length << ", byte " << value << " at " << at);
                std::string room(json_string_room(text), '\0');
                const char* const end = write_json_string(room.data(), text);
                REQUIRE(end <= room.data() + room.size());
                CHECK(std::string_view(room.data(), static_cast<std::size_t>(end - room.data())) == json_string(text));
            }
        }
    }
    // The worst case fills its room exactly: every byte a control character.
    const std::string controls(10, '\x01');
    std::string room(json_string_room(controls), '\0');
    CHECK(write_json_string(room.data(), controls) == room.data() + room.size());
}

TEST_CASE("patches keep the order the operations were given in", "[json_patch]") {
    JsonPatch patch;
    CHECK(patch.empty());
    CHECK(patch.to_json() == "[]");
    patch.remove("/spec/volumes/3");
    patch.add("/spec/volumes/-", R"({"name":"v"})");
    patch.replace("/spec/containers/0/volumeMounts/1", R"({"name":"m"})");
    CHECK(patch.size() == 3);
    CHECK(patch.to_json() ==
          R"([{"op":"remove","path":"/spec/volumes/3"},{"op":"add","path":"/spec/volumes/-","value":{"name":"v"}},)"
          R"({"op":"replace","path":"/spec/containers/0/volumeMounts/1","value":{"name":"m"}}])");
    const std::string copied = patch.to_json();
    CHECK(std::move(patch).to_json() == copied);  // handed over: the same text
    CHECK(JsonPatch().to_json() == "[]");
    CHECK(std::move(JsonPatch()).to_json() == "[]");
}

TEST_CASE("array elements are removed from the highest index down", "[json_patch]") {
    JsonPatch patch;
    patch.remove_indices("/spec/containers/0/env", {0, 2, 3, 10});
    CHECK(patch.to_json() ==
          R"([{"op":"remove","path":"/spec/containers/0/env/10"},{"op":"remove","path":"/spec/containers/0/env/3"},)"
          R"({"op":"remove","path":"/spec/containers/0/env/2"},{"op":"remove","path":"/spec/containers/0/env/0"}])");
    JsonPatch none;
    none.remove_indices("/x", {});
    CHECK(none.empty());
}

TEST_CASE("removals after other operations, under a path that needs escaping", "[json_patch]") {
    JsonPatch patch;
    patch.add("/a", "1");
    patch.remove_indices("/spec/\"q\"", "env", {7, 12345678901234567890u});
    patch.remove_indices("/b", {0});
    CHECK(patch.size() == 4);
    CHECK(patch.to_json() == R"([{"op":"add","path":"/a","value":1},{"op":"remove","path":"/spec/\"q\"/env/12345678901234567890"},)"
                             R"({"op":"remove","path":"/spec/\"q\"/env/7"},{"op":"remove","path":"/b/0"}])");
}

TEST_CASE("paths with escaped characters are written as JSON strings", "[json_patch]") {
    JsonPatch patch;
    patch.add(pointer_child("/metadata/annotations", "a\"b"), "\"v\"");
    CHECK(patch.to_json() == R"([{"op":"add","path":"/metadata/annotations/a\"b","value":"v"}])");
}
