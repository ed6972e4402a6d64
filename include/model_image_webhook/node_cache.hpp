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

    NodeLookup lookup(std::string_view name) const override;
    std::string origin() const override { return origin_; }
    // nullopt until the first complete list.
    std::optional<std::vector<std::string>> nodes_holding(std::string_view reference, std::size_t limit) const override;

private:
    std::string origin_;
    mutable std::shared_mutex mutex_;
    NodeMap nodes_;
    bool synced_ = false;
};

}  // namespace miw
