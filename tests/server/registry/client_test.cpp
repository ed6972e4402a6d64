// The distribution client against a scripted transport: where it connects,
// what it asks for, hosts in order, indexes, and what it tells of the answer.
#include "../../../src/server/registry/client.hpp"

#include "scripted_transport.hpp"

#include "model_image_webhook/registry/kubelet_keyring.hpp"
#include "model_image_webhook/text.hpp"

#include <catch2/catch.hpp>

#include <thread>

using namespace miw;
using namespace miw::server;
using namespace miw::server::test;
using namespace std::chrono_literals;

namespace {

Deadline soon() { return std::chrono::steady_clock::now() + 5s; }

// A registry's content by digest, served at any host.
struct Content {
    std::string body;
    std::string type;
    std::string digest() const { return digest_of("sha256", body); }
};

Content image(std::string config_type = "application/vnd.oci.image.config.v1+json", std::string layer_type = "application/vnd.oci.image.layer.v1.tar+gzip") {
    return {R"({"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":")" + config_type +
                R"(","digest":"sha256:c","size":100},"layers":[{"mediaType":")" + layer_type + R"(","digest":"sha256:l1","size":1000},{"mediaType":")" +
                layer_type + R"(","digest":"sha256:l2","size":2000}]})",
            "application/vnd.oci.image.manifest.v1+json"};
}

Content index_of(const std::string& entries) {
    return {R"({"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[)" + entries + "]}", "application/vnd.oci.image.index.v1+json"};
}

std::string entry(const std::string& digest, const std::string& arch, const std::string& variant = "") {
    return R"({"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":")" + digest + R"(","size":1,"platform":{"os":"linux","architecture":")" + arch +
           (variant.empty() ? "" : R"(","variant":")" + variant) + R"("}})";
}

HttpResponse serve(const std::vector<Content>& contents, const HttpRequest& r) {
    for (const Content& c : contents) {
        if (r.url.size() > c.digest().size() && r.url.compare(r.url.size() - c.digest().size(), std::string::npos, c.digest()) == 0) {
            return answer(200, c.body, c.type);
        }
    }
    return answer(404, R"({"errors":[{"code":"MANIFEST_UNKNOWN"}]})", "application/json");
}

struct Rig {
    explicit Rig(std::function<HttpResponse(const HttpRequest&)> script, std::string platform = "linux/amd64")
        : transport(std::move(script)), authorizer(transport, keys, [](std::string_view, std::string_view) { return false; }),
          client(hosts, authorizer, std::move(platform)) {}
    ScriptedTransport transport;
    NoKeys keys;
    FlagRegistryHosts hosts{{}};
    Authorizer authorizer;
    RegistryClient client;
};

// Two hosts for every registry: a mirror, then the registry itself.
class MirrorFirst : public RegistryHosts {
public:
    std::vector<RegistryHost> hosts_for(std::string_view registry) const override {
        RegistryHost mirror;
        mirror.host = "mirror.example";
        mirror.path_prefix = "/v2";
        RegistryHost upstream;
        upstream.host = std::string(registry);
        return {mirror, upstream};
    }
};

}  // namespace

TEST_CASE("Docker Hub is asked at its API host, with one GET and no HEAD", "[registry_client]") {
    const Content model = image();
    Rig rig([&](const HttpRequest& r) { return serve({model}, r); });
    const RegistryLookup found = rig.client.fetch("qwen@" + model.digest(), soon());
    CHECK(found.status == RegistryLookupStatus::found);
    REQUIRE(rig.transport.sent.size() == 1);
    CHECK(rig.transport.sent[0].url == "https://registry-1.docker.io/v2/library/qwen/manifests/" + model.digest());
    const std::string accept = header_of(rig.transport.sent[0], "Accept");
    CHECK(accept.find("application/vnd.oci.image.index.v1+json") != std::string::npos);
    // As containerd's resolver ends it, so a negotiating registry answers what the node gets.
    CHECK(accept.substr(accept.size() - 5) == ", */*");
}

