// Registry truth (design.md 1.6): whether a pinned digest exists in its
// registry, and how large the image is. The rules ask a RegistrySource; the
// server's and the offline commands' source is the OCI distribution client
// (src/server/registry_client.cpp) behind a RegistryCache.
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
    // what stopped the look, in a few words (no secret is ever in it).
    std::string detail;
};

class RegistrySource {
public:
    virtual ~RegistrySource() = default;
    // reference: a digest-pinned image reference that passed the pinned
    // reference rules.
    virtual RegistryLookup lookup(std::string_view reference) const = 0;
};

}  // namespace miw
