// Credentials matched as the kubelet's keyring matches them, on the cases
// its documentation and tests give.
#include "model_image_webhook/registry/kubelet_keyring.hpp"

#include <catch2/catch.hpp>

using namespace miw;

namespace {

std::vector<std::string> users(const std::vector<RegistryCredential>& found) {
    std::vector<std::string> out;
    for (const RegistryCredential& c : found) out.push_back(c.username);
    return out;
}

}  // namespace

TEST_CASE("a keyring key is the auths key without its scheme or API version", "[kubelet_keyring]") {
    struct Case {
        const char* location;
        const char* key;
    };
    const Case cases[] = {
        {"https://index.docker.io/v1/", "index.docker.io"},
        {"registry.example.com", "registry.example.com"},
        {"http://registry.example.com:5000", "registry.example.com:5000"},
        {"registry.example.com/v2/", "registry.example.com"},
        {"quay.io/team", "quay.io/team"},
        {"https://quay.io/v2/team/models", "quay.io/team/models"},
        {"*.example.com", "*.example.com"},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.location) { CHECK(kubelet_keyring_key(c.location) == c.key); }
    }
}

TEST_CASE("an image matches keys as the kubelet's URLsMatch does", "[kubelet_keyring]") {
    struct Case {
        const char* key;
        const char* image;
        bool matches;
    };
    const Case cases[] = {
        // The kubelet's documented examples (Kubernetes docs, "Pull an Image from a Private Registry").
        {"*.kubernetes.io", "abc.kubernetes.io", true},
        {"*.kubernetes.io", "kubernetes.io", false},
        {"*.*.kubernetes.io", "abc.kubernetes.io", false},
        {"*.*.kubernetes.io", "abc.def.kubernetes.io", true},
        {"prefix.*.io", "prefix.kubernetes.io", true},
        {"*-good.kubernetes.io", "prefix-good.kubernetes.io", true},
        {"my-registry.io/images", "my-registry.io/images", true},
        {"my-registry.io/images", "my-registry.io/images/my-image", true},
        {"my-registry.io/images", "my-registry.io/images/another-image", true},
        {"*.my-registry.io/images", "sub.my-registry.io/images/my-image", true},
        {"my-registry.io/images", "a.sub.my-registry.io/images/my-image", false},
        {"my-registry.io/images", "a.b.sub.my-registry.io/images/my-image", false},
        {"my-registry.io/images", "my-registry.io/other/my-image", false},
        // Ports are compared whole.
        {"registry.example.com:5000", "registry.example.com:5000/team/qwen", true},
        {"registry.example.com", "registry.example.com:5000/team/qwen", false},
        {"registry.example.com:5000", "registry.example.com/team/qwen", false},
        {"*.example.com:5000", "r.example.com:5000/team/qwen", true},
        {"127.0.0.1:5000", "127.0.0.1:5000/models/qwen", true},
        {"docker.io", "docker.io/library/qwen", true},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.key << " ~ " << c.image) { CHECK(kubelet_key_matches(c.key, c.image) == c.matches); }
    }
}

TEST_CASE("every matching credential is returned, the most specific key first", "[kubelet_keyring]") {
    KubeletKeyring keyring;
    keyring.add("quay.io", {"org-wide", "p1"});
    keyring.add("https://quay.io/v2/team", {"team", "p2"});
    keyring.add("quay.io/team/models", {"models", "p3"});
    keyring.add("*.io", {"any-io", "p4"});
    keyring.add("gcr.io", {"gcr", "p5"});
    CHECK(users(keyring.lookup("quay.io", "team/models/qwen")) == std::vector<std::string>{"models", "team", "org-wide", "any-io"});
    CHECK(users(keyring.lookup("quay.io", "other/qwen")) == std::vector<std::string>{"org-wide", "any-io"});
    CHECK(users(keyring.lookup("ghcr.io", "x/y")) == std::vector<std::string>{"any-io"});
    CHECK(keyring.lookup("registry.example.com", "x/y").empty());
    // One key, two credentials (rotation): both, in the order added.
    keyring.add("gcr.io", {"gcr-next", "p6"});
    CHECK(users(keyring.lookup("gcr.io", "p/m")) == std::vector<std::string>{"gcr", "gcr-next", "any-io"});
}

TEST_CASE("Docker Hub's legacy key serves images that pull from Docker Hub, and nothing matched before it", "[kubelet_keyring]") {
    KubeletKeyring keyring;
    keyring.add("https://index.docker.io/v1/", {"hub", "p"});
    CHECK(users(keyring.lookup("docker.io", "library/qwen")) == std::vector<std::string>{"hub"});
    CHECK(users(keyring.lookup_image("vllm/vllm-openai")) == std::vector<std::string>{"hub"});
    CHECK(users(keyring.lookup_image("ubuntu")) == std::vector<std::string>{"hub"});
    CHECK(keyring.lookup("registry.example.com", "team/qwen").empty());
    CHECK(keyring.lookup("localhost:5000", "qwen").empty());
    keyring.add("docker.io/vllm", {"vllm-team", "q"});
    CHECK(users(keyring.lookup("docker.io", "vllm/vllm-openai")) == std::vector<std::string>{"vllm-team"});
}

TEST_CASE("keyrings asked in order: a Pod's pull secrets before the cluster's", "[kubelet_keyring]") {
    KubeletKeyring pod, cluster;
    pod.add("registry.example.com", {"pod-secret", "a"});
    cluster.add("registry.example.com", {"cluster", "b"});
    cluster.add("other.example.com", {"cluster-other", "c"});
    const UnionKeyring both({&pod, &cluster});
    CHECK(users(both.lookup("registry.example.com", "team/qwen")) == std::vector<std::string>{"pod-secret", "cluster"});
    CHECK(users(both.lookup("other.example.com", "team/qwen")) == std::vector<std::string>{"cluster-other"});
    // One credential in both: given once, where it first stands.
    cluster.add("registry.example.com", {"pod-secret", "a"});
    CHECK(users(both.lookup("registry.example.com", "team/qwen")) == std::vector<std::string>{"pod-secret", "cluster"});
    CHECK(users(both.lookup_until("registry.example.com", "team/qwen", std::chrono::steady_clock::now()).credentials) ==
          std::vector<std::string>{"pod-secret", "cluster"});
}

TEST_CASE("several pull secrets make one keyring, its most specific keys first", "[kubelet_keyring]") {
    KubeletKeyring first, second, all;
    first.add("registry.example.com", {"wide", "a"});
    second.add("registry.example.com/team", {"team", "b"});
    second.add("registry.example.com", {"wide-2", "c"});
    all.add_all(first);
    all.add_all(second);
    CHECK(users(all.lookup("registry.example.com", "team/qwen")) == std::vector<std::string>{"team", "wide", "wide-2"});
    CHECK(all.size() == 2);
}

TEST_CASE("a keyring tells what it holds, by key, each key's credentials in order", "[kubelet_keyring]") {
    KubeletKeyring k;
    k.add("https://registry.example.com/v1/", {"alice", "password-1"});
    k.add("registry.example.com", {"bob", "password-2"});
    k.add("other.example.com/team", {"carol", "password-3"});
    REQUIRE(k.entries().size() == 2);
    CHECK(k.entries().at("registry.example.com").size() == 2);
    CHECK(k.entries().at("registry.example.com")[1].username == "bob");
    CHECK(k.entries().count("other.example.com/team") == 1);
    CHECK(k.bytes() > std::string("password-1").size());
}
