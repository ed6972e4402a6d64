#include "model_image_webhook/node_cache.hpp"

#include <mutex>

namespace miw {

void NodeCache::replace_all(NodeMap nodes) {
    std::unique_lock lock(mutex_);
    nodes_.swap(nodes);
    synced_ = true;
    // The old map is freed after the lock is let go (nodes now holds it).
    lock.unlock();
}

void NodeCache::upsert(std::string name, NodeInfo info) {
    std::unique_lock lock(mutex_);
    nodes_[std::move(name)] = std::move(info);
}

void NodeCache::remove(std::string_view name) {
    std::unique_lock lock(mutex_);
    if (const auto it = nodes_.find(name); it != nodes_.end()) nodes_.erase(it);
}

bool NodeCache::synced() const {
    std::shared_lock lock(mutex_);
    return synced_;
}

std::size_t NodeCache::size() const {
    std::shared_lock lock(mutex_);
    return nodes_.size();
}

NodeLookup NodeCache::lookup(std::string_view name) const {
    NodeLookup out;
    std::shared_lock lock(mutex_);
    const auto it = nodes_.find(name);
    if (it == nodes_.end()) return out;
    out.status = NodeLookupStatus::found;
    out.info = it->second;
    return out;
}

std::optional<std::vector<std::string>> NodeCache::nodes_holding(std::string_view reference, std::size_t limit) const {
    std::shared_lock lock(mutex_);
    if (!synced_) return std::nullopt;
    return nodes_holding_in(nodes_, reference, limit);
}

}  // namespace miw
