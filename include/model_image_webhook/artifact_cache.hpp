// The cluster's ModelArtifacts as the server's watch keeps them (design.md
// 1.7): per artifact only what the rules read, its source and image
// reference. Written by the watch, read by every review.
#pragma once

#include "model_image_webhook/artifact_source.hpp"

#include <map>
#include <shared_mutex>
#include <string>
#include <utility>

namespace miw {

using ArtifactKey = std::pair<std::string, std::string>;  // namespace, name
using ArtifactMap = std::map<ArtifactKey, ArtifactInfo, std::less<>>;

class ArtifactCache : public ArtifactSource {
public:
    explicit ArtifactCache(std::string origin) : origin_(std::move(origin)) {}

    // A complete list: every artifact held is replaced, and the cache is synced.
    void replace_all(ArtifactMap artifacts);
    void upsert(std::string namespace_name, std::string name, ArtifactInfo info);
    void remove(const std::string& namespace_name, const std::string& name);

    bool synced() const;
    std::size_t size() const;

    // Before the first complete list: unavailable, and says so.
    ArtifactLookup lookup(std::string_view namespace_name, std::string_view name) const override;
    std::string origin() const override { return origin_; }

private:
    std::string origin_;
    mutable std::shared_mutex mutex_;
    ArtifactMap artifacts_;
    bool synced_ = false;
};

}  // namespace miw
