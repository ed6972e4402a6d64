// Which answer an HTTP request gets: every path, method, content type and
// ?timeout= form, without a socket.
#include "../../src/server/router.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace miw;
using namespace miw::server;

namespace {

PolicyConfig floor_policy() {
    PolicyConfig policy;
    policy.apiserver = ApiserverVersion::from_text("v1.35.0");
    return policy;
}

const std::string kReview =
    R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","kind":{"group":"","version":"v1","kind":"ConfigMap"},"operation":"CREATE","object":{}}})";

}  // namespace

TEST_CASE("paths, methods and content types are answered as documented", "[router]") {
    struct Case {
        const char* name;
        Port port;
        std::string method;
        std::string target;
        std::string content_type;
        int status;
        std::string allow;
    };
    const std::vector<Case> cases = {
        {"validate", Port::admission, "POST", "/validate", "application/json", 200, ""},
        {"mutate", Port::admission, "POST", "/mutate", "application/json", 200, ""},
        {"validate under warn", Port::admission, "POST", "/warn/validate?timeout=10s", "application/json", 200, ""},
        {"mutate under warn", Port::admission, "POST", "/warn/mutate", "application/json", 200, ""},
        {"validate under audit", Port::admission, "POST", "/audit/validate", "application/json", 200, ""},
        {"mutate under audit", Port::admission, "POST", "/audit/mutate", "application/json", 200, ""},
        {"GET on a mode path", Port::admission, "GET", "/warn/validate", "", 405, "POST"},
        {"another content type on a mode path", Port::admission, "POST", "/audit/mutate", "text/plain", 415, ""},
        {"a mode alone", Port::admission, "POST", "/warn", "application/json", 404, ""},
        {"a mode that is not one", Port::admission, "POST", "/deny/validate", "application/json", 404, ""},
        {"a mode path on the metrics port", Port::metrics_only, "POST", "/warn/validate", "application/json", 404, ""},
        {"the apiserver's timeout query", Port::admission, "POST", "/validate?timeout=10s", "application/json", 200, ""},
        {"a charset parameter", Port::admission, "POST", "/mutate", "application/json; charset=utf-8", 200, ""},
        {"content type in capitals", Port::admission, "POST", "/mutate", "Application/JSON", 200, ""},
        {"absolute form", Port::admission, "POST", "https://webhook.svc:443/validate?timeout=5s", "application/json", 200, ""},
        {"absolute form without a path", Port::admission, "GET", "https://webhook.svc", "", 404, ""},
        {"GET on validate", Port::admission, "GET", "/validate", "", 405, "POST"},
        {"PUT on mutate", Port::admission, "PUT", "/mutate", "application/json", 405, "POST"},
        {"another content type", Port::admission, "POST", "/validate", "text/plain", 415, ""},
        {"no content type", Port::admission, "POST", "/validate", "", 415, ""},
        {"a prefix of a path", Port::admission, "POST", "/validatex", "application/json", 404, ""},
        {"a trailing slash", Port::admission, "POST", "/validate/", "application/json", 404, ""},
        {"healthz", Port::admission, "GET", "/healthz", "", 200, ""},
        {"readyz", Port::admission, "HEAD", "/readyz", "", 200, ""},
        {"metrics", Port::admission, "GET", "/metrics", "", 200, ""},
        {"POST on healthz", Port::admission, "POST", "/healthz", "", 405, "GET, HEAD"},
        {"reviews are not served on the metrics port", Port::metrics_only, "POST", "/validate", "application/json", 404, ""},
        {"health on the metrics port", Port::metrics_only, "GET", "/healthz", "", 200, ""},
        {"the root", Port::admission, "GET", "/", "", 404, ""},
    };
    ServerState state(floor_policy());
    state.certificate_loaded = true;
    state.version_known = true;
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            std::string body = kReview;
            const HttpAnswer a = route(state, c.port, c.method, c.target, c.content_type, body);
            CHECK(a.status == c.status);
            CHECK(a.allow == c.allow);
            if (c.status == 200 && c.content_type == "application/json") CHECK_THAT(a.body, Catch::Contains(R"("uid":"u","allowed":true)"));
        }
    }
}

TEST_CASE("the mode paths force their mode; the others take the configured one", "[router]") {
    const std::string tag_only =
        R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","kind":{"group":"worker.gpustack.ai","version":"v1alpha1","kind":"ModelArtifact"},"name":"q","operation":"CREATE","object":{"metadata":{"name":"q"},"spec":{"source":{"image":{"reference":"r.example/m:v1"}}}}}})";
    struct Case {
        const char* name;
        Enforcement configured;
        const char* path;
        const char* answer_holds;
    };
    const std::vector<Case> cases = {
        {"deny on validate", Enforcement::deny, "/validate", R"("allowed":false)"},
        {"warn forced over deny", Enforcement::deny, "/warn/validate", R"("enforcement":"warn"},"warnings":["would be denied: )"},
        {"audit forced over deny", Enforcement::deny, "/audit/validate", R"("allowed":true,"auditAnnotations":{"rule":"digest-required","enforcement":"audit"}})"},
        {"warn configured", Enforcement::warn, "/validate", R"("enforcement":"warn")"},
        {"audit forced over warn", Enforcement::warn, "/audit/validate", R"("enforcement":"audit")"},
        {"warn forced over audit", Enforcement::audit, "/warn/validate", R"("enforcement":"warn")"},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            ServerState state(floor_policy());
            state.enforcement = c.configured;
            std::string body = tag_only;
            const HttpAnswer a = route(state, Port::admission, "POST", c.path, "application/json", body);
            CHECK(a.status == 200);
            CHECK_THAT(a.body, Catch::Contains(c.answer_holds));
        }
    }
}