TEST_CASE("a found image tells its size and what it holds", "[registry_client]") {
    const Content model = image();
    Rig rig([&](const HttpRequest& r) { return serve({model}, r); });
    const RegistryLookup found = rig.client.fetch("registry.example/team/qwen@" + model.digest(), soon());
    REQUIRE(found.status == RegistryLookupStatus::found);
    CHECK(found.compressed_bytes == 3100u);
    CHECK(found.facts.media_type == "application/vnd.oci.image.manifest.v1+json");
    CHECK(found.facts.config_media_type == "application/vnd.oci.image.config.v1+json");
    REQUIRE(found.facts.layer_kinds.size() == 1);
    CHECK(found.facts.layer_kinds[0].media_type == "application/vnd.oci.image.layer.v1.tar+gzip");
    CHECK(found.facts.layer_kinds[0].count == 2);
    CHECK(found.facts.layer_kinds[0].bytes == 3000u);
    CHECK_FALSE(found.facts.from_index);
}

TEST_CASE("an index is judged and sized by the entry containerd would pull", "[registry_client]") {
    const Content amd = image();
    const Content arm = image("application/vnd.oci.image.config.v1+json", "application/vnd.oci.image.layer.v1.tar");
    struct Case {
        const char* name;
        const char* platform;
        std::string entries;
        const Content* expected;
    };
    const Case cases[] = {
        {"amd64", "linux/amd64", entry(amd.digest(), "amd64") + "," + entry(arm.digest(), "arm64", "v8"), &amd},
        {"arm64/v8 asked, the entry says v8", "linux/arm64/v8", entry(amd.digest(), "amd64") + "," + entry(arm.digest(), "arm64", "v8"), &arm},
        {"arm64/v8 asked, the entry leaves the variant out", "linux/arm64/v8", entry(amd.digest(), "amd64") + "," + entry(arm.digest(), "arm64"), &arm},
        {"arm64 asked, the entry says v8", "linux/arm64", entry(amd.digest(), "amd64") + "," + entry(arm.digest(), "arm64", "v8"), &arm},
    };
    for (const Case& c : cases) {
        SECTION(c.name) {
            const Content index = index_of(c.entries);
            Rig rig([&](const HttpRequest& r) { return serve({index, amd, arm}, r); }, c.platform);
            const RegistryLookup found = rig.client.fetch("registry.example/team/qwen@" + index.digest(), soon());
            REQUIRE(found.status == RegistryLookupStatus::found);
            CHECK(found.facts.from_index);
            CHECK(found.facts.platforms == std::vector<std::string>{"linux/amd64", std::string("linux/arm64") + (c.entries.find("\"variant\"") != std::string::npos ? "/v8" : "")});
            CHECK(found.facts.layer_kinds.at(0).media_type == (c.expected == &amd ? "application/vnd.oci.image.layer.v1.tar+gzip" : "application/vnd.oci.image.layer.v1.tar"));
            REQUIRE(rig.transport.sent.size() == 2);
            CHECK(rig.transport.sent[1].url == "https://registry.example/v2/team/qwen/manifests/" + c.expected->digest());
        }
    }
}

TEST_CASE("an index whose platform manifest could not be read is not found, and not kept", "[registry_client]") {
    const Content amd = image();
    const Content index = index_of(entry(amd.digest(), "amd64"));
    struct Case {
        const char* name;
        HttpResponse child;
        RegistryLookupStatus status;
        RegistryFailure failure;
        bool incomplete;
    };
    HttpResponse timed_out;
    timed_out.failure = RegistryFailure::timeout;
    timed_out.error = "no answer in time";
    const Case cases[] = {
        {"a 503", answer(503), RegistryLookupStatus::unavailable, RegistryFailure::server_error, true},
        {"a timeout", timed_out, RegistryLookupStatus::unavailable, RegistryFailure::timeout, true},
        {"content of another digest", answer(200, image("application/x-other").body, amd.type), RegistryLookupStatus::unavailable, RegistryFailure::bad_answer, true},
        {"a 404: the node cannot pull it either", answer(404), RegistryLookupStatus::not_found, RegistryFailure::none, false},
    };
    for (const Case& c : cases) {
        SECTION(c.name) {
            Rig rig([&](const HttpRequest& r) { return r.url.find(amd.digest()) != std::string::npos ? c.child : serve({index}, r); });
            const RegistryLookup got = rig.client.fetch("registry.example/team/qwen@" + index.digest(), soon());
            CHECK(got.status == c.status);
            CHECK(got.failure == c.failure);
            CHECK(got.incomplete == c.incomplete);
            CHECK(got.detail.find("linux/amd64 manifest") != std::string::npos);
        }
    }
}

