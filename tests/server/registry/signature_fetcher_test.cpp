// Finding a digest's signatures against a scripted registry: the referrers
// API, the referrers tag where it is missing, every bundle referrer read,
// the legacy .sig, digests checked, caps held, hosts in order.
#include "../../../src/server/registry/signature_fetcher.hpp"

#include "../../../src/server/registry/client.hpp"
#include "scripted_transport.hpp"

#include <catch2/catch.hpp>

#include <map>

using namespace miw;
using namespace miw::server;
using namespace miw::server::test;
using namespace std::chrono_literals;

namespace {

Deadline soon() { return std::chrono::steady_clock::now() + 5s; }

const std::string kImage = "sha256:" + std::string(64, 'a');
const std::string kReference = "registry.example.com/models/qwen@" + kImage;
const std::string kTag = "sha256-" + std::string(64, 'a');
constexpr std::string_view kBundleType = "application/vnd.dev.sigstore.bundle.v0.3+json";

// A registry of paths (after /v2/models/qwen) to answers; anything else 404.
struct Registry {
    std::map<std::string, HttpResponse> paths;

    // A blob or a manifest stored by its digest; returns the digest.
    std::string put(const std::string& kind, const std::string& body, const std::string& type = "application/octet-stream") {
        const std::string digest = digest_of("sha256", body);
        paths["/" + kind + "/" + digest] = answer(200, body, type);
        return digest;
    }
    // A referrer manifest of one bundle layer; returns its descriptor in a listing.
    std::string referrer(const std::string& bundle, std::string_view artifact_type = kBundleType, bool listed_type = true) {
        const std::string layer = put("blobs", bundle);
        const std::string manifest = R"({"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","artifactType":")" + std::string(artifact_type) +
                                     R"(","config":{"mediaType":"application/vnd.oci.empty.v1+json","digest":"sha256:44","size":2},"layers":[{"mediaType":")" +
                                     std::string(artifact_type) + R"(","digest":")" + layer + R"(","size":)" + std::to_string(bundle.size()) + "}]}";
        const std::string digest = put("manifests", manifest, "application/vnd.oci.image.manifest.v1+json");
        return R"({"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":")" + digest + R"(","size":1)" +
               (listed_type ? R"(,"artifactType":")" + std::string(artifact_type) + "\"" : std::string()) + "}";
    }
    void list(const std::string& path, const std::vector<std::string>& entries) {
        std::string index = R"({"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[)";
        for (std::size_t i = 0; i < entries.size(); ++i) index += (i ? "," : "") + entries[i];
        paths[path] = answer(200, index + "]}", "application/vnd.oci.image.index.v1+json");
    }

    HttpResponse serve(const HttpRequest& r) const {
        const std::string prefix = "https://registry.example.com/v2/models/qwen";
        if (r.url.rfind(prefix, 0) == 0) {
            if (auto it = paths.find(r.url.substr(prefix.size())); it != paths.end()) return it->second;
        }
        return answer(404, R"({"errors":[{"code":"NOT_FOUND"}]})", "application/json");
    }
};

struct Rig {
    explicit Rig(std::function<HttpResponse(const HttpRequest&)> script)
        : transport(std::move(script)), authorizer(transport, keys, [](std::string_view, std::string_view) { return false; }),
          fetcher(hosts, authorizer, transport) {}
    ScriptedTransport transport;
    NoKeys keys;
    FlagRegistryHosts hosts{{}};
    Authorizer authorizer;
    SignatureFetcher fetcher;

    SignatureFetch fetch() { return fetcher.fetch(kReference, PullCredentials{}, soon()); }
};

}  // namespace

