#include "node_file.hpp"

#include "input.hpp"

#include "model_image_webhook/admission_review.hpp"
#include "model_image_webhook/yaml_loader.hpp"

namespace miw::cli {

bool load_node_file(const std::string& path, StaticNodeSource& out, std::string& error) {
    std::string text;
    if (!read_input(path, text, error)) return false;
    // YAML is a superset of JSON: one reader serves both.
    YamlLoad load = load_yaml(text);
    if (!load.ok()) {
        error = path + ":" + std::to_string(load.error_line) + ": " + load.error;
        return false;
    }
    for (auto& doc : load.documents) {
        if (std::string problem = add_nodes_from_json(doc.json, out); !problem.empty()) {
            error = path + ":" + std::to_string(doc.line) + ": " + problem;
            return false;
        }
    }
    return true;
}

}  // namespace miw::cli
