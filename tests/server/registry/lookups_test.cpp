// The registry check's files re-read when they change, as a Secret volume
// changes them (its `..data` link swapped): applied, kept when the new
// version does not read, and not read again until it changes.
#include "../../../src/server/registry/lookups.hpp"

#include "../../temp_dir.hpp"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

using namespace miw;
using namespace miw::server;

namespace {

// A directory laid out as the kubelet lays out a Secret volume: DIR/..VERSION/FILE,
// DIR/..data -> ..VERSION, DIR/FILE -> ..data/FILE; a new version is a new
// directory and an atomic rename of the ..data link.
struct SecretVolume {
    miw::test::TempDir temp{"secret-volume"};
    const std::string& dir = temp.path;
    int versions = 0;

    std::string publish(const std::string& name, const std::string& text) {
        const std::string version = "..v" + std::to_string(++versions);
        ::mkdir((dir + "/" + version).c_str(), 0755);
        std::ofstream(dir + "/" + version + "/" + name) << text;
        const std::string staged = dir + "/..data_tmp";
        ::unlink(staged.c_str());
        REQUIRE(::symlink(version.c_str(), staged.c_str()) == 0);
        REQUIRE(std::rename(staged.c_str(), (dir + "/..data").c_str()) == 0);
        ::symlink(("..data/" + name).c_str(), (dir + "/" + name).c_str());  // there from the first version on
        return dir + "/" + name;
    }
};

std::string auths(const std::string& user) { return R"({"auths":{"registry.example.com":{"username":")" + user + R"(","password":"p"}}})"; }

}  // namespace

TEST_CASE("a file swapped as a Secret volume swaps it is re-read; one that no longer reads keeps the last good", "[registry_lookups]") {
    SecretVolume volume;
    RegistrySettings settings;
    settings.auth_file = volume.publish(".dockerconfigjson", auths("first"));
    Result<std::unique_ptr<RegistryLookups>> made = RegistryLookups::create(settings);
    REQUIRE(made);
    RegistryLookups& lookups = **made;

    CHECK_FALSE(lookups.reload().applied);  // nothing changed

    volume.publish(".dockerconfigjson", auths("second"));
    RegistryReload r = lookups.reload();
    CHECK(r.applied);
    CHECK(r.changed == std::vector<std::string>{"--registry-auth"});
    CHECK(r.error.empty());

    volume.publish(".dockerconfigjson", "{not json");
    r = lookups.reload();
    CHECK_FALSE(r.applied);
    CHECK_THAT(r.error, Catch::Contains("--registry-auth " + settings.auth_file));
    // Not read again, nor said again, until it changes.
    r = lookups.reload();
    CHECK_FALSE(r.applied);
    CHECK(r.error.empty());

    volume.publish(".dockerconfigjson", auths("third"));
    r = lookups.reload();
    CHECK(r.applied);
    CHECK(r.error.empty());
}

TEST_CASE("a hosts directory is re-read when a hosts.toml changes or comes; one that does not parse keeps the last good", "[registry_lookups]") {
    miw::test::TempDir hosts{"certs-d"};
    ::mkdir((hosts.path + "/registry.example.com").c_str(), 0755);
    const std::string toml = hosts.path + "/registry.example.com/hosts.toml";
    std::ofstream(toml) << "server = \"https://registry.example.com\"\n";
    RegistrySettings settings;
    settings.hosts_dir = hosts.path;
    Result<std::unique_ptr<RegistryLookups>> made = RegistryLookups::create(settings);
    REQUIRE(made);
    RegistryLookups& lookups = **made;
    CHECK_FALSE(lookups.reload().applied);

    // A new mirror, with skip_verify: applied, and told for the log.
    std::ofstream(toml) << "server = \"https://registry.example.com\"\n[host.\"https://mirror.example\"]\n  skip_verify = true\n  capabilities = [\"pull\"]\n";
    ::utimensat(AT_FDCWD, toml.c_str(), nullptr, 0);
    RegistryReload r = lookups.reload();
    CHECK(r.applied);
    CHECK(r.changed == std::vector<std::string>{"--registry-hosts-dir"});
    REQUIRE(r.unverified.size() == 1);
    CHECK_THAT(r.unverified[0], Catch::Contains("mirror.example"));

    // A new directory that does not parse: the last good one stays.
    ::mkdir((hosts.path + "/broken.example").c_str(), 0755);
    std::ofstream(hosts.path + "/broken.example/hosts.toml") << "server = [\n";
    r = lookups.reload();
    CHECK_FALSE(r.applied);
    CHECK_THAT(r.error, Catch::Contains("broken.example/hosts.toml"));
    CHECK(lookups.hosts_unverified().size() == 1);
}
