// Label selectors and webhook rules, matched as the apiserver matches them.
#include "model_image_webhook/webhook_selection.hpp"

#include <catch2/catch.hpp>

using namespace miw;

TEST_CASE("label selectors match as metav1.LabelSelector does", "[webhook_selection]") {
    LabelSelector not_system;
    not_system.match_expressions = {{"kubernetes.io/metadata.name", "NotIn", {"kube-system", "model-image-webhook"}}};
    LabelSelector opted_in;
    opted_in.match_labels = {{"gpustack.ai/model-delivery", "image"}};
    LabelSelector warn;
    warn.match_expressions = {{"gpustack.ai/model-image-enforcement", "In", {"warn"}}, {"team", "Exists", {}}, {"legacy", "DoesNotExist", {}}};
    struct Case {
        const char* name;
        const LabelSelector& selector;
        std::map<std::string, std::string> labels;
        bool matches;
    };
    const LabelSelector everything;
    const std::vector<Case> cases = {
        {"an empty selector selects everything", everything, {}, true},
        {"NotIn, another namespace", not_system, {{"kubernetes.io/metadata.name", "gpustack"}}, true},
        {"NotIn, kube-system", not_system, {{"kubernetes.io/metadata.name", "kube-system"}}, false},
        {"NotIn, the key absent", not_system, {}, true},
        {"matchLabels present", opted_in, {{"gpustack.ai/model-delivery", "image"}, {"app", "x"}}, true},
        {"matchLabels another value", opted_in, {{"gpustack.ai/model-delivery", "hub"}}, false},
        {"matchLabels absent", opted_in, {}, false},
        {"In, Exists and DoesNotExist together", warn, {{"gpustack.ai/model-image-enforcement", "warn"}, {"team", "a"}}, true},
        {"In with another value", warn, {{"gpustack.ai/model-image-enforcement", "audit"}, {"team", "a"}}, false},
        {"Exists missing", warn, {{"gpustack.ai/model-image-enforcement", "warn"}}, false},
        {"DoesNotExist present", warn, {{"gpustack.ai/model-image-enforcement", "warn"}, {"team", "a"}, {"legacy", ""}}, false},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) { CHECK(c.selector.matches(c.labels) == c.matches); }
    }
    CHECK(not_system.describe() == "kubernetes.io/metadata.name notin (kube-system,model-image-webhook)");
    CHECK(everything.describe() == "everything");
}

TEST_CASE("webhooks send what their rules and selectors cover", "[webhook_selection]") {
    WebhookEntry delivery;
    delivery.name = "delivery";
    delivery.path = "/mutate";
    delivery.rules = {{{"apps"}, {"v1"}, {"CREATE", "UPDATE"}, {"deployments"}}, {{""}, {"*"}, {"CREATE"}, {"pods"}}};
    delivery.namespace_selector.match_expressions = {{"kubernetes.io/metadata.name", "NotIn", {"kube-system"}}};
    delivery.object_selector.match_labels = {{"gpustack.ai/model-delivery", "image"}};
    const std::vector<WebhookEntry> hooks = {delivery};
    const std::map<std::string, std::string> ns{{"kubernetes.io/metadata.name", "gpustack"}};
    const std::map<std::string, std::string> system{{"kubernetes.io/metadata.name", "kube-system"}};
    const std::map<std::string, std::string> opted{{"gpustack.ai/model-delivery", "image"}};
    CHECK(select(hooks, Endpoint::mutate, Enforcement::deny, "apps", "v1", "deployments", ns, opted).sent);
    CHECK(select(hooks, Endpoint::mutate, Enforcement::deny, "", "v1", "pods", ns, opted).sent);
    CHECK_FALSE(select(hooks, Endpoint::mutate, Enforcement::deny, "apps", "v1beta2", "deployments", ns, opted).sent);  // a version the rule does not list
    CHECK_FALSE(select(hooks, Endpoint::validate, Enforcement::deny, "apps", "v1", "deployments", ns, opted).sent);
    const Selection system_ns = select(hooks, Endpoint::mutate, Enforcement::deny, "apps", "v1", "deployments", system, opted);
    CHECK_FALSE(system_ns.sent);
    CHECK(system_ns.why_not == "the namespaceSelector of delivery (kubernetes.io/metadata.name notin (kube-system)) does not select its namespace");
    const Selection unlabelled = select(hooks, Endpoint::mutate, Enforcement::deny, "apps", "v1", "deployments", ns, {});
    CHECK(unlabelled.why_not == "the objectSelector of delivery (gpustack.ai/model-delivery=image) does not select it");
    CHECK(select(hooks, Endpoint::mutate, Enforcement::deny, "batch", "v1", "jobs", ns, opted).why_not.empty());  // no rule covers it: nothing to say of selectors
}

TEST_CASE("the path of the webhook that sends an object gives its mode", "[webhook_selection]") {
    // Three webhooks partitioning namespaces by their enforcement label, as the shipped ones do.
    const LabelRequirement not_system{"kubernetes.io/metadata.name", "NotIn", {"kube-system"}};
    const auto entry = [&](std::string path, LabelRequirement mode) {
        WebhookEntry w;
        w.name = path;
        w.path = std::move(path);
        w.rules = {{{""}, {"v1"}, {"CREATE"}, {"pods"}}};
        w.namespace_selector.match_expressions = {not_system, std::move(mode)};
        return w;
    };
    const std::string key = "gpustack.ai/model-image-enforcement";
    const std::vector<WebhookEntry> hooks = {entry("/mutate", {key, "NotIn", {"warn", "audit"}}), entry("/warn/mutate", {key, "In", {"warn"}}),
                                             entry("/audit/mutate", {key, "In", {"audit"}})};
    struct Case {
        const char* name;
        std::map<std::string, std::string> namespace_labels;
        Enforcement configured;
        bool sent;
        Enforcement mode;
    };
    const std::vector<Case> cases = {
        {"unlabelled", {{"kubernetes.io/metadata.name", "ml"}}, Enforcement::deny, true, Enforcement::deny},
        {"unlabelled, warn configured", {{"kubernetes.io/metadata.name", "ml"}}, Enforcement::warn, true, Enforcement::warn},
        {"labelled warn", {{"kubernetes.io/metadata.name", "ml"}, {key, "warn"}}, Enforcement::deny, true, Enforcement::warn},
        {"labelled audit", {{"kubernetes.io/metadata.name", "ml"}, {key, "audit"}}, Enforcement::deny, true, Enforcement::audit},
        {"labelled with something else", {{"kubernetes.io/metadata.name", "ml"}, {key, "off"}}, Enforcement::deny, true, Enforcement::deny},
        {"kube-system, labelled warn", {{"kubernetes.io/metadata.name", "kube-system"}, {key, "warn"}}, Enforcement::deny, false, Enforcement::deny},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            const Selection s = select(hooks, Endpoint::mutate, c.configured, "", "v1", "pods", c.namespace_labels, {});
            CHECK(s.sent == c.sent);
            if (c.sent) CHECK(s.mode == c.mode);
        }
    }
    SECTION("where two webhooks send it, the strictest mode wins") {
        std::vector<WebhookEntry> overlapping = hooks;
        overlapping.push_back(entry("/validate", {key, "Exists", {}}));  // another endpoint: not counted
        overlapping.push_back(entry("/mutate", {key, "In", {"audit"}}));
        const Selection s = select(overlapping, Endpoint::mutate, Enforcement::deny, "", "v1", "pods", {{"kubernetes.io/metadata.name", "ml"}, {key, "audit"}}, {});
        CHECK(s.sent);
        CHECK(s.mode == Enforcement::deny);
    }
}
