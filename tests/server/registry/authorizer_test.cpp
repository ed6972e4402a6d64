// The authorizer's state machine against a scripted transport: challenges in
// any field, tokens kept and dropped, credentials tried in order, nothing
// one host or credential earned sent to another.
#include "../../../src/server/registry/authorizer.hpp"

#include "scripted_transport.hpp"

#include "model_image_webhook/text.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <thread>
#include <functional>

using namespace miw;
using namespace miw::server;
using namespace miw::server::test;
using namespace std::chrono_literals;

namespace {

const char* const kBearer = R"(Bearer realm="https://auth.example/token",service="registry.example")";

Deadline soon() { return std::chrono::steady_clock::now() + 5s; }

RegistryHost host_named(std::string host) {
    RegistryHost h;
    h.host = std::move(host);
    return h;
}

HttpRequest manifest_request(const RegistryHost& host) {
    HttpRequest r;
    r.url = host.url("/team/qwen/manifests/sha256:abc");
    r.max_body = 1024;
    return r;
}

std::string token_answer(const std::string& token, int expires_in = 300) {
    return R"({"token":")" + token + R"(","expires_in":)" + std::to_string(expires_in) + "}";
}

bool plain_never(std::string_view, std::string_view) { return false; }

class Keys : public Keyring {
public:
    std::vector<RegistryCredential> credentials;
    std::vector<RegistryCredential> lookup(std::string_view, std::string_view) const override { return credentials; }
};

std::string basic(const std::string& user, const std::string& pass) { return "Basic " + base64_encode(user + ":" + pass); }

}  // namespace

TEST_CASE("a Bearer challenge is answered wherever it stands among the WWW-Authenticate fields", "[registry_authorizer]") {
    struct Case {
        const char* name;
        std::vector<std::string> fields;
    };
    const Case cases[] = {
        {"alone", {kBearer}},
        {"in a second field, after one the webhook does not speak", {"Negotiate", kBearer}},
        {"in a second field, after Basic", {R"(Basic realm="r")", kBearer}},
        {"second in one field", {std::string(R"(Basic realm="r", )") + kBearer}},
    };
    for (const Case& c : cases) {
        SECTION(c.name) {
            ScriptedTransport transport([&](const HttpRequest& r) {
                if (url_starts(r, "https://auth.example/token")) return answer(200, token_answer("t1"), "application/json");
                if (header_of(r, "Authorization") == "Bearer t1") return answer(200, "{}");
                return challenge(c.fields);
            });
            Keys none;
            Authorizer authorizer(transport, none, plain_never);
            const RegistryHost host = host_named("registry.example");
            const HttpResponse got = authorizer.send(host, "team/qwen", manifest_request(host), soon());
            CHECK(got.failure == RegistryFailure::none);
            CHECK(got.status == 200);
            REQUIRE(transport.sent.size() == 3);
            CHECK(transport.sent[1].url == "https://auth.example/token?service=registry.example&scope=repository%3Ateam%2Fqwen%3Apull");
        }
    }
}

TEST_CASE("a token the registry refuses is dropped and a fresh one asked for once", "[registry_authorizer]") {
    std::atomic<int> tokens_issued{0};
    std::string accepted = "Bearer t1";
    ScriptedTransport transport([&](const HttpRequest& r) {
        if (url_starts(r, "https://auth.example/token")) return answer(200, token_answer("t" + std::to_string(++tokens_issued)), "application/json");
        if (header_of(r, "Authorization") == accepted) return answer(200, "{}");
        return challenge({kBearer});
    });
    Keys none;
    Authorizer authorizer(transport, none, plain_never);
    const RegistryHost host = host_named("registry.example");
    REQUIRE(authorizer.send(host, "team/qwen", manifest_request(host), soon()).status == 200);
    CHECK(tokens_issued == 1);
    // Kept: the next request carries it at once.
    REQUIRE(authorizer.send(host, "team/qwen", manifest_request(host), soon()).status == 200);
    CHECK(tokens_issued == 1);
    // Revoked by the registry long before its expires_in.
    accepted = "Bearer t2";
    const HttpResponse after = authorizer.send(host, "team/qwen", manifest_request(host), soon());
    CHECK(after.failure == RegistryFailure::none);
    CHECK(after.status == 200);
    CHECK(tokens_issued == 2);
    // A registry that refuses every token is asked once more, not forever.
    accepted = "never";
    transport.sent.clear();
    const HttpResponse refused = authorizer.send(host, "team/qwen", manifest_request(host), soon());
    CHECK(refused.failure == RegistryFailure::unauthorized);
    CHECK(transport.sent.size() == 3);  // the kept token, a fresh token, the fresh token
}

