// Objects printed as YAML read back as the same JSON.
#include "model_image_webhook/yaml_writer.hpp"

#include "model_image_webhook/json_patch.hpp"
#include "model_image_webhook/manifest.hpp"
#include "model_image_webhook/yaml_loader.hpp"

#include <catch2/catch.hpp>

using namespace miw;

namespace {
std::string to_yaml(const std::string& json) {
    YamlWriter writer;
    REQUIRE(visit_json(json, writer));
    return writer.yaml();
}
}  // namespace

TEST_CASE("strings are quoted when a reader would take them for something else", "[yaml_writer]") {
    const std::pair<const char*, const char*> cases[] = {
        {"gpustack-model", "gpustack-model"},
        {"/var/lib/gpustack/model", "/var/lib/gpustack/model"},
        {"registry.example.com:5000/team/qwen@sha256:abc", "registry.example.com:5000/team/qwen@sha256:abc"},
        {"v1.35.0", "v1.35.0"},
        {"32Gi", "32Gi"},
        {"8000", "\"8000\""},
        {"1.35", "\"1.35\""},
        {"1e3", "\"1e3\""},
        {"12:30", "\"12:30\""},
        {"true", "\"true\""},
        {"Yes", "\"Yes\""},
        {"off", "\"off\""},
        {"null", "\"null\""},
        {"~", "\"~\""},
        {"", "\"\""},
        {"-v", "\"-v\""},
        {"--revision=main", "\"--revision=main\""},
        {"a b", "\"a b\""},
        {"# comment", "\"# comment\""},
        {"key:", "\"key:\""},
        {"*alias", "\"*alias\""},
        {"line\nbreak", "\"line\\nbreak\""},
        {".inf", "\".inf\""},
        {"caf\xc3\xa9", "\"caf\xc3\xa9\""},
        {"0x1F", "\"0x1F\""},
        {"0b101", "\"0b101\""},
        {"0755", "\"0755\""},
        {"1_000", "\"1_000\""},
        {"y", "\"y\""},
        {"N", "\"N\""},
        {"On", "\"On\""},
        {"NULL", "\"NULL\""},
        {"next\xc2\x85line", "\"next\\u0085line\""},
        {"line\xe2\x80\xa8" "and paragraph\xe2\x80\xa9separators", "\"line\\u2028and paragraph\\u2029separators\""},
        {"del\x7f", "\"del\\u007f\""},
        {"c1\xc2\x80\xc2\x9f", "\"c1\\u0080\\u009f\""},
        {"bom\xef\xbb\xbf", "\"bom\\ufeff\""},
        {"non-characters\xef\xbf\xbe\xef\xbf\xbf", "\"non-characters\\ufffe\\uffff\""},
        {"no-break\xc2\xa0space", "\"no-break\xc2\xa0space\""},
        {"escape\x1b", "\"escape\\u001b\""},
    };
    for (const auto& [value, yaml] : cases) {
        DYNAMIC_SECTION("\"" << value << "\"") { CHECK(yaml_scalar(value) == yaml); }
    }
}

TEST_CASE("objects print in block style and read back the same", "[yaml_writer]") {
    const std::string pod =
        R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"qwen","labels":{"gpustack.ai/model-delivery":"image"},"annotations":{}},)"
        R"("spec":{"containers":[{"name":"vllm","args":["--model","/var/lib/gpustack/model","--port","8000"],"env":[{"name":"PORT","value":"8000"},)"
        R"({"name":"DEBUG","value":"true"}],"resources":{"limits":{"nvidia.com/gpu":1,"memory":"32Gi"}},"volumeMounts":[{"name":"gpustack-model",)"
        R"("mountPath":"/var/lib/gpustack/model","readOnly":true}]}],"volumes":[{"name":"gpustack-model","image":{"reference":"r.io/q@sha256:)"
        R"(9372c470eeadd5ecd9c3c74c2b3cb633f8e2f2fad799250a0f70d652b6b825e4"}},{"name":"e","emptyDir":{}}],"tolerations":[],)"
        R"("priority":-5,"ratio":0.25,"nested":[[1,2],[],{"a":null}]}})";
    const std::string yaml = to_yaml(pod);
    CHECK_THAT(yaml, Catch::StartsWith("apiVersion: v1\nkind: Pod\nmetadata:\n  name: qwen\n  labels:\n    gpustack.ai/model-delivery: image\n  annotations: {}\n"));
    CHECK_THAT(yaml, Catch::Contains("spec:\n  containers:\n  - name: vllm\n    args:\n    - \"--model\"\n    - /var/lib/gpustack/model\n"));
    CHECK_THAT(yaml, Catch::Contains("    env:\n    - name: PORT\n      value: \"8000\"\n"));
    CHECK_THAT(yaml, Catch::Contains("      readOnly: true\n"));
    const YamlLoad back = load_yaml(yaml);
    REQUIRE(back.ok());
    REQUIRE(back.documents.size() == 1);
    CHECK(back.documents[0].json == pod);
}

