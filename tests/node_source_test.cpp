#include "model_image_webhook/node_source.hpp"

#include <catch2/catch.hpp>

using namespace miw;

TEST_CASE("a static node source finds the Nodes it was given", "[node_source]") {
    StaticNodeSource nodes("--nodes nodes.yaml");
    nodes.add("gpu-1", {"v1.35.0", "containerd://2.1.6"});
    nodes.add("gpu-2", {"v1.34.1", "containerd://2.0.5"});
    nodes.add("gpu-2", {"v1.35.2", "containerd://2.2.0"});  // a later copy wins
    CHECK(nodes.size() == 2);
    CHECK(nodes.origin() == "--nodes nodes.yaml");
    const NodeLookup one = nodes.lookup("gpu-1");
    CHECK(one.status == NodeLookupStatus::found);
    CHECK(one.info.kubelet_version == "v1.35.0");
    CHECK(nodes.lookup("gpu-2").info.container_runtime_version == "containerd://2.2.0");
    CHECK(nodes.lookup("gpu-9").status == NodeLookupStatus::not_found);
    CHECK(nodes.lookup("").status == NodeLookupStatus::not_found);
}