TEST_CASE("an index entry whose digest is not a digest is never put in a request", "[registry_client]") {
    for (const std::string& bad : {std::string("sha256:../../../v2/other/manifests/x"), std::string("sha256:abc?x=1"), std::string("md5:00")}) {
        DYNAMIC_SECTION(bad) {
            const Content index = index_of(entry(bad, "amd64"));
            Rig rig([&](const HttpRequest& r) { return serve({index}, r); });
            const RegistryLookup found = rig.client.fetch("registry.example/team/qwen@" + index.digest(), soon());
            CHECK(found.status == RegistryLookupStatus::found);
            CHECK(found.detail.find("names no digest that can be checked") != std::string::npos);
            CHECK(rig.transport.sent.size() == 1);
        }
    }
}

TEST_CASE("a verified manifest the webhook cannot read is found, and what it holds is told", "[registry_client]") {
    const Content odd{R"({"schemaVersion":2,"mediaType":"application/vnd.cncf.model.manifest.v1+json","blobs":[]})", "application/vnd.cncf.model.manifest.v1+json"};
    Rig rig([&](const HttpRequest& r) { return serve({odd}, r); });
    const RegistryLookup found = rig.client.fetch("registry.example/team/qwen@" + odd.digest(), soon());
    CHECK(found.status == RegistryLookupStatus::found);
    CHECK(found.failure == RegistryFailure::none);
    CHECK(found.facts.media_type == "application/vnd.cncf.model.manifest.v1+json");
    CHECK(found.detail.find("application/vnd.cncf.model.manifest.v1+json") != std::string::npos);
}

TEST_CASE("content that does not hash to the digest is a mismatch, and a 404 is unknown", "[registry_client]") {
    const Content model = image();
    const std::string other = "sha256:" + std::string(64, 'b');
    Rig rig([&](const HttpRequest& r) { return r.url.find(other) != std::string::npos ? answer(200, model.body, model.type) : serve({}, r); });
    CHECK(rig.client.fetch("registry.example/team/qwen@" + other, soon()).status == RegistryLookupStatus::digest_mismatch);
    const RegistryLookup unknown = rig.client.fetch("registry.example/team/qwen@sha256:" + std::string(64, 'c'), soon());
    CHECK(unknown.status == RegistryLookupStatus::not_found);
    CHECK(unknown.detail.find("MANIFEST_UNKNOWN") != std::string::npos);
}

TEST_CASE("a redirect is not followed, and its target is told without its query", "[registry_client]") {
    Rig rig([&](const HttpRequest&) {
        HttpResponse a = answer(307);
        a.location = "https://bucket.s3.example/blobs/x?X-Amz-Signature=deadbeef&X-Amz-Credential=AKIA";
        return a;
    });
    const RegistryLookup got = rig.client.fetch("registry.example/team/qwen@sha256:" + std::string(64, 'c'), soon());
    CHECK(got.status == RegistryLookupStatus::unavailable);
    CHECK(got.failure == RegistryFailure::redirect);
    CHECK(got.detail.find("https://bucket.s3.example/blobs/x?...") != std::string::npos);
    CHECK(got.detail.find("Signature") == std::string::npos);
    CHECK(rig.transport.sent.size() == 1);
}

TEST_CASE("hosts are asked in order; unknown only where every host said 404", "[registry_client]") {
    const Content model = image();
    const std::string missing = "sha256:" + std::string(64, 'd');
    struct Case {
        const char* name;
        std::function<HttpResponse(const HttpRequest&)> script;
        std::string digest;
        RegistryLookupStatus status;
        std::size_t requests;
    };
    const Case cases[] = {
        {"the mirror has it", [&](const HttpRequest& r) { return serve({model}, r); }, model.digest(), RegistryLookupStatus::found, 1},
        {"the mirror has not, the registry has",
         [&](const HttpRequest& r) { return url_starts(r, "https://mirror.example") ? serve({}, r) : serve({model}, r); }, model.digest(),
         RegistryLookupStatus::found, 2},
        {"the mirror fails, the registry has",
         [&](const HttpRequest& r) { return url_starts(r, "https://mirror.example") ? answer(503) : serve({model}, r); }, model.digest(),
         RegistryLookupStatus::found, 2},
        {"both said 404", [&](const HttpRequest& r) { return serve({}, r); }, missing, RegistryLookupStatus::not_found, 2},
        {"a 404 and a failure: not certain",
         [&](const HttpRequest& r) { return url_starts(r, "https://mirror.example") ? answer(503) : serve({}, r); }, missing,
         RegistryLookupStatus::unavailable, 2},
    };
    for (const Case& c : cases) {
        SECTION(c.name) {
            ScriptedTransport transport(c.script);
            NoKeys keys;
            MirrorFirst hosts;
            Authorizer authorizer(transport, keys, [](std::string_view, std::string_view) { return false; });
            RegistryClient client(hosts, authorizer, "linux/amd64");
            const RegistryLookup got = client.fetch("registry.example/team/qwen@" + c.digest, soon());
            CHECK(got.status == c.status);
            CHECK(transport.sent.size() == c.requests);
            if (c.status == RegistryLookupStatus::unavailable) {
                CHECK(got.failure == RegistryFailure::server_error);
                CHECK(got.detail.find("mirror.example") != std::string::npos);
                CHECK(got.detail.find("registry.example answered 404") != std::string::npos);
            }
        }
    }
}

