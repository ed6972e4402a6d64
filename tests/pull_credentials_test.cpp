// Pull Secrets, ServiceAccounts and credential provider answers, read as the
// kubelet reads them.
#include "model_image_webhook/pull_credentials.hpp"

#include "model_image_webhook/text.hpp"

#include <catch2/catch.hpp>

using namespace miw;

namespace {

std::string secret(const std::string& type, const std::string& key, const std::string& config) {
    return R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"pull","namespace":"ml"},"type":")" + type + R"(","data":{")" + key + R"(":")" +
           base64_encode(config) + R"("}})";
}

}  // namespace

TEST_CASE("a pull Secret of either docker type becomes a keyring", "[pull_credentials]") {
    const std::string auth = base64_encode("ci-bot:s3cret");
    struct Case {
        const char* name;
        std::string text;
    };
    const Case cases[] = {
        {"kubernetes.io/dockerconfigjson", secret("kubernetes.io/dockerconfigjson", ".dockerconfigjson", R"({"auths":{"registry.example.com":{"auth":")" + auth + R"("}}})")},
        {"kubernetes.io/dockercfg", secret("kubernetes.io/dockercfg", ".dockercfg", R"({"registry.example.com":{"auth":")" + auth + R"("}})")},
        {"username and password", secret("kubernetes.io/dockerconfigjson", ".dockerconfigjson", R"({"auths":{"https://registry.example.com/v1/":{"username":"ci-bot","password":"s3cret"}}})")},
    };
    for (const Case& c : cases) {
        SECTION(c.name) {
            std::string text = c.text;
            Result<KubeletKeyring> keyring = read_pull_secret(text);
            REQUIRE(keyring);
            const auto found = keyring->lookup("registry.example.com", "team/qwen");
            REQUIRE(found.size() == 1);
            CHECK(found[0].username == "ci-bot");
            CHECK(found[0].password == "s3cret");
        }
    }
}

TEST_CASE("a Secret that is no pull secret says why, never its value", "[pull_credentials]") {
    struct Case {
        const char* name;
        std::string text;
        const char* says;
    };
    const Case cases[] = {
        {"an Opaque secret", R"({"kind":"Secret","type":"Opaque","data":{"token":"aHVudGVyMg=="}})", "its type is Opaque"},
        {"no type", R"({"kind":"Secret","data":{}})", "its type is not set"},
        {"no data", R"({"kind":"Secret","type":"kubernetes.io/dockerconfigjson"})", "no data[\".dockerconfigjson\"]"},
        {"not base64", R"({"kind":"Secret","type":"kubernetes.io/dockerconfigjson","data":{".dockerconfigjson":"hunter2!!"}})", "is not base64"},
        {"not a docker config", secret("kubernetes.io/dockerconfigjson", ".dockerconfigjson", "[hunter2]"), "cannot be read"},
        {"a Status instead", R"({"kind":"Status","code":404})", "not a Secret"},
        {"not JSON", "hunter2", "not JSON"},
    };
    for (const Case& c : cases) {
        SECTION(c.name) {
            std::string text = c.text;
            Result<KubeletKeyring> keyring = read_pull_secret(text);
            REQUIRE_FALSE(keyring);
            CHECK_THAT(keyring.error(), Catch::Contains(c.says));
            CHECK_THAT(keyring.error(), !Catch::Contains("hunter2"));
        }
    }
}

TEST_CASE("a ServiceAccount's pull secrets are its imagePullSecrets' names, in order", "[pull_credentials]") {
    std::string text = R"({"kind":"ServiceAccount","metadata":{"name":"default"},"imagePullSecrets":[{"name":"b"},{"name":"a"},{}]})";
    CHECK(read_service_account_pull_secrets(text).value() == std::vector<std::string>{"b", "a"});
    std::string none = R"({"kind":"ServiceAccount","metadata":{"name":"default"}})";
    CHECK(read_service_account_pull_secrets(none).value().empty());
    std::string wrong = R"({"kind":"ServiceAccount","imagePullSecrets":"b"})";
    CHECK_FALSE(read_service_account_pull_secrets(wrong));
}

TEST_CASE("a credential provider's answer is read as the kubelet reads it", "[pull_credentials]") {
    std::string text = R"({"apiVersion":"credentialprovider.kubelet.k8s.io/v1","kind":"CredentialProviderResponse","cacheKeyType":"Registry",
                           "cacheDuration":"6h0m0s","auth":{"*.dkr.ecr.us-east-1.amazonaws.com":{"username":"AWS","password":"ecr-token"}}})";
    Result<CredentialProviderResponse> r = read_credential_provider_response(text);
    REQUIRE(r);
    CHECK(r->cache_key_type == CredentialProviderResponse::CacheKey::registry);
    CHECK(r->cache_duration == std::chrono::hours(6));
    REQUIRE(r->auth.size() == 1);
    CHECK(r->auth[0].first == "*.dkr.ecr.us-east-1.amazonaws.com");
    CHECK(r->auth[0].second.username == "AWS");

    struct Case {
        const char* name;
        std::string text;
    };
    const Case bad[] = {
        {"another kind", R"({"apiVersion":"credentialprovider.kubelet.k8s.io/v1","kind":"Status","cacheKeyType":"Image"})"},
        {"the alpha API", R"({"apiVersion":"credentialprovider.kubelet.k8s.io/v1alpha1","kind":"CredentialProviderResponse","cacheKeyType":"Image"})"},
        {"no cache key type", R"({"apiVersion":"credentialprovider.kubelet.k8s.io/v1","kind":"CredentialProviderResponse"})"},
        {"auth not a map", R"({"apiVersion":"credentialprovider.kubelet.k8s.io/v1","kind":"CredentialProviderResponse","cacheKeyType":"Image","auth":[]})"},
        {"not JSON", "Error: no credentials"},
    };
    for (const Case& c : bad) {
        SECTION(c.name) {
            std::string t = c.text;
            CHECK_FALSE(read_credential_provider_response(t));
        }
    }
}

