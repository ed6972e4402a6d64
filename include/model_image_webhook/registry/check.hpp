// What the rules make of a registry lookup (design.md 1.6): the refusal
// --registry-check deny gives, the warning warn gives instead, the warning of
// a failed look, and the image's size with what a node needs for it.
#pragma once

#include "model_image_webhook/pinned_reference.hpp"
#include "model_image_webhook/registry/image_facts.hpp"
#include "model_image_webhook/registry/source.hpp"
#include "model_image_webhook/rule.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace miw {

inline constexpr Rule kRegistryManifestUnknown{"registry-manifest-unknown", kReferenceFields, kReferenceVerdict,
                                               "--registry-check deny: the registry answers that the pinned digest's manifest is unknown"};
inline constexpr Rule kRegistryDigestMismatch{"registry-digest-mismatch", kReferenceFields, kReferenceVerdict,
                                              "--registry-check deny: the registry's content for the pinned digest hashes to another digest"};

inline constexpr Rule kRegistryNotAnImage{"registry-not-an-image", kReferenceFields, kReferenceVerdict,
                                          "--registry-check deny: the pinned digest names an OCI artifact (a config or layer containerd cannot unpack), "
                                          "not an image containerd can mount as an image volume"};

struct RegistryVerdict {
    // Set under deny for what is certain: the refusal's words (without the
    // field) and its rule.
    std::optional<std::string> refusal;
    const Rule* rule = nullptr;
    std::vector<std::string> warnings;  // whole warnings, <= kMaxWarningBytes
};

// field: where the reference stands, for warnings ("spec.source.image.reference").
// registry null or mode off: nothing is looked up. who: whose pull secrets
// the look is made with; null, the node's credentials alone.
RegistryVerdict check_in_registry(std::string_view field, std::string_view reference, RegistryCheck mode, const RegistrySource* registry,
                                  const PullSecretsRef* who = nullptr);

// The warning of a found image's size: compressed, and on the node's disk
// with what that was computed from.
std::string size_warning(std::string_view field, std::uint64_t compressed_bytes, const DiskEstimate& disk);

// "14.2 GiB", "310.5 MiB", "512 bytes".
std::string format_bytes(std::uint64_t bytes);

}  // namespace miw