TEST_CASE("the referrers API's bundles are each read, others counted", "[signature_fetcher]") {
    Registry reg;
    const std::string slsa = reg.referrer(R"({"slsa":true})");
    const std::string sbom = reg.referrer("spdx", "application/spdx+json");
    const std::string sign = reg.referrer(R"({"sign":true})");
    reg.list("/referrers/" + kImage, {slsa, sbom, sign});
    Rig rig([&](const HttpRequest& r) { return reg.serve(r); });
    const SignatureFetch got = rig.fetch();
    REQUIRE(got.fetched);
    CHECK(got.found.bundles == std::vector<std::string>{R"({"slsa":true})", R"({"sign":true})"});
    CHECK(got.found.other_referrers == 1);
    // The API answered: the referrers tag is not asked.
    for (const HttpRequest& r : rig.transport.sent) CHECK(r.url.substr(r.url.size() - kTag.size()) != kTag);
}

TEST_CASE("where the registry has no referrers API, the referrers tag is read", "[signature_fetcher]") {
    Registry reg;
    // GHCR lists no artifactType: the entry is read by its manifest.
    reg.list("/manifests/" + kTag, {reg.referrer(R"({"sign":true})", kBundleType, false)});
    Rig rig([&](const HttpRequest& r) { return reg.serve(r); });
    const SignatureFetch got = rig.fetch();
    REQUIRE(got.fetched);
    CHECK(got.found.bundles.size() == 1);
    CHECK(header_of(rig.transport.sent.front(), "Accept") == "application/vnd.oci.image.index.v1+json");
}