TEST_CASE("an answer's cacheDuration is read as Go reads it; one that cannot be read keeps the credentials for the default", "[pull_credentials]") {
    struct Case {
        const char* duration;  // as JSON
        std::optional<std::chrono::seconds> kept;
    };
    const Case cases[] = {
        {R"("1.5h")", std::chrono::seconds(5400)},  {R"("2.5s")", std::chrono::seconds(2)}, {R"("0")", std::chrono::seconds(0)},
        {R"("500us")", std::chrono::seconds(0)},    {R"("12h0m0s")", std::chrono::hours(12)}, {R"("soon")", std::nullopt},
        {R"("-5m")", std::nullopt},                 {"300", std::nullopt},                     {"null", std::nullopt},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.duration) {
            std::string text = std::string(R"({"apiVersion":"credentialprovider.kubelet.k8s.io/v1","kind":"CredentialProviderResponse","cacheKeyType":"Image",)") +
                               R"("cacheDuration":)" + c.duration + R"(,"auth":{"registry.example.com":{"username":"u","password":"p"}}})";
            Result<CredentialProviderResponse> r = read_credential_provider_response(text);
            REQUIRE(r);
            CHECK(r->cache_duration == c.kept);
            CHECK(r->auth.size() == 1);
        }
    }
}

TEST_CASE("a .dockerconfigjson Secret is read only under auths, a .dockercfg only as the map, as the kubelet reads each", "[pull_credentials]") {
    const std::string auth = base64_encode("ci-bot:s3cret");
    const std::string entry = R"({"registry.example.com":{"auth":")" + auth + R"("}})";
    struct Case {
        const char* name;
        std::string text;
        std::size_t credentials;
    };
    const Case cases[] = {
        {"dockerconfigjson with auths", secret("kubernetes.io/dockerconfigjson", ".dockerconfigjson", R"({"auths":)" + entry + "}"), 1},
        {"dockerconfigjson without auths: none", secret("kubernetes.io/dockerconfigjson", ".dockerconfigjson", entry), 0},
        {"dockercfg as the map", secret("kubernetes.io/dockercfg", ".dockercfg", entry), 1},
        {"dockercfg nesting auths: none for the registry", secret("kubernetes.io/dockercfg", ".dockercfg", R"({"auths":)" + entry + "}"), 0},
    };
    for (const Case& c : cases) {
        SECTION(c.name) {
            std::string text = c.text;
            Result<KubeletKeyring> keyring = read_pull_secret(text);
            REQUIRE(keyring);
            CHECK(keyring->lookup("registry.example.com", "team/qwen").size() == c.credentials);
        }
    }
}

