// The Nodes as the server's watch keeps them.
#include "model_image_webhook/node_cache.hpp"

#include <catch2/catch.hpp>

using namespace miw;

namespace {

const std::string kRef = "registry.example.com/team/qwen@sha256:9372c470eeadd5ecd9c3c74c2b3cb633f8e2f2fad799250a0f70d652b6b825e4";

NodeInfo node(std::string kubelet, std::vector<std::string> images = {}) {
    NodeInfo n{std::move(kubelet), "containerd://2.1.0", {}};
    for (const auto& i : images) n.add_image_name(i);
    return n;
}

}  // namespace

TEST_CASE("until its first list the cache prefers no node", "[node_cache]") {
    NodeCache cache("the Node watch");
    CHECK_FALSE(cache.synced());
    CHECK_FALSE(cache.nodes_holding(kRef, 16));
    cache.upsert("gpu-a", node("v1.35.0", {kRef}));  // an event before the list
    CHECK_FALSE(cache.nodes_holding(kRef, 16));
    CHECK(cache.lookup("gpu-a").status == NodeLookupStatus::found);
}

TEST_CASE("a list replaces everything; events change one node each", "[node_cache]") {
    NodeCache cache("the Node watch");
    NodeMap listed;
    listed["gpu-b"] = node("v1.35.0", {kRef});
    listed["gpu-a"] = node("v1.34.0");
    cache.replace_all(listed);
    CHECK(cache.synced());
    CHECK(cache.size() == 2);
    CHECK(cache.nodes_holding(kRef, 16) == std::vector<std::string>{"gpu-b"});
    cache.upsert("gpu-a", node("v1.35.1", {kRef}));  // modified: the image appeared
    CHECK(cache.nodes_holding(kRef, 16) == std::vector<std::string>{"gpu-a", "gpu-b"});
    CHECK(cache.lookup("gpu-a").info.kubelet_version == "v1.35.1");
    cache.remove("gpu-b");
    CHECK(cache.nodes_holding(kRef, 16) == std::vector<std::string>{"gpu-a"});
    CHECK(cache.lookup("gpu-b").status == NodeLookupStatus::not_found);
    cache.remove("gpu-none");  // deleting what is not there changes nothing
    CHECK(cache.size() == 1);
    cache.replace_all({});  // a relist after every Node went
    CHECK(cache.synced());
    CHECK(cache.nodes_holding(kRef, 16) == std::vector<std::string>{});
}