TEST_CASE("Basic credentials are sent only where asked for, and a refusal is told", "[registry_authorizer]") {
    Keys keys;
    keys.credentials = {{"ci-bot", "pull-pass"}};
    ScriptedTransport transport([&](const HttpRequest& r) {
        if (header_of(r, "Authorization") == basic("ci-bot", "pull-pass")) return answer(200, "{}");
        return challenge({R"(Basic realm="Registry Realm")"});
    });
    Authorizer authorizer(transport, keys, plain_never);
    const RegistryHost host = host_named("registry.example");
    CHECK(authorizer.send(host, "team/qwen", manifest_request(host), soon()).status == 200);
    CHECK(header_of(transport.sent.front(), "Authorization").empty());  // nothing before the registry asks
    // The challenge is known now: the credential goes at once.
    transport.sent.clear();
    CHECK(authorizer.send(host, "team/qwen", manifest_request(host), soon()).status == 200);
    CHECK(transport.sent.size() == 1);

    keys.credentials = {{"ci-bot", "wrong"}};
    const HttpResponse refused = authorizer.send(host, "team/qwen", manifest_request(host), soon());
    CHECK(refused.failure == RegistryFailure::unauthorized);
    CHECK(refused.error.find("refused the credentials for registry.example") != std::string::npos);
    CHECK(refused.error.find("wrong") == std::string::npos);

    keys.credentials.clear();
    const HttpResponse none = authorizer.send(host, "team/qwen", manifest_request(host), soon());
    CHECK(none.failure == RegistryFailure::unauthorized);
    CHECK(none.error.find("none are configured for registry.example") != std::string::npos);
}

TEST_CASE("the keyring's credentials are tried in order until one is not refused", "[registry_authorizer]") {
    Keys keys;
    keys.credentials = {{"old-bot", "expired"}, {"new-bot", "current"}};
    ScriptedTransport transport([&](const HttpRequest& r) {
        if (url_starts(r, "https://auth.example/token")) {
            if (header_of(r, "Authorization") == basic("new-bot", "current")) return answer(200, token_answer("good"), "application/json");
            return answer(401, R"({"errors":[{"code":"UNAUTHORIZED"}]})");
        }
        if (header_of(r, "Authorization") == "Bearer good") return answer(200, "{}");
        return challenge({kBearer});
    });
    Authorizer authorizer(transport, keys, plain_never);
    const RegistryHost host = host_named("registry.example");
    const HttpResponse got = authorizer.send(host, "team/qwen", manifest_request(host), soon());
    CHECK(got.failure == RegistryFailure::none);
    CHECK(got.status == 200);
}

