// The Nodes of a cluster as the server's watch keeps them (design.md 1.5):
// per Node only what the rules read, its versions and the hashes of its
// digest-pinned image names. Written by the watch, read by every review.
#pragma once

#include "model_image_webhook/node_source.hpp"

#include <shared_mutex>

namespace miw {

class NodeCache : public NodeSource {
public:
    explicit NodeCache(std::string origin) : origin_(std::move(origin)) {}

    // A complete list: every Node held is replaced, and the cache is synced.
    void replace_all(NodeMap nodes);
    void upsert(std::string name, NodeInfo info);
    void remove(std::string_view name);

    bool synced() const;
    std::size_t size() const;

    NodeLookup lookup(const NodeRef& node) const override;
    std::string origin() const override { return origin_; }
    // nullopt until the first complete list.
    std::optional<std::vector<std::string>> nodes_holding(std::string_view reference, std::size_t limit) const override;

private:
    std::string origin_;
    mutable std::shared_mutex mutex_;
    // kubernetes.io/hostname label value (a view of the Node's own) -> the
    // Node (the first by name where two carry one value), so a Pod pinned by
    // its nodeSelector finds its Node without a walk over 5,000; 48 bytes a
    // Node, no copy of a name.
    using HostnameIndex = std::map<std::string_view, NodeMap::const_iterator, std::less<>>;

    // The caller holds the lock exclusively. unindex before the Node changes or goes.
    void index(NodeMap::const_iterator node);
    void unindex(NodeMap::const_iterator node);

    NodeMap nodes_;
    HostnameIndex by_hostname_;
    bool synced_ = false;
};

}  // namespace miw
