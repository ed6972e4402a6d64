// containerd's hosts.toml read as containerd reads it: the examples of its
// docs/hosts.md, the order hosts are written in, and files that are wrong.
#include "model_image_webhook/hosts_toml.hpp"

#include <catch2/catch.hpp>

using namespace miw;

namespace {

HostsFile read(const std::string& text) {
    Result<HostsFile> r = read_hosts_toml(text, "/etc/containerd/certs.d/docker.io");
    INFO(text);
    REQUIRE(r);
    return std::move(*r);
}

std::string url_of(const HostsFileEntry& e) { return e.scheme + "://" + e.host + (e.port.empty() ? "" : ":" + e.port) + e.path; }

}  // namespace

TEST_CASE("hosts are asked in the order the file writes them, then the server", "[hosts_toml]") {
    const HostsFile f = read(R"(
server = "https://registry-1.docker.io"

[host."https://zot.mirror.internal:5000"]
  capabilities = ["pull", "resolve"]

[host."http://192.168.31.250:5000"]
  capabilities = ["pull"]
  skip_verify = true

[host."https://another.mirror"]
)");
    REQUIRE(f.hosts.size() == 4);
    CHECK(url_of(f.hosts[0]) == "https://zot.mirror.internal:5000/v2");
    CHECK(url_of(f.hosts[1]) == "http://192.168.31.250:5000/v2");
    CHECK(url_of(f.hosts[2]) == "https://another.mirror/v2");
    CHECK(url_of(f.hosts[3]) == "https://registry-1.docker.io/v2");
    CHECK((f.hosts[0].pull && f.hosts[0].resolve));
    CHECK((f.hosts[1].pull && !f.hosts[1].resolve));
    CHECK(f.hosts[1].skip_verify == true);
    CHECK_FALSE(f.hosts[0].skip_verify.has_value());
    CHECK((f.hosts[2].pull && f.hosts[2].resolve));  // none set: every capability
}

TEST_CASE("a host's settings: ca, headers, client, override_path", "[hosts_toml]") {
    struct Case {
        const char* name;
        std::string text;
        std::string url;  // of the first entry
        std::vector<std::string> ca = {};
        std::vector<std::pair<std::string, std::string>> headers = {};
        bool client = false;
    };
    const Case cases[] = {
        {"a CA file relative to the directory", "[host.\"https://mirror.example\"]\n  ca = \"mirror.pem\"\n", "https://mirror.example/v2",
         {"/etc/containerd/certs.d/docker.io/mirror.pem"}},
        {"CA files as a list, one absolute", "[host.\"https://mirror.example\"]\n  ca = [\"/etc/certs/a.pem\", \"b.pem\"]\n", "https://mirror.example/v2",
         {"/etc/certs/a.pem", "/etc/certs.d/docker.io/b.pem"}},
        {"headers, one value or several", "[host.\"https://mirror.example\".header]\n  x-custom-1 = \"a\"\n  x-custom-2 = [\"b\", \"c\"]\n",
         "https://mirror.example/v2", {}, {{"x-custom-1", "a"}, {"x-custom-2", "b"}, {"x-custom-2", "c"}}},
        {"a path prefix gains /v2", "[host.\"https://harbor.example/v2/dockerhub-proxy\"]\n", "https://harbor.example/v2/dockerhub-proxy/v2"},
        {"override_path keeps the path as the API root", "[host.\"https://harbor.example/v2/dockerhub-proxy\"]\n  override_path = true\n",
         "https://harbor.example/v2/dockerhub-proxy"},
        {"a path already ending in /v2", "[host.\"https://mirror.example/cache/v2/\"]\n", "https://mirror.example/cache/v2"},
        {"no scheme is https", "[host.\"mirror.example:8443\"]\n", "https://mirror.example:8443/v2"},
        {"an IPv6 host", "[host.\"https://[fd00::1]:5000\"]\n", "https://fd00::1:5000/v2"},
        {"client certificates are noted", "[host.\"https://mirror.example\"]\n  client = [[\"/c.pem\", \"/k.pem\"]]\n", "https://mirror.example/v2", {}, {}, true},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            const Result<HostsFile> r = read_hosts_toml(c.text, c.name == std::string("CA files as a list, one absolute") ? "/etc/certs.d/docker.io" :
                                                                                                                       "/etc/containerd/certs.d/docker.io");
            REQUIRE(r);
            REQUIRE(r->hosts.size() == 2);
            CHECK(url_of(r->hosts[0]) == c.url);
            CHECK(r->hosts[0].ca_files == c.ca);
            CHECK(r->hosts[0].headers == c.headers);
            CHECK(r->hosts[0].client_certificates == c.client);
            // No server: the last entry is the registry's own host, to be filled in.
            CHECK(r->hosts[1].host.empty());
        }
    }
}

TEST_CASE("the top level's settings are the server's", "[hosts_toml]") {
    const HostsFile f = read("server = \"https://registry.example.com\"\nca = \"/etc/certs/registry.pem\"\nskip_verify = false\n"
                             "capabilities = [\"pull\"]\n[header]\n  authorization-hint = \"x\"\n");
    REQUIRE(f.hosts.size() == 1);
    CHECK(url_of(f.hosts[0]) == "https://registry.example.com/v2");
    CHECK(f.hosts[0].ca_files == std::vector<std::string>{"/etc/certs/registry.pem"});
    CHECK(f.hosts[0].skip_verify == false);
    CHECK((f.hosts[0].pull && !f.hosts[0].resolve));
    CHECK(f.hosts[0].headers.size() == 1);
    // An empty file: the registry's own host alone.
    const HostsFile empty = read("");
    REQUIRE(empty.hosts.size() == 1);
    CHECK(empty.hosts[0].host.empty());
}

TEST_CASE("a file containerd would not take is an error naming what is wrong", "[hosts_toml]") {
    struct Case {
        const char* name;
        const char* text;
        const char* error;
    };
    const Case cases[] = {
        {"not TOML", "server = \n", "not TOML (line 1"},
        {"an unknown capability", "[host.\"https://m\"]\n  capabilities = [\"pull\", \"fetch\"]\n", "unknown capability \"fetch\""},
        {"capabilities not a list", "[host.\"https://m\"]\n  capabilities = \"pull\"\n", "capabilities is not a list"},
        {"ca of another type", "[host.\"https://m\"]\n  ca = 5\n", "ca is neither a path nor a list of paths"},
        {"a header of another type", "[host.\"https://m\".header]\n  x = 1\n", "header \"x\" is neither a string nor a list of strings"},
        {"skip_verify not a boolean", "[host.\"https://m\"]\n  skip_verify = \"yes\"\n", "skip_verify is not true or false"},
        {"host not a table", "host = \"https://m\"\n", "host is not a table"},
        {"a host of another scheme", "[host.\"ftp://m\"]\n", "neither https nor http"},
        {"a host with no name", "[host.\"https://\"]\n", "names no host"},
        {"a port that is no number", "[host.\"https://m:port\"]\n", "port that is not a number"},
        {"a server that is no string", "server = 5\n", "server is not a string"},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            const Result<HostsFile> r = read_hosts_toml(c.text, "/d");
            REQUIRE_FALSE(r);
            CHECK_THAT(r.error(), Catch::Contains(c.error));
        }
    }
}

TEST_CASE("the directories containerd tries for a registry", "[hosts_toml]") {
    CHECK(hosts_directories("docker.io") == std::vector<std::string>{"docker.io", "_default"});
    CHECK(hosts_directories("registry.example.com:5000") == std::vector<std::string>{"registry.example.com_5000_", "registry.example.com:5000", "_default"});
}
