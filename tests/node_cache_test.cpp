// The Nodes as the server's watch keeps them.
#include "model_image_webhook/node_cache.hpp"

#include <catch2/catch.hpp>

using namespace miw;

namespace {

const std::string kRef = "registry.example.com/team/qwen@sha256:9372c470eeadd5ecd9c3c74c2b3cb633f8e2f2fad799250a0f70d652b6b825e4";

// A Node labelled kubernetes.io/hostname=hostname.
NodeInfo node(std::string kubelet, std::vector<std::string> images = {}, std::string hostname = "") {
    NodeInfo n{std::move(kubelet), "containerd://2.1.0", std::move(hostname)};
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
    CHECK(cache.lookup(NodeRef{"gpu-a"}).status == NodeLookupStatus::found);
}

TEST_CASE("a list replaces everything; events change one node each", "[node_cache]") {
    NodeCache cache("the Node watch");
    NodeMap listed;
    listed["gpu-b"] = node("v1.35.0", {kRef}, "gpu-b");
    listed["gpu-a"] = node("v1.34.0", {}, "gpu-a");
    cache.replace_all(listed);
    CHECK(cache.synced());
    CHECK(cache.size() == 2);
    CHECK(cache.nodes_holding(kRef, 16) == std::vector<std::string>{"gpu-b"});
    cache.upsert("gpu-a", node("v1.35.1", {kRef}, "gpu-a"));  // modified: the image appeared
    CHECK(cache.nodes_holding(kRef, 16) == std::vector<std::string>{"gpu-a", "gpu-b"});
    CHECK(cache.lookup(NodeRef{"gpu-a"}).info.kubelet_version == "v1.35.1");
    cache.remove("gpu-b");
    CHECK(cache.nodes_holding(kRef, 16) == std::vector<std::string>{"gpu-a"});
    CHECK(cache.lookup(NodeRef{"gpu-b"}).status == NodeLookupStatus::not_found);
    cache.remove("gpu-none");  // deleting what is not there changes nothing
    CHECK(cache.size() == 1);
    cache.replace_all({});  // a relist after every Node went
    CHECK(cache.synced());
    CHECK(cache.nodes_holding(kRef, 16) == std::vector<std::string>{});
}

TEST_CASE("a Node is found by its hostname label through an index the list and every event keep", "[node_cache]") {
    NodeCache cache("the Node watch");
    NodeMap listed;
    listed["ip-10-0-2-9.ec2.internal"] = node("v1.35.0", {kRef}, "ip-10-0-2-9");
    listed["ip-10-0-3-1.ec2.internal"] = node("v1.34.0", {}, "ip-10-0-3-1");
    cache.replace_all(listed);
    const auto by_label = [&](std::string_view value) { return cache.lookup(NodeRef{value, NodeNamedBy::hostname_label}); };
    CHECK(by_label("ip-10-0-2-9").info.kubelet_version == "v1.35.0");
    CHECK(by_label("ip-10-0-2-9.ec2.internal").status == NodeLookupStatus::not_found);  // a name is not a label
    CHECK(cache.lookup(NodeRef{"ip-10-0-2-9"}).status == NodeLookupStatus::not_found);  // nor a label a name
    CHECK(cache.nodes_holding(kRef, 16) == std::vector<std::string>{"ip-10-0-2-9"});
    SECTION("a relabelled Node is found by its new value only") {
        cache.upsert("ip-10-0-3-1.ec2.internal", node("v1.35.2", {}, "gpu-big"));
        CHECK(by_label("gpu-big").info.kubelet_version == "v1.35.2");
        CHECK(by_label("ip-10-0-3-1").status == NodeLookupStatus::not_found);
    }
    SECTION("a Node added by an event, and removed") {
        cache.upsert("ip-10-0-4-4.ec2.internal", node("v1.36.0", {}, "ip-10-0-4-4"));
        CHECK(by_label("ip-10-0-4-4").info.kubelet_version == "v1.36.0");
        cache.remove("ip-10-0-4-4.ec2.internal");
        CHECK(by_label("ip-10-0-4-4").status == NodeLookupStatus::not_found);
    }
    SECTION("two Nodes with one value: the first by name answers, and the other once it goes") {
        cache.upsert("a-second.ec2.internal", node("v1.36.1", {}, "ip-10-0-2-9"));
        CHECK(by_label("ip-10-0-2-9").info.kubelet_version == "v1.36.1");
        cache.remove("a-second.ec2.internal");
        CHECK(by_label("ip-10-0-2-9").info.kubelet_version == "v1.35.0");
        cache.remove("ip-10-0-2-9.ec2.internal");
        CHECK(by_label("ip-10-0-2-9").status == NodeLookupStatus::not_found);
    }
}
