// A manifest file's text read as kubectl reads it (apimachinery's
// YAMLOrJSONDecoder): a text whose first byte after whitespace is '{' is a
// stream of JSON documents, decoded as JSON (Go's decoder: every escape,
// surrogate pairs among them, read as JSON reads it, which libyaml does not);
// whatever follows the last of them that reads as JSON, and any other text,
// is YAML.
#pragma once

#include "model_image_webhook/yaml_loader.hpp"

#include <string_view>

namespace miw {

// The documents as load_yaml gives them: each as compact JSON with the
// 1-based line of its start and, for a List, of each item.
YamlLoad read_manifest_text(std::string_view text);

}  // namespace miw
