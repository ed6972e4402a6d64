// The cluster's Nodes kept current for the rules (design.md 1.5): list them,
// then watch from the list's resource version, relisting when the watch
// expires (410 Gone) or breaks, with backoff. The rules read the NodeCache;
// a thread of its own runs the loop. No Boost here.
#pragma once

#include "kube_client.hpp"
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

struct NodeWatchSettings {
    std::size_t page_size = 100;  // Nodes per list page: a page of Nodes with 50 images each stays near 2 MiB
    std::chrono::seconds watch_timeout{300};  // asked of the apiserver (timeoutSeconds); the stream is reopened after
    std::chrono::milliseconds idle{150000};  // no byte for this long: the stream is taken as dead (bookmarks come each minute)
    std::chrono::milliseconds first_backoff{500};
    std::chrono::milliseconds max_backoff{30000};
};

// The largest page of the Node list read; a page over it is a failed list.
inline constexpr std::size_t kMaxNodeListPageBytes = 64u << 20;

class NodeWatch {
public:
    NodeWatch(const KubeClient& client, NodeCache& cache, Metrics& metrics, NodeWatchSettings settings = {});
    ~NodeWatch();

    void start();
    // Ends the stream in progress within about 100 ms and joins the thread.
    void stop();

private:
    enum class WatchEnd { reopen, relist, failed, stopped };

    void run();
    bool list();
    WatchEnd watch();
    // Waits, unless stop() comes first; false when stopped.
    bool sleep(std::chrono::milliseconds d);

    const KubeClient& client_;
    NodeCache& cache_;
    Metrics& metrics_;
    NodeWatchSettings settings_;
    std::string resource_version_;
    bool listed_once_ = false;
    std::atomic<bool> stop_{false};
    std::mutex mutex_;
    std::condition_variable wake_;
    std::thread thread_;
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
