// A Pod's pull secrets read as the kubelet reads them, against a scripted
// Kubernetes API: by name in the object's namespace, the service account's
// where the pod spec names none, kept for seconds, one read for many reviews,
// and every secret that cannot be used named in a note.
#include "../../../src/server/registry/pull_secrets.hpp"

#include "model_image_webhook/text.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <map>
#include <stdexcept>
#include <thread>

using namespace miw;
using namespace miw::server;
using namespace std::chrono_literals;

namespace {

std::string docker_config(const std::string& registry, const std::string& user, const std::string& password) {
    return R"({"auths":{")" + registry + R"(":{"auth":")" + base64_encode(user + ":" + password) + R"("}}})";
}

std::string secret(const std::string& name, const std::string& type, const std::string& config) {
    const std::string key = type == "kubernetes.io/dockercfg" ? ".dockercfg" : ".dockerconfigjson";
    return R"({"kind":"Secret","apiVersion":"v1","metadata":{"name":")" + name + R"("},"type":")" + type + R"(","data":{")" + key + R"(":")" +
           base64_encode(config) + R"("}})";
}

std::string service_account(const std::vector<std::string>& secrets) {
    std::string list;
    for (const std::string& s : secrets) list += (list.empty() ? "" : ",") + std::string(R"({"name":")") + s + "\"}";
    return R"({"kind":"ServiceAccount","apiVersion":"v1","metadata":{"name":"x"},"imagePullSecrets":[)" + list + "]}";
}

// The API as a map of paths to answers; every GET logged.
struct ScriptedApi {
    std::map<std::string, ApiGetAnswer> answers;
    std::vector<std::string> asked;
    std::chrono::milliseconds delay{0};
    std::mutex mutex;

    ApiGet get() {
        return [this](const std::string& path, std::size_t, Deadline) {
            if (delay.count() > 0) std::this_thread::sleep_for(delay);
            std::lock_guard lock(mutex);
            asked.push_back(path);
            const auto it = answers.find(path);
            if (it == answers.end()) return ApiGetAnswer{404, R"({"kind":"Status","code":404})", ""};
            return it->second;
        };
    }
    void put(const std::string& path, std::string body) { answers[path] = ApiGetAnswer{200, std::move(body), ""}; }
};

Deadline soon() { return std::chrono::steady_clock::now() + 5s; }

// What the operator's log was told: "what: why" a line.
struct ProblemLog {
    std::vector<std::string> lines;
    std::mutex mutex;
    ReadProblemLog sink() {
        return [this](std::string_view what, std::string_view why) {
            std::lock_guard lock(mutex);
            lines.push_back(std::string(what) + ": " + std::string(why));
        };
    }
};

const std::string kUnusable = "could not be used as a pull secret: the kubelet pulls without it, and so did this lookup";

// Until the API has been asked `n` times (a read under way counts): a thread
// started a moment ago may not have begun, on a loaded or sanitized build.
void wait_for_reads(const PullSecrets& secrets, std::size_t n) {
    const auto until = std::chrono::steady_clock::now() + 10s;
    while (secrets.api_reads() < n && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(1ms);
}

const std::string kSecrets = "/api/v1/namespaces/team-a/secrets/";
const std::string kAccounts = "/api/v1/namespaces/team-a/serviceaccounts/";

std::vector<RegistryCredential> creds_for(const PullSecrets::Assembled& a, std::string_view registry, std::string_view repository) {
    if (!a.credentials.keyring) return {};
    return a.credentials.keyring->lookup(registry, repository);
}

}  // namespace

TEST_CASE("pull secrets: a pod spec's own secrets, read by name in its namespace", "[pull_secrets]") {
    ScriptedApi api;
    api.put(kSecrets + "regcred", secret("regcred", "kubernetes.io/dockerconfigjson", docker_config("registry.example", "alice", "s3cret")));
    PullSecrets secrets(api.get());
    const PullSecrets::Assembled a = secrets.assemble({"team-a", {"regcred"}, {}}, soon());
    CHECK(a.notes.empty());
    REQUIRE(creds_for(a, "registry.example", "team/qwen").size() == 1);
    CHECK(creds_for(a, "registry.example", "team/qwen")[0].username == "alice");
    CHECK(creds_for(a, "other.example", "team/qwen").empty());
    CHECK_FALSE(a.credentials.identity.empty());
    CHECK(a.credentials.identity.find("s3cret") == std::string::npos);
    // The service account is not read when the pod spec names secrets.
    CHECK(api.asked == std::vector<std::string>{kSecrets + "regcred"});
}

