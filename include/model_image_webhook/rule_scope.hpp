// Which rules judge a request: the one place that says so. The codec reads
// the views those rules need, decide() routes on it, the test mode selects
// objects with it, and a test holds the shipped webhook configurations
// (manifests/base/webhooks.yaml) to it.
#pragma once

#include "model_image_webhook/admission.hpp"

#include <span>
#include <string_view>

namespace miw {

std::string_view to_string(RuleSet rules);

// One kind the webhook is sent, as a webhook configuration's rule names it.
struct RuleScope {
    Endpoint endpoint;
    std::string_view group;
    std::string_view kind;
    std::string_view resource;  // the plural the configuration's rules list, "/status" for the subresource
    bool on_create;
    bool on_update;
    RuleSet rules;
};

// Every kind the webhook judges, and on which endpoint and operations.
std::span<const RuleScope> rule_scopes();

// The rules for a request at `endpoint`. The version is not looked at (the
// configurations match Equivalent versions); of the subresources only a
// ModelArtifact's status is judged.
RuleSet applies(Endpoint endpoint, const GroupVersionKind& kind, Operation operation, std::string_view subresource);

}  // namespace miw
