// A containerd config_path directory as the nodes have it: which directory
// serves a registry, the hosts it gives in order, whose credentials each
// takes, and a directory that cannot be read stopping the start.
#include "../../../src/server/registry/hosts_dir.hpp"

#include "../../../src/server/registry/client.hpp"
#include "../../temp_dir.hpp"
#include "scripted_transport.hpp"

#include "model_image_webhook/registry/kubelet_keyring.hpp"
#include "model_image_webhook/text.hpp"

#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>

using namespace miw;
using namespace miw::server;

namespace {

struct ConfigPath {
    miw::test::TempDir temp{"certs-d"};
    const std::string& path = temp.path;
    void write(const std::string& dir, const std::string& name, const std::string& text) const {
        ::mkdir((path + "/" + dir).c_str(), 0755);
        std::ofstream(path + "/" + dir + "/" + name) << text;
    }
};

std::string url(const RegistryHost& h) { return h.url(""); }

}  // namespace

TEST_CASE("a registry's hosts come from its own directory, else _default, else the flags", "[hosts_dir]") {
    ConfigPath dir;
    dir.write("registry.example.com_5000_", "hosts.toml",
              "server = \"https://registry.example.com:5000\"\n[host.\"https://mirror.internal\"]\n  capabilities = [\"pull\", \"resolve\"]\n");
    dir.write("docker.io", "hosts.toml", "[host.\"http://spegel.local:29999\"]\n  capabilities = [\"pull\", \"resolve\"]\n");
    dir.write("_default", "hosts.toml", "[host.\"https://dragonfly.local:4001\"]\n  [host.\"https://dragonfly.local:4001\".header]\n    X-Dragonfly-Registry = \"x\"\n");
    Result<std::unique_ptr<HostsDirectory>> loaded = HostsDirectory::load(dir.path, FlagRegistryHosts({"plain.example"}));
    REQUIRE(loaded);
    const HostsDirectory& hosts = **loaded;
    CHECK(hosts.directories() == 3);

    const auto ported = hosts.hosts_for("registry.example.com:5000");
    REQUIRE(ported.size() == 2);
    CHECK(url(ported[0]) == "https://mirror.internal/v2");
    CHECK(ported[0].keyring_name == "registry.example.com:5000");  // the image's name selects a mirror's credentials too
    CHECK(url(ported[1]) == "https://registry.example.com:5000/v2");
    CHECK(ported[1].keyring_name == "registry.example.com:5000");

    // No server in the file: the registry itself, as the flags reach it (Docker Hub's API host).
    const auto hub = hosts.hosts_for("docker.io");
    REQUIRE(hub.size() == 2);
    CHECK(url(hub[0]) == "http://spegel.local:29999/v2");
    CHECK(url(hub[1]) == "https://registry-1.docker.io/v2");
    CHECK(hub[1].keyring_name == "docker.io");
    CHECK(((hub[1].capabilities & kHostPull) != 0));

    const auto other = hosts.hosts_for("ghcr.io");
    REQUIRE(other.size() == 2);
    CHECK(url(other[0]) == "https://dragonfly.local:4001/v2");
    CHECK(other[0].headers == std::vector<std::pair<std::string, std::string>>{{"X-Dragonfly-Registry", "x"}});
    CHECK(url(other[1]) == "https://ghcr.io/v2");

    // Plain HTTP: the flags' hosts, and hosts.toml's http:// ones.
    CHECK(hosts.insecure("spegel.local:29999", "spegel.local"));
    CHECK(hosts.insecure("plain.example", "plain.example"));
    CHECK_FALSE(hosts.insecure("mirror.internal", "mirror.internal"));
}

TEST_CASE("a directory without hosts.toml lends its .crt files to the registry's own host", "[hosts_dir]") {
    ConfigPath dir;
    dir.write("registry.example.com", "ca.crt", "not read until used\n");
    dir.write("registry.example.com", "client.cert", "");
    const auto loaded = HostsDirectory::load(dir.path, FlagRegistryHosts({}));
    REQUIRE(loaded);
    const auto hosts = (*loaded)->hosts_for("registry.example.com");
    REQUIRE(hosts.size() == 1);
    CHECK(url(hosts[0]) == "https://registry.example.com/v2");
    CHECK(hosts[0].ca_files == std::vector<std::string>{dir.path + "/registry.example.com/ca.crt"});
    // Without a directory for it and no _default: the flags' one host.
    CHECK((*loaded)->hosts_for("quay.io").size() == 1);
}

TEST_CASE("skip_verify and client certificates are told for the start-up log", "[hosts_dir]") {
    ConfigPath dir;
    dir.write("docker.io", "hosts.toml", "[host.\"https://cache.local\"]\n  skip_verify = true\n  client = \"/c.pem\"\n");
    const auto loaded = HostsDirectory::load(dir.path, FlagRegistryHosts({}));
    REQUIRE(loaded);
    REQUIRE((*loaded)->unverified().size() == 1);
    CHECK_THAT((*loaded)->unverified()[0], Catch::Contains("docker.io: https://cache.local"));
    REQUIRE((*loaded)->notes().size() == 1);
    CHECK_THAT((*loaded)->notes()[0], Catch::Contains("client certificates are not presented"));
    CHECK((*loaded)->hosts_for("docker.io")[0].skip_verify);
}

