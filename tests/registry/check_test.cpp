// What --registry-check makes of a lookup: refusals only for what is certain.
#include "model_image_webhook/registry/check.hpp"

#include "model_image_webhook/text.hpp"
#include "model_image_webhook/warning.hpp"

#include <catch2/catch.hpp>

using namespace miw;

namespace {

class FixedRegistry : public RegistrySource {
public:
    explicit FixedRegistry(RegistryLookup answer) : answer_(std::move(answer)) {}
    RegistryLookup lookup(std::string_view) const override {
        ++calls;
        return answer_;
    }
    mutable int calls = 0;

private:
    RegistryLookup answer_;
};

RegistryLookup answer(RegistryLookupStatus status, RegistryFailure failure = RegistryFailure::none, std::string detail = {}) {
    RegistryLookup out;
    out.status = status;
    out.failure = failure;
    out.detail = std::move(detail);
    return out;
}

constexpr std::string_view kField = "spec.source.image.reference";
constexpr std::string_view kRef = "registry.example.com/team/qwen@sha256:aaaa";

}  // namespace

TEST_CASE("deny refuses an unknown manifest and a digest mismatch, warn warns of them", "[registry_check]") {
    struct Case {
        const char* name;
        RegistryLookupStatus status;
        const Rule* rule;
        const char* says;
    };
    const Case cases[] = {
        {"an unknown manifest", RegistryLookupStatus::not_found, &kRegistryManifestUnknown, "no manifest for this digest"},
        {"content of another digest", RegistryLookupStatus::digest_mismatch, &kRegistryDigestMismatch, "hashes to another digest"},
    };
    for (const Case& c : cases) {
        SECTION(c.name) {
            const FixedRegistry registry(answer(c.status, RegistryFailure::none, "r answered 404"));
            const RegistryVerdict denied = check_in_registry(kField, kRef, RegistryCheck::deny, &registry);
            REQUIRE(denied.refusal.has_value());
            CHECK(denied.rule == c.rule);
            CHECK_THAT(*denied.refusal, Catch::Contains(c.says));
            CHECK(denied.warnings.empty());

            const RegistryVerdict warned = check_in_registry(kField, kRef, RegistryCheck::warn, &registry);
            CHECK_FALSE(warned.refusal.has_value());
            REQUIRE(warned.warnings.size() == 1);
            CHECK_THAT(warned.warnings[0], Catch::StartsWith("spec.source.image.reference: --registry-check deny would refuse this (" + std::string(c.rule->id)));
            CHECK(warned.warnings[0].size() <= kMaxWarningBytes);
        }
    }
}

TEST_CASE("a failure to look admits with a warning naming it, in either mode", "[registry_check]") {
    // What a registry answered is named; no answer at all (refused, timed out, TLS) reads alike, so the check is no port scanner.
    struct Case {
        RegistryFailure failure;
        const char* told;
    };
    const Case cases[] = {
        {RegistryFailure::unreachable, "unreachable"},   {RegistryFailure::timeout, "unreachable"},         {RegistryFailure::tls, "unreachable"},
        {RegistryFailure::unauthorized, "unauthorized"}, {RegistryFailure::server_error, "server-error"}, {RegistryFailure::rate_limited, "rate-limited"},
    };
    for (const auto mode : {RegistryCheck::warn, RegistryCheck::deny}) {
        for (const Case& c : cases) {
            const FixedRegistry registry(answer(RegistryLookupStatus::unavailable, c.failure, std::string(500, 'x')));
            const RegistryVerdict v = check_in_registry(kField, kRef, mode, &registry);
            CHECK_FALSE(v.refusal.has_value());
            REQUIRE(v.warnings.size() == 1);
            CHECK_THAT(v.warnings[0], Catch::Contains("(" + std::string(c.told) + ": "));
            CHECK_THAT(v.warnings[0], Catch::EndsWith("admitted unchecked"));
            CHECK(v.warnings[0].size() <= kMaxWarningBytes);
        }
    }
}

TEST_CASE("a found image is told with its size and what a node needs for it", "[registry_check]") {
    RegistryLookup found = answer(RegistryLookupStatus::found);
    found.compressed_bytes = 10ull * 1024 * 1024 * 1024;
    const FixedRegistry registry(found);
    const RegistryVerdict v = check_in_registry(kField, kRef, RegistryCheck::deny, &registry);
    CHECK_FALSE(v.refusal.has_value());
    REQUIRE(v.warnings.size() == 1);
    CHECK(v.warnings[0] ==
          "spec.source.image.reference: the model image is 10.0 GiB compressed; about 22.6 GiB on the node's disk once pulled and unpacked "
          "(gzip/zstd layers x2.26): check the GPU nodes have that room");
    const FixedRegistry no_size(answer(RegistryLookupStatus::found));
    CHECK(check_in_registry(kField, kRef, RegistryCheck::deny, &no_size).warnings.empty());
    const FixedRegistry no_platform(answer(RegistryLookupStatus::found, RegistryFailure::none, "the index has no linux/amd64 manifest"));
    const RegistryVerdict unsized = check_in_registry(kField, kRef, RegistryCheck::deny, &no_platform);
    CHECK_FALSE(unsized.refusal.has_value());
    REQUIRE(unsized.warnings.size() == 1);
    CHECK(unsized.warnings[0] ==
          "spec.source.image.reference: the digest is in its registry, but the image's size cannot be told (the index has no linux/amd64 manifest): "
          "check the GPU nodes' disks have room for it");
}

