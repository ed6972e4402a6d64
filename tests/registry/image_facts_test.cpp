// What containerd makes of a manifest: images it mounts, artifacts it
// refuses, and the room an image takes on a node's disk, against the media
// types real pushes write and the product page's measurement.
#include "model_image_webhook/registry/image_facts.hpp"

#include <catch2/catch.hpp>

using namespace miw;

namespace {

ManifestFacts facts(std::string config, std::vector<LayerKind> layers, std::string artifact_type = {}) {
    ManifestFacts f;
    f.media_type = "application/vnd.oci.image.manifest.v1+json";
    f.config_media_type = std::move(config);
    f.layer_kinds = std::move(layers);
    f.artifact_type = std::move(artifact_type);
    return f;
}

constexpr const char* kOciConfig = "application/vnd.oci.image.config.v1+json";
constexpr const char* kDockerConfig = "application/vnd.docker.container.image.v1+json";

}  // namespace

TEST_CASE("layer media types as containerd's unpacker takes them", "[image_facts]") {
    struct Case {
        const char* media_type;
        LayerForm form;
    };
    const Case cases[] = {
        {"application/vnd.oci.image.layer.v1.tar", LayerForm::tar},
        {"application/vnd.oci.image.layer.v1.tar+gzip", LayerForm::compressed},
        {"application/vnd.oci.image.layer.v1.tar+zstd", LayerForm::compressed},
        {"application/vnd.oci.image.layer.nondistributable.v1.tar", LayerForm::tar},
        {"application/vnd.oci.image.layer.nondistributable.v1.tar+gzip", LayerForm::compressed},
        {"application/vnd.oci.image.layer.nondistributable.v1.tar+zstd", LayerForm::compressed},
        {"application/vnd.docker.image.rootfs.diff.tar", LayerForm::tar},
        {"application/vnd.docker.image.rootfs.diff.tar.gzip", LayerForm::compressed},
        {"application/vnd.docker.image.rootfs.diff.tar.zstd", LayerForm::compressed},
        {"application/vnd.docker.image.rootfs.foreign.diff.tar", LayerForm::tar},
        {"application/vnd.docker.image.rootfs.foreign.diff.tar.gzip", LayerForm::compressed},
        // What oras and ModelPack push, and near misses.
        {"application/vnd.cncf.model.weight.v1.raw", LayerForm::not_a_layer},
        {"application/vnd.cncf.model.weight.v1.tar", LayerForm::not_a_layer},
        {"application/octet-stream", LayerForm::not_a_layer},
        {"application/vnd.oci.image.layer.v1.tar+bzip2", LayerForm::not_a_layer},
        {"application/vnd.oci.image.layer.v1.tar.gzip", LayerForm::not_a_layer},
        {"application/vnd.docker.image.rootfs.diff.tar+gzip", LayerForm::not_a_layer},
        {"application/vnd.oci.image.layer.v1.tarball", LayerForm::not_a_layer},
        {"", LayerForm::not_a_layer},
    };
    for (const Case& c : cases) {
        CAPTURE(c.media_type);
        CHECK(layer_form(c.media_type) == c.form);
    }
    CHECK(is_image_config(kOciConfig));
    CHECK(is_image_config(kDockerConfig));
    CHECK_FALSE(is_image_config("application/vnd.oci.empty.v1+json"));
    CHECK_FALSE(is_image_config("application/vnd.cncf.model.config.v1+json"));
}

