// Which rules judge which requests, and the shipped webhook configurations
// held to the same answer.
#include "model_image_webhook/rule_scope.hpp"

#include "model_image_webhook/admission_path.hpp"
#include "model_image_webhook/manifest.hpp"
#include "model_image_webhook/yaml_loader.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <set>
#include <tuple>

using namespace miw;

TEST_CASE("applies routes each request to the rules that judge it", "[rule_scope]") {
    struct Case {
        const char* name;
        Endpoint endpoint;
        GroupVersionKind kind;
        Operation operation;
        std::string_view subresource;
        RuleSet expected;
    };
    const Case cases[] = {
        {"a ModelArtifact created", Endpoint::validate, {"worker.gpustack.ai", "v1alpha1", "ModelArtifact"}, Operation::create, "", RuleSet::model_artifact},
        {"a ModelArtifact updated", Endpoint::validate, {"worker.gpustack.ai", "v1", "ModelArtifact"}, Operation::update, "", RuleSet::model_artifact},
        {"a ModelArtifact deleted", Endpoint::validate, {"worker.gpustack.ai", "v1", "ModelArtifact"}, Operation::remove, "", RuleSet::none},
        {"a ModelArtifact's status", Endpoint::validate, {"worker.gpustack.ai", "v1", "ModelArtifact"}, Operation::update, "status", RuleSet::model_artifact_status},
        {"a ModelArtifact's status created", Endpoint::validate, {"worker.gpustack.ai", "v1", "ModelArtifact"}, Operation::create, "status", RuleSet::none},
        {"another ModelArtifact subresource", Endpoint::validate, {"worker.gpustack.ai", "v1", "ModelArtifact"}, Operation::update, "scale", RuleSet::none},
        {"a ModelArtifact sent to mutate", Endpoint::mutate, {"worker.gpustack.ai", "v1", "ModelArtifact"}, Operation::create, "", RuleSet::none},
        {"a kind of the same name in another group", Endpoint::validate, {"example.com", "v1", "ModelArtifact"}, Operation::create, "", RuleSet::none},
        {"a Pod created, validated", Endpoint::validate, {"", "v1", "Pod"}, Operation::create, "", RuleSet::pinned_pod},
        {"a Pod created, mutated", Endpoint::mutate, {"", "v1", "Pod"}, Operation::create, "", RuleSet::delivery},
        {"a Pod updated: its volumes cannot change", Endpoint::mutate, {"", "v1", "Pod"}, Operation::update, "", RuleSet::none},
        {"a Pod updated, validated", Endpoint::validate, {"", "v1", "Pod"}, Operation::update, "", RuleSet::none},
        {"a Pod's binding", Endpoint::validate, {"", "v1", "Pod"}, Operation::create, "binding", RuleSet::none},
        {"a Pod's ephemeral containers", Endpoint::mutate, {"", "v1", "Pod"}, Operation::create, "ephemeralcontainers", RuleSet::none},
        {"a Deployment created", Endpoint::mutate, {"apps", "v1", "Deployment"}, Operation::create, "", RuleSet::delivery},
        {"a Deployment updated", Endpoint::mutate, {"apps", "v1", "Deployment"}, Operation::update, "", RuleSet::delivery},
        {"a Deployment scaled", Endpoint::mutate, {"apps", "v1", "Deployment"}, Operation::update, "scale", RuleSet::none},
        {"a Deployment validated", Endpoint::validate, {"apps", "v1", "Deployment"}, Operation::create, "", RuleSet::none},
        {"a Deployment deleted", Endpoint::mutate, {"apps", "v1", "Deployment"}, Operation::remove, "", RuleSet::none},
        {"a StatefulSet", Endpoint::mutate, {"apps", "v1", "StatefulSet"}, Operation::create, "", RuleSet::delivery},
        {"a DaemonSet", Endpoint::mutate, {"apps", "v1", "DaemonSet"}, Operation::update, "", RuleSet::delivery},
        {"a ReplicaSet", Endpoint::mutate, {"apps", "v1", "ReplicaSet"}, Operation::create, "", RuleSet::delivery},
        {"a Job", Endpoint::mutate, {"batch", "v1", "Job"}, Operation::create, "", RuleSet::delivery},
        {"a CronJob", Endpoint::mutate, {"batch", "v1", "CronJob"}, Operation::update, "", RuleSet::delivery},
        {"a LeaderWorkerSet", Endpoint::mutate, {"leaderworkerset.x-k8s.io", "v1", "LeaderWorkerSet"}, Operation::create, "", RuleSet::delivery},
        {"a Deployment in the core group", Endpoint::mutate, {"", "v1", "Deployment"}, Operation::create, "", RuleSet::none},
        {"a ConfigMap", Endpoint::mutate, {"", "v1", "ConfigMap"}, Operation::create, "", RuleSet::none},
        {"a connect", Endpoint::validate, {"", "v1", "Pod"}, Operation::connect, "exec", RuleSet::none},
    };
    for (const Case& c : cases) {
        INFO(c.name);
        CHECK(to_string(applies(c.endpoint, c.kind, c.operation, c.subresource)) == to_string(c.expected));
    }
}