TEST_CASE("off, or no registry, looks nothing up", "[registry_check]") {
    const FixedRegistry registry(answer(RegistryLookupStatus::not_found));
    CHECK_FALSE(check_in_registry(kField, kRef, RegistryCheck::off, &registry).refusal.has_value());
    CHECK(registry.calls == 0);
    CHECK_FALSE(check_in_registry(kField, kRef, RegistryCheck::deny, nullptr).refusal.has_value());
}

TEST_CASE("sizes are written in the unit a person reads", "[registry_check]") {
    CHECK(format_bytes(512) == "512 bytes");
    CHECK(format_bytes(3u << 20) == "3.0 MiB");
    CHECK(format_bytes(1536ull << 20) == "1.5 GiB");
    CHECK(parse_registry_check("warn") == RegistryCheck::warn);
    CHECK_FALSE(parse_registry_check("Deny").has_value());
}

namespace {

// A source that reads pull secrets: what it was asked for, and a note on one it could not read.
class PullingRegistry : public RegistrySource {
public:
    RegistryLookup lookup(std::string_view) const override { return {}; }
    RegistryLookup lookup_for(std::string_view, const PullSecretsRef& who) const override {
        asked.push_back(who);
        RegistryLookup found;
        found.status = RegistryLookupStatus::found;
        found.credential_notes = {"the pull secret \"regcred\" of namespace team-a is not found: the kubelet pulls without it, and so did this lookup"};
        return found;
    }
    mutable std::vector<PullSecretsRef> asked;
};

}  // namespace

TEST_CASE("a look is made with the pull secrets it is given, and a secret that could not be used is a warning", "[registry_check]") {
    PullingRegistry registry;
    const PullSecretsRef who{"team-a", {"regcred"}, {}};
    const RegistryVerdict v = check_in_registry("spec.source.image.reference", "registry.example/team/qwen@sha256:" + std::string(64, 'a'),
                                                RegistryCheck::deny, &registry, &who);
    REQUIRE(registry.asked.size() == 1);
    CHECK(registry.asked[0] == who);
    CHECK_FALSE(v.refusal);
    REQUIRE(v.warnings.size() == 1);
    CHECK(v.warnings[0] == "spec.source.image.reference: the pull secret \"regcred\" of namespace team-a is not found: the kubelet pulls without it, and so "
                           "did this lookup");
}

TEST_CASE("an OCI artifact is refused under deny and warned of under warn, saying how to make an image", "[registry_check]") {
    RegistryLookup found = answer(RegistryLookupStatus::found);
    found.compressed_bytes = 5ull << 30;
    found.facts.media_type = "application/vnd.oci.image.manifest.v1+json";
    found.facts.artifact_type = "application/vnd.cncf.model.manifest.v1+json";
    found.facts.config_media_type = "application/vnd.cncf.model.config.v1+json";
    found.facts.layer_kinds = {{"application/vnd.cncf.model.weight.v1.raw", 3, 5ull << 30}};
    const FixedRegistry registry(found);
    const RegistryVerdict denied = check_in_registry(kField, kRef, RegistryCheck::deny, &registry);
    REQUIRE(denied.refusal);
    CHECK(denied.rule == &kRegistryNotAnImage);
    CHECK(*denied.refusal ==
          "the registry holds an OCI artifact, not an image (artifactType application/vnd.cncf.model.manifest.v1+json, config "
          "application/vnd.cncf.model.config.v1+json, layer application/vnd.cncf.model.weight.v1.raw): containerd mounts only images (an image config and "
          "tar layers) as image volumes, so the Pod would fail on every node; rebuild the weights as an image (a FROM scratch image with COPY, or umoci or "
          "buildah) and pin its digest");
    CHECK(denied.warnings.empty());
    const RegistryVerdict warned = check_in_registry(kField, kRef, RegistryCheck::warn, &registry);
    CHECK_FALSE(warned.refusal);
    REQUIRE(warned.warnings.size() == 1);
    CHECK(warned.warnings[0] ==
          "spec.source.image.reference: --registry-check deny would refuse this (registry-not-an-image): an OCI artifact (config "
          "application/vnd.cncf.model.config.v1+json), not an image containerd mounts: rebuild it FROM scratch with COPY");
    // Whole where the field is a Pod's annotation, whatever type is named.
    found.facts.config_media_type = "application/vnd.oci.image.config.v1+json";
    found.facts.layer_kinds = {{"application/vnd.example.a-very-long-vendor-specific-layer-type.v1+octet-stream", 1, 1}};
    const FixedRegistry layered(found);
    const std::string annotation = "metadata.annotations[gpustack.ai/model-image]";
    const RegistryVerdict long_type = check_in_registry(annotation, kRef, RegistryCheck::warn, &layered);
    REQUIRE(long_type.warnings.size() == 1);
    CHECK(long_type.warnings[0].size() <= kMaxWarningBytes);
    CHECK_THAT(long_type.warnings[0], Catch::EndsWith("rebuild it FROM scratch with COPY"));
}
