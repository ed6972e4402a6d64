// What an OCI registry and its token server answer, read (design.md 1.6): an
// image manifest or index (OCI and Docker v2 media types), a token answer, an
// error list; and the .dockerconfigjson credentials come from, read as the
// kubelet reads it. Malformed answers are errors, never guesses.
#pragma once

#include "model_image_webhook/registry/kubelet_keyring.hpp"
#include "model_image_webhook/registry/source.hpp"
#include "model_image_webhook/result.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace miw {

inline constexpr std::string_view kOciManifest = "application/vnd.oci.image.manifest.v1+json";
inline constexpr std::string_view kOciIndex = "application/vnd.oci.image.index.v1+json";
inline constexpr std::string_view kDockerManifest = "application/vnd.docker.distribution.manifest.v2+json";
inline constexpr std::string_view kDockerManifestList = "application/vnd.docker.distribution.manifest.list.v2+json";

struct IndexEntry {
    std::string digest;
    std::string media_type;
    std::string os;
    std::string architecture;
    std::string variant;
};

struct ImageManifest {
    bool is_index = false;
    std::uint64_t compressed_bytes = 0;  // a manifest's config plus its layers
    std::vector<IndexEntry> entries;  // an index's manifests
    // What it says it holds, for the judgement of what containerd can mount.
    std::string media_type;  // its own, else the answer's Content-Type
    std::string artifact_type;  // an OCI 1.1 manifest's or index's artifactType
    std::string config_media_type;
    std::vector<LayerKind> layer_kinds;  // by media type, in the order first seen
};

// content_type: the answer's Content-Type, used where the document has no
// mediaType of its own. text is parsed in place (overwritten).
Result<ImageManifest> read_image_manifest(std::string& text, std::string_view content_type);

// The entry of an index for a platform "os/arch[/variant]": the first whose
// platform matches it as containerd's matcher does (registry/platform.hpp:
// "linux/arm64/v8" is also an entry that leaves the variant out); nullptr for none.
const IndexEntry* entry_for_platform(const ImageManifest& index, std::string_view platform);

struct RegistryToken {
    std::string token;
    std::int64_t expires_in_seconds = 60;  // the distribution spec's default
};
// {"token": ..., "access_token": ..., "expires_in": N}
Result<RegistryToken> read_registry_token(std::string& text);

// Whether a registry's error answer ({"errors":[{"code":...}]}) names `code`.
bool registry_error_names(std::string& text, std::string_view code);

// Which shape a docker config is read as, as the kubelet reads each:
// a kubernetes.io/dockerconfigjson Secret's is {"auths": {...}} and nothing
// else (one without "auths" holds no credentials); a kubernetes.io/dockercfg
// Secret's is the map alone; a node's config file may be either.
enum class DockerConfigShape : unsigned char { auths, map, either };

// A .dockerconfigjson ({"auths": {"host": {"auth": base64(user:pass)} or
// {"username","password"}}}), or a legacy .dockercfg (the auths map alone).
Result<KubeletKeyring> read_docker_config(std::string& text, DockerConfigShape shape = DockerConfigShape::either);

}  // namespace miw
