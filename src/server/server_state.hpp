// What every connection of the server shares: the policy as it stands now,
// readiness, metrics and the Node source. No Boost here.
#pragma once

#include "metrics.hpp"
#include "registry/pull_secrets.hpp"
#include "registry/signature_checks.hpp"

#include "model_image_webhook/admission.hpp"
#include "model_image_webhook/admission_review.hpp"
#include "model_image_webhook/enforcement.hpp"
#include "model_image_webhook/artifact_source.hpp"
#include "model_image_webhook/node_source.hpp"
#include "model_image_webhook/registry/cache.hpp"

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>

namespace miw::server {

// A NodeSource that can honour a deadline (the Kubernetes API client).
class DeadlineNodeSource : public NodeSource {
public:
    virtual NodeLookup lookup_until(const NodeRef& node, std::chrono::steady_clock::time_point deadline) const = 0;
};

class PolicyHolder {
public:
    explicit PolicyHolder(PolicyConfig initial) : current_(std::make_shared<const PolicyConfig>(std::move(initial))) {}

    std::shared_ptr<const PolicyConfig> get() const {
        std::lock_guard lock(mutex_);
        return current_;
    }

    void set_apiserver_version(const ApiserverVersion& version) {
        auto next = std::make_shared<PolicyConfig>(*get());
        next->apiserver = version;
        std::lock_guard lock(mutex_);
        current_ = std::move(next);
    }

private:
    mutable std::mutex mutex_;
    std::shared_ptr<const PolicyConfig> current_;
};

struct ServerState {
    explicit ServerState(PolicyConfig policy) : policy(std::move(policy)) {}

    PolicyHolder policy;
    Metrics metrics;
    const DeadlineNodeSource* nodes = nullptr;  // null: no API to ask, every pinned Pod's Node is unknown
    const ArtifactSource* artifacts = nullptr;  // null: no watch of ModelArtifacts, none can be resolved
    std::chrono::milliseconds node_lookup_timeout{2000};
    const RegistryCache* registry = nullptr;  // null: --registry-check off
    std::chrono::milliseconds registry_timeout{3000};
    const SignatureChecks* signatures = nullptr;  // null: --signature-policy not given
    const PullSecrets* pull_secrets = nullptr;  // null: lookups with the node's credentials alone (--registry-pull-secrets=false, no API)
    Enforcement enforcement = Enforcement::deny;  // of /validate and /mutate
    ReviewMemory* review_memory = nullptr;  // what reviews take the memory for their JSON from; null: no budget

    std::atomic<bool> certificate_loaded{false};
    std::atomic<bool> version_known{false};
    std::atomic<bool> draining{false};

    bool ready() const { return certificate_loaded && version_known && !draining; }
};

}  // namespace miw::server
