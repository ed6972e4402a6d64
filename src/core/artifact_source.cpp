#include "model_image_webhook/artifact_source.hpp"

namespace miw {

void StaticArtifactSource::add(std::string namespace_name, std::string name, ArtifactInfo info) {
    artifacts_[{std::move(namespace_name), std::move(name)}] = std::move(info);
}

ArtifactLookup StaticArtifactSource::lookup(std::string_view namespace_name, std::string_view name) const {
    ArtifactLookup out;
    const auto it = artifacts_.find(std::pair<std::string, std::string>(namespace_name, name));
    if (it == artifacts_.end()) return out;
    out.status = ArtifactLookupStatus::found;
    out.info = it->second;
    return out;
}

}  // namespace miw