namespace {

// A registry that has every digest, counting its looks.
class EveryDigest : public RegistryFetcher {
public:
    RegistryLookup fetch(std::string_view, const PullCredentials&, Deadline) const override {
        ++looks;
        RegistryLookup found;
        found.status = RegistryLookupStatus::found;
        found.compressed_bytes = 3ull << 30;
        return found;
    }
    mutable int looks = 0;
};

std::string artifact_review(const std::string& reference) {
    return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","kind":{"group":"worker.gpustack.ai","version":"v1alpha1","kind":"ModelArtifact"},"name":"q","operation":"CREATE","object":{"metadata":{"name":"q"},"spec":{"source":{"image":{"reference":")" +
           reference + R"("}}}}}})";
}

const std::string kPinned = "r.example/m@sha256:9372c470eeadd5ecd9c3c74c2b3cb633f8e2f2fad799250a0f70d652b6b825e4";

// A server's state with --registry-check in `mode`, its cache in front of a registry that has every digest.
struct RegistryChecking {
    explicit RegistryChecking(RegistryCheck mode) : state(policy_for(mode)) { state.registry = &cache; }
    static PolicyConfig policy_for(RegistryCheck mode) {
        PolicyConfig policy = floor_policy();
        policy.registry_check = mode;
        return policy;
    }
    ServerState state;
    const EveryDigest registry;
    const RegistryCache cache{registry, std::chrono::seconds(30)};
};

}  // namespace

TEST_CASE("a review whose digests the cache lacks is planned for a look, and reviewed once where it may wait", "[router]") {
    const std::string& reference = kPinned;
    RegistryChecking checking(RegistryCheck::deny);
    ServerState& state = checking.state;
    const EveryDigest& registry = checking.registry;

    std::string body = artifact_review(reference);
    const RegistryPlan cold = plan_registry_lookups(state, Port::admission, "/validate?timeout=10s", body);
    CHECK(cold.needs_look);
    CHECK(registry.looks == 0);  // planning never looks

    const HttpAnswer looked = route(state, Port::admission, "POST", "/validate", "application/json", body);
    CHECK_THAT(looked.body, Catch::Contains("the model image is 3.0 GiB compressed"));
    CHECK(registry.looks == 1);

    body = artifact_review(reference);
    const RegistryPlan warm = plan_registry_lookups(state, Port::admission, "/validate", body);
    REQUIRE_FALSE(warm.needs_look);
    REQUIRE(warm.known.size() == 1);
    CHECK(warm.known[0].first == reference);
    const HttpAnswer planned = route(state, Port::admission, "POST", "/validate", "application/json", body, std::chrono::steady_clock::now(), &warm);
    CHECK(planned.body == looked.body);
    CHECK(registry.looks == 1);
    CHECK_THAT(state.metrics.render(), Catch::Contains("miw_registry_cache_hits_total 1\n"));
}

TEST_CASE("a plan is only made where a review may ask the registry", "[router]") {
    RegistryChecking checking(RegistryCheck::warn);
    ServerState& state = checking.state;
    const std::string body = artifact_review(kPinned);
    state.registry = nullptr;
    CHECK_FALSE(plan_registry_lookups(state, Port::admission, "/validate", body).needs_look);  // no registry configured
    state.registry = &checking.cache;
    CHECK(plan_registry_lookups(state, Port::admission, "/validate", body).needs_look);
    CHECK(plan_registry_lookups(state, Port::admission, "/audit/mutate", body).needs_look);
    CHECK_FALSE(plan_registry_lookups(state, Port::admission, "/metrics", body).needs_look);
    CHECK_FALSE(plan_registry_lookups(state, Port::metrics_only, "/validate", body).needs_look);
    std::string escaped = artifact_review("r.example\\/m@sha256:9372c470eeadd5ecd9c3c74c2b3cb633f8e2f2fad799250a0f70d652b6b825e4");
    CHECK(plan_registry_lookups(state, Port::admission, "/validate", escaped).needs_look);
    CHECK(checking.registry.looks == 0);
}