TEST_CASE("a legacy .sig's simple-signing layers are read with their annotations", "[signature_fetcher]") {
    Registry reg;
    const std::string payload = R"({"critical":{"image":{"docker-manifest-digest":")" + kImage + R"("}}})";
    const std::string blob = reg.put("blobs", payload);
    reg.paths["/manifests/" + kTag + ".sig"] =
        answer(200,
               R"({"schemaVersion":2,"config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:c","size":2},"layers":[
                   {"mediaType":"application/vnd.dev.cosign.simplesigning.v1+json","digest":")" + blob + R"(","size":)" + std::to_string(payload.size()) +
                   R"(,"annotations":{"dev.cosignproject.cosign/signature":"MEUC","dev.sigstore.cosign/certificate":"PEM","dev.sigstore.cosign/bundle":"{}"}},
                   {"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"sha256:other","size":1}]})",
               "application/vnd.oci.image.manifest.v1+json");
    Rig rig([&](const HttpRequest& r) { return reg.serve(r); });
    const SignatureFetch got = rig.fetch();
    REQUIRE(got.fetched);
    REQUIRE(got.found.simple.size() == 1);
    CHECK(got.found.simple[0].payload == payload);
    CHECK(got.found.simple[0].signature == "MEUC");
    CHECK(got.found.simple[0].certificate_pem == "PEM");
    CHECK(got.found.simple[0].rekor_bundle == "{}");
}

TEST_CASE("an image with nothing attached is fetched, and holds no signature", "[signature_fetcher]") {
    Registry reg;
    Rig rig([&](const HttpRequest& r) { return reg.serve(r); });
    const SignatureFetch got = rig.fetch();
    REQUIRE(got.fetched);
    CHECK(got.found.bundles.empty());
    CHECK(got.found.simple.empty());
    CHECK(rig.transport.sent.size() == 3);  // the API, the referrers tag, the .sig
}

TEST_CASE("what cannot be trusted or is too large is a failure to fetch, never an empty answer", "[signature_fetcher]") {
    struct Case {
        const char* name;
        std::function<void(Registry&)> arrange;
        RegistryFailure failure;
        const char* detail;
    };
    const Case cases[] = {
        {"a bundle that does not hash to its digest",
         [](Registry& reg) {
             const std::string entry = reg.referrer("bundle");
             for (auto& [path, a] : reg.paths) {
                 if (path.rfind("/blobs/", 0) == 0) a.body = "forged";
             }
             reg.list("/referrers/" + kImage, {entry});
         },
         RegistryFailure::bad_answer, "with content that does not hash to"},
        {"a bundle over the 1 MiB read",
         [](Registry& reg) {
             reg.list("/referrers/" + kImage, {R"({"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":")" + reg.put("manifests", std::string(R"({"layers":[{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json","digest":"sha256:)") + std::string(64, 'b') + R"(","size":2097152}],"artifactType":"application/vnd.dev.sigstore.bundle.v0.3+json"})") + R"("})"});
         },
         RegistryFailure::too_large, "a signature blob of 2097152 bytes is over the 1 MiB read"},
        {"more referrers than the 64 read",
         [](Registry& reg) { reg.list("/referrers/" + kImage, std::vector<std::string>(65, R"({"digest":"sha256:aa"})")); }, RegistryFailure::bad_answer,
         "lists 65 manifests, more than the 64 read"},
        {"a referrer of no checkable digest",
         [](Registry& reg) { reg.list("/referrers/" + kImage, {R"({"digest":"md5:aa"})"}); }, RegistryFailure::bad_answer, "names no digest that can be checked"},
        {"the registry refusing us", [](Registry& reg) { reg.paths["/referrers/" + kImage] = answer(403, "", "application/json"); }, RegistryFailure::unauthorized,
         "the registry refused the credentials for registry.example.com (403)"},
    };
    for (const Case& c : cases) {
        SECTION(c.name) {
            Registry reg;
            c.arrange(reg);
            Rig rig([&](const HttpRequest& r) { return reg.serve(r); });
            const SignatureFetch got = rig.fetch();
            REQUIRE_FALSE(got.fetched);
            CHECK(to_string(got.failure.failure) == to_string(c.failure));
            CHECK_THAT(got.failure.detail, Catch::Contains(c.detail));
        }
    }
}

TEST_CASE("a blob's redirect to storage is followed once, without credentials; to plain HTTP it is not", "[signature_fetcher]") {
    Registry reg;
    const std::string entry = reg.referrer("bundle");
    std::string blob_path;
    for (const auto& [path, a] : reg.paths) {
        if (path.rfind("/blobs/", 0) == 0) blob_path = path;
    }
    reg.list("/referrers/" + kImage, {entry});
    SECTION("to https storage") {
        HttpResponse redirect = answer(307);
        redirect.location = "https://storage.example.com/blob?X-Amz-Signature=secret";
        reg.paths[blob_path] = redirect;
        Rig rig([&](const HttpRequest& r) { return url_starts(r, "https://storage.example.com/") ? answer(200, "bundle") : reg.serve(r); });
        const SignatureFetch got = rig.fetch();
        REQUIRE(got.fetched);
        CHECK(got.found.bundles == std::vector<std::string>{"bundle"});
        const HttpRequest& to_storage = rig.transport.sent.back().url.rfind("https://storage", 0) == 0 ? rig.transport.sent.back() : rig.transport.sent[rig.transport.sent.size() - 2];
        CHECK(header_of(to_storage, "Authorization").empty());
    }
    SECTION("to plain http") {
        HttpResponse redirect = answer(307);
        redirect.location = "http://storage.example.com/blob?X-Amz-Signature=secret";
        reg.paths[blob_path] = redirect;
        Rig rig([&](const HttpRequest& r) { return reg.serve(r); });
        const SignatureFetch got = rig.fetch();
        REQUIRE_FALSE(got.fetched);
        CHECK(got.failure.failure == RegistryFailure::redirect);
        CHECK(got.failure.detail.find("secret") == std::string::npos);
    }
}

TEST_CASE("a registry outside the allowed ones is never asked", "[signature_fetcher]") {
    Registry reg;
    ScriptedTransport transport([&](const HttpRequest& r) { return reg.serve(r); });
    NoKeys keys;
    FlagRegistryHosts hosts{{}};
    Authorizer authorizer(transport, keys, [](std::string_view, std::string_view) { return false; });
    SignatureFetcher fetcher(hosts, authorizer, transport, *RegistryAllowList::parse("quay.io"));
    const SignatureFetch got = fetcher.fetch(kReference, PullCredentials{}, soon());
    REQUIRE_FALSE(got.fetched);
    CHECK(got.failure.failure == RegistryFailure::not_allowed);
    CHECK(transport.sent.empty());
}