TEST_CASE("scalars and empty containers at the top", "[yaml_writer]") {
    CHECK(to_yaml("{}") == "{}\n");
    CHECK(to_yaml("[]") == "[]\n");
    CHECK(to_yaml("\"x\"") == "x\n");
    CHECK(to_yaml("[1,[2,3]]") == "- 1\n- - 2\n  - 3\n");
}

TEST_CASE("what the writer writes reads back, as kubectl reads it, to the same JSON", "[yaml_writer]") {
    const std::vector<std::string> strings = {
        "8000", "0755", "0x1F", "0b101", "1_000", "1.5", ".5", "1e3", "-1", "+1", "true", "yes", "Yes", "on", "OFF", "y", "n", "~", "null", "",
        "2026-12-01", "2026-12-01T10:00:00Z", "12:30", ".inf", ".nan", "a: b", "a #b", "#c", " leading", "trailing ", "line\nbreak", "tab\there",
        "caf\xc3\xa9", "\xe6\xa8\xa1\xe5\x9e\x8b", "--model=/var/lib/gpustack/model", "-", "?", "|", ">", "&a", "*a", "!t", "%x", "@x", "`x`", "'q'", "\"dq\"",
        "{a}", "[1]", "a,b", "<<", "=", "registry.example.com:5000/q@sha256:abc", "- item",
        // What YAML takes only escaped: a line break to it (NEL, LS, PS), refused raw (DEL, C1), or escaped by go-yaml.
        "next\xc2\x85line", "ls\xe2\x80\xa8ps\xe2\x80\xa9", "del\x7f", "c1\xc2\x80\xc2\x9f", "bom\xef\xbb\xbf", "\xef\xbf\xbe\xef\xbf\xbf",
        "nbsp\xc2\xa0", "emoji \xf0\x9f\x98\x80", "\"@s\x1bs\x1bx\x1b\xc2\x85sex\x1bt\x07" "4\"",
    };
    std::string json = "{";
    for (std::size_t i = 0; i < strings.size(); ++i) {
        json += (i ? "," : "") + json_string(strings[i]) + ":" + json_string(strings[i]);
    }
    json += R"(,"numbers":[0,-7,1.5,18446744073709551615,1e+21,1.5e-7,18446744073709552000],"flags":[true,false,null],"empty":{},"none":[],"nested":{"a":[{"b":"0755"}]}})";
    YamlWriter writer;
    REQUIRE(visit_json(json, writer));
    const std::string yaml = writer.yaml();
    const YamlLoad back = load_yaml(yaml);
    INFO(yaml);
    REQUIRE(back.ok());
    REQUIRE(back.documents.size() == 1);
    CHECK(back.documents[0].json == json);
}

TEST_CASE("long keys are written as explicit keys and read back the same", "[yaml_writer]") {
    const std::string plain_128(128, 'k');
    const std::string plain_129(129, 'k');
    const std::string escapes(600, '\\');  // 1,202 characters once quoted
    const std::string long_key = json_string(plain_129);
    const std::pair<const char*, std::string> cases[] = {
        {"a 128-byte key stays simple", "{" + json_string(plain_128) + ":1}"},
        {"a 129-byte key with a scalar", "{" + long_key + ":\"v\"}"},
        {"a key of 1,202 quoted characters", "{" + json_string(escapes) + ":null}"},
        {"a long key holding an object", "{" + long_key + ":{\"a\":1,\"b\":[1,2]}}"},
        {"a long key holding a sequence", "{" + long_key + ":[{\"a\":1},\"x\",[]]}"},
        {"a long key holding empty containers", "{" + long_key + ":{},\"next\":[]}"},
        {"a long key first in a sequence item", "[{" + long_key + ":[1],\"b\":2}]"},
        {"long keys nested", "{" + long_key + ":{" + json_string(escapes) + ":{\"c\":[true]}}}"},
    };
    for (const auto& [name, json] : cases) {
        DYNAMIC_SECTION(name) {
            const std::string yaml = to_yaml(json);
            INFO(yaml);
            CHECK((yaml.find("? ") != std::string::npos) == (json.find(plain_129) != std::string::npos || json.find(escapes) != std::string::npos));
            const YamlLoad back = load_yaml(yaml);
            REQUIRE(back.ok());
            REQUIRE(back.documents.size() == 1);
            CHECK(back.documents[0].json == json);
        }
    }
}
