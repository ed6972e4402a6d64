// WWW-Authenticate challenges as registries send them with a 401.
#include "model_image_webhook/registry/challenge.hpp"

#include <catch2/catch.hpp>

using namespace miw;

TEST_CASE("registry challenges are read scheme by scheme, parameters unquoted", "[www_authenticate]") {
    struct Case {
        const char* name;
        const char* header;
        std::size_t challenges;
        const char* scheme;
        const char* realm;
        const char* service;
        const char* scope;
    };
    const Case cases[] = {
        {"Docker Hub", R"(Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/ubuntu:pull")", 1, "bearer",
         "https://auth.docker.io/token", "registry.docker.io", "repository:library/ubuntu:pull"},
        {"distribution's htpasswd", R"(Basic realm="Registry Realm")", 1, "basic", "Registry Realm", "", ""},
        {"spaces around the separators", R"(Bearer   realm = "https://t.example/token" , service=reg.example)", 1, "bearer", "https://t.example/token", "reg.example", ""},
        {"an escaped quote", R"(Bearer realm="https://t.example/a\"b")", 1, "bearer", "https://t.example/a\"b", "", ""},
        {"two challenges, Basic first", R"(Basic realm="x", Bearer realm="https://t.example/token",service="s")", 2, "basic", "x", "", ""},
        {"a scheme alone, then another", R"(Negotiate, Bearer realm="r")", 2, "negotiate", "", "", ""},
        {"token68 credentials", "Basic dXNlcjpwYXNz==", 1, "basic", "", "", ""},
        {"scheme in capitals", R"(BEARER REALM="r")", 1, "bearer", "r", "", ""},
    };
    for (const Case& c : cases) {
        SECTION(c.name) {
            const auto parsed = parse_www_authenticate(c.header);
            REQUIRE(parsed.ok());
            REQUIRE(parsed->size() == c.challenges);
            const AuthChallenge& first = parsed->front();
            CHECK(first.scheme == c.scheme);
            CHECK(first.param("realm") == c.realm);
            CHECK(first.param("service") == c.service);
            CHECK(first.param("scope") == c.scope);
        }
    }
    const auto two = parse_www_authenticate(R"(Basic realm="x", Bearer realm="https://t.example/token",service="s")");
    REQUIRE(two.ok());
    CHECK((*two)[1].scheme == "bearer");
    CHECK((*two)[1].param("service") == "s");
}

TEST_CASE("a challenge header that cannot be read is an error with the reason", "[www_authenticate]") {
    struct Case {
        const char* name;
        std::string header;
        const char* says;
    };
    const Case cases[] = {
        {"empty", "", "no challenge"},
        {"an unclosed quote", R"(Bearer realm="https://t.example)", "not closed"},
        {"a parameter without a value", "Bearer realm=;", "has no value"},
        {"a stray character", R"(Bearer realm="r" ; x)", "unexpected character"},
        {"a control character in a quote", "Bearer realm=\"a\x01\"", "control character"},
        {"a header past the cap", "Bearer realm=\"" + std::string(9000, 'a') + "\"", "longer than"},
        {"no scheme", "=x", "no scheme"},
    };
    for (const Case& c : cases) {
        SECTION(c.name) {
            const auto parsed = parse_www_authenticate(c.header);
            REQUIRE_FALSE(parsed.ok());
            CHECK_THAT(parsed.error(), Catch::Contains(c.says));
        }
    }
}
