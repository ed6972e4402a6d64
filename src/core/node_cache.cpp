#include "model_image_webhook/node_cache.hpp"

#include <mutex>

namespace miw {

void NodeCache::replace_all(NodeMap nodes) {
    HostnameIndex by_hostname;
    for (auto it = nodes.cbegin(); it != nodes.cend(); ++it) {
        // In name order: the first by name keeps a value two Nodes carry.
        if (!it->second.hostname.empty()) by_hostname.try_emplace(it->second.hostname, it);
    }
    std::unique_lock lock(mutex_);
    nodes_.swap(nodes);  // the index's iterators and views now point into nodes_
    by_hostname_.swap(by_hostname);
    synced_ = true;
    // The old map is freed after the lock is let go (nodes now holds it).
    lock.unlock();
}

void NodeCache::upsert(std::string name, NodeInfo info) {
    std::unique_lock lock(mutex_);
    auto it = nodes_.find(name);
    if (it != nodes_.end()) {
        unindex(it);
        it->second = std::move(info);
    } else {
        it = nodes_.emplace(std::move(name), std::move(info)).first;
    }
    index(it);
}

void NodeCache::remove(std::string_view name) {
    std::unique_lock lock(mutex_);
    const auto it = nodes_.find(name);
    if (it == nodes_.end()) return;
    unindex(it);
    nodes_.erase(it);
}

bool NodeCache::synced() const {
    std::shared_lock lock(mutex_);
    return synced_;
}

std::size_t NodeCache::size() const {
    std::shared_lock lock(mutex_);
    return nodes_.size();
}

NodeLookup NodeCache::lookup(const NodeRef& node) const {
    std::shared_lock lock(mutex_);
    if (node.by == NodeNamedBy::name) return lookup_in(nodes_, node);
    // By label: through the index, not a walk over every Node.
    const auto it = by_hostname_.find(node.value);
    if (it == by_hostname_.end()) return NodeLookup{};
    return NodeLookup{NodeLookupStatus::found, it->second->second};
}

void NodeCache::index(NodeMap::const_iterator node) {
    const std::string& hostname = node->second.hostname;
    if (hostname.empty()) return;
    const auto [at, added] = by_hostname_.try_emplace(hostname, node);
    // Two Nodes with one label value: the first by name answers, as lookup_in's walk does.
    if (!added && node->first < at->second->first) {
        by_hostname_.erase(at);
        by_hostname_.emplace(hostname, node);
    }
}

void NodeCache::unindex(NodeMap::const_iterator node) {
    const std::string& hostname = node->second.hostname;
    if (hostname.empty()) return;
    const auto at = by_hostname_.find(hostname);
    if (at == by_hostname_.end() || at->second != node) return;
    by_hostname_.erase(at);
    // Another Node with the same label value takes its place.
    for (auto other = nodes_.cbegin(); other != nodes_.cend(); ++other) {
        if (other != node && other->second.hostname == hostname) {
            by_hostname_.emplace(other->second.hostname, other);
            return;
        }
    }
}

std::optional<std::vector<std::string>> NodeCache::nodes_holding(std::string_view reference, std::size_t limit) const {
    std::shared_lock lock(mutex_);
    if (!synced_) return std::nullopt;
    return nodes_holding_in(nodes_, reference, limit);
}

}  // namespace miw