TEST_CASE("pull secrets: none named, the service account's (default when none is named)", "[pull_secrets]") {
    struct Case {
        const char* name;
        std::string_view account;
        std::string account_path;
    };
    const Case cases[] = {
        {"a named service account", "puller", kAccounts + "puller"},
        {"no service account named: default", "", kAccounts + "default"},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            ScriptedApi api;
            api.put(c.account_path, service_account({"first", "second"}));
            api.put(kSecrets + "first", secret("first", "kubernetes.io/dockerconfigjson", docker_config("registry.example", "one", "p1")));
            api.put(kSecrets + "second", secret("second", "kubernetes.io/dockercfg", R"({"registry.example/team":{"auth":")" + base64_encode("two:p2") + "\"}}"));
            PullSecrets secrets(api.get());
            const PullSecrets::Assembled a = secrets.assemble({"team-a", {}, c.account}, soon());
            CHECK(a.notes.empty());
            const auto found = creds_for(a, "registry.example", "team/qwen");
            // One keyring, most specific key first, as the kubelet merges a Pod's secrets.
            REQUIRE(found.size() == 2);
            CHECK(found[0].username == "two");
            CHECK(found[1].username == "one");
            CHECK(api.asked == std::vector<std::string>{c.account_path, kSecrets + "first", kSecrets + "second"});
        }
    }
}

TEST_CASE("pull secrets: what cannot be used is one and the same note naming it, the cause in the log, and the rest still used", "[pull_secrets]") {
    struct Case {
        const char* name;
        ApiGetAnswer answer;
        const char* note;  // what the operator's log says
    };
    const Case cases[] = {
        {"missing", {404, R"({"kind":"Status","code":404})", ""}, "not found"},
        {"forbidden", {403, R"({"kind":"Status","code":403})", ""}, "403 Forbidden: the webhook's role lacks get on secrets"},
        {"another type", {200, secret("broken", "Opaque", "{}"), ""}, "its type is Opaque, not kubernetes.io/dockerconfigjson"},
        {"not base64", {200, R"({"kind":"Secret","type":"kubernetes.io/dockerconfigjson","data":{".dockerconfigjson":"%%%"}})", ""}, "is not base64"},
        {"no answer", {0, "", "connection refused"}, "unreadable: connection refused"},
        {"an answer of another kind", {200, R"({"kind":"Status"})", ""}, "not a Secret"},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            ScriptedApi api;
            api.answers[kSecrets + "broken"] = c.answer;
            api.put(kSecrets + "good", secret("good", "kubernetes.io/dockerconfigjson", docker_config("registry.example", "alice", "pw")));
            ProblemLog log;
            PullSecrets secrets(api.get(), {}, {}, log.sink());
            const PullSecrets::Assembled a = secrets.assemble({"team-a", {"broken", "good"}, {}}, soon());
            REQUIRE(a.notes.size() == 1);
            // A tenant without get on secrets learns nothing of whether it exists, or what it holds.
            CHECK(a.notes[0] == "the Secret \"broken\" of namespace team-a " + kUnusable);
            REQUIRE(log.lines.size() == 1);
            CHECK_THAT(log.lines[0], Catch::StartsWith("secret team-a/broken: ") && Catch::Contains(c.note));
            CHECK(creds_for(a, "registry.example", "team/qwen").size() == 1);
        }
    }
}