TEST_CASE("a config_path that cannot be used stops the start, naming the file", "[hosts_dir]") {
    struct Case {
        const char* name;
        std::string dir, file, text;
        const char* error;
    };
    const Case cases[] = {
        {"TOML that does not parse", "docker.io", "hosts.toml", "[host.\"https://m\"\n", "docker.io/hosts.toml: not TOML"},
        {"an unknown capability", "docker.io", "hosts.toml", "[host.\"https://m\"]\ncapabilities = [\"fetch\"]\n", "unknown capability"},
        {"a CA file that is not there", "docker.io", "hosts.toml", "[host.\"https://m\"]\nca = \"missing.pem\"\n", "its ca " },
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            ConfigPath dir;
            dir.write(c.dir, c.file, c.text);
            const auto loaded = HostsDirectory::load(dir.path, FlagRegistryHosts({}));
            REQUIRE_FALSE(loaded);
            CHECK_THAT(loaded.error(), Catch::Contains(c.error));
        }
    }
    const auto missing = HostsDirectory::load("/nonexistent/certs.d", FlagRegistryHosts({}));
    REQUIRE_FALSE(missing);
    CHECK_THAT(missing.error(), Catch::Contains("--registry-hosts-dir /nonexistent/certs.d cannot be read"));
}

TEST_CASE("credentials go to a registry's mirrors as the kubelet selects them and containerd's CRI sends them", "[hosts_dir]") {
    // The kubelet matches its keyring against the image's own name and hands
    // each match to the CRI without a ServerAddress; containerd's ParseAuth
    // then gives it to every host it contacts for that image, mirror and
    // server alike (hosts_dir.cpp cites the code). So the image's name
    // decides, never the name of the host asked.
    struct Case {
        const char* name;
        const char* key;  // the pull secret's auths key
        const char* image;
        bool to_mirror;
        bool to_server;
    };
    const Case cases[] = {
        {"keyed by the registry: both hosts", "registry.example.com:5000", "registry.example.com:5000/team/qwen", true, true},
        {"keyed by the registry with a scheme and /v1/", "https://registry.example.com:5000/v1/", "registry.example.com:5000/team/qwen", true, true},
        {"keyed by the registry's path: both hosts", "registry.example.com:5000/team", "registry.example.com:5000/team/qwen", true, true},
        {"keyed by another path of it: neither", "registry.example.com:5000/other", "registry.example.com:5000/team/qwen", false, false},
        {"keyed by a glob of its name: both hosts", "*.example.com:5000", "registry.example.com:5000/team/qwen", true, true},
        {"keyed by the mirror's name: neither", "mirror.internal", "registry.example.com:5000/team/qwen", false, false},
        {"keyed by the registry without its port: neither", "registry.example.com", "registry.example.com:5000/team/qwen", false, false},
    };
    ConfigPath dir;
    dir.write("registry.example.com_5000_", "hosts.toml",
              "server = \"https://registry.example.com:5000\"\n[host.\"https://mirror.internal\"]\n  capabilities = [\"pull\", \"resolve\"]\n");
    Result<std::unique_ptr<HostsDirectory>> loaded = HostsDirectory::load(dir.path, FlagRegistryHosts({}));
    REQUIRE(loaded);
    const std::string secret = "Basic " + base64_encode("puller:pull-pass");
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            KubeletKeyring keyring;
            keyring.add(c.key, {"puller", "pull-pass"});
            // Each host asks for Basic credentials and, given them, has not the digest: both are asked.
            server::test::ScriptedTransport transport([](const HttpRequest& r) {
                return server::test::header_of(r, "Authorization").empty() ? server::test::challenge({R"(Basic realm="registry")"}) : server::test::answer(404);
            });
            Authorizer authorizer(transport, keyring, [](std::string_view, std::string_view) { return false; });
            RegistryClient client(**loaded, authorizer, "linux/amd64");
            client.fetch(std::string(c.image) + "@sha256:" + std::string(64, 'a'), std::chrono::steady_clock::now() + std::chrono::seconds(5));
            bool to_mirror = false, to_server = false;
            for (const HttpRequest& r : transport.sent) {
                if (server::test::header_of(r, "Authorization") != secret) continue;
                to_mirror = to_mirror || server::test::url_starts(r, "https://mirror.internal/");
                to_server = to_server || server::test::url_starts(r, "https://registry.example.com:5000/");
            }
            CHECK(to_mirror == c.to_mirror);
            CHECK(to_server == c.to_server);
        }
    }
}
