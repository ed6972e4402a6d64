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
    const NodeLookup a = nodes.lookup(NodeRef{"a"});
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

namespace {
const std::string kPinned = "registry.example.com/team/qwen@sha256:9372c470eeadd5ecd9c3c74c2b3cb633f8e2f2fad799250a0f70d652b6b825e4";
const std::string kWarmNode = R"({"kind":"Node","metadata":{"name":"gpu-a.ec2.internal","resourceVersion":"41","labels":{"kubernetes.io/hostname":"gpu-a","pool":"h100"}},"status":{"nodeInfo":{"kubeletVersion":"v1.35.0","containerRuntimeVersion":"containerd://2.1.0"},"images":[{"names":[")" +
                              kPinned + R"(","registry.example.com/team/qwen:v1"],"sizeBytes":16000000000},{"names":["busybox:1.36"]},{"sizeBytes":1}]}})";
}  // namespace

TEST_CASE("a Node's digest-pinned image names are kept for placement", "[api_answers]") {
    StaticNodeSource nodes("test");
    std::string json = kWarmNode;
    REQUIRE(add_nodes_from_json(json, nodes));
    const NodeLookup a = nodes.lookup(NodeRef{"gpu-a.ec2.internal"});
    CHECK(a.info.hostname == "gpu-a");
    CHECK(nodes.lookup(NodeRef{"gpu-a", NodeNamedBy::hostname_label}).status == NodeLookupStatus::found);
    CHECK(a.info.pinned_images.size() == 1);
    CHECK(a.info.holds_image(kPinned));
    CHECK_FALSE(a.info.holds_image("registry.example.com/team/qwen:v1"));
    CHECK(nodes.nodes_holding(kPinned, 16) == std::vector<std::string>{"gpu-a"});
}

TEST_CASE("a page of the Node list says where the watch starts and whether more follow", "[api_answers]") {
    std::string json = R"({"kind":"NodeList","apiVersion":"v1","metadata":{"resourceVersion":"1200","continue":"abc"},"items":[)" + kWarmNode +
                       R"(,{"kind":"Node","metadata":{"name":"cpu-1"}}]})";
    const Result<NodeListPage> page = read_node_list(json);
    REQUIRE(page);
    CHECK(page->resource_version == "1200");
    CHECK(page->continue_token == "abc");
    REQUIRE(page->items.size() == 2);
    CHECK(page->items[0].name == "gpu-a.ec2.internal");
    CHECK(page->items[0].info.hostname == "gpu-a");
    CHECK(page->items[1].info.hostname.empty());
    CHECK(page->items[0].info.holds_image(kPinned));
    CHECK(page->items[1].name == "cpu-1");
    for (std::string bad : {std::string("{"), std::string(R"({"kind":"Status","code":403})"), std::string(R"({"items":[{"metadata":{}}]})")}) {
        INFO(bad);
        CHECK_FALSE(read_node_list(bad));
    }
}

TEST_CASE("watch events are read as the apiserver writes them", "[api_answers]") {
    struct Case {
        const char* name;
        std::string json;
        bool ok;
        WatchEventType type;
        std::string node;
        std::string resource_version;
        int code;
    };
    const std::vector<Case> cases = {
        {"added", R"({"type":"ADDED","object":)" + kWarmNode + "}", true, WatchEventType::added, "gpu-a.ec2.internal", "41", 0},
        {"modified", R"({"type":"MODIFIED","object":)" + kWarmNode + "}", true, WatchEventType::modified, "gpu-a.ec2.internal", "41", 0},
        {"deleted", R"({"type":"DELETED","object":)" + kWarmNode + "}", true, WatchEventType::deleted, "gpu-a.ec2.internal", "41", 0},
        {"a bookmark", R"({"type":"BOOKMARK","object":{"kind":"Node","apiVersion":"v1","metadata":{"resourceVersion":"1300","annotations":{"k8s.io/initial-events-end":"true"}}}})",
         true, WatchEventType::bookmark, "", "1300", 0},
        {"too old a resource version", R"x({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (1200)","reason":"Expired","code":410}})x",
         true, WatchEventType::error, "", "", 410},
        {"an unknown type", R"({"type":"SYNC","object":{}})", false, WatchEventType::error, "", "", 0},
        {"no object", R"({"type":"ADDED"})", false, WatchEventType::error, "", "", 0},
        {"a Node without a name", R"({"type":"ADDED","object":{"kind":"Node","metadata":{}}})", false, WatchEventType::error, "", "", 0},
        {"not JSON", "{\"type\":", false, WatchEventType::error, "", "", 0},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            std::string json = c.json;
            const Result<NodeWatchEvent> e = read_node_watch_event(json);
            REQUIRE(bool(e) == c.ok);
            if (!c.ok) continue;
            CHECK(e->type == c.type);
            CHECK(e->object.name == c.node);
            CHECK(e->resource_version == c.resource_version);
            CHECK(e->code == c.code);
        }
    }
}

