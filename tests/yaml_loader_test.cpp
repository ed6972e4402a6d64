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

// Each case: the YAML, and the JSON kubectl sends for it (go-yaml v2's
// resolver, then sigs.k8s.io/yaml's conversion, which turns keys into strings).
TEST_CASE("scalars resolve as go-yaml v2 resolves them, as kubectl reads YAML", "[yaml_loader]") {
    struct Case {
        const char* yaml;
        const char* json;
    };
    const Case cases[] = {
        {"v: 1", R"({"v":1})"},
        {"v: -17", R"({"v":-17})"},
        {"v: +17", R"({"v":17})"},
        {"defaultMode: 0755", R"({"defaultMode":493})"},
        {"v: 007", R"({"v":7})"},
        {"v: 08", R"({"v":8})"},  // not octal: read as the float 8
        {"v: 0o17", R"({"v":15})"},
        {"v: 0x1F", R"({"v":31})"},
        {"v: -0x10", R"({"v":-16})"},
        {"v: 0b101", R"({"v":5})"},
        {"v: 1_000", R"({"v":1000})"},
        {"v: 1_0.5", R"({"v":10.5})"},
        {"v: 1.5", R"({"v":1.5})"},
        {"v: .5", R"({"v":0.5})"},
        {"v: 1.", R"({"v":1})"},
        {"v: 1.0", R"({"v":1})"},
        {"v: -2.5e3", R"({"v":-2500})"},
        {"v: 1e3", R"({"v":1000})"},
        {"v: 1e21", R"({"v":1e+21})"},
        {"v: 1.5e-7", R"({"v":1.5e-7})"},
        {"v: 9223372036854775807", R"({"v":9223372036854775807})"},
        {"v: 18446744073709551615", R"({"v":18446744073709551615})"},
        {"v: 18446744073709551616", R"({"v":18446744073709552000})"},
        {"v: true", R"({"v":true})"},
        {"v: False", R"({"v":false})"},
        {"v: TRUE", R"({"v":true})"},
        {"v: yes", R"({"v":true})"},
        {"v: No", R"({"v":false})"},
        {"v: on", R"({"v":true})"},
        {"v: OFF", R"({"v":false})"},
        {"v: y", R"({"v":true})"},
        {"v: n", R"({"v":false})"},
        {"v: yES", R"({"v":"yES"})"},
        {"v: ~", R"({"v":null})"},
        {"v: null", R"({"v":null})"},
        {"v: NULL", R"({"v":null})"},
        {"v:", R"({"v":null})"},
        {"v: 1.35", R"({"v":1.35})"},
        {"v: v1.35.0", R"({"v":"v1.35.0"})"},
        {"v: 0x", R"({"v":"0x"})"},
        {"v: 12:30", R"({"v":"12:30"})"},  // no sexagesimal in go-yaml
        {"v: 2026-12-01", R"({"v":"2026-12-01"})"},  // timestamps stay strings
        {"v: 2026-12-01T10:00:00Z", R"({"v":"2026-12-01T10:00:00Z"})"},
        {"v: '1'", R"({"v":"1"})"},
        {"v: \"true\"", R"({"v":"true"})"},
        {"v: '0755'", R"({"v":"0755"})"},
        {"v: !!str 5", R"({"v":"5"})"},
        {"v: !!str yes", R"({"v":"yes"})"},
        {"v: !!int \"5\"", R"({"v":5})"},
        {"v: !!float 1", R"({"v":1})"},
        {"v: !!bool \"on\"", R"({"v":true})"},
        {"v: !custom 5", R"({"v":"5"})"},
        {"v: ! 5", R"({"v":"5"})"},
        {"v: |\n  line one\n  line two\n", R"({"v":"line one\nline two\n"})"},
        {"v: >\n  folded\n  text\n", R"({"v":"folded text\n"})"},
        {"v: |-\n  kept\n", R"({"v":"kept"})"},
        {"v:\n  &anc |\n  hello\n", R"({"v":"hello\n"})"},  // an anchor on its own line before a block scalar
        {"v:\n  !!str |\n  0755\n", R"({"v":"0755\n"})"},
        {"v: a multi-line\n  plain scalar\n", R"({"v":"a multi-line plain scalar"})"},
        {"v: \"tab\\there \\u00e9\"", "{\"v\":\"tab\\there \xc3\xa9\"}"},
        {"1: a\ntrue: b\n~: c\nyes: d\n1.5: e", R"({"1":"a","true":"d","null":"c","1.5":"e"})"},
        {"list: [1, \"2\", three, {a: b}, [y]]", R"({"list":[1,"2","three",{"a":"b"},[true]]})"},
        {"# a comment\nv: 1 # after\n# between\nw: [1, # in a flow\n  2]\n", R"({"v":1,"w":[1,2]})"},
        {"v: 1\n...\n", R"({"v":1})"},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.yaml) { CHECK(only_json(c.yaml) == c.json); }
    }
}

TEST_CASE("numbers JSON cannot hold are refused, as kubectl refuses them", "[yaml_loader]") {
    for (const char* yaml : {"v: .inf", "v: -.Inf", "v: .nan", "v: !!float .NaN"}) {
        INFO(yaml);
        const YamlLoad load = load_yaml(yaml);
        CHECK_FALSE(load.ok());
        CHECK_THAT(load.error, Catch::Contains("has no JSON form"));
    }
    const YamlLoad load = load_yaml("v: !!int abc");
    CHECK_FALSE(load.ok());
    CHECK_THAT(load.error, Catch::Contains("!!int \"abc\" is not a int"));
}

