// Credential provider plugins run as the kubelet runs them: scripts written
// here to the public API, matched, not matched, failing, hanging, talking
// nonsense, and kept as their answers say.
#include "../../../src/server/registry/credential_providers.hpp"

#include "../../temp_dir.hpp"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

using namespace miw;
using namespace miw::server;
using namespace std::chrono_literals;

namespace {

struct PluginDir {
    // A plugin: a shell script with this body, executable.
    void write(const std::string& name, const std::string& body) const {
        const std::string file = path + "/" + name;
        std::ofstream(file) << "#!/bin/sh\n" << body;
        ::chmod(file.c_str(), 0755);
    }
    int count(const std::string& name) const {
        std::ifstream in(path + "/" + name + ".runs");
        int n = 0;
        std::string line;
        while (std::getline(in, line)) ++n;
        return n;
    }
    miw::test::TempDir temp{"plugins"};
    const std::string& path = temp.path;
};

CredentialProvider provider(const std::string& name, std::vector<std::string> match, std::chrono::seconds cache = 0s) {
    CredentialProvider p;
    p.name = name;
    p.match_images = std::move(match);
    p.default_cache_duration = cache;
    return p;
}

// A plugin that answers the ECR way: the request's image echoed into a log, a token for the registry.
std::string answering(const std::string& dir, const std::string& name, const std::string& key_type, const std::string& duration) {
    return "cat > " + dir + "/" + name + ".request\necho run >> " + dir + "/" + name + ".runs\n" +
           R"(printf '{"apiVersion":"credentialprovider.kubelet.k8s.io/v1","kind":"CredentialProviderResponse","cacheKeyType":")" + key_type + "\"" +
           (duration.empty() ? "" : R"(,"cacheDuration":")" + duration + "\"") +
           R"(,"auth":{"*.registry.example":{"username":"plugin-user","password":"'"$PLUGIN_SECRET"'"}}}')" + "\n";
}

Deadline soon() { return std::chrono::steady_clock::now() + 5s; }

}  // namespace

TEST_CASE("a matching plugin is run with the request on stdin and its answer matched like a keyring", "[credential_providers]") {
    PluginDir dir;
    dir.write("ecr", answering(dir.path, "ecr", "Image", "0s"));
    CredentialProviderConfig config;
    config.providers.push_back(provider("ecr", {"*.registry.example"}));
    config.providers[0].env = {{"PLUGIN_SECRET", "from-the-config"}};
    auto made = CredentialProviders::create(config, dir.path, 5s);
    REQUIRE(made);
    const KeyringAnswer got = (*made)->lookup_until("eu.registry.example", "team/qwen", soon());
    CHECK(got.problem.empty());
    REQUIRE(got.credentials.size() == 1);
    CHECK(got.credentials[0].username == "plugin-user");
    CHECK(got.credentials[0].password == "from-the-config");
    std::ifstream request(dir.path + "/ecr.request");
    std::string sent((std::istreambuf_iterator<char>(request)), std::istreambuf_iterator<char>());
    CHECK(sent == R"({"apiVersion":"credentialprovider.kubelet.k8s.io/v1","kind":"CredentialProviderRequest","image":"eu.registry.example/team/qwen"})");
    // Not matched: never run.
    CHECK((*made)->lookup_until("other.example", "team/qwen", soon()).credentials.empty());
    CHECK((*made)->runs() == 1);
}

TEST_CASE("a plugin's answer is kept as its cacheKeyType and cacheDuration say", "[credential_providers]") {
    struct Case {
        const char* name;
        const char* key_type;
        const char* duration;
        std::chrono::seconds default_duration;
        int runs_for_three_images;  // two images of one registry, one of another
    };
    const Case cases[] = {
        {"kept by registry", "Registry", "1h", 0s, 2},
        {"kept by image", "Image", "1h", 0s, 3},
        {"kept for all", "Global", "1h", 0s, 1},
        {"a zero duration keeps nothing", "Global", "0s", 1h, 4},
        {"no duration: the config's default", "Global", "", 1h, 1},
    };
    for (const Case& c : cases) {
        SECTION(c.name) {
            PluginDir dir;
            dir.write("p", answering(dir.path, "p", c.key_type, c.duration));
            CredentialProviderConfig config;
            config.providers.push_back(provider("p", {"*.registry.example"}, c.default_duration));
            auto made = CredentialProviders::create(config, dir.path, 5s);
            REQUIRE(made);
            for (const char* image : {"a.registry.example/x", "a.registry.example/y", "b.registry.example/x", "a.registry.example/x"}) {
                const std::string_view i(image);
                CHECK((*made)->lookup_until(i.substr(0, i.find('/')), i.substr(i.find('/') + 1), soon()).credentials.size() == 1);
            }
            CHECK(dir.count("p") == (std::string(c.duration) == "0s" ? 4 : c.runs_for_three_images));
        }
    }
}

