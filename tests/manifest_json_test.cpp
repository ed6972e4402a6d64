// Manifest objects as the test mode reads them, and the walk over JSON.
#include "model_image_webhook/manifest.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace miw;

TEST_CASE("objects are read from a document or a List's items", "[manifest_json]") {
    std::string json = R"({"apiVersion":"v1","kind":"List","items":[)"
                       R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"ns","labels":{"gpustack.ai/model-delivery":"image"}}},)"
                       R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"volumes":[{"name":"m","image":{"reference":"r"}}]}}]})";
    Result<std::vector<ManifestObject>> read = read_manifest_objects(json);
    REQUIRE(read.ok());
    const std::vector<ManifestObject>& objects = *read;
    REQUIRE(objects.size() == 2);
    CHECK(objects[0].group == "apps");
    CHECK(objects[0].version == "v1");
    CHECK(objects[0].kind == "Deployment");
    CHECK(objects[0].namespace_name == "ns");
    CHECK(objects[0].opted_in);
    CHECK_FALSE(objects[0].mounts_image_volume);
    CHECK(objects[0].from_list);
    CHECK(objects[1].group.empty());
    CHECK(objects[1].version == "v1");
    CHECK(objects[1].item == 1);
    CHECK(objects[1].mounts_image_volume);
    CHECK_FALSE(objects[1].opted_in);
}

TEST_CASE("what is not a Kubernetes object is said to be so", "[manifest_json]") {
    struct Case {
        const char* name;
        std::string json;
        std::string error;
    };
    const std::vector<Case> cases = {
        {"no kind", R"({"apiVersion":"v1"})", "apiVersion and kind are required"},
        {"a scalar", "3", "not a Kubernetes object"},
        {"a bad List item", R"({"apiVersion":"v1","kind":"List","items":[{"kind":"Pod"}]})", "item 0 of the List"},
        {"not JSON", "{", "not valid JSON"},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            std::string json = c.json;
            const auto read = read_manifest_objects(json);
            REQUIRE_FALSE(read.ok());
            CHECK_THAT(read.error(), Catch::Contains(c.error));
        }
    }
}

namespace {

class Recorder : public JsonVisitor {
public:
    void start_object() override { out += "{"; }
    void key(std::string_view name) override { out += "k:" + std::string(name) + " "; }
    void end_object() override { out += "}"; }
    void start_array() override { out += "["; }
    void end_array() override { out += "]"; }
    void string(std::string_view value) override { out += "s:" + std::string(value) + " "; }
    void literal(std::string_view json) override { out += "l:" + std::string(json) + " "; }
    std::string out;
};

}  // namespace

TEST_CASE("the walk gives every event in document order", "[manifest_json]") {
    Recorder r;
    REQUIRE(visit_json(R"({"a":[1,"x",null,true,{"b":-2.5}],"c":"y\"z"})", r));
    CHECK(r.out == "{k:a [l:1 s:x l:null l:true {k:b l:-2.5 }]k:c s:y\"z }");
    Recorder broken;
    CHECK_FALSE(visit_json("{", broken));
}
