#include "model_image_webhook/node_source.hpp"

namespace miw {

NodeLookup StaticNodeSource::lookup(std::string_view name) const {
    NodeLookup out;
    const auto it = nodes_.find(name);
    if (it == nodes_.end()) return out;
    out.status = NodeLookupStatus::found;
    out.info = it->second;
    return out;
}

}  // namespace miw
