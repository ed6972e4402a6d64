// YAML manifests become the JSON Kubernetes would read from them.
#include "model_image_webhook/yaml_loader.hpp"

#include <catch2/catch.hpp>

using namespace miw;

namespace {
std::string only_json(std::string_view yaml) {
    const YamlLoad load = load_yaml(yaml);
    INFO(load.error);
    REQUIRE(load.ok());
    REQUIRE(load.documents.size() == 1);
    return load.documents[0].json;
}
}  // namespace

TEST_CASE("plain scalars are typed by the YAML 1.2 core schema", "[yaml_loader]") {
    struct Case {
        const char* yaml;
        const char* json;
    };
    const Case cases[] = {
        {"v: 1", R"({"v":1})"},
        {"v: -17", R"({"v":-17})"},
        {"v: +17", R"({"v":17})"},
        {"v: 007", R"({"v":7})"},
        {"v: 0o17", R"({"v":15})"},
        {"v: 0x1F", R"({"v":31})"},
        {"v: 1.5", R"({"v":1.5})"},
        {"v: .5", R"({"v":0.5})"},
        {"v: 1.", R"({"v":1.0})"},
        {"v: -2.5e3", R"({"v":-2.5e3})"},
        {"v: 1e3", R"({"v":1e3})"},
        {"v: true", R"({"v":true})"},
        {"v: False", R"({"v":false})"},
        {"v: TRUE", R"({"v":true})"},
        {"v: yes", R"({"v":"yes"})"},
        {"v: on", R"({"v":"on"})"},
        {"v: ~", R"({"v":null})"},
        {"v: null", R"({"v":null})"},
        {"v:", R"({"v":null})"},
        {"v: .inf", R"({"v":".inf"})"},
        {"v: 1.35", R"({"v":1.35})"},
        {"v: v1.35.0", R"({"v":"v1.35.0"})"},
        {"v: 0x", R"({"v":"0x"})"},
        {"v: 1_000", R"({"v":"1_000"})"},
        {"v: 12:30", R"({"v":"12:30"})"},
        {"v: '1'", R"({"v":"1"})"},
        {"v: \"true\"", R"({"v":"true"})"},
        {"v: !!str 5", R"({"v":"5"})"},
        {"v: !!int \"5\"", R"({"v":5})"},
        {"v: |\n  line one\n  line two\n", R"({"v":"line one\nline two\n"})"},
        {"v: >\n  folded\n  text\n", R"({"v":"folded text\n"})"},
        {"v: \"tab\\there \\u00e9\"", "{\"v\":\"tab\\there \xc3\xa9\"}"},
        {"1: a\ntrue: b\n~: c", R"({"1":"a","true":"b","null":"c"})"},
        {"list: [1, \"2\", three]", R"({"list":[1,"2","three"]})"},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.yaml) { CHECK(only_json(c.yaml) == c.json); }
    }
}

TEST_CASE("anchors, aliases and merge keys are resolved", "[yaml_loader]") {
    CHECK(only_json("base: &b {x: 1, y: 2}\nm:\n  <<: *b\n  y: 3\n") == R"({"base":{"x":1,"y":2},"m":{"y":3,"x":1}})");
    CHECK(only_json("a: &a {x: 1}\nb: &b {x: 2, z: 2}\nm:\n  <<: [*a, *b]\n") == R"({"a":{"x":1},"b":{"x":2,"z":2},"m":{"x":1,"z":2}})");
    CHECK(only_json("env: &e [{name: A, value: '1'}]\nother: *e\n") == R"({"env":[{"name":"A","value":"1"}],"other":[{"name":"A","value":"1"}]})");
    CHECK(only_json("k: v\nk: w\n") == R"({"k":"w"})");
}

TEST_CASE("documents, comments, BOMs and line ends", "[yaml_loader]") {
    SECTION("several documents with their lines, empty ones left out") {
        const YamlLoad load = load_yaml("# header\n---\na: 1\n---\n---\n# nothing here\n---\n\nb: 2\n...\n");
        REQUIRE(load.ok());
        REQUIRE(load.documents.size() == 2);
        CHECK(load.documents[0].json == R"({"a":1})");
        CHECK(load.documents[0].line == 3);
        CHECK(load.documents[1].json == R"({"b":2})");
        CHECK(load.documents[1].line == 9);
    }
    SECTION("a byte order mark") { CHECK(only_json("\xEF\xBB\xBFkind: Pod\n") == R"({"kind":"Pod"})"); }
    SECTION("CRLF line ends") { CHECK(only_json("kind: Pod\r\nmetadata:\r\n  name: x\r\n") == R"({"kind":"Pod","metadata":{"name":"x"}})"); }
    SECTION("a comma opening a line inside a flow collection") { CHECK(only_json("a: [1\n  , 2]\nb: {x: 1\n , y: '[,'}\n") == R"({"a":[1,2],"b":{"x":1,"y":"[,"}})"); }
    SECTION("JSON is YAML") { CHECK(only_json(R"({"kind": "Pod", "n": [1, 2.5, null, true]})") == R"({"kind":"Pod","n":[1,2.5,null,true]})"); }
    SECTION("the items of a List keep their lines") {
        const YamlLoad load = load_yaml("kind: List\nitems:\n- kind: Node\n  metadata: {name: a}\n- kind: Node\n  metadata: {name: b}\n");
        REQUIRE(load.ok());
        CHECK(load.documents[0].item_lines == std::vector<std::size_t>{3, 5});
    }
    SECTION("an empty input") {
        const YamlLoad load = load_yaml("");
        CHECK(load.ok());
        CHECK(load.documents.empty());
    }
}

TEST_CASE("broken YAML is refused with its line", "[yaml_loader]") {
    struct Case {
        const char* name;
        std::string yaml;
        std::size_t line;
    };
    std::string deep;
    for (int i = 0; i < 100000; ++i) deep += "[";
    for (int i = 0; i < 100000; ++i) deep += "]";
    std::string laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
    for (char c = 'b'; c <= 'k'; ++c) {
        laughs += std::string(1, c) + ": &" + c + " [";
        for (int i = 0; i < 10; ++i) laughs += std::string(i ? ", " : "") + "*" + char(c - 1);
        laughs += "]\n";
    }
    const std::vector<Case> cases = {
        {"unclosed flow sequence", "a: [1, 2\nb: 3\n", 0},
        {"bad indentation", "a:\n  b: 1\n c: 2\n", 3},
        {"tab indentation", "a:\n\tb: 1\n", 2},
        {"unknown alias", "a: *nope\n", 1},
        {"a mapping as a key", "? {a: 1}\n: v\n", 1},
        {"a merge of a scalar", "m:\n  <<: 5\n", 2},
        {"100,000 nested sequences", deep, 0},
        {"aliases that expand past the limit", laughs, 0},
        {"a document that is a comma", ",", 1},
        {"a comma after a document marker", "a: 1\n---\n  , volumes:\n", 3},
        {"a comma after node properties", "--- &a !!str ,\n", 1},
        {"a comma opening a line below an indented block", "  a: 1\n ,b:\n", 2},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            const YamlLoad load = load_yaml(c.yaml);
            CHECK_FALSE(load.ok());
            CHECK_FALSE(load.error.empty());
            CHECK(load.documents.empty());
            if (c.line != 0) CHECK(load.error_line == c.line);
        }
    }
}
