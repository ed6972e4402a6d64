// The cluster's Nodes kept current for the rules (design.md 1.5) by the
// list-then-watch loop (list_watch.hpp), and the Node source the server's
// rules read. No Boost here.
#pragma once

#include "kube_client.hpp"
#include "list_watch.hpp"
#include "metrics.hpp"

#include "model_image_webhook/node_cache.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace miw::server {

// The largest page of the Node list read; a page over it is a failed list.
inline constexpr std::size_t kMaxNodeListPageBytes = 64u << 20;

// Nodes, for the list-then-watch loop: read into the NodeCache.
class NodeKind : public WatchedKind {
public:
    NodeKind(NodeCache& cache, Metrics& metrics) : cache_(cache), metrics_(metrics) {}
    std::string_view plural() const override { return "Nodes"; }
    std::string collection_path() const override { return "/api/v1/nodes"; }
    std::size_t max_page_bytes() const override { return kMaxNodeListPageBytes; }
    std::size_t max_event_bytes() const override { return kMaxNodeAnswerBytes; }
    Result<ListPosition> take_page(std::string& json) override;
    std::size_t commit_list() override;
    void drop_list() override { NodeMap().swap(listed_); }
    Result<WatchedEvent> apply_event(std::string& line) override;
    std::size_t size() const override { return cache_.size(); }
    void synced(std::size_t count, std::int64_t unix_time) override { metrics_.node_cache_synced(count, unix_time); }
    void relisted() override { metrics_.node_cache_relisted(); }
    void failed() override { metrics_.node_watch_failed(); }

private:
    NodeCache& cache_;
    Metrics& metrics_;
    NodeMap listed_;  // the pages of a list in progress
};

class NodeWatch {
public:
    NodeWatch(const KubeClient& client, NodeCache& cache, Metrics& metrics, WatchSettings settings = {})
        : kind_(cache, metrics), loop_(client, kind_, settings) {}
    void start() { loop_.start(); }
    void stop() { loop_.stop(); }

private:
    NodeKind kind_;
    ListWatch loop_;  // after kind_: it runs on it
};

// The server's Node source: the watch's cache once it has listed every
// Node, else (and for a Node the watch has not seen yet) the API itself.
class WatchedNodeSource : public DeadlineNodeSource {
public:
    WatchedNodeSource(const NodeCache& cache, const ApiNodeSource& api) : cache_(cache), api_(api) {}

    NodeLookup lookup(const NodeRef& node) const override;
    NodeLookup lookup_until(const NodeRef& node, std::chrono::steady_clock::time_point deadline) const override;
    std::string origin() const override { return "the Kubernetes API"; }
    std::optional<std::vector<std::string>> nodes_holding(std::string_view reference, std::size_t limit) const override {
        return cache_.nodes_holding(reference, limit);
    }

private:
    std::optional<NodeLookup> cached(const NodeRef& node) const;  // a Node the listed cache holds

    const NodeCache& cache_;
    const ApiNodeSource& api_;
};

}  // namespace miw::server
