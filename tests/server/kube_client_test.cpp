// Where the Kubernetes API is: the URL flag and the in-cluster environment.
// (Its TLS checks and answer caps are tested against a stand-in apiserver in
// tests/integration/security_test.py.)
#include "../../src/server/kube_client.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>
#include <vector>

using namespace miw::server;

TEST_CASE("the API URL is https://HOST[:PORT]", "[kube_client]") {
    struct Case {
        const char* url;
        bool ok;
        std::string host;
        std::string port;
    };
    const std::vector<Case> cases = {
        {"https://10.96.0.1:443", true, "10.96.0.1", "443"},
        {"https://kubernetes.default.svc", true, "kubernetes.default.svc", "443"},
        {"https://[fd00::1]:6443/", true, "fd00::1", "6443"},
        {"https://[fd00::1]", true, "fd00::1", "443"},
        {"http://10.96.0.1", false, "", ""},
        {"https://h/api", false, "", ""},
        {"https://h:port", false, "", ""},
        {"https://", false, "", ""},
    };
    for (const auto& c : cases) {
        INFO(c.url);
        const auto config = parse_api_url(c.url);
        CHECK(config.ok() == c.ok);
        if (c.ok) {
            CHECK(config->host == c.host);
            CHECK(config->port == c.port);
        } else {
            CHECK_THAT(config.error(), Catch::Contains("is not https://HOST[:PORT]"));
        }
    }
}

TEST_CASE("in a cluster the API is found from the service environment", "[kube_client]") {
    ::unsetenv("KUBERNETES_SERVICE_HOST");
    CHECK_FALSE(in_cluster_config());
    ::setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
    ::setenv("KUBERNETES_SERVICE_PORT", "6443", 1);
    const auto config = in_cluster_config();
    REQUIRE(config);
    CHECK(config->host == "10.96.0.1");
    CHECK(config->port == "6443");
    CHECK(config->token_file == std::string(kServiceAccountDir) + "/token");
    ::unsetenv("KUBERNETES_SERVICE_HOST");
    ::unsetenv("KUBERNETES_SERVICE_PORT");
}