TEST_CASE("a registry outside --registry-allow is never asked", "[registry_client]") {
    const Content model = image();
    ScriptedTransport transport([&](const HttpRequest& r) { return serve({model}, r); });
    NoKeys keys;
    FlagRegistryHosts hosts({});
    Authorizer authorizer(transport, keys, [](std::string_view, std::string_view) { return false; });
    RegistryClient client(hosts, authorizer, "linux/amd64", RegistryAllowList::parse("registry.example.com,*.internal.example").value());
    const RegistryLookup outside = client.fetch("10.0.0.7:22/team/qwen@" + model.digest(), soon());
    CHECK(outside.status == RegistryLookupStatus::unavailable);
    CHECK(outside.failure == RegistryFailure::not_allowed);
    CHECK(outside.detail == "the registry 10.0.0.7:22 is not in the allowed registries (--registry-allow)");
    CHECK(transport.sent.empty());
    CHECK(client.fetch("registry.example.com/team/qwen@" + model.digest(), soon()).status == RegistryLookupStatus::found);
    CHECK(client.fetch("mirror.internal.example/team/qwen@" + model.digest(), soon()).status == RegistryLookupStatus::found);
    CHECK(transport.sent.size() == 2);
}

TEST_CASE("a deadline that comes between hosts is no answer, and none to keep", "[registry_client]") {
    const std::string missing = "sha256:" + std::string(64, 'd');
    ScriptedTransport transport([&](const HttpRequest& r) {
        std::this_thread::sleep_for(60ms);  // the mirror's 404 takes the whole budget
        return serve({}, r);
    });
    NoKeys keys;
    MirrorFirst hosts;
    Authorizer authorizer(transport, keys, [](std::string_view, std::string_view) { return false; });
    RegistryClient client(hosts, authorizer, "linux/amd64");
    const RegistryLookup got = client.fetch("registry.example/team/qwen@" + missing, std::chrono::steady_clock::now() + 30ms);
    CHECK(transport.sent.size() == 1);
    CHECK(got.status == RegistryLookupStatus::unavailable);
    CHECK(got.failure == RegistryFailure::timeout);
    CHECK(got.incomplete);
    CHECK(got.detail.find("1 of 2 hosts") != std::string::npos);
}

TEST_CASE("Docker Hub's credentials, keyed as the kubelet keys them, go to its API host", "[registry_client]") {
    const Content model = image();
    KubeletKeyring keyring;
    keyring.add("https://index.docker.io/v1/", {"hub-bot", "hub-pass"});
    ScriptedTransport transport([&](const HttpRequest& r) {
        if (header_of(r, "Authorization") == "Basic " + base64_encode("hub-bot:hub-pass")) return serve({model}, r);
        return challenge({R"(Basic realm="Docker Hub")"});
    });
    const FlagRegistryHosts hosts({});
    Authorizer authorizer(transport, keyring, [](std::string_view, std::string_view) { return false; });
    RegistryClient client(hosts, authorizer, "linux/amd64");
    const RegistryLookup found = client.fetch("docker.io/library/qwen@" + model.digest(), soon());
    CHECK(found.status == RegistryLookupStatus::found);
    REQUIRE(transport.sent.size() == 2);
    CHECK(url_starts(transport.sent[1], "https://registry-1.docker.io/v2/library/qwen/manifests/"));
    // A registry the keyring has nothing for is asked anonymously, and says so.
    const RegistryLookup other = client.fetch("registry.example/team/qwen@" + model.digest(), soon());
    CHECK(other.failure == RegistryFailure::unauthorized);
    CHECK(other.detail.find("none are configured for registry.example") != std::string::npos);
}