TEST_CASE("images are mountable; artifacts are named by the types that make them so", "[image_facts]") {
    struct Case {
        const char* name;
        ManifestFacts facts;
        const char* problem;  // "" when containerd mounts it
    };
    const Case cases[] = {
        {"an OCI image of tar layers", facts(kOciConfig, {{"application/vnd.oci.image.layer.v1.tar", 3, 100}}), ""},
        {"a Docker schema 2 image", facts(kDockerConfig, {{"application/vnd.docker.image.rootfs.diff.tar.gzip", 2, 100}}), ""},
        {"zstd and gzip layers together", facts(kOciConfig, {{"application/vnd.oci.image.layer.v1.tar+zstd", 1, 1}, {"application/vnd.oci.image.layer.v1.tar+gzip", 1, 1}}), ""},
        {"an image with no layers (FROM scratch, nothing copied)", facts(kOciConfig, {}), ""},
        {"an image whose artifactType is set (OCI 1.1) stays an image", facts(kOciConfig, {{"application/vnd.oci.image.layer.v1.tar", 1, 1}}, "application/vnd.example+type"), ""},
        {"oras push --artifact-type", facts("application/vnd.oci.empty.v1+json", {{"application/vnd.oci.image.layer.v1.tar", 1, 1}}, "application/vnd.gpustack.model"),
         "artifactType application/vnd.gpustack.model, config application/vnd.oci.empty.v1+json"},
        {"oras push of raw files", facts("application/vnd.oci.empty.v1+json", {{"application/octet-stream", 4, 1}}),
         "config application/vnd.oci.empty.v1+json, layer application/octet-stream"},
        {"a CNCF ModelPack", facts("application/vnd.cncf.model.config.v1+json", {{"application/vnd.cncf.model.weight.v1.raw", 4, 1}}, "application/vnd.cncf.model.manifest.v1+json"),
         "artifactType application/vnd.cncf.model.manifest.v1+json, config application/vnd.cncf.model.config.v1+json, layer application/vnd.cncf.model.weight.v1.raw"},
        {"an image config over layers containerd cannot unpack", facts(kOciConfig, {{"application/vnd.oci.image.layer.v1.tar", 1, 1}, {"application/x-safetensors", 1, 1}}),
         "layer application/x-safetensors"},
        {"an index without the platform's entry: nothing to judge", facts("", {}), ""},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) { CHECK(not_an_image(c.facts).value_or(NotAnImage{}).found == c.problem); }
    }
}

TEST_CASE("the room an image takes on a node's disk, as the product page measured it", "[image_facts]") {
    constexpr std::uint64_t kGiB = 1ull << 30;
    struct Case {
        const char* name;
        std::vector<LayerKind> layers;
        std::uint64_t config;
        std::uint64_t on_disk;
    };
    const Case cases[] = {
        // containerd 2.2.6: 12.07 GB of gzip blobs took ~27.3 GB on disk.
        {"the product page's model, gzip layers x2.26", {{"application/vnd.oci.image.layer.v1.tar+gzip", 12, 12'070'000'000}}, 0, 27'278'200'000},
        {"uncompressed tar layers x2", {{"application/vnd.oci.image.layer.v1.tar", 3, 10 * kGiB}}, 0, 20 * kGiB},
        {"the config as is", {{"application/vnd.oci.image.layer.v1.tar", 1, kGiB}}, 1000, 2 * kGiB + 1000},
        {"both kinds", {{"application/vnd.oci.image.layer.v1.tar+zstd", 1, kGiB}, {"application/vnd.docker.image.rootfs.diff.tar", 1, kGiB}}, 0,
         static_cast<std::uint64_t>(2.26 * kGiB + 0.5) + 2 * kGiB},
        {"layers not told: counted as compressed", {}, 0, static_cast<std::uint64_t>(2.26 * 15 * kGiB + 0.5)},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            RegistryLookup found;
            found.status = RegistryLookupStatus::found;
            std::uint64_t total = c.config;
            for (const LayerKind& k : c.layers) total += k.bytes;
            found.compressed_bytes = c.layers.empty() ? 15 * kGiB : total;
            found.facts = facts(kOciConfig, c.layers);
            const auto disk = disk_estimate(found);
            REQUIRE(disk);
            CHECK(disk->bytes == c.on_disk);
        }
    }
    RegistryLookup unsized;
    unsized.status = RegistryLookupStatus::found;
    CHECK_FALSE(disk_estimate(unsized));
    RegistryLookup missing;
    missing.status = RegistryLookupStatus::not_found;
    missing.compressed_bytes = 1;
    CHECK_FALSE(disk_estimate(missing));
}
