#include "model_image_webhook/node_source.hpp"

#include <algorithm>

namespace miw {

ImageNameHash image_name_hash(std::string_view name) {
    std::uint64_t h = 14695981039346656037ull;
    for (char c : name) {
        h ^= static_cast<unsigned char>(c);
        h *= 1099511628211ull;
    }
    return h;
}

bool is_digest_pinned_name(std::string_view name) {
    const std::size_t at = name.rfind('@');
    return at != std::string_view::npos && at > 0 && name.find(':', at) != std::string_view::npos;
}

bool NodeInfo::holds_image(std::string_view reference) const {
    return std::binary_search(pinned_images.begin(), pinned_images.end(), image_name_hash(reference));
}

void NodeInfo::add_image_name(std::string_view name) {
    if (!is_digest_pinned_name(name)) return;
    const ImageNameHash h = image_name_hash(name);
    const auto at = std::lower_bound(pinned_images.begin(), pinned_images.end(), h);
    if (at == pinned_images.end() || *at != h) pinned_images.insert(at, h);
}

std::vector<std::string> nodes_holding_in(const NodeMap& nodes, std::string_view reference, std::size_t limit) {
    std::vector<std::string> out;
    if (limit == 0) return out;
    const ImageNameHash h = image_name_hash(reference);
    // The map is ordered by name: the first `limit` found are the first by name.
    for (const auto& [name, info] : nodes) {
        if (!std::binary_search(info.pinned_images.begin(), info.pinned_images.end(), h)) continue;
        out.push_back(name);
        if (out.size() == limit) break;
    }
    return out;
}

NodeLookup StaticNodeSource::lookup(std::string_view name) const {
    NodeLookup out;
    const auto it = nodes_.find(name);
    if (it == nodes_.end()) return out;
    out.status = NodeLookupStatus::found;
    out.info = it->second;
    return out;
}

}  // namespace miw