TEST_CASE("a Pod's pull-secret credentials are tried before the node's, and one held by both once", "[registry_authorizer]") {
    struct Case {
        const char* name;
        std::vector<RegistryCredential> pod;
        std::vector<RegistryCredential> node;
        std::vector<std::string> tried;  // the Authorization headers sent after the challenge, in order
        int status;
    };
    const Case cases[] = {
        {"the pod's opens it", {{"pod", "right"}}, {{"node", "right"}}, {basic("pod", "right")}, 200},
        {"the pod's refused, the node's tried next", {{"pod", "wrong"}}, {{"node", "right"}}, {basic("pod", "wrong"), basic("node", "right")}, 200},
        {"one credential in both, tried once", {{"same", "wrong"}}, {{"same", "wrong"}}, {basic("same", "wrong")}, 401},
        {"no pod secret: the node's", {}, {{"node", "right"}}, {basic("node", "right")}, 200},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            Keys pod, node;
            pod.credentials = c.pod;
            node.credentials = c.node;
            ScriptedTransport transport([&](const HttpRequest& r) {
                const std::string sent = header_of(r, "Authorization");
                if (sent == basic("pod", "right") || sent == basic("node", "right")) return answer(200, "{}");
                return challenge({R"(Basic realm="Registry Realm")"});
            });
            Authorizer authorizer(transport, node, plain_never);
            const RegistryHost host = host_named("registry.example");
            const HttpResponse got = authorizer.send(host, "team/qwen", manifest_request(host), &pod, soon());
            CHECK(got.status == c.status);
            std::vector<std::string> tried;
            for (const HttpRequest& r : transport.sent) {
                if (!header_of(r, "Authorization").empty()) tried.push_back(header_of(r, "Authorization"));
            }
            CHECK(tried == c.tried);
        }
    }
}

TEST_CASE("every credential is tried after any failure, as the kubelet's pull loop tries each", "[registry_authorizer]") {
    // A registry that hides a repository from a credential without access
    // (Artifactory's "hide existence") answers it 404, another 403 or 5xx.
    struct Case {
        const char* name;
        std::function<HttpResponse()> first;  // the first credential's answer
        std::function<HttpResponse()> second;
        int status;
        RegistryFailure failure;
        std::size_t tried;
    };
    const auto ok = [] { return answer(200, "{}"); };
    const auto unknown = [] { return answer(404, R"({"errors":[{"code":"MANIFEST_UNKNOWN"}]})"); };
    const auto forbidden = [] { return answer(403); };
    const auto failing = [] { return answer(503); };
    const Case cases[] = {
        {"a 404 to the first, the second pulls", unknown, ok, 200, RegistryFailure::none, 2},
        {"a 403 to the first, the second pulls", forbidden, ok, 200, RegistryFailure::none, 2},
        {"a 503 to the first, the second pulls", failing, ok, 200, RegistryFailure::none, 2},
        {"a 404 to both: unknown", unknown, unknown, 404, RegistryFailure::none, 2},
        {"a 404 to one, a 403 to the other: not certain", unknown, forbidden, 403, RegistryFailure::unauthorized, 2},
        {"the first pulls: the second is not sent", ok, unknown, 200, RegistryFailure::none, 1},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            Keys keys;
            keys.credentials = {{"team-a", "a-pass"}, {"team-b", "b-pass"}};
            std::vector<std::string> tried;
            ScriptedTransport transport([&](const HttpRequest& r) {
                const std::string sent = header_of(r, "Authorization");
                if (sent.empty()) return challenge({R"(Basic realm="Registry Realm")"});
                tried.push_back(sent);
                return sent == basic("team-a", "a-pass") ? c.first() : c.second();
            });
            Authorizer authorizer(transport, keys, plain_never);
            const RegistryHost host = host_named("registry.example");
            const HttpResponse got = authorizer.send(host, "team/qwen", manifest_request(host), soon());
            CHECK(got.status == c.status);
            CHECK(got.failure == c.failure);
            CHECK(tried.size() == c.tried);
        }
    }
}

TEST_CASE("a deadline that comes before every credential was tried makes their 404s uncertain", "[registry_authorizer]") {
    Keys keys;
    keys.credentials = {{"team-a", "a-pass"}, {"team-b", "b-pass"}};
    ScriptedTransport transport([&](const HttpRequest& r) {
        if (header_of(r, "Authorization").empty()) return challenge({R"(Basic realm="Registry Realm")"});
        std::this_thread::sleep_for(60ms);  // the first credential's 404 takes the whole budget
        return answer(404);
    });
    Authorizer authorizer(transport, keys, plain_never);
    const RegistryHost host = host_named("registry.example");
    const HttpResponse got = authorizer.send(host, "team/qwen", manifest_request(host), std::chrono::steady_clock::now() + 30ms);
    CHECK(got.failure == RegistryFailure::timeout);
    CHECK(got.incomplete);
    CHECK(got.error.find("1 of 2 credentials") != std::string::npos);
}

