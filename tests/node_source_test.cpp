#include "model_image_webhook/node_source.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace miw;

TEST_CASE("a static node source finds the Nodes it was given", "[node_source]") {
    StaticNodeSource nodes("--nodes nodes.yaml");
    nodes.add("gpu-1", {"v1.35.0", "containerd://2.1.6"});
    nodes.add("gpu-2", {"v1.34.1", "containerd://2.0.5"});
    nodes.add("gpu-2", {"v1.35.2", "containerd://2.2.0"});  // a later copy wins
    CHECK(nodes.size() == 2);
    CHECK(nodes.origin() == "--nodes nodes.yaml");
    const NodeLookup one = nodes.lookup(NodeRef{"gpu-1"});
    CHECK(one.status == NodeLookupStatus::found);
    CHECK(one.info.kubelet_version == "v1.35.0");
    CHECK(nodes.lookup(NodeRef{"gpu-2"}).info.container_runtime_version == "containerd://2.2.0");
    CHECK(nodes.lookup(NodeRef{"gpu-9"}).status == NodeLookupStatus::not_found);
    CHECK(nodes.lookup(NodeRef{""}).status == NodeLookupStatus::not_found);
}

TEST_CASE("only digest-pinned image names are kept, as hashes", "[node_source]") {
    struct Case {
        const char* name;
        bool pinned;
    };
    const Case cases[] = {
        {"registry.example.com/team/qwen@sha256:9372c470eeadd5ecd9c3c74c2b3cb633f8e2f2fad799250a0f70d652b6b825e4", true},
        {"docker.io/library/busybox@sha256:abc", true},
        {"registry.example.com/team/qwen:v1", false},
        {"registry.example.com:5000/team/qwen", false},
        {"qwen", false},
        {"@sha256:abc", false},
    };
    for (const auto& c : cases) {
        INFO(c.name);
        CHECK(miw::is_digest_pinned_name(c.name) == c.pinned);
    }
    miw::NodeInfo n;
    n.add_image_name("registry.example.com/team/qwen:v1");
    n.add_image_name("b.example/x@sha256:2");
    n.add_image_name("a.example/x@sha256:1");
    n.add_image_name("a.example/x@sha256:1");  // a second name of the same image
    CHECK(n.pinned_images.size() == 2);
    CHECK(std::is_sorted(n.pinned_images.begin(), n.pinned_images.end()));
    CHECK(n.holds_image("a.example/x@sha256:1"));
    CHECK_FALSE(n.holds_image("a.example/x@sha256:12"));
    CHECK_FALSE(n.holds_image("registry.example.com/team/qwen:v1"));
    CHECK(miw::image_name_hash("a") != miw::image_name_hash("b"));
    CHECK(miw::image_name_hash("") == 14695981039346656037ull);  // FNV-1a's offset basis
}

TEST_CASE("a Node holds an image by its name as the runtime lists it, however a Pod writes it", "[node_source]") {
    const std::string digest = "sha256:" + std::string(64, 'c');
    miw::NodeInfo n;
    // containerd reports normalised names, without the tag beside a digest.
    n.add_image_name("docker.io/library/qwen@" + digest);
    n.add_image_name("registry.example.com/team/llama@" + digest);
    struct Case {
        std::string reference;
        bool held;
    };
    const Case cases[] = {
        {"qwen@" + digest, true},
        {"docker.io/qwen@" + digest, true},
        {"index.docker.io/library/qwen@" + digest, true},
        {"docker.io/library/qwen:2.5@" + digest, true},
        {"registry.example.com/team/llama:v1@" + digest, true},
        {"registry.example.com/team/llama@" + digest, true},
        {"other/qwen@" + digest, false},
        {"registry.example.com/team/qwen@" + digest, false},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.reference) { CHECK(n.holds_image(c.reference) == c.held); }
    }
    // The runtime's other spelling of one image is the same image.
    n.add_image_name("index.docker.io/library/qwen@" + digest);
    CHECK(n.pinned_images.size() == 2);
}
