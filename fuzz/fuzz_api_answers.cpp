// Any bytes as what the Kubernetes API answers the Node watch (a page of
// GET /api/v1/nodes, a line of its watch, GET /version) or a --nodes file
// holds, or a --artifacts file: a result or a reason, never a crash; a Node that reads has a name,
// its pinned images kept sorted and unique, and is found again by that name.
#include "model_image_webhook/api_answers.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace {

void check_node(const miw::NodeRecord& node) {
    if (node.name.empty()) std::abort();
    const auto& images = node.info.pinned_images;
    if (!std::is_sorted(images.begin(), images.end()) || std::adjacent_find(images.begin(), images.end()) != images.end()) std::abort();
    miw::StaticNodeSource source("fuzz");
    source.add(node.name, node.info);
    const miw::NodeLookup found = source.lookup(miw::NodeRef{node.name});
    if (found.status != miw::NodeLookupStatus::found || found.info.kubelet_version != node.info.kubelet_version) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    {
        std::string json = text;
        const miw::Result<miw::NodeListPage> page = miw::read_node_list(json);
        if (!page && page.error().empty()) std::abort();
        if (page) {
            for (const auto& node : page->items) check_node(node);
        }
    }
    {
        std::string json = text;
        const miw::Result<miw::NodeWatchEvent> event = miw::read_node_watch_event(json);
        if (!event && event.error().empty()) std::abort();
        if (event && (event->type == miw::WatchEventType::added || event->type == miw::WatchEventType::modified ||
                      event->type == miw::WatchEventType::deleted)) {
            check_node(event->object);
        }
    }
    {
        std::string json = text;
        miw::StaticNodeSource nodes("fuzz");
        const miw::Status added = miw::add_nodes_from_json(json, nodes);
        if (!added && added.error().empty()) std::abort();
    }
    {
        // ModelArtifacts (--artifacts, the inputs of test): read, or a reason.
        std::string json = text;
        miw::StaticArtifactSource artifacts("fuzz");
        const miw::Status added = miw::add_artifacts_from_json(json, artifacts);
        if (!added && added.error().empty()) std::abort();
    }
    {
        std::string json = text;
        (void)miw::read_git_version(json);
    }
    return 0;
}