TEST_CASE("a 403 to a challenge already known moves on to the next credential too", "[registry_authorizer]") {
    Keys keys;
    keys.credentials = {{"team-a", "a-pass"}, {"team-b", "b-pass"}};
    ScriptedTransport transport([&](const HttpRequest& r) {
        const std::string sent = header_of(r, "Authorization");
        if (sent.empty()) return challenge({R"(Basic realm="Registry Realm")"});
        return sent == basic("team-b", "b-pass") ? answer(200, "{}") : answer(403);
    });
    Authorizer authorizer(transport, keys, plain_never);
    const RegistryHost host = host_named("registry.example");
    // First with the challenge unknown, then with it kept: the same answer both times.
    CHECK(authorizer.send(host, "team/qwen", manifest_request(host), soon()).status == 200);
    transport.sent.clear();
    CHECK(authorizer.send(host, "team/qwen", manifest_request(host), soon()).status == 200);
    REQUIRE(transport.sent.size() == 2);
    CHECK(header_of(transport.sent[0], "Authorization") == basic("team-a", "a-pass"));
    CHECK(header_of(transport.sent[1], "Authorization") == basic("team-b", "b-pass"));
}

TEST_CASE("a credential source that could not answer makes a refusal or a 404 uncertain, and not kept", "[registry_authorizer]") {
    class Failing : public Keyring {
    public:
        std::vector<RegistryCredential> lookup(std::string_view, std::string_view) const override { return {}; }
        KeyringAnswer lookup_until(std::string_view, std::string_view, Deadline) const override { return {{}, "the credential provider ecr gave no credentials", "credential provider ecr: no answer in time"}; }
    };
    for (const int status : {401, 404}) {
        DYNAMIC_SECTION("answered " << status) {
            Failing keys;
            ScriptedTransport transport([&](const HttpRequest&) { return status == 401 ? challenge({R"(Basic realm="r")"}) : answer(404); });
            Authorizer authorizer(transport, keys, plain_never);
            const RegistryHost host = host_named("registry.example");
            const HttpResponse got = authorizer.send(host, "team/qwen", manifest_request(host), soon());
            CHECK(got.failure == RegistryFailure::unauthorized);
            CHECK(got.incomplete);
            CHECK(got.error.find("the credential provider ecr gave no credentials") != std::string::npos);
            CHECK(got.error.find("no answer in time") == std::string::npos);  // the plugin's own words are the operator's
            CHECK(got.log_error.find("no answer in time") != std::string::npos);
        }
    }
}

TEST_CASE("a token is asked for the repository and every scope the challenge names, sorted, each once", "[registry_authorizer]") {
    struct Case {
        const char* name;
        std::string challenge;
        std::string expected_query;
    };
    const Case cases[] = {
        {"no scope in the challenge", kBearer, "service=registry.example&scope=repository%3Ateam%2Fqwen%3Apull"},
        {"a proxy cache's project scope", std::string(kBearer) + R"(,scope="repository:proxy/team/qwen:pull")",
         "service=registry.example&scope=repository%3Aproxy%2Fteam%2Fqwen%3Apull&scope=repository%3Ateam%2Fqwen%3Apull"},
        {"the same scope as the repository's, once", std::string(kBearer) + R"(,scope="repository:team/qwen:pull")",
         "service=registry.example&scope=repository%3Ateam%2Fqwen%3Apull"},
        {"several, space-separated", std::string(kBearer) + R"(,scope="repository:b:pull repository:a:pull")",
         "service=registry.example&scope=repository%3Aa%3Apull&scope=repository%3Ab%3Apull&scope=repository%3Ateam%2Fqwen%3Apull"},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            Keys none;
            std::string asked;
            ScriptedTransport transport([&](const HttpRequest& r) {
                if (url_starts(r, "https://auth.example/token")) {
                    asked = r.url.substr(r.url.find('?') + 1);
                    return answer(200, token_answer("t"), "application/json");
                }
                return header_of(r, "Authorization") == "Bearer t" ? answer(200, "{}") : challenge({c.challenge});
            });
            Authorizer authorizer(transport, none, plain_never);
            const RegistryHost host = host_named("registry.example");
            CHECK(authorizer.send(host, "team/qwen", manifest_request(host), soon()).status == 200);
            CHECK(asked == c.expected_query);
        }
    }
}

