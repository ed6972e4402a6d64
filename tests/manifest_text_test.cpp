// Manifest files read as kubectl reads them: JSON as JSON, the rest as YAML.
#include "model_image_webhook/manifest_text.hpp"

#include <catch2/catch.hpp>

using namespace miw;

TEST_CASE("a JSON document keeps every escape as Go's decoder reads it", "[manifest_text]") {
    struct Case {
        const char* name;
        std::string text;
        std::string json;
    };
    const std::vector<Case> cases = {
        {"a surrogate pair, as json.dumps and Go write a non-BMP character", R"({"name":"rocket-\ud83d\ude80"})", "{\"name\":\"rocket-\xF0\x9F\x9A\x80\"}"},
        {"an escaped solidus", R"({"ref":"r.io\/q"})", R"({"ref":"r.io/q"})"},
        {"a lone low surrogate, as Go reads it: U+FFFD", R"({"s\ude80":"a\ud41d\ude80b"})", "{\"s\xEF\xBF\xBD\":\"a\xED\x90\x9D\xEF\xBF\xBD" "b\"}"},
        {"a line separator", R"({"s":"a\u2028b"})", "{\"s\":\"a\xE2\x80\xA8" "b\"}"},
        {"control characters stay escaped", R"({"s":"a\nb\u0001"})", R"({"s":"a\nb\u0001"})"},
        {"whitespace before the document", " \n\t{\"a\":1}", R"({"a":1})"},
        {"numbers as kubectl sends them on", R"({"n":[100,1e2,100.0,1.5,-0,12345678901234567890,1e-7]})", R"({"n":[100,100,100,1.5,0,12345678901234567000,1e-7]})"},
        {"keys with escapes", R"({"a\"b":true,"c":null})", R"({"a\"b":true,"c":null})"},
        {"a repeated key keeps its last value, as Go's decoder does", R"({"kind":"A","x":{"y":[1,{"z":2}]},"kind":"B","x":3,"n":{"k":1,"k":[{"k":0}]}})",
         R"({"kind":"B","x":3,"n":{"k":[{"k":0}]}})"},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            const YamlLoad load = read_manifest_text(c.text);
            INFO(load.error);
            REQUIRE(load.ok());
            REQUIRE(load.documents.size() == 1);
            CHECK(load.documents[0].json == c.json);
        }
    }
}

TEST_CASE("JSON documents, then YAML for the rest, each with its line", "[manifest_text]") {
    const std::string text =
        "{\"kind\":\"List\",\"items\":[\n"
        "  {\"kind\":\"A\"},\n"
        "\n"
        "  {\"kind\":\"B\"}]}\n"
        "{\"kind\":\"C\"}\n"
        "---\n"
        "kind: D\n"
        "---\n"
        "kind: E\n";
    const YamlLoad load = read_manifest_text(text);
    INFO(load.error);
    REQUIRE(load.ok());
    REQUIRE(load.documents.size() == 4);
    CHECK(load.documents[0].line == 1);
    CHECK(load.documents[0].item_lines == std::vector<std::size_t>{2, 4});
    CHECK(load.documents[1].line == 5);
    CHECK(load.documents[1].json == R"({"kind":"C"})");
    CHECK(load.documents[2].line == 7);
    CHECK(load.documents[2].json == R"({"kind":"D"})");
    CHECK(load.documents[3].line == 9);
    SECTION("a repeated items list: the last one's items and lines") {
        const YamlLoad twice = read_manifest_text("{\"kind\":\"List\",\"items\":[{\"kind\":\"A\"}],\n\"items\":[\n{\"kind\":\"B\"},\n{\"kind\":\"C\"}]}");
        REQUIRE(twice.ok());
        REQUIRE(twice.documents.size() == 1);
        CHECK(twice.documents[0].json == R"({"kind":"List","items":[{"kind":"B"},{"kind":"C"}]})");
        CHECK(twice.documents[0].item_lines == std::vector<std::size_t>{3, 4});
    }
}

TEST_CASE("what is not JSON is read as YAML, errors with their lines", "[manifest_text]") {
    struct Case {
        const char* name;
        std::string text;
        bool ok;
        std::string json_or_error;
        std::size_t line;
    };
    const std::vector<Case> cases = {
        {"YAML", "kind: A\nm: 0755\n", true, R"({"kind":"A","m":493})", 1},
        {"a YAML flow mapping that is not JSON", "{kind: A, m: yes}", true, R"({"kind":"A","m":true})", 1},
        {"an empty file", "", true, "", 0},
        {"JSON whose number no float64 holds", "{\"a\":\n1e400}", false, "\"1e400\"", 2},
        {"YAML after JSON that does not read", "{\"a\":1}\n---\nkey: [unclosed\n", false, "", 4},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            const YamlLoad load = read_manifest_text(c.text);
            CHECK(load.ok() == c.ok);
            if (c.ok && !c.json_or_error.empty()) {
                REQUIRE(load.documents.size() == 1);
                CHECK(load.documents[0].json == c.json_or_error);
                CHECK(load.documents[0].line == c.line);
            } else if (c.ok) {
                CHECK(load.documents.empty());
            } else {
                CHECK(load.documents.empty());
                CHECK_THAT(load.error, Catch::Contains(c.json_or_error));
                CHECK(load.error_line >= c.line - 1);
                CHECK(load.error_line <= c.line);
            }
        }
    }
}
