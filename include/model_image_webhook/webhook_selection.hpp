// Which objects the cluster sends the webhook, as its webhook configurations
// say: each webhook's rules, namespaceSelector and objectSelector, read from
// the shipped manifests/base/webhooks.yaml (or a user's own) by the codec, and
// matched here, so the offline test mode predicts what the apiserver does.
#pragma once

#include "model_image_webhook/admission.hpp"
#include "model_image_webhook/enforcement.hpp"

#include <map>
#include <string>
#include <vector>

namespace miw {

struct LabelRequirement {
    std::string key;
    std::string op;  // In, NotIn, Exists, DoesNotExist
    std::vector<std::string> values;
};

// metav1.LabelSelector; an empty one selects everything.
struct LabelSelector {
    std::map<std::string, std::string> match_labels;
    std::vector<LabelRequirement> match_expressions;

    bool matches(const std::map<std::string, std::string>& labels) const;
    std::string describe() const;  // "kubernetes.io/metadata.name notin (kube-system,model-image-webhook)"
};

struct WebhookRule {
    std::vector<std::string> api_groups;
    std::vector<std::string> api_versions;
    std::vector<std::string> operations;
    std::vector<std::string> resources;  // "pods", "modelartifacts/status", "*"
};

struct WebhookEntry {
    std::string name;
    std::string path;  // the service path: /validate, /mutate, /warn/validate, ...
    std::vector<WebhookRule> rules;
    LabelSelector namespace_selector;
    LabelSelector object_selector;

    // Whether a rule covers a CREATE of `resource` (plural) in `group` at `version`.
    bool covers(std::string_view group, std::string_view version, std::string_view resource, std::string_view operation) const;
};

// What the configurations do with one object.
struct Selection {
    bool sent = false;
    // The enforcement mode of the path it is sent to: the one /warn/ or
    // /audit/ forces, else the configured one. Where several webhooks send
    // it, the strictest: the apiserver calls each, and one denial refuses.
    Enforcement mode = Enforcement::deny;
    std::string why_not;  // which selector (or rule) kept it away, for the report
};

// The webhooks whose path is one of `endpoint`'s (admission_path.hpp) for an
// object of that group, version and resource in a namespace with these
// labels and with these labels of its own; `configured` is the mode of
// /validate and /mutate (--enforcement).
Selection select(const std::vector<WebhookEntry>& webhooks, Endpoint endpoint, Enforcement configured, std::string_view group, std::string_view version,
                 std::string_view resource, const std::map<std::string, std::string>& namespace_labels,
                 const std::map<std::string, std::string>& object_labels);

}  // namespace miw