TEST_CASE("a planned review that meets a reference the plan did not foresee never waits: it is unchecked, said so", "[router]") {
    RegistryChecking checking(RegistryCheck::deny);
    std::string body = artifact_review(kPinned);
    const RegistryPlan empty;  // foresaw nothing
    const HttpAnswer a = route(checking.state, Port::admission, "POST", "/validate", "application/json", body, std::chrono::steady_clock::now(), &empty);
    CHECK_THAT(a.body, Catch::Contains("\"allowed\":true"));
    CHECK_THAT(a.body, Catch::Contains("not foreseen before the review"));
    CHECK(checking.registry.looks == 0);
}

TEST_CASE("with pull secrets, a review is reviewed where it may wait for them, even when its digest is cached", "[router]") {
    RegistryChecking checking(RegistryCheck::deny);
    std::vector<std::string> asked;
    const PullSecrets secrets([&](const std::string& path, std::size_t, Deadline) {
        asked.push_back(path);
        if (path == "/api/v1/namespaces/team-a/serviceaccounts/default") {
            return ApiGetAnswer{200, R"({"kind":"ServiceAccount","imagePullSecrets":[{"name":"gone"}]})", ""};
        }
        return ApiGetAnswer{404, R"({"kind":"Status","code":404})", ""};
    });
    checking.state.pull_secrets = &secrets;
    std::string body = artifact_review(kPinned);
    body.replace(body.find(R"("operation")"), 0, R"("namespace":"team-a",)");
    checking.cache.lookup_until(kPinned, std::chrono::steady_clock::now() + std::chrono::seconds(5));  // cached for the node's credentials
    const std::string sent = body;
    CHECK(plan_registry_lookups(checking.state, Port::admission, "/validate", body).needs_look);
    const HttpAnswer a = route(checking.state, Port::admission, "POST", "/validate", "application/json", body);
    CHECK_THAT(a.body, Catch::Contains("\"allowed\":true"));
    CHECK_THAT(a.body, Catch::Contains("the Secret \\\"gone\\\" of namespace team-a could not be used as a pull secret"));
    CHECK(asked == std::vector<std::string>{"/api/v1/namespaces/team-a/serviceaccounts/default", "/api/v1/namespaces/team-a/secrets/gone"});
    // No secret could be used: the node's credentials, whose answer was cached.
    CHECK(checking.registry.looks == 1);
    // A body without a reference never waits.
    std::string other = sent;
    other.replace(other.find(kPinned), kPinned.size(), "r.example/m:latest");
    CHECK_FALSE(plan_registry_lookups(checking.state, Port::admission, "/validate", other).needs_look);
}

TEST_CASE("readyz says what it waits for", "[router]") {
    PolicyConfig policy;
    ServerState state(policy);
    std::string body;
    CHECK(route(state, Port::admission, "GET", "/readyz", "", body).body == "no serving certificate loaded\n");
    state.certificate_loaded = true;
    CHECK_THAT(route(state, Port::admission, "GET", "/readyz", "", body).body, Catch::Contains("apiserver version is not known yet, or not readable"));
    state.version_known = true;
    CHECK(route(state, Port::admission, "GET", "/readyz", "", body).status == 200);
    state.draining = true;
    const HttpAnswer a = route(state, Port::admission, "GET", "/readyz", "", body);
    CHECK((a.status == 503 && a.body == "shutting down\n"));
}

TEST_CASE("the apiserver's timeout and durations are read as Go writes them", "[router]") {
    using std::chrono::milliseconds;
    struct Case {
        const char* text;
        std::optional<milliseconds> duration;
    };
    const std::vector<Case> durations = {
        {"10s", milliseconds(10000)}, {"500ms", milliseconds(500)}, {"5m", milliseconds(300000)}, {"1h", milliseconds(3600000)},
        {"0s", milliseconds(0)},      {"", std::nullopt},           {"10", std::nullopt},          {"s", std::nullopt},
        {"1.5s", milliseconds(1500)}, {"-1s", std::nullopt},        {"10S", std::nullopt},         {"2m30s", milliseconds(150000)},
        {"0", milliseconds(0)},       {"500us", milliseconds(0)},   {"1.5h", milliseconds(5400000)}, {"99999999999999999999s", std::nullopt},
    };
    for (const auto& c : durations) {
        INFO(c.text);
        CHECK(parse_duration(c.text) == c.duration);
    }
    CHECK(request_timeout("/validate?timeout=10s") == milliseconds(10000));
    CHECK(request_timeout("/validate?a=b&timeout=2s") == milliseconds(2000));
    CHECK(request_timeout("/validate") == std::nullopt);
    CHECK(request_timeout("/validate?timeout=soon") == std::nullopt);
    CHECK(request_timeout("/validate?xtimeout=1s") == std::nullopt);
}

TEST_CASE("absolute-form targets are taken by their path and query", "[router]") {
    CHECK(origin_form("/validate?timeout=1s") == "/validate?timeout=1s");
    CHECK(origin_form("https://h:8443/validate?timeout=1s") == "/validate?timeout=1s");
    CHECK(origin_form("HTTP://h/mutate") == "/mutate");
    CHECK(origin_form("https://h") == "/");
    CHECK(origin_form("https://h?x") == "?x");
    CHECK(origin_form("ftp://h/validate") == "ftp://h/validate");
}
