// A containerd config_path directory as the nodes have it: which directory
// serves a registry, the hosts it gives in order, whose credentials each
// takes, and a directory that cannot be read stopping the start.
#include "../../../src/server/registry/hosts_dir.hpp"

#include "../../temp_dir.hpp"

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
    CHECK(ported[0].keyring_name.empty());  // a mirror's credentials are its own
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
