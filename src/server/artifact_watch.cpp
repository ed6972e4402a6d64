#include "artifact_watch.hpp"

#include "model_image_webhook/api_answers.hpp"

namespace miw::server {

Result<ListPosition> ArtifactKind::take_page(std::string& json) {
    Result<ArtifactListPage> page = read_artifact_list(json);
    if (!page) return fail(page.error());
    for (ArtifactRecord& a : page->items) listed_[{std::move(a.namespace_name), std::move(a.name)}] = std::move(a.info);
    return ListPosition{std::move(page->resource_version), std::move(page->continue_token)};
}

std::size_t ArtifactKind::commit_list() {
    const std::size_t count = listed_.size();
    cache_.replace_all(std::move(listed_));
    listed_ = ArtifactMap();
    return count;
}

Result<WatchedEvent> ArtifactKind::apply_event(std::string& line) {
    Result<ArtifactWatchEvent> event = read_artifact_watch_event(line);
    if (!event) return fail(event.error());
    ArtifactRecord& a = event->object;
    switch (event->type) {
        case WatchEventType::added:
        case WatchEventType::modified: cache_.upsert(std::move(a.namespace_name), std::move(a.name), std::move(a.info)); break;
        case WatchEventType::deleted: cache_.remove(a.namespace_name, a.name); break;
        case WatchEventType::bookmark:
        case WatchEventType::error: break;
    }
    return WatchedEvent{event->type, std::move(event->resource_version), event->code, std::move(event->message)};
}

}  // namespace miw::server
