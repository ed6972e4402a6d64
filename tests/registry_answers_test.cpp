// Manifests, indexes, tokens and docker config files as registries and the kubelet write them.
#include "model_image_webhook/registry_answers.hpp"

#include <catch2/catch.hpp>

using namespace miw;

TEST_CASE("a manifest's size is its config plus its layers, of either media type", "[registry_answers]") {
    for (const auto media : {kOciManifest, kDockerManifest}) {
        std::string text = R"({"schemaVersion":2,"mediaType":")" + std::string(media) +
                           R"(","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:c","size":1000},)"
                           R"("layers":[{"digest":"sha256:l1","size":4000000000},{"digest":"sha256:l2","size":5}]})";
        const auto m = read_image_manifest(text, "");
        REQUIRE(m.ok());
        CHECK_FALSE(m->is_index);
        CHECK(m->compressed_bytes == 4000001005ull);
    }
}

TEST_CASE("an index lists its platforms, by mediaType, Content-Type or shape", "[registry_answers]") {
    const std::string entries = R"("manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:arm","size":1,)"
                                R"("platform":{"os":"linux","architecture":"arm64","variant":"v8"}},)"
                                R"({"digest":"sha256:amd","size":1,"platform":{"os":"linux","architecture":"amd64"}}])";
    struct Case {
        const char* name;
        std::string text;
        const char* content_type;
    };
    const Case cases[] = {
        {"OCI mediaType", R"({"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json",)" + entries + "}", ""},
        {"Docker list by Content-Type", R"({"schemaVersion":2,)" + entries + "}", "application/vnd.docker.distribution.manifest.list.v2+json"},
        {"OCI without mediaType", R"({"schemaVersion":2,)" + entries + "}", ""},
    };
    for (const Case& c : cases) {
        SECTION(c.name) {
            std::string text = c.text;
            const auto m = read_image_manifest(text, c.content_type);
            REQUIRE(m.ok());
            REQUIRE(m->is_index);
            REQUIRE(m->entries.size() == 2);
            CHECK(entry_for_platform(*m, "linux/amd64")->digest == "sha256:amd");
            CHECK(entry_for_platform(*m, "linux/arm64/v8")->digest == "sha256:arm");
            CHECK(entry_for_platform(*m, "linux/arm64")->digest == "sha256:arm");
            CHECK(entry_for_platform(*m, "linux/s390x") == nullptr);
            CHECK(entry_for_platform(*m, "linux") == nullptr);
        }
    }
}

TEST_CASE("a manifest that cannot be read is an error with the reason", "[registry_answers]") {
    struct Case {
        const char* name;
        std::string text;
        const char* says;
    };
    const Case cases[] = {
        {"not JSON", "<html>", "not JSON"},
        {"not an object", "[1]", "not a JSON object"},
        {"no config", R"({"mediaType":"application/vnd.oci.image.manifest.v1+json","layers":[]})", "no config"},
        {"a negative size", R"({"config":{"size":1},"layers":[{"size":-1}]})", "non-negative integer"},
        {"a size as a string", R"({"config":{"size":"1"},"layers":[]})", "non-negative integer"},
        {"no layers", R"({"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"size":1}})", "no layers"},
        {"sizes that overflow", R"({"config":{"size":18446744073709551615},"layers":[{"size":1}]})", "overflow"},
        {"an index entry without digest", R"({"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[{}]})", "no digest"},
        {"an index without manifests", R"({"mediaType":"application/vnd.oci.image.index.v1+json"})", "no manifests"},
    };
    for (const Case& c : cases) {
        SECTION(c.name) {
            std::string text = c.text;
            const auto m = read_image_manifest(text, "");
            REQUIRE_FALSE(m.ok());
            CHECK_THAT(m.error(), Catch::Contains(c.says));
        }
    }
}

TEST_CASE("a token answer gives its token and lifetime", "[registry_answers]") {
    std::string docker = R"({"token":"abc","access_token":"abc","expires_in":300,"issued_at":"2026-12-04T00:00:00Z"})";
    auto t = read_registry_token(docker);
    REQUIRE(t.ok());
    CHECK(t->token == "abc");
    CHECK(t->expires_in_seconds == 300);
    std::string oauth = R"({"access_token":"xyz"})";
    t = read_registry_token(oauth);
    REQUIRE(t.ok());
    CHECK(t->token == "xyz");
    CHECK(t->expires_in_seconds == 60);
    std::string none = R"({"expires_in":300})";
    CHECK_FALSE(read_registry_token(none).ok());
}

TEST_CASE("a registry's error list is searched for its code", "[registry_answers]") {
    std::string unknown = R"({"errors":[{"code":"MANIFEST_UNKNOWN","message":"manifest unknown","detail":{}}]})";
    CHECK(registry_error_names(unknown, "MANIFEST_UNKNOWN"));
    std::string other = R"({"errors":[{"code":"NAME_UNKNOWN"}]})";
    CHECK_FALSE(registry_error_names(other, "MANIFEST_UNKNOWN"));
    std::string html = "<html>404</html>";
    CHECK_FALSE(registry_error_names(html, "MANIFEST_UNKNOWN"));
}

TEST_CASE("a .dockerconfigjson is read as the kubelet reads it", "[registry_answers]") {
    // "auth" is base64("robot:s3cr:et"): the password may hold colons.
    std::string text = R"({"auths":{"registry.example.com":{"auth":"cm9ib3Q6czNjcjpldA=="},)"
                       R"("https://index.docker.io/v1/":{"username":"hub","password":"p"},"helper.example":{}}})";
    const auto creds = read_docker_config(text);
    REQUIRE(creds.ok());
    CHECK(creds->size() == 2);
    const auto found = creds->lookup("registry.example.com", "team/qwen");
    REQUIRE(found.size() == 1);
    CHECK(found[0].username == "robot");
    CHECK(found[0].password == "s3cr:et");
    CHECK(creds->lookup("docker.io", "library/qwen").at(0).username == "hub");
    std::string legacy = R"({"registry.example.com":{"auth":"dTpw"}})";
    const auto old = read_docker_config(legacy);
    REQUIRE(old.ok());
    CHECK(old->lookup("registry.example.com", "m").at(0).password == "p");
}

TEST_CASE("a docker config that cannot be read says why, never the secret", "[registry_answers]") {
    std::string bad_auth = R"({"auths":{"r.example":{"auth":"bm9jb2xvbg=="}}})";  // "nocolon"
    const auto a = read_docker_config(bad_auth);
    REQUIRE_FALSE(a.ok());
    CHECK_THAT(a.error(), Catch::Contains("not base64 of user:password"));
    CHECK_THAT(a.error(), !Catch::Contains("bm9jb2xvbg"));
    CHECK_THAT(a.error(), !Catch::Contains("nocolon"));
    std::string not_json = "auths: {}";
    CHECK_FALSE(read_docker_config(not_json).ok());
    std::string wrong = R"({"auths":[]})";
    CHECK_FALSE(read_docker_config(wrong).ok());
}