TEST_CASE("ModelArtifacts are read with their source and image reference", "[api_answers]") {
    struct Case {
        const char* name;
        std::string json;
        std::string ns;
        std::string source;
        std::string reference;
    };
    const std::vector<Case> cases = {
        {"an image source", R"({"apiVersion":"worker.gpustack.ai/v1alpha1","kind":"ModelArtifact","metadata":{"name":"a","namespace":"ml"},"spec":{"source":{"image":{"reference":"r.io/q@sha256:1"}}}})",
         "ml", "image", "r.io/q@sha256:1"},
        {"no namespace: default", R"({"kind":"ModelArtifact","metadata":{"name":"a"},"spec":{"source":{"huggingFace":{"repo":"Qwen/Q"}}}})", "default", "huggingFace", ""},
        {"a List of them", R"({"kind":"List","items":[{"kind":"Node","metadata":{"name":"n"}},{"kind":"ModelArtifact","metadata":{"name":"a","namespace":"ml"},"spec":{"source":{"persistentVolumeClaim":{"claimName":"w"}}}}]})",
         "ml", "persistentVolumeClaim", ""},
        {"two sources: none it can mount", R"({"kind":"ModelArtifact","metadata":{"name":"a","namespace":"ml"},"spec":{"source":{"image":{"reference":"r.io/q@sha256:1"},"modelScope":{}}}})",
         "ml", "", ""},
        {"a null member is absent", R"({"kind":"ModelArtifact","metadata":{"name":"a","namespace":"ml"},"spec":{"source":{"image":{"reference":"r"},"modelScope":null}}})",
         "ml", "image", "r"},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            StaticArtifactSource artifacts("test");
            std::string json = c.json;
            REQUIRE(add_artifacts_from_json(json, artifacts));
            const ArtifactLookup found = artifacts.lookup(c.ns, "a");
            REQUIRE(found.status == ArtifactLookupStatus::found);
            CHECK(found.info.source == c.source);
            CHECK(found.info.image_reference == c.reference);
        }
    }
    SECTION("one without a name is an error") {
        StaticArtifactSource artifacts("test");
        std::string json = R"({"kind":"ModelArtifact","metadata":{}})";
        CHECK_FALSE(add_artifacts_from_json(json, artifacts));
    }
}

TEST_CASE("a Node's ephemeral-storage capacity is read, and left unknown where it cannot be", "[api_answers]") {
    struct Case {
        const char* name;
        const char* capacity;  // the status.capacity object's text
        std::optional<std::uint64_t> bytes;
    };
    const Case cases[] = {
        {"as the kubelet reports it", R"({"cpu":"96","ephemeral-storage":"1844284980Ki","nvidia.com/gpu":"8"})", 1844284980ull * 1024},
        {"none reported", R"({"cpu":"96"})", std::nullopt},
        {"not a quantity", R"({"ephemeral-storage":"lots"})", std::nullopt},
        {"not a string", R"({"ephemeral-storage":100})", std::nullopt},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            std::string json = std::string(R"({"kind":"Node","metadata":{"name":"gpu-a"},"status":{"capacity":)") + c.capacity + "}}";
            StaticNodeSource nodes("test");
            REQUIRE(add_nodes_from_json(json, nodes).ok());
            const NodeLookup found = nodes.lookup({"gpu-a", NodeNamedBy::name});
            REQUIRE(found.status == NodeLookupStatus::found);
            CHECK(found.info.ephemeral_storage_bytes == c.bytes);
        }
    }
}
