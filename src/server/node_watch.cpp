#include "node_watch.hpp"

#include "log.hpp"

#include "model_image_webhook/api_answers.hpp"

namespace miw::server {

Result<ListPosition> NodeKind::take_page(std::string& json) {
    Result<NodeListPage> page = read_node_list(json);
    if (!page) return fail(page.error());
    for (NodeRecord& n : page->items) listed_[std::move(n.name)] = std::move(n.info);
    return ListPosition{std::move(page->resource_version), std::move(page->continue_token)};
}

std::size_t NodeKind::commit_list() {
    const std::size_t count = listed_.size();
    cache_.replace_all(std::move(listed_));
    listed_ = NodeMap();
    return count;
}

Result<WatchedEvent> NodeKind::apply_event(std::string& line) {
    Result<NodeWatchEvent> event = read_node_watch_event(line);
    if (!event) return fail(event.error());
    switch (event->type) {
        case WatchEventType::added:
        case WatchEventType::modified: cache_.upsert(std::move(event->object.name), std::move(event->object.info)); break;
        case WatchEventType::deleted: cache_.remove(event->object.name); break;
        case WatchEventType::bookmark:
        case WatchEventType::error: break;
    }
    return WatchedEvent{event->type, std::move(event->resource_version), event->code, std::move(event->message)};
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

NodeLookup WatchedNodeSource::lookup_until(const NodeRef& node, std::chrono::steady_clock::time_point deadline) const {
    if (auto found = cached(node)) return std::move(*found);
    return api_.lookup_until(node, deadline);
}

}  // namespace miw::server
