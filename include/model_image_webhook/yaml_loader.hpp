// YAML manifests read the way Kubernetes reads them, as JSON documents: plain
// scalars typed by the YAML 1.2 core schema, quoted scalars kept as strings,
// keys always strings, anchors and merge keys resolved.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace miw {

struct YamlDocument {
    std::size_t line = 1;  // 1-based line of the document's root node
    std::string json;
    std::vector<std::size_t> item_lines;  // for a mapping with an `items` list (kind: List): each item's line
};

struct YamlLoad {
    std::vector<YamlDocument> documents;  // empty documents are left out
    std::string error;  // empty on success
    std::size_t error_line = 0;  // 1-based, 0 when unknown

    bool ok() const { return error.empty(); }
};

// Expansion through aliases past this many bytes of JSON is refused, so that
// a few lines of nested aliases cannot exhaust memory.
inline constexpr std::size_t kMaxYamlJsonBytes = 64u << 20;

YamlLoad load_yaml(std::string_view text);

}  // namespace miw