TEST_CASE("a CredentialProviderConfig is read as the kubelet reads it, YAML or JSON", "[pull_credentials]") {
    const std::string yaml = R"(apiVersion: kubelet.config.k8s.io/v1
kind: CredentialProviderConfig
providers:
- name: ecr-credential-provider
  matchImages:
  - "*.dkr.ecr.*.amazonaws.com"
  - "*.dkr.ecr.*.amazonaws.com.cn"
  defaultCacheDuration: "12h"
  apiVersion: credentialprovider.kubelet.k8s.io/v1
  args: [get-credentials]
  env:
  - name: AWS_PROFILE
    value: pull
)";
    Result<CredentialProviderConfig> config = read_credential_provider_config(yaml);
    REQUIRE(config);
    REQUIRE(config->providers.size() == 1);
    const CredentialProvider& ecr = config->providers[0];
    CHECK(ecr.name == "ecr-credential-provider");
    CHECK(ecr.default_cache_duration == std::chrono::hours(12));
    CHECK(ecr.args == std::vector<std::string>{"get-credentials"});
    CHECK(ecr.env == std::vector<std::pair<std::string, std::string>>{{"AWS_PROFILE", "pull"}});
    CHECK(provider_matches(ecr, "123456789012.dkr.ecr.us-east-1.amazonaws.com/models/qwen"));
    CHECK_FALSE(provider_matches(ecr, "registry.example.com/models/qwen"));
    CHECK_FALSE(provider_matches(ecr, "dkr.ecr.us-east-1.amazonaws.com/models/qwen"));

    const std::string json = R"({"apiVersion":"kubelet.config.k8s.io/v1","kind":"CredentialProviderConfig","providers":[
        {"name":"acr-credential-provider","matchImages":["*.azurecr.io"],"defaultCacheDuration":"10m","apiVersion":"credentialprovider.kubelet.k8s.io/v1"}]})";
    Result<CredentialProviderConfig> acr = read_credential_provider_config(json);
    REQUIRE(acr);
    CHECK(acr->providers[0].default_cache_duration == std::chrono::minutes(10));
}

TEST_CASE("a CredentialProviderConfig the webhook cannot follow says which provider and why", "[pull_credentials]") {
    const std::string head = "apiVersion: kubelet.config.k8s.io/v1\nkind: CredentialProviderConfig\nproviders:\n";
    const std::string ok_fields = "  matchImages: ['*.example.com']\n  defaultCacheDuration: 1m\n  apiVersion: credentialprovider.kubelet.k8s.io/v1\n";
    struct Case {
        const char* name;
        std::string text;
        const char* says;
    };
    const Case cases[] = {
        {"another kind", "apiVersion: kubelet.config.k8s.io/v1\nkind: KubeletConfiguration\n", "kind is not CredentialProviderConfig"},
        {"the beta config", "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: CredentialProviderConfig\nproviders: []\n", "apiVersion is not kubelet.config.k8s.io/v1"},
        {"no providers", "apiVersion: kubelet.config.k8s.io/v1\nkind: CredentialProviderConfig\nproviders: []\n", "lists no providers"},
        {"a path for a name", head + "- name: ../../bin/sh\n" + ok_fields, "not a file name"},
        {"the alpha plugin API", head + "- name: p\n  matchImages: ['*']\n  defaultCacheDuration: 1m\n  apiVersion: credentialprovider.kubelet.k8s.io/v1alpha1\n",
         "provider \"p\": its apiVersion is not credentialprovider.kubelet.k8s.io/v1"},
        {"no matchImages", head + "- name: p\n  defaultCacheDuration: 1m\n  apiVersion: credentialprovider.kubelet.k8s.io/v1\n", "matchImages is empty"},
        {"no cache duration", head + "- name: p\n  matchImages: ['*']\n  apiVersion: credentialprovider.kubelet.k8s.io/v1\n", "defaultCacheDuration is required"},
        {"service account tokens", head + "- name: p\n" + ok_fields + "  tokenAttributes: {serviceAccountTokenAudience: x}\n", "tokenAttributes"},
        {"not YAML", "providers: [", "cannot be read"},
    };
    for (const Case& c : cases) {
        SECTION(c.name) {
            Result<CredentialProviderConfig> config = read_credential_provider_config(c.text);
            REQUIRE_FALSE(config);
            CHECK_THAT(config.error(), Catch::Contains(c.says));
        }
    }
}

TEST_CASE("a plugin's answer is kept by the image, its registry, or for all", "[pull_credentials]") {
    using Key = CredentialProviderResponse::CacheKey;
    CHECK(provider_cache_key(Key::image, "r.example.com/team/qwen") == "r.example.com/team/qwen");
    CHECK(provider_cache_key(Key::registry, "r.example.com:5000/team/qwen") == "r.example.com:5000");
    CHECK(provider_cache_key(Key::global, "r.example.com/team/qwen").empty());
}