TEST_CASE("tokens are kept per host contacted and per credential", "[registry_authorizer]") {
    Keys keys;
    std::atomic<int> tokens_issued{0};
    ScriptedTransport transport([&](const HttpRequest& r) {
        if (url_starts(r, "https://auth.example/token")) {
            return answer(200, token_answer("t-" + header_of(r, "Authorization") + std::to_string(++tokens_issued)), "application/json");
        }
        if (header_of(r, "Authorization").rfind("Bearer t-", 0) == 0) return answer(200, "{}");
        return challenge({kBearer});
    });
    Authorizer authorizer(transport, keys, plain_never);
    const RegistryHost mirror = host_named("mirror.example");
    const RegistryHost upstream = host_named("registry.example");
    REQUIRE(authorizer.send(mirror, "team/qwen", manifest_request(mirror), soon()).status == 200);
    REQUIRE(authorizer.send(upstream, "team/qwen", manifest_request(upstream), soon()).status == 200);
    CHECK(tokens_issued == 2);  // one realm, two hosts: two tokens
    keys.credentials = {{"ci-bot", "pull-pass"}};
    REQUIRE(authorizer.send(upstream, "team/qwen", manifest_request(upstream), soon()).status == 200);
    CHECK(tokens_issued == 3);  // an anonymous token never serves a credential's request
    CHECK(authorizer.tokens_kept() == 3);
}

TEST_CASE("a token realm on plain HTTP is asked only where --registry-insecure allows it", "[registry_authorizer]") {
    ScriptedTransport transport([&](const HttpRequest& r) {
        if (url_starts(r, "http://auth.example/token")) return answer(200, token_answer("t1"), "application/json");
        if (header_of(r, "Authorization") == "Bearer t1") return answer(200, "{}");
        return challenge({R"(Bearer realm="http://auth.example/token")"});
    });
    Keys none;
    const RegistryHost host = host_named("registry.example");
    Authorizer strict(transport, none, plain_never);
    const HttpResponse refused = strict.send(host, "team/qwen", manifest_request(host), soon());
    CHECK(refused.failure == RegistryFailure::tls);
    CHECK(refused.error.find("not in --registry-insecure") != std::string::npos);
    Authorizer lenient(transport, none, [](std::string_view authority, std::string_view) { return authority == "auth.example"; });
    CHECK(lenient.send(host, "team/qwen", manifest_request(host), soon()).status == 200);
}

TEST_CASE("a 401 without a challenge the webhook can read is unauthorized, said so", "[registry_authorizer]") {
    for (const std::vector<std::string>& fields : {std::vector<std::string>{}, std::vector<std::string>{"Bearer realm=\"unclosed"}}) {
        ScriptedTransport transport([&](const HttpRequest&) { return challenge(fields); });
        Keys none;
        Authorizer authorizer(transport, none, plain_never);
        const RegistryHost host = host_named("registry.example");
        const HttpResponse got = authorizer.send(host, "team/qwen", manifest_request(host), soon());
        CHECK(got.failure == RegistryFailure::unauthorized);
        CHECK(got.error.find("WWW-Authenticate") != std::string::npos);
    }
}

TEST_CASE("a host's own headers go with every request to it", "[registry_authorizer]") {
    ScriptedTransport transport([&](const HttpRequest&) { return answer(200, "{}"); });
    Keys none;
    Authorizer authorizer(transport, none, plain_never);
    RegistryHost host = host_named("mirror.example");
    host.headers = {{"X-Mirror-Tenant", "ml"}};
    REQUIRE(authorizer.send(host, "team/qwen", manifest_request(host), soon()).status == 200);
    CHECK(header_of(transport.sent.front(), "X-Mirror-Tenant") == "ml");
}
