#include "model_image_webhook/registry/image_facts.hpp"

#include <algorithm>
#include <cmath>

namespace miw {

namespace {

constexpr std::string_view kOciLayer = "application/vnd.oci.image.layer.v1.tar";
constexpr std::string_view kOciNonDistributable = "application/vnd.oci.image.layer.nondistributable.v1.tar";
constexpr std::string_view kDockerLayer = "application/vnd.docker.image.rootfs.diff.tar";
constexpr std::string_view kDockerForeign = "application/vnd.docker.image.rootfs.foreign.diff.tar";

// The compression after a tar media type: "", "+gzip", "+zstd" (OCI), ".gzip", ".zstd" (Docker).
std::optional<LayerForm> tar_form(std::string_view media_type, std::string_view base, char separator) {
    if (media_type.substr(0, base.size()) != base) return std::nullopt;
    const std::string_view rest = media_type.substr(base.size());
    if (rest.empty()) return LayerForm::tar;
    if (rest.size() > 1 && rest.front() == separator && (rest.substr(1) == "gzip" || rest.substr(1) == "zstd")) return LayerForm::compressed;
    return std::nullopt;
}

std::uint64_t times(std::uint64_t bytes, double factor) { return static_cast<std::uint64_t>(std::llround(static_cast<double>(bytes) * factor)); }

}  // namespace

LayerForm layer_form(std::string_view media_type) {
    for (std::string_view base : {kOciLayer, kOciNonDistributable}) {
        if (auto form = tar_form(media_type, base, '+')) return *form;
    }
    for (std::string_view base : {kDockerLayer, kDockerForeign}) {
        if (auto form = tar_form(media_type, base, '.')) return *form;
    }
    return LayerForm::not_a_layer;
}

bool is_image_config(std::string_view media_type) {
    return media_type == "application/vnd.oci.image.config.v1+json" || media_type == "application/vnd.docker.container.image.v1+json";
}

std::optional<NotAnImage> not_an_image(const ManifestFacts& facts) {
    if (facts.config_media_type.empty()) return std::nullopt;  // no image manifest was read: nothing to judge
    const bool config_ok = is_image_config(facts.config_media_type);
    const auto bad_layer = std::find_if(facts.layer_kinds.begin(), facts.layer_kinds.end(),
                                        [](const LayerKind& kind) { return layer_form(kind.media_type) == LayerForm::not_a_layer; });
    if (config_ok && bad_layer == facts.layer_kinds.end()) return std::nullopt;
    NotAnImage out;
    const auto say = [&](std::string_view what, std::string_view type) {
        if (!out.found.empty()) out.found += ", ";
        out.found += what;
        out.found += ' ';
        out.found += type;
    };
    if (!facts.artifact_type.empty()) say("artifactType", facts.artifact_type);
    if (!config_ok) say("config", facts.config_media_type);
    if (bad_layer != facts.layer_kinds.end()) say("layer", bad_layer->media_type);
    out.deciding = !config_ok ? "config " + facts.config_media_type : "layer " + bad_layer->media_type;
    return out;
}

std::optional<DiskEstimate> disk_estimate(const RegistryLookup& found) {
    if (found.status != RegistryLookupStatus::found || !found.compressed_bytes) return std::nullopt;
    DiskEstimate out;
    std::uint64_t listed = 0;
    for (const LayerKind& kind : found.facts.layer_kinds) {
        listed += kind.bytes;
        (layer_form(kind.media_type) == LayerForm::tar ? out.tar_layer_bytes : out.compressed_layer_bytes) += kind.bytes;
    }
    out.other_bytes = *found.compressed_bytes > listed ? *found.compressed_bytes - listed : 0;
    // Where the facts list no layers, or as many kinds as they keep, the rest
    // may be layers: counted as compressed ones, the larger factor.
    if (found.facts.layer_kinds.empty() || found.facts.layer_kinds.size() >= kMaxLayerKinds) {
        out.compressed_layer_bytes += out.other_bytes;
        out.other_bytes = 0;
    }
    out.bytes = times(out.compressed_layer_bytes, kDiskPerCompressedLayer) + times(out.tar_layer_bytes, kDiskPerTarLayer) + out.other_bytes;
    return out;
}

}  // namespace miw
