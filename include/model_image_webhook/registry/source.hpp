// Registry truth (design.md 1.6): whether a pinned digest exists in its
// registry, and how large the image is. The rules ask a RegistrySource; the
// server's and the offline commands' source is the OCI distribution client
// (src/server/registry/client.cpp) behind a RegistryCache.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace miw {

// --registry-check: off (no look), warn (admit, warning on what deny would
// refuse), deny (refuse what is certain: an unknown manifest, content that
// does not hash to the digest).
enum class RegistryCheck : unsigned char { off, warn, deny };

std::optional<RegistryCheck> parse_registry_check(std::string_view text);
std::string_view to_string(RegistryCheck mode);

enum class RegistryLookupStatus : unsigned char {
    found,
    not_found,  // the registry answered 404 / MANIFEST_UNKNOWN
    digest_mismatch,  // the registry returned content whose digest is another
    unavailable,  // no look could be had: failure says why
};

// Why a look could not be had: the metric's label and the warning's words.
enum class RegistryFailure : unsigned char {
    none,
    unreachable,  // name not resolved, connection refused or reset
    timeout,
    tls,  // the certificate refused, or plain HTTP to a host not --registry-insecure
    unauthorized,  // 401/403 without usable credentials
    rate_limited,  // 429
    server_error,  // 5xx, or another status the protocol does not give
    too_large,  // an answer over its cap (a manifest over 4 MiB)
    redirect,  // sent to another host
    bad_answer,  // unreadable manifest, index, token or challenge
    busy,  // every lookup the webhook allows at once was taken until the deadline (not kept in the cache)
    not_allowed,  // the registry is outside --registry-allow: not asked
    // (an index without the --registry-platform entry is found, unsized)
};

std::string_view to_string(RegistryFailure failure);

// The layers of one media type in a manifest: how many, and their bytes.
struct LayerKind {
    std::string media_type;
    std::uint32_t count = 0;
    std::uint64_t bytes = 0;
};
// A manifest naming more kinds than this is told by its first ones.
inline constexpr std::size_t kMaxLayerKinds = 8;

// What the registry holds under a found digest (for an index, the
// --registry-platform entry's manifest), as its media types say: whether it
// is an image containerd can mount is judged from these in the core.
struct ManifestFacts {
    std::string media_type;  // the manifest's (or, where no platform entry was read, the index's)
    std::string artifact_type;  // OCI 1.1 artifactType, empty when none
    std::string config_media_type;  // empty where no image manifest was read
    std::vector<LayerKind> layer_kinds;  // in the order first seen
    bool from_index = false;  // the digest names an index; the facts are its platform entry's
    std::vector<std::string> platforms;  // an index's entries, "os/arch[/variant]", the first kMaxLayerKinds
};

struct RegistryLookup {
    RegistryLookupStatus status = RegistryLookupStatus::unavailable;
    RegistryFailure failure = RegistryFailure::none;
    // The image's compressed size, config plus layers (of the platform's
    // manifest for an index); nullopt where it could not be told.
    std::optional<std::uint64_t> compressed_bytes;
    ManifestFacts facts;  // found: what the registry holds
    // not_found, digest_mismatch: what the registry answered; unavailable:
    // what stopped the look, in a few words (no secret is ever in it), as a
    // tenant may read it: a refused connection, a timeout and a TLS failure
    // read alike, so that the check tells no one which ports listen.
    std::string detail;
    // What the operator reads in the log beside it (the transport's own
    // words, a plugin's stderr); empty where detail says all.
    std::string log_detail;
    // The webhook, not the registry, cut this look short (the deadline hit
    // between hosts, a credential source that could not answer in time, a
    // child manifest of an index not read): never kept in the cache.
    bool incomplete = false;
    // What the credentials of this look lacked (a pull secret not found, not
    // readable, not a registry secret), each naming it: the request's own,
    // never kept with the answer.
    std::vector<std::string> credential_notes;
};

// Whose pull secrets a look is made with, as the kubelet assembles them
// (design.md 1.8) and the rules read them off the object: a pod spec's
// imagePullSecrets; where it names none, its service account's. A
// ModelArtifact: its namespace's default service account's.
struct PullSecretsRef {
    std::string_view namespace_name;
    std::vector<std::string_view> secrets;  // the pod spec's, in order; empty: the service account's
    std::string_view service_account;  // empty: "default"

    bool operator==(const PullSecretsRef& other) const {
        return namespace_name == other.namespace_name && secrets == other.secrets && service_account == other.service_account;
    }
};

class RegistrySource {
public:
    virtual ~RegistrySource() = default;
    // reference: a digest-pinned image reference that passed the pinned
    // reference rules.
    virtual RegistryLookup lookup(std::string_view reference) const = 0;
    // The same, with the pull secrets of whom the image is pulled for; a
    // source that cannot read them looks with the node's credentials alone.
    virtual RegistryLookup lookup_for(std::string_view reference, const PullSecretsRef& /*who*/) const { return lookup(reference); }
};

}  // namespace miw
