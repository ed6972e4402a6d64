// Kubernetes objects read from manifests, for the offline `test` command.
// Implemented in the codec, the only JSON reader.
#pragma once

#include "model_image_webhook/json_visitor.hpp"
#include "model_image_webhook/result.hpp"

#include "model_image_webhook/webhook_selection.hpp"

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace miw {

struct ManifestObject {
    std::string api_version;
    std::string group;  // from apiVersion: "" for "v1"
    std::string version;
    std::string kind;
    std::string name;  // empty for an object named by generateName
    std::string generate_name;
    std::string namespace_name;
    bool opted_in = false;  // label gpustack.ai/model-delivery: image
    std::map<std::string, std::string> labels;  // metadata.labels (string values)
    bool mounts_image_volume = false;  // a Pod with an image volume in spec.volumes
    std::string json;  // the object, compact
    std::size_t item = 0;  // index in a List's items; 0 otherwise
    bool from_list = false;
};

// The objects of one JSON document: the document itself, or a List's items.
// json is parsed in place.
Result<std::vector<ManifestObject>> read_manifest_objects(std::string& json);

// The Pod a workload's (first) pod template makes: the template's metadata
// and spec, in the workload's namespace, named "<workload>-*". nullopt-like
// failure when the workload has no template.
Result<ManifestObject> pod_of_template(const ManifestObject& workload);

// The webhooks of one ValidatingWebhookConfiguration or
// MutatingWebhookConfiguration document (any other kind gives none).
Result<std::vector<WebhookEntry>> read_webhook_configuration(std::string& json);

// Applies an RFC 6902 patch (add, remove, replace; the ops the webhook
// emits) to a JSON document: the patched document, compact.
Result<std::string> apply_json_patch(const std::string& document, const std::string& patch);

// Walks a JSON document; false when it cannot be read.
bool visit_json(const std::string& json, JsonVisitor& visitor);

}  // namespace miw
