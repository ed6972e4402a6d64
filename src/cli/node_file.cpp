#include "node_file.hpp"

#include "input.hpp"

#include "model_image_webhook/admission_review.hpp"
#include "model_image_webhook/api_answers.hpp"
#include "model_image_webhook/manifest_text.hpp"

namespace miw::cli {

Status load_node_file(const std::string& path, StaticNodeSource& out) {
    const Result<std::string> text = read_input(path);
    if (!text) return fail(text.error());
    // As kubectl reads it: `kubectl get nodes -o json` output as JSON, anything else as YAML.
    YamlLoad load = read_manifest_text(*text);
    if (!load.ok()) return fail(path + ":" + std::to_string(load.error_line) + ": " + load.error);
    for (auto& doc : load.documents) {
        if (const Status added = add_nodes_from_json(doc.json, out); !added) return fail(path + ":" + std::to_string(doc.line) + ": " + added.error());
    }
    return done();
}

}  // namespace miw::cli