TEST_CASE("pull secrets: a service account that cannot be read is named; one not found has no secrets", "[pull_secrets]") {
    ScriptedApi api;
    api.answers[kAccounts + "locked"] = {403, "{}", ""};
    ProblemLog log;
    PullSecrets secrets(api.get(), {}, {}, log.sink());
    const PullSecrets::Assembled locked = secrets.assemble({"team-a", {}, "locked"}, soon());
    REQUIRE(locked.notes.size() == 1);
    CHECK_THAT(locked.notes[0], Catch::Contains("service account \"locked\" of namespace team-a could not be read for its imagePullSecrets"));
    REQUIRE(log.lines.size() == 1);
    CHECK_THAT(log.lines[0], Catch::Contains("403 Forbidden"));
    CHECK(locked.credentials.identity.empty());
    const PullSecrets::Assembled absent = secrets.assemble({"team-a", {}, "not-yet"}, soon());
    CHECK(absent.notes.empty());
    CHECK(absent.credentials.identity.empty());
}

TEST_CASE("pull secrets: names that cannot be an object's are never put in a path", "[pull_secrets]") {
    const std::vector<std::string_view> names = {"../../nodes", "a/b", "UPPER", "a?b", "..", std::string_view("a\0b", 3)};
    for (std::string_view name : names) {
        ScriptedApi api;
        ProblemLog log;
        PullSecrets secrets(api.get(), {}, {}, log.sink());
        const PullSecrets::Assembled a = secrets.assemble({"team-a", {name}, {}}, soon());
        CHECK(api.asked.empty());
        REQUIRE(a.notes.size() == 1);
        CHECK_THAT(a.notes[0], Catch::Contains(kUnusable));
        REQUIRE(log.lines.size() == 1);
        CHECK_THAT(log.lines[0], Catch::Contains("not a valid object name"));
    }
    ScriptedApi api;
    PullSecrets secrets(api.get());
    secrets.assemble({"../kube-system", {"regcred"}, {}}, soon());
    CHECK(api.asked.empty());
}

TEST_CASE("pull secrets: an object of no namespace reads nothing", "[pull_secrets]") {
    ScriptedApi api;
    PullSecrets secrets(api.get());
    const PullSecrets::Assembled a = secrets.assemble({"", {"regcred"}, {}}, soon());
    CHECK(api.asked.empty());
    CHECK(a.notes.empty());
    CHECK(a.credentials.identity.empty());
}

TEST_CASE("pull secrets: who holds them is told by what they hold", "[pull_secrets]") {
    ScriptedApi api;
    api.put(kSecrets + "a", secret("a", "kubernetes.io/dockerconfigjson", docker_config("registry.example", "alice", "pw")));
    api.put(kSecrets + "copy-of-a", secret("copy-of-a", "kubernetes.io/dockerconfigjson", docker_config("registry.example", "alice", "pw")));
    api.put(kSecrets + "other-password", secret("other-password", "kubernetes.io/dockerconfigjson", docker_config("registry.example", "alice", "pw2")));
    api.put(kSecrets + "empty", secret("empty", "kubernetes.io/dockerconfigjson", R"({"auths":{}})"));
    PullSecrets secrets(api.get());
    const auto identity = [&](std::vector<std::string_view> names) { return secrets.assemble({"team-a", std::move(names), {}}, soon()).credentials.identity; };
    CHECK(identity({"a"}) == identity({"copy-of-a"}));
    CHECK(identity({"a"}) != identity({"other-password"}));
    CHECK(identity({"a", "other-password"}) != identity({"a"}));
    CHECK(identity({"empty"}).empty());
    CHECK(identity({"a", "empty"}) == identity({"a"}));
}

TEST_CASE("pull secrets: answers are kept for the TTL, and read again after it", "[pull_secrets]") {
    ScriptedApi api;
    api.put(kSecrets + "regcred", secret("regcred", "kubernetes.io/dockerconfigjson", docker_config("registry.example", "alice", "wrong")));
    PullSecretSettings settings;
    settings.ttl = 1s;  // wide enough that the kept reads below fall inside it on a sanitized build
    PullSecrets secrets(api.get(), settings);
    const std::string before = secrets.assemble({"team-a", {"regcred"}, {}}, soon()).credentials.identity;
    for (int i = 0; i < 5; ++i) secrets.assemble({"team-a", {"regcred"}, {}}, soon());
    CHECK(secrets.api_reads() == 1);
    // The secret is mended; past the TTL the new one is used.
    api.put(kSecrets + "regcred", secret("regcred", "kubernetes.io/dockerconfigjson", docker_config("registry.example", "alice", "right")));
    std::this_thread::sleep_for(1100ms);
    const PullSecrets::Assembled after = secrets.assemble({"team-a", {"regcred"}, {}}, soon());
    CHECK(secrets.api_reads() == 2);
    CHECK(after.credentials.identity != before);
    CHECK(creds_for(after, "registry.example", "x")[0].password == "right");
}

