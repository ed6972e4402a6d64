#include "node_watch.hpp"

#include "log.hpp"

#include "model_image_webhook/api_answers.hpp"
#include "model_image_webhook/text.hpp"

#include <algorithm>

namespace miw::server {

namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

std::int64_t unix_now() { return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count(); }

}  // namespace

NodeWatch::NodeWatch(const KubeClient& client, NodeCache& cache, Metrics& metrics, NodeWatchSettings settings)
    : client_(client), cache_(cache), metrics_(metrics), settings_(settings) {}

NodeWatch::~NodeWatch() { stop(); }

void NodeWatch::start() { thread_ = std::thread([this] { run(); }); }

void NodeWatch::stop() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

bool NodeWatch::sleep(milliseconds d) {
    std::unique_lock lock(mutex_);
    return !wake_.wait_for(lock, d, [this] { return stop_.load(); });
}

void NodeWatch::run() {
    milliseconds backoff = settings_.first_backoff;
    bool need_list = true;
    while (!stop_) {
        if (need_list) {
            if (!list()) {
                metrics_.node_watch_failed();
                if (!sleep(backoff)) return;
                backoff = std::min(backoff * 2, settings_.max_backoff);
                continue;
            }
            need_list = false;
            backoff = settings_.first_backoff;
        }
        switch (watch()) {
            case WatchEnd::stopped: return;
            case WatchEnd::reopen: backoff = settings_.first_backoff; break;
            case WatchEnd::relist: need_list = true; break;
            case WatchEnd::failed:
                // A broken stream may have lost events: list again, after a pause.
                metrics_.node_watch_failed();
                need_list = true;
                if (!sleep(backoff)) return;
                backoff = std::min(backoff * 2, settings_.max_backoff);
                break;
        }
    }
}

bool NodeWatch::list() {
    NodeMap nodes;
    std::string continue_token, resource_version;
    do {
        std::string path = "/api/v1/nodes?limit=" + std::to_string(settings_.page_size);
        if (!continue_token.empty()) path += "&continue=" + percent_encode(continue_token);
        KubeClient::Response r = client_.get(path, kMaxNodeListPageBytes, steady_clock::now() + std::chrono::seconds(30), &stop_);
        if (stop_) return false;
        if (!r.error.empty() || r.status != 200) {
            Log::instance().error("Nodes not listed", {{"api", client_.describe()},
                                                       {"reason", r.error.empty() ? "GET /api/v1/nodes answered " + std::to_string(r.status) : r.error}});
            return false;
        }
        Result<NodeListPage> page = read_node_list(r.body);
        if (!page) {
            Log::instance().error("Nodes not listed", {{"api", client_.describe()}, {"reason", page.error()}});
            return false;
        }
        for (NodeRecord& n : page->nodes) nodes[std::move(n.name)] = std::move(n.info);
        resource_version = std::move(page->resource_version);
        continue_token = std::move(page->continue_token);
    } while (!continue_token.empty());
    const std::size_t count = nodes.size();
    cache_.replace_all(std::move(nodes));
    resource_version_ = resource_version;
    if (listed_once_) metrics_.node_cache_relisted();
    listed_once_ = true;
    metrics_.node_cache_synced(count, unix_now());
    Log::instance().info("Nodes listed", {{"nodes", static_cast<long long>(count)}, {"resourceVersion", resource_version_}});
    return true;
}

NodeWatch::WatchEnd NodeWatch::watch() {
    const std::string path = "/api/v1/nodes?watch=1&allowWatchBookmarks=true&resourceVersion=" + percent_encode(resource_version_) +
                             "&timeoutSeconds=" + std::to_string(settings_.watch_timeout.count());
    WatchEnd end = WatchEnd::reopen;
    std::string problem;
    const std::function<bool(std::string&)> on_line = [&](std::string& line) {
        Result<NodeWatchEvent> event = read_node_watch_event(line);
        if (!event) {
            problem = event.error();
            end = WatchEnd::failed;
            return false;
        }
        switch (event->type) {
            case WatchEventType::added:
            case WatchEventType::modified: cache_.upsert(std::move(event->node.name), std::move(event->node.info)); break;
            case WatchEventType::deleted: cache_.remove(event->node.name); break;
            case WatchEventType::bookmark: break;
            case WatchEventType::error:
                // 410: the resource version is older than the apiserver keeps.
                problem = "the watch answered " + std::to_string(event->code) + ": " + event->message;
                end = event->code == 410 ? WatchEnd::relist : WatchEnd::failed;
                return false;
        }
        if (!event->resource_version.empty()) resource_version_ = std::move(event->resource_version);
        metrics_.node_cache_synced(cache_.size(), unix_now());
        return true;
    };
    const auto deadline = steady_clock::now() + settings_.watch_timeout + std::chrono::seconds(30);
    KubeClient::Response r = client_.stream(path, kMaxNodeAnswerBytes, deadline, settings_.idle, stop_, on_line);
    if (stop_) return WatchEnd::stopped;
    if (end == WatchEnd::reopen) {
        if (!r.error.empty()) {
            problem = r.error;
            end = WatchEnd::failed;
        } else if (r.status == 410) {
            problem = "the watch answered 410";
            end = WatchEnd::relist;
        } else if (r.status != 200) {
            problem = "the watch answered " + std::to_string(r.status);
            end = WatchEnd::failed;
        }
    }
    if (end != WatchEnd::reopen) {
        Log::instance().info("Node watch ended", {{"reason", problem}, {"relist", true}});
    }
    return end;
}

// Not listed yet, or a Node created a moment ago that the watch has not
// brought: the API is asked, so no Pod is refused for the watch's lag.
std::optional<NodeLookup> WatchedNodeSource::cached(const NodeRef& node) const {
    if (!cache_.synced()) return std::nullopt;
    NodeLookup found = cache_.lookup(node);
    if (found.status != NodeLookupStatus::found) return std::nullopt;
    return found;
}

NodeLookup WatchedNodeSource::lookup(const NodeRef& node) const {
    if (auto found = cached(node)) return std::move(*found);
    return api_.lookup(node);
}

NodeLookup WatchedNodeSource::lookup_until(const NodeRef& node, steady_clock::time_point deadline) const {
    if (auto found = cached(node)) return std::move(*found);
    return api_.lookup_until(node, deadline);
}

}  // namespace miw::server
