#include "list_watch.hpp"

#include "log.hpp"

#include "model_image_webhook/text.hpp"

#include <algorithm>
#include <functional>

namespace miw::server {

namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

std::int64_t unix_now() { return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count(); }

}  // namespace

ListWatch::ListWatch(const KubeClient& client, WatchedKind& kind, WatchSettings settings) : client_(client), kind_(kind), settings_(settings) {}

ListWatch::~ListWatch() { stop(); }

void ListWatch::start() { thread_ = std::thread([this] { run(); }); }

void ListWatch::stop() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

bool ListWatch::sleep(milliseconds d) {
    std::unique_lock lock(mutex_);
    return !wake_.wait_for(lock, d, [this] { return stop_.load(); });
}

void ListWatch::run() {
    milliseconds backoff = settings_.first_backoff;
    bool need_list = true;
    while (!stop_) {
        if (need_list) {
            if (!list()) {
                kind_.failed();
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
                kind_.failed();
                need_list = true;
                if (!sleep(backoff)) return;
                backoff = std::min(backoff * 2, settings_.max_backoff);
                break;
        }
    }
}

bool ListWatch::list() {
    const std::string what = std::string(kind_.plural()) + " not listed";
    std::string continue_token, resource_version;
    do {
        std::string path = kind_.collection_path() + "?limit=" + std::to_string(settings_.page_size);
        if (!continue_token.empty()) path += "&continue=" + percent_encode(continue_token);
        KubeClient::Response r = client_.get(path, kind_.max_page_bytes(), steady_clock::now() + std::chrono::seconds(30), &stop_);
        Result<ListPosition> page = fail("stopped");
        if (!stop_ && r.error.empty() && r.status == 200) page = kind_.take_page(r.body);
        if (stop_ || !page) {
            kind_.drop_list();
            if (stop_) return false;
            const std::string reason = !r.error.empty() ? r.error
                                       : r.status != 200 ? "GET " + kind_.collection_path() + " answered " + std::to_string(r.status)
                                                         : page.error();
            Log::instance().error(what, {{"api", client_.describe()}, {"reason", reason}});
            return false;
        }
        resource_version = std::move(page->resource_version);
        continue_token = std::move(page->continue_token);
    } while (!continue_token.empty());
    const std::size_t count = kind_.commit_list();
    resource_version_ = resource_version;
    if (listed_once_) kind_.relisted();
    listed_once_ = true;
    kind_.synced(count, unix_now());
    Log::instance().info(std::string(kind_.plural()) + " listed", {{"count", static_cast<long long>(count)}, {"resourceVersion", resource_version_}});
    return true;
}

ListWatch::WatchEnd ListWatch::watch() {
    const std::string path = kind_.collection_path() + "?watch=1&allowWatchBookmarks=true&resourceVersion=" + percent_encode(resource_version_) +
                             "&timeoutSeconds=" + std::to_string(settings_.watch_timeout.count());
    WatchEnd end = WatchEnd::reopen;
    std::string problem;
    const std::function<bool(std::string&)> on_line = [&](std::string& line) {
        Result<WatchedEvent> event = kind_.apply_event(line);
        if (!event) {
            problem = event.error();
            end = WatchEnd::failed;
            return false;
        }
        if (event->type == WatchEventType::error) {
            // 410: the resource version is older than the apiserver keeps.
            problem = "the watch answered " + std::to_string(event->code) + ": " + event->message;
            end = event->code == 410 ? WatchEnd::relist : WatchEnd::failed;
            return false;
        }
        if (!event->resource_version.empty()) resource_version_ = std::move(event->resource_version);
        kind_.synced(kind_.size(), unix_now());
        return true;
    };
    const auto deadline = steady_clock::now() + settings_.watch_timeout + std::chrono::seconds(30);
    KubeClient::Response r = client_.stream(path, kind_.max_event_bytes(), deadline, settings_.idle, stop_, on_line);
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
        Log::instance().info(std::string(kind_.plural()) + " watch ended", {{"reason", problem}, {"relist", true}});
    }
    return end;
}

}  // namespace miw::server
