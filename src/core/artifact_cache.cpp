#include "model_image_webhook/artifact_cache.hpp"

#include <mutex>

namespace miw {

void ArtifactCache::replace_all(ArtifactMap artifacts) {
    std::unique_lock lock(mutex_);
    artifacts_.swap(artifacts);
    synced_ = true;
    lock.unlock();  // the old map is freed after the lock is let go
}

void ArtifactCache::upsert(std::string namespace_name, std::string name, ArtifactInfo info) {
    std::unique_lock lock(mutex_);
    artifacts_[{std::move(namespace_name), std::move(name)}] = std::move(info);
}

void ArtifactCache::remove(const std::string& namespace_name, const std::string& name) {
    std::unique_lock lock(mutex_);
    artifacts_.erase(ArtifactKey{namespace_name, name});
}

bool ArtifactCache::synced() const {
    std::shared_lock lock(mutex_);
    return synced_;
}

std::size_t ArtifactCache::size() const {
    std::shared_lock lock(mutex_);
    return artifacts_.size();
}

ArtifactLookup ArtifactCache::lookup(std::string_view namespace_name, std::string_view name) const {
    ArtifactLookup out;
    std::shared_lock lock(mutex_);
    if (!synced_) {
        out.status = ArtifactLookupStatus::unavailable;
        out.detail = "the ModelArtifacts have not been listed yet";
        return out;
    }
    const auto it = artifacts_.find(ArtifactKey{namespace_name, name});
    if (it == artifacts_.end()) return out;
    out.status = ArtifactLookupStatus::found;
    out.info = it->second;
    return out;
}

}  // namespace miw
