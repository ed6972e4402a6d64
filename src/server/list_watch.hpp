// A kind of cluster object kept current for the rules (design.md 1.5, 1.7):
// list it, then watch from the list's resource version, relisting when the
// watch expires (410 Gone) or breaks, with backoff. The rules read the cache
// the kind keeps; a thread of its own runs the loop. No Boost here.
#pragma once

#include "kube_client.hpp"

#include "model_image_webhook/api_answers.hpp"
#include "model_image_webhook/result.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace miw::server {

struct WatchSettings {
    std::size_t page_size = 100;  // objects per list page: a page of Nodes with 50 images each stays near 2 MiB
    std::chrono::seconds watch_timeout{300};  // asked of the apiserver (timeoutSeconds); the stream is reopened after
    std::chrono::milliseconds idle{150000};  // no byte for this long: the stream is taken as dead (bookmarks come each minute)
    std::chrono::milliseconds first_backoff{500};
    std::chrono::milliseconds max_backoff{30000};
};

// Where a list page leaves the list, and what one watch event was.
struct ListPosition {
    std::string resource_version;
    std::string continue_token;
};
struct WatchedEvent {
    WatchEventType type = WatchEventType::error;
    std::string resource_version;
    int code = 0;
    std::string message;
};

// What the loop needs of one kind: where it is served, how its answers are
// read into its cache, and its metrics.
class WatchedKind {
public:
    virtual ~WatchedKind() = default;
    virtual std::string_view plural() const = 0;  // "Nodes", for the log
    virtual std::string collection_path() const = 0;  // "/api/v1/nodes"
    virtual std::size_t max_page_bytes() const = 0;
    virtual std::size_t max_event_bytes() const = 0;
    // A page of the list: its objects kept aside until the list is whole.
    virtual Result<ListPosition> take_page(std::string& json) = 0;
    // The list is whole: the cache holds what its pages held (their count);
    // or it failed, and what they held goes.
    virtual std::size_t commit_list() = 0;
    virtual void drop_list() = 0;
    // One watch line applied to the cache.
    virtual Result<WatchedEvent> apply_event(std::string& line) = 0;
    virtual std::size_t size() const = 0;
    virtual void synced(std::size_t count, std::int64_t unix_time) = 0;
    virtual void relisted() = 0;
    virtual void failed() = 0;
};

class ListWatch {
public:
    ListWatch(const KubeClient& client, WatchedKind& kind, WatchSettings settings = {});
    ~ListWatch();

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
    WatchedKind& kind_;
    WatchSettings settings_;
    std::string resource_version_;
    bool listed_once_ = false;
    std::atomic<bool> stop_{false};
    std::mutex mutex_;
    std::condition_variable wake_;
    std::thread thread_;
};

}  // namespace miw::server