TEST_CASE("anchors, aliases and merge keys are resolved", "[yaml_loader]") {
    CHECK(only_json("base: &b {x: 1, z: 2}\nm:\n  <<: *b\n  z: 3\n") == R"({"base":{"x":1,"z":2},"m":{"x":1,"z":3}})");
    CHECK(only_json("base: &b {x: 1}\nm:\n  x: 0\n  <<: *b\n") == R"({"base":{"x":1},"m":{"x":1}})");  // go-yaml v2 sets the merge where it stands
    CHECK(only_json("a: &a {x: 1}\nb: &b {x: 2, z: 2}\nm:\n  <<: [*a, *b]\n") == R"({"a":{"x":1},"b":{"x":2,"z":2},"m":{"x":1,"z":2}})");
    CHECK(only_json("env: &e [{name: A, value: '1'}]\nother: *e\n") == R"({"env":[{"name":"A","value":"1"}],"other":[{"name":"A","value":"1"}]})");
    CHECK(only_json("k: v\nk: w\n") == R"({"k":"w"})");
    // Aliases of aliases: the anchors' JSON copied again is the JSON written again.
    CHECK(only_json("a: &a {k: [1, s, true]}\nb: &b [*a, *a]\nc: [*b, *b, *a]\n") ==
          R"({"a":{"k":[1,"s",true]},"b":[{"k":[1,"s",true]},{"k":[1,"s",true]}],"c":[[{"k":[1,"s",true]},{"k":[1,"s",true]}],[{"k":[1,"s",true]},{"k":[1,"s",true]}],{"k":[1,"s",true]}]})");
}

TEST_CASE("an alias copied again keeps the bounds on nesting and size", "[yaml_loader]") {
    const auto nested = [](int levels, const std::string& inside) { return std::string(levels, '[') + inside + std::string(levels, ']'); };
    SECTION("copied where it would nest past 1,000 levels, it is refused") {
        // *a is first written one level down, then again 500 levels down: 1,101 in all.
        const YamlLoad load = load_yaml("a: &a " + nested(600, "x") + "\nb: *a\nc: " + nested(500, "*a") + "\n");
        CHECK_FALSE(load.ok());
        CHECK_THAT(load.error, Catch::Contains("nested deeper than 1000 levels"));
    }
    SECTION("copied where it fits, it is taken") {
        const YamlLoad load = load_yaml("a: &a " + nested(600, "x") + "\nb: *a\nc: " + nested(300, "*a") + "\n");
        REQUIRE(load.ok());
        CHECK(load.documents[0].json == R"({"a":)" + nested(600, "\"x\"") + R"(,"b":)" + nested(600, "\"x\"") + R"(,"c":)" + nested(900, "\"x\"") + "}");
    }
    SECTION("copies that would pass 64 MiB are refused before they are made") {
        std::string items;
        for (int i = 0; i < 1000; ++i) items += std::string(i ? ", " : "") + std::string(60, 'y');
        std::string copies;  // about 62 KB each: 1,100 of them pass the bound
        for (int i = 0; i < 1100; ++i) copies += std::string(i ? ", " : "") + "*a";
        const YamlLoad load = load_yaml("a: &a [" + items + "]\nb: [" + copies + "]\n");
        CHECK_FALSE(load.ok());
        CHECK_THAT(load.error, Catch::Contains("expands to more than 64 MiB of JSON"));
        CHECK(load.error_line == 2);  // the aliases that pass it
    }
    SECTION("copies under the bound are all made") {
        std::string copies;
        for (int i = 0; i < 100; ++i) copies += std::string(i ? ", " : "") + "*a";
        const YamlLoad load = load_yaml("a: &a [" + std::string(60, 'y') + ", 2]\nb: [" + copies + "]\n");
        REQUIRE(load.ok());
        const std::string one = "[\"" + std::string(60, 'y') + "\",2]";
        std::string expected = R"({"a":)" + one + R"(,"b":[)";
        for (int i = 0; i < 100; ++i) expected += (i ? "," : "") + one;
        CHECK(load.documents[0].json == expected + "]}");
    }
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
    SECTION("a comma opening a line inside a flow collection") { CHECK(only_json("a: [1\n  , 2]\nb: {x: 1\n , k: '[,'}\n") == R"({"a":[1,2],"b":{"x":1,"k":"[,"}})"); }
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

TEST_CASE("a document that reads as null is no object and is left out, as kubectl leaves it", "[yaml_loader]") {
    const std::pair<const char*, const char*> cases[] = {
        {"null", "null\n"},
        {"a tilde", "~\n"},
        {"Null", "Null\n"},
        {"a tagged null", "!!null\n"},
        {"a tagged null with text", "!!null ''\n"},
        {"an anchored null", "&a null\n"},
        {"null after a marker", "--- null\n"},
        {"a null between objects", "a: 1\n---\n!!null\n---\nb: 2\n"},
    };
    for (const auto& [name, yaml] : cases) {
        DYNAMIC_SECTION(name) {
            const YamlLoad load = load_yaml(yaml);
            REQUIRE(load.ok());
            for (const auto& doc : load.documents) CHECK(doc.json != "null");
            CHECK(load.documents.size() == (std::string_view(yaml).find("a: 1") != std::string_view::npos ? 2u : 0u));
        }
    }
    SECTION("a quoted null is a string, kept for the reader to refuse as no object") {
        CHECK(only_json("\"null\"\n") == R"("null")");
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
