// YAML scalars resolved as kubectl's go-yaml v2 resolves them (YAML 1.1), and
// numbers sent on as apimachinery's decoder sends them.
#include "model_image_webhook/yaml_scalar.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace miw;

TEST_CASE("plain scalars resolve as YAML 1.1 does", "[yaml_scalar]") {
    struct Case {
        const char* text;
        YamlScalarKind kind;
        const char* json;
        const char* key;
    };
    const std::vector<Case> cases = {
        {"0755", YamlScalarKind::integer, "493", "493"},        {"yes", YamlScalarKind::boolean, "true", "true"},
        {"on", YamlScalarKind::boolean, "true", "true"},         {"0x1F", YamlScalarKind::integer, "31", "31"},
        {"0b101", YamlScalarKind::integer, "5", "5"},           {"1_000", YamlScalarKind::integer, "1000", "1000"},
        {"~", YamlScalarKind::null, "null", "null"},             {"null", YamlScalarKind::null, "null", "null"},
        {"1.5", YamlScalarKind::floating, "1.5", "1.5"},         {"1e3", YamlScalarKind::floating, "1000", "1000"},
        {"+12", YamlScalarKind::integer, "12", "12"},           {"2001-12-14", YamlScalarKind::string, "\"2001-12-14\"", "2001-12-14"},
        {"abc", YamlScalarKind::string, "\"abc\"", "abc"},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.text) {
            const auto r = resolve_plain_yaml_scalar(c.text);
            REQUIRE(r.ok());
            CHECK(r->kind == c.kind);
            CHECK(r->json == c.json);
            CHECK(r->key == c.key);
        }
    }
}

TEST_CASE("what kubectl cannot send is an error that says what to do", "[yaml_scalar]") {
    const auto infinity = resolve_plain_yaml_scalar(".inf");
    REQUIRE_FALSE(infinity.ok());
    CHECK_THAT(infinity.error(), Catch::Contains("quote it to keep it a string"));
    const auto tagged = resolve_tagged_yaml_scalar("tag:yaml.org,2002:int", "abc");
    REQUIRE_FALSE(tagged.ok());
    CHECK_THAT(tagged.error(), Catch::Contains("kubectl cannot decode it"));
    const auto str = resolve_tagged_yaml_scalar("tag:yaml.org,2002:str", "0755");
    REQUIRE(str.ok());
    CHECK(str->json == "\"0755\"");
}

TEST_CASE("numbers are sent on as apimachinery decodes them", "[yaml_scalar]") {
    CHECK(*json_number_as_kubectl_sends("1e2") == "100");
    CHECK(*json_number_as_kubectl_sends("100.0") == "100");
    CHECK(*json_number_as_kubectl_sends("42") == "42");
    CHECK(*json_number_as_kubectl_sends("9223372036854775808") == "9223372036854776000");  // past int64: a float64
}

TEST_CASE("a string written plain is told from one that would read back as something else", "[yaml_scalar]") {
    CHECK(reads_back_as_string("vllm"));
    CHECK_FALSE(reads_back_as_string("yes"));
    CHECK_FALSE(reads_back_as_string("0755"));
    CHECK(yaml_string_scalar("on").json == "\"on\"");
}