TEST_CASE("pull secrets: a failure to reach the API is not kept; a 404 is", "[pull_secrets]") {
    ScriptedApi api;
    api.answers[kSecrets + "flaky"] = {0, "", "timeout"};
    PullSecrets secrets(api.get());
    secrets.assemble({"team-a", {"flaky", "absent"}, {}}, soon());
    secrets.assemble({"team-a", {"flaky", "absent"}, {}}, soon());
    CHECK(std::count(api.asked.begin(), api.asked.end(), kSecrets + "flaky") == 2);
    CHECK(std::count(api.asked.begin(), api.asked.end(), kSecrets + "absent") == 1);
}

TEST_CASE("pull secrets: a burst of reviews of one namespace reads each object once", "[pull_secrets]") {
    ScriptedApi api;
    api.delay = 50ms;
    api.put(kAccounts + "default", service_account({"regcred"}));
    api.put(kSecrets + "regcred", secret("regcred", "kubernetes.io/dockerconfigjson", docker_config("registry.example", "alice", "pw")));
    PullSecrets secrets(api.get());
    std::vector<std::thread> reviews;
    std::atomic<int> with_credentials{0};
    for (int i = 0; i < 16; ++i) {
        reviews.emplace_back([&] {
            if (!secrets.assemble({"team-a", {}, {}}, soon()).credentials.identity.empty()) ++with_credentials;
        });
    }
    for (std::thread& t : reviews) t.join();
    CHECK(with_credentials == 16);
    CHECK(secrets.api_reads() == 2);
}

TEST_CASE("pull secrets: a review waits for another's read only until its own deadline", "[pull_secrets]") {
    ScriptedApi api;
    api.delay = 500ms;
    api.put(kSecrets + "slow", secret("slow", "kubernetes.io/dockerconfigjson", docker_config("registry.example", "alice", "pw")));
    ProblemLog log;
    PullSecrets secrets(api.get(), {}, {}, log.sink());
    std::thread first([&] { secrets.assemble({"team-a", {"slow"}, {}}, soon()); });
    wait_for_reads(secrets, 1);
    const auto start = std::chrono::steady_clock::now();
    const PullSecrets::Assembled hurried = secrets.assemble({"team-a", {"slow"}, {}}, std::chrono::steady_clock::now() + 100ms);
    const auto waited = std::chrono::steady_clock::now() - start;
    first.join();  // before any REQUIRE: a thread left running would end the test binary
    CHECK(waited < 400ms);
    REQUIRE(hurried.notes.size() == 1);
    CHECK_THAT(hurried.notes[0], Catch::Contains(kUnusable));
    REQUIRE(log.lines.size() == 1);
    CHECK_THAT(log.lines[0], Catch::Contains("before the review's deadline"));
    CHECK(secrets.api_reads() == 1);
}

TEST_CASE("pull secrets: what is kept stays inside its bytes", "[pull_secrets]") {
    ScriptedApi api;
    PullSecretSettings settings;
    settings.max_bytes = 64u << 10;
    PullSecrets secrets(api.get(), settings);
    // Secrets of about 3 KiB each, forty of them: more than the budget holds.
    const std::string password(3000, 'p');
    for (int i = 0; i < 40; ++i) {
        const std::string name = "s" + std::to_string(i);
        api.put(kSecrets + name, secret(name, "kubernetes.io/dockerconfigjson", docker_config("registry.example", "u", password)));
        secrets.assemble({"team-a", {name}, {}}, soon());
        CHECK(secrets.bytes_kept() <= settings.max_bytes);
    }
    // One over an eighth of the budget is used, not kept.
    api.put(kSecrets + "huge", secret("huge", "kubernetes.io/dockerconfigjson", docker_config("registry.example", "u", std::string(20000, 'h'))));
    CHECK(creds_for(secrets.assemble({"team-a", {"huge"}, {}}, soon()), "registry.example", "x").size() == 1);
    const std::size_t reads = secrets.api_reads();
    secrets.assemble({"team-a", {"huge"}, {}}, soon());
    CHECK(secrets.api_reads() == reads + 1);
}

