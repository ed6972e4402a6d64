// What the Kubernetes API (or a --nodes file) answers, read.
#include "model_image_webhook/admission_review.hpp"
#include "model_image_webhook/api_answers.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace miw;

TEST_CASE("Nodes are read from Node objects, Lists and arrays", "[api_answers]") {
    struct Case {
        const char* name;
        std::string json;
        std::size_t count;
        std::string error;
    };
    const std::string node_a = R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"a"},"status":{"nodeInfo":{"kubeletVersion":"v1.35.0","containerRuntimeVersion":"containerd://2.1.0"}}})";
    const std::string node_b = R"({"kind":"Node","metadata":{"name":"b"}})";
    const std::vector<Case> cases = {
        {"one Node", node_a, 1, ""},
        {"a List", R"({"apiVersion":"v1","kind":"List","items":[)" + node_a + "," + node_b + "]}", 2, ""},
        {"a NodeList", R"({"kind":"NodeList","items":[)" + node_a + "]}", 1, ""},
        {"an array", "[" + node_a + "," + node_b + "]", 2, ""},
        {"other kinds are passed over", R"({"kind":"List","items":[{"kind":"Pod","metadata":{"name":"p"}},)" + node_b + "]}", 1, ""},
        {"a Node without a name", R"({"kind":"Node","metadata":{}})", 0, "a Node without metadata.name"},
        {"not JSON", "{", 0, "not valid JSON"},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            StaticNodeSource nodes("test");
            std::string json = c.json;
            const Status added = add_nodes_from_json(json, nodes);
            CHECK(nodes.size() == c.count);
            CHECK(added.ok() == c.error.empty());
            if (!c.error.empty()) CHECK_THAT(added.error(), Catch::Contains(c.error));
        }
    }
    StaticNodeSource nodes("test");
    std::string json = node_a;
    REQUIRE(add_nodes_from_json(json, nodes).ok());
    const NodeLookup a = nodes.lookup("a");
    CHECK(a.info.kubelet_version == "v1.35.0");
    CHECK(a.info.container_runtime_version == "containerd://2.1.0");
}

TEST_CASE("the apiserver's gitVersion is read from GET /version", "[api_answers]") {
    struct Case {
        const char* name;
        std::string json;
        std::string version;
    };
    const std::vector<Case> cases = {
        {"a kube-apiserver", R"({"major":"1","minor":"35","gitVersion":"v1.35.2","gitCommit":"abc","platform":"linux/amd64"})", "v1.35.2"},
        {"a managed one", R"({"major":"1","minor":"36+","gitVersion":"v1.36.1-gke.1200"})", "v1.36.1-gke.1200"},
        {"no gitVersion", R"({"major":"1","minor":"35"})", ""},
        {"gitVersion not a string", R"({"gitVersion":135})", ""},
        {"not an object", R"(["v1.35.0"])", ""},
        {"not JSON", "v1.35.0", ""},
        {"an HTML error page", "<html><body>502 Bad Gateway</body></html>", ""},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            std::string json = c.json;
            CHECK(read_git_version(json) == c.version);
        }
    }
}
