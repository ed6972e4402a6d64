#include "model_image_webhook/node_source.hpp"

#include "model_image_webhook/registry/locator.hpp"
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

ImageNameHash normalized_image_hash(std::string_view name) {
    // The runtime lists "docker.io/library/qwen@d"; a Pod may name "qwen@d",
    // "index.docker.io/qwen@d" or "docker.io/library/qwen:v1@d": one image (design.md 1.9).
    if (is_canonical_reference(name)) return image_name_hash(name);
    return image_name_hash(canonical_reference(name));
}

bool NodeInfo::holds_image(std::string_view reference) const {
    return std::binary_search(pinned_images.begin(), pinned_images.end(), normalized_image_hash(reference));
}

void NodeInfo::add_image_name(std::string_view name) {
    if (!is_digest_pinned_name(name)) return;
    const ImageNameHash h = normalized_image_hash(name);
    const auto at = std::lower_bound(pinned_images.begin(), pinned_images.end(), h);
    if (at == pinned_images.end() || *at != h) pinned_images.insert(at, h);
}

std::string describe(const NodeRef& node) {
    if (node.by == NodeNamedBy::name) return "node " + quote_value(node.value, 253);
    return "the node labelled " + std::string(kHostnameLabel) + "=" + quote_value(node.value, 253);
}

std::vector<std::string> nodes_holding_in(const NodeMap& nodes, std::string_view reference, std::size_t limit) {
    if (limit == 0) return {};
    const ImageNameHash h = normalized_image_hash(reference);
    // The `limit` smallest label values, in a max-heap: by label value, not
    // by name, so the cut does not depend on how the Nodes are named, and a
    // fleet of 5,000 warm Nodes costs a comparison each, not a sort.
    std::vector<std::string_view> smallest;
    smallest.reserve(limit);
    for (const auto& [name, info] : nodes) {
        const std::string_view host = info.hostname;
        if (host.empty() || (smallest.size() == limit && !(host < smallest.front()))) continue;
        if (!std::binary_search(info.pinned_images.begin(), info.pinned_images.end(), h)) continue;
        if (std::find(smallest.begin(), smallest.end(), host) != smallest.end()) continue;  // two Nodes, one label value
        if (smallest.size() == limit) {
            std::pop_heap(smallest.begin(), smallest.end());
            smallest.pop_back();
        }
        smallest.push_back(host);
        std::push_heap(smallest.begin(), smallest.end());
    }
    std::sort_heap(smallest.begin(), smallest.end());
    return {smallest.begin(), smallest.end()};
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