TEST_CASE("pull secrets: a few reads of the API at once, whatever a namespace's Pods name", "[pull_secrets]") {
    ScriptedApi api;
    api.delay = 400ms;
    PullSecretSettings settings;
    settings.max_reads = 1;
    ProblemLog log;
    PullSecrets secrets(api.get(), settings, {}, log.sink());
    std::thread first([&] { secrets.assemble({"team-a", {"one"}, {}}, soon()); });
    wait_for_reads(secrets, 1);
    const PullSecrets::Assembled crowded = secrets.assemble({"team-a", {"two"}, {}}, std::chrono::steady_clock::now() + 100ms);
    first.join();  // before any REQUIRE: a thread left running would end the test binary
    REQUIRE(crowded.notes.size() == 1);
    CHECK_THAT(crowded.notes[0], Catch::Contains(kUnusable));
    CHECK(std::any_of(log.lines.begin(), log.lines.end(), [](const std::string& l) { return l.rfind("secret team-a/two: unread: the webhook's reads of the API were all taken", 0) == 0; }));
    CHECK(secrets.api_reads() == 1);
    // Not kept: asked again once there is room.
    secrets.assemble({"team-a", {"two"}, {}}, soon());
    CHECK(secrets.api_reads() == 2);
}

TEST_CASE("pull secrets: each read of the API is told by kind and result, a kept answer is not", "[pull_secrets]") {
    ScriptedApi api;
    api.put(kAccounts + "default", service_account({"regcred", "gone", "opaque", "locked"}));
    api.put(kSecrets + "regcred", secret("regcred", "kubernetes.io/dockerconfigjson", docker_config("registry.example", "alice", "pw")));
    api.put(kSecrets + "opaque", secret("opaque", "Opaque", "{}"));
    api.answers[kSecrets + "locked"] = {403, "{}", ""};
    std::map<std::string, int> told;
    PullSecrets secrets(api.get(), {}, [&](std::string_view kind, std::string_view result) { ++told[std::string(kind) + " " + std::string(result)]; });
    secrets.assemble({"team-a", {}, {}}, soon());
    secrets.assemble({"team-a", {}, {}}, soon());  // all kept: nothing read
    secrets.assemble({"team-a", {"../x"}, {}}, soon());  // never asked: nothing told
    CHECK(told == std::map<std::string, int>{
                      {"serviceaccount read", 1}, {"secret read", 1}, {"secret not-found", 1}, {"secret invalid", 1}, {"secret forbidden", 1}});
}

TEST_CASE("pull secrets: a read that throws ends with an answer, is not kept, and gives back its slot", "[pull_secrets]") {
    std::atomic<int> calls{0};
    const std::string good = secret("flaky", "kubernetes.io/dockerconfigjson", docker_config("registry.example", "alice", "pw"));
    PullSecretSettings settings;
    settings.max_reads = 1;
    ProblemLog log;
    PullSecrets secrets(
        [&](const std::string&, std::size_t, Deadline) -> ApiGetAnswer {
            if (++calls == 1) throw std::runtime_error("Too many open files");
            return ApiGetAnswer{200, good, ""};
        },
        settings, {}, log.sink());
    const auto started = std::chrono::steady_clock::now();
    const PullSecrets::Assembled failed = secrets.assemble({"team-a", {"flaky"}, {}}, soon());
    REQUIRE(failed.notes.size() == 1);
    CHECK_THAT(log.lines.at(0), Catch::Contains("Too many open files"));
    // Not left unfinished, and the one read slot is free: the next review reads it at once, and uses it.
    const PullSecrets::Assembled again = secrets.assemble({"team-a", {"flaky"}, {}}, soon());
    CHECK(std::chrono::steady_clock::now() - started < 2s);
    CHECK(again.notes.empty());
    CHECK(creds_for(again, "registry.example", "team/qwen").size() == 1);
    CHECK(calls == 2);
}
