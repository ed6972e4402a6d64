// What a node makes of what the registry holds (design.md 1.9): whether
// containerd can mount it as an image volume (only an image: an image config
// and tar layers; an OCI artifact is pulled and then refused), and the room
// it takes on the node's disk once pulled and unpacked, as the product page
// measured it on containerd 2.2.6.
#pragma once

#include "model_image_webhook/registry/source.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace miw {

// Blobs plus unpacked snapshots against the compressed blobs: 27.3 GB on
// disk for 12.07 GB of gzip layers; a tar layer is its blob and its snapshot.
inline constexpr double kDiskPerCompressedLayer = 2.26;
inline constexpr double kDiskPerTarLayer = 2.0;

enum class LayerForm : unsigned char { tar, compressed, not_a_layer };

// A layer media type as containerd's unpacker takes it: OCI tar, tar+gzip,
// tar+zstd and their non-distributable forms; Docker's rootfs diff and
// foreign forms. Anything else is no layer containerd can unpack.
LayerForm layer_form(std::string_view media_type);

// Whether a config media type is an image's (OCI or Docker schema 2).
bool is_image_config(std::string_view media_type);

// Why containerd cannot mount what the facts describe; nullopt when it can,
// or when the facts cannot tell (an index without the --registry-platform entry).
struct NotAnImage {
    std::string found;  // every type that tells: "artifactType A, config C, layer L"
    std::string deciding;  // the one that decides it: "config C", else "layer L"
};
std::optional<NotAnImage> not_an_image(const ManifestFacts& facts);

struct DiskEstimate {
    std::uint64_t bytes = 0;  // on the node's disk, about
    std::uint64_t compressed_layer_bytes = 0;  // gzip or zstd blobs (and blobs whose kind the facts do not tell)
    std::uint64_t tar_layer_bytes = 0;  // uncompressed tar blobs
    std::uint64_t other_bytes = 0;  // the config, as is
};

// The room a found image takes on a node; nullopt where its size is not known.
std::optional<DiskEstimate> disk_estimate(const RegistryLookup& found);

}  // namespace miw