TEST_CASE("a plugin that fails, hangs or talks nonsense gives nothing and says why", "[credential_providers]") {
    struct Case {
        const char* name;
        std::string body;
        const char* says;
    };
    const Case cases[] = {
        {"exits 1", "echo 'error: no IAM role for this node' >&2\nexit 1\n", "exited with 1: error: no IAM role for this node"},
        {"hangs", "sleep 30\n", "did not answer within the time allowed"},
        {"hangs after closing its output", "exec >&- 2>&-\nsleep 30\n", "did not answer within the time allowed"},
        {"talks nonsense", "echo 'Authenticated!'\n", "the answer is not JSON"},
        {"another API", R"(echo '{"apiVersion":"credentialprovider.kubelet.k8s.io/v1beta1","kind":"CredentialProviderResponse","cacheKeyType":"Image"}')" "\n",
         "apiVersion is not credentialprovider.kubelet.k8s.io/v1"},
        {"writes without end", "yes\n", "wrote more than"},
    };
    for (const Case& c : cases) {
        SECTION(c.name) {
            PluginDir dir;
            dir.write("p", c.body);
            CredentialProviderConfig config;
            config.providers.push_back(provider("p", {"*.registry.example"}, 1h));
            auto made = CredentialProviders::create(config, dir.path, 5s);
            REQUIRE(made);
            const auto started = std::chrono::steady_clock::now();
            const KeyringAnswer got = (*made)->lookup_until("a.registry.example", "x", started + 700ms);
            CHECK(std::chrono::steady_clock::now() - started < 3s);
            CHECK(got.credentials.empty());
            // A tenant reads which plugin gave nothing; its words go to the operator's log only.
            CHECK(got.problem == "the credential provider p gave no credentials");
            CHECK_THAT(got.log_problem, Catch::Contains("credential provider p: ") && Catch::Contains(c.says));
        }
    }
}

TEST_CASE("a plugin that is not in the bin dir stops start-up, naming it", "[credential_providers]") {
    PluginDir dir;
    CredentialProviderConfig config;
    config.providers.push_back(provider("gcp-credential-provider", {"*.pkg.dev"}));
    const auto missing = CredentialProviders::create(config, dir.path, 5s);
    REQUIRE_FALSE(missing);
    CHECK_THAT(missing.error(), Catch::Contains("gcp-credential-provider") && Catch::Contains("is not an executable file"));
    CHECK_FALSE(CredentialProviders::create(config, "", 5s));
}

TEST_CASE("a plugin that never reads its request leaves the webhook running", "[credential_providers]") {
    PluginDir dir;
    dir.write("deaf", "exec 0<&-\necho 'not listening' >&2\nexit 2\n");
    // More than a pipe holds: the writes after the plugin is gone meet a closed pipe.
    const std::string request(1u << 20, 'x');
    const PluginRun run = run_plugin(dir.path + "/deaf", {}, {}, request, kMaxPluginAnswerBytes, soon());
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.error, Catch::Contains("it exited with 2: not listening"));
}

TEST_CASE("a plugin inherits no descriptor of the webhook's but its stdin, stdout and stderr", "[credential_providers]") {
    PluginDir dir;
    // What the plugin holds open, by what each descriptor names.
    dir.write("p", "ls -l /proc/$$/fd > " + dir.path + "/fds\n" + answering(dir.path, "p", "Registry", ""));
    // A file and a socket the webhook holds without close-on-exec, as a library may.
    const std::string sentinel = dir.path + "/webhook-only";
    std::ofstream(sentinel) << "x";
    const int file = ::open(sentinel.c_str(), O_RDONLY);
    const int sock = ::socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(file >= 0);
    REQUIRE(sock >= 0);
    CredentialProviderConfig config;
    config.providers.push_back(provider("p", {"*.registry.example"}));
    auto made = CredentialProviders::create(config, dir.path, 5s);
    REQUIRE(made);
    const KeyringAnswer got = (*made)->lookup_until("a.registry.example", "x", soon());
    ::close(file);
    ::close(sock);
    CHECK(got.credentials.size() == 1);
    std::ifstream in(dir.path + "/fds");
    const std::string listed((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK_THAT(listed, Catch::Contains("0 ->"));
    CHECK_THAT(listed, !Catch::Contains("webhook-only"));
    CHECK_THAT(listed, !Catch::Contains("socket:"));
}
