#include "model_image_webhook/node_source.hpp"

#include "model_image_webhook/text.hpp"

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

std::string describe(const NodeRef& node) {
    if (node.by == NodeNamedBy::name) return "node " + quote_value(node.value, 253);
    return "the node labelled " + std::string(kHostnameLabel) + "=" + quote_value(node.value, 253);
}

std::vector<std::string> nodes_holding_in(const NodeMap& nodes, std::string_view reference, std::size_t limit) {
    std::vector<std::string> out;
    if (limit == 0) return out;
    const ImageNameHash h = image_name_hash(reference);
    for (const auto& [name, info] : nodes) {
        if (info.hostname.empty() || !std::binary_search(info.pinned_images.begin(), info.pinned_images.end(), h)) continue;
        out.push_back(info.hostname);
    }
    // By label value, not by name: the term lists label values, and the cut
    // to `limit` must not depend on how the Nodes are named.
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    if (out.size() > limit) out.resize(limit);
    return out;
}

NodeLookup lookup_in(const NodeMap& nodes, const NodeRef& node) {
    NodeLookup out;
    auto it = nodes.end();
    if (node.by == NodeNamedBy::name) {
        it = nodes.find(node.value);
    } else if (!node.value.empty()) {
        it = std::find_if(nodes.begin(), nodes.end(), [&](const auto& n) { return n.second.hostname == node.value; });
    }
    if (it == nodes.end()) return out;
    out.status = NodeLookupStatus::found;
    out.info = it->second;
    return out;
}

}  // namespace miw
