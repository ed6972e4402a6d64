#include "node_file.hpp"

#include "input.hpp"

#include "model_image_webhook/admission_review.hpp"
#include "model_image_webhook/api_answers.hpp"
#include "model_image_webhook/manifest_text.hpp"

namespace miw::cli {

namespace {

// Each document of the file handed to add, which takes the objects it reads.
template <typename Add>
Status load_documents(const std::string& path, const Add& add) {
    const Result<std::string> text = read_input(path);
    if (!text) return fail(text.error());
    // As kubectl reads it: `kubectl get ... -o json` output as JSON, anything else as YAML.
    YamlLoad load = read_manifest_text(*text);
    if (!load.ok()) return fail(path + ":" + std::to_string(load.error_line) + ": " + load.error);
    for (auto& doc : load.documents) {
        if (const Status added = add(doc.json); !added) return fail(path + ":" + std::to_string(doc.line) + ": " + added.error());
    }
    return done();
}

}  // namespace

Status load_node_file(const std::string& path, StaticNodeSource& out) {
    return load_documents(path, [&](std::string& json) { return add_nodes_from_json(json, out); });
}

Status load_artifact_file(const std::string& path, StaticArtifactSource& out) {
    return load_documents(path, [&](std::string& json) { return add_artifacts_from_json(json, out); });
}

}  // namespace miw::cli
