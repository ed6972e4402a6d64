#include "model_image_webhook/node_cache.hpp"

#include <mutex>

namespace miw {

void NodeCache::replace_all(NodeMap nodes) {
    std::map<std::string, std::string, std::less<>> by_hostname;
    for (const auto& [name, info] : nodes) {
        if (!info.hostname.empty()) by_hostname.try_emplace(info.hostname, name);  // in name order: the first by name
    }
    std::unique_lock lock(mutex_);
    nodes_.swap(nodes);
    by_hostname_.swap(by_hostname);
    synced_ = true;
    // The old map is freed after the lock is let go (nodes now holds it).
    lock.unlock();
}

void NodeCache::upsert(std::string name, NodeInfo info) {
    std::unique_lock lock(mutex_);
    auto it = nodes_.find(name);
    if (it != nodes_.end()) {
        const NodeInfo old = std::move(it->second);
        it->second = std::move(info);
        if (old.hostname != it->second.hostname) unindex(name, old);
    } else {
        it = nodes_.emplace(std::move(name), std::move(info)).first;
    }
    index(it->first, it->second);
}

void NodeCache::remove(std::string_view name) {
    std::unique_lock lock(mutex_);
    const auto it = nodes_.find(name);
    if (it == nodes_.end()) return;
    const std::string gone = it->first;
    const NodeInfo info = std::move(it->second);
    nodes_.erase(it);
    unindex(gone, info);
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
    return lookup_in(nodes_, NodeRef{it->second, NodeNamedBy::name});
}

void NodeCache::index(const std::string& name, const NodeInfo& info) {
    if (info.hostname.empty()) return;
    // Two Nodes with one label value: the first by name answers, as lookup_in's walk does.
    auto [it, added] = by_hostname_.try_emplace(info.hostname, name);
    if (!added && name < it->second) it->second = name;
}

void NodeCache::unindex(const std::string& name, const NodeInfo& info) {
    if (info.hostname.empty()) return;
    const auto it = by_hostname_.find(info.hostname);
    if (it == by_hostname_.end() || it->second != name) return;
    by_hostname_.erase(it);
    // Another Node with the same label value takes its place.
    for (const auto& [other, other_info] : nodes_) {
        if (other != name && other_info.hostname == info.hostname) {
            by_hostname_.emplace(info.hostname, other);
            break;
        }
    }
}

std::optional<std::vector<std::string>> NodeCache::nodes_holding(std::string_view reference, std::size_t limit) const {
    std::shared_lock lock(mutex_);
    if (!synced_) return std::nullopt;
    return nodes_holding_in(nodes_, reference, limit);
}

}  // namespace miw