namespace {

// A JSON document as a small tree, built from the codec's walk of it.
struct Json {
    std::string text;  // a string's value, or a literal's JSON
    std::vector<std::pair<std::string, Json>> members;
    std::vector<Json> items;

    const Json* get(std::string_view key) const {
        for (const auto& [k, v] : members) {
            if (k == key) return &v;
        }
        return nullptr;
    }
    std::vector<std::string> strings() const {
        std::vector<std::string> out;
        for (const Json& item : items) out.push_back(item.text);
        return out;
    }
};

class TreeBuilder : public JsonVisitor {
public:
    void start_object() override { open(); }
    void start_array() override { open(); }
    void end_object() override { close(); }
    void end_array() override { close(); }
    void key(std::string_view name) override { key_ = name; }
    void string(std::string_view value) override { place(Json{std::string(value), {}, {}}); }
    void literal(std::string_view json) override { place(Json{std::string(json), {}, {}}); }
    Json root;

private:
    void open() {
        stack_.push_back({key_, Json{}});
        key_.clear();
    }
    void close() {
        auto [key, node] = std::move(stack_.back());
        stack_.pop_back();
        key_ = key;
        place(std::move(node));
    }
    void place(Json node) {
        if (stack_.empty()) {
            root = std::move(node);
            return;
        }
        Json& parent = stack_.back().second;
        // An object's members come with a key; an array's items without.
        if (!key_.empty()) parent.members.emplace_back(key_, std::move(node));
        else parent.items.push_back(std::move(node));
        key_.clear();
    }
    std::vector<std::pair<std::string, Json>> stack_;
    std::string key_;
};

std::vector<Json> shipped_webhook_configurations() {
    std::ifstream in(std::string(MIW_SOURCE_DIR) + "/manifests/base/webhooks.yaml", std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const YamlLoad load = load_yaml(text);
    REQUIRE(load.ok());
    std::vector<Json> out;
    for (const YamlDocument& doc : load.documents) {
        TreeBuilder builder;
        REQUIRE(visit_json(doc.json, builder));
        out.push_back(std::move(builder.root));
    }
    return out;
}

}  // namespace

TEST_CASE("the shipped webhook configurations send exactly what applies routes to rules, in every enforcement mode", "[rule_scope]") {
    using Sent = std::tuple<std::string, std::string, std::string, std::string>;  // path, group, resource, operation
    std::set<Sent> configured;
    const std::vector<Json> configurations = shipped_webhook_configurations();
    REQUIRE(configurations.size() == 2);
    for (const Json& configuration : configurations) {
        for (const Json& hook : configuration.get("webhooks")->items) {
            const std::string path = hook.get("clientConfig")->get("service")->get("path")->text;
            for (const Json& rule : hook.get("rules")->items) {
                for (const auto& group : rule.get("apiGroups")->strings()) {
                    for (const auto& resource : rule.get("resources")->strings()) {
                        for (const auto& operation : rule.get("operations")->strings()) configured.insert({path, group, resource, operation});
                    }
                }
            }
        }
    }
    // Every enforcement mode's path sends the same: what applies() routes.
    std::set<Sent> routed;
    for (const RuleScope& s : rule_scopes()) {
        for (const AdmissionPath& at : admission_paths()) {
            if (at.endpoint != s.endpoint) continue;
            const std::string path(at.path);
            if (s.on_create) routed.insert({path, std::string(s.group), std::string(s.resource), "CREATE"});
            if (s.on_update) routed.insert({path, std::string(s.group), std::string(s.resource), "UPDATE"});
        }
        // and applies() agrees with its own table
        const std::string_view subresource = s.resource.find('/') == std::string_view::npos ? std::string_view() : s.resource.substr(s.resource.find('/') + 1);
        CHECK(applies(s.endpoint, {s.group, "v1", s.kind}, Operation::create, subresource) == (s.on_create ? s.rules : RuleSet::none));
        CHECK(applies(s.endpoint, {s.group, "v1", s.kind}, Operation::update, subresource) == (s.on_update ? s.rules : RuleSet::none));
    }
    for (const Sent& sent : configured) {
        INFO(std::get<0>(sent) << " " << std::get<1>(sent) << "/" << std::get<2>(sent) << " " << std::get<3>(sent));
        CHECK(routed.count(sent) == 1);  // sent by a configuration, but no rule would judge it
    }
    for (const Sent& rule : routed) {
        INFO(std::get<0>(rule) << " " << std::get<1>(rule) << "/" << std::get<2>(rule) << " " << std::get<3>(rule));
        CHECK(configured.count(rule) == 1);  // judged by a rule, but no configuration sends it
    }
}
