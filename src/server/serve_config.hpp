// Everything `serve` is told, parsed and checked once, with typed durations:
// the command line fills it, Server runs it. No Boost here.
#pragma once

#include "kube_api_config.hpp"
#include "registry/lookups.hpp"
#include "server_limits.hpp"

#include "model_image_webhook/admission.hpp"
#include "model_image_webhook/enforcement.hpp"

#include <chrono>
#include <optional>
#include <string>

namespace miw::server {

struct ServeConfig {
    std::string listen = "0.0.0.0:8443";
    std::string metrics_listen;  // empty: no metrics port
    std::string tls_cert;
    std::string tls_key;
    std::string client_ca;  // empty: no client certificates asked for
    std::chrono::milliseconds tls_reload_interval{10000};

    ServerLimits limits;
    unsigned threads = 0;  // 0: from the CPU budget (cpu_budget.hpp)

    std::chrono::milliseconds shutdown_delay{5000};
    std::chrono::milliseconds shutdown_timeout{20000};

    PolicyConfig policy;  // its apiserver version empty when it is read from the API
    Enforcement enforcement = Enforcement::deny;  // of /validate and /mutate; the /warn/ and /audit/ paths force theirs
    bool auto_version = false;  // --kube-version auto
    std::string kube_version_flag;  // as given, for the start-up log line
    std::chrono::milliseconds version_refresh_interval{300000};
    std::optional<KubeApiConfig> api;  // none: no Kubernetes API to ask
    std::chrono::milliseconds node_cache_ttl{30000};
    bool watch_nodes = true;  // list and watch Nodes (placement, and the node check without a GET per Pod)
    bool watch_artifacts = true;  // list and watch ModelArtifacts (gpustack.ai/model-artifact)
    std::chrono::milliseconds node_lookup_timeout{2000};
    std::optional<RegistrySettings> registry;  // when --registry-check is on, or --signature-policy given
    std::shared_ptr<const sigstore::ImagePolicyVerifier> signature_verifier;  // with --signature-policy
    bool pull_secrets = true;  // --registry-pull-secrets: lookups with the pull secrets read from the API, where there is one
};

}  // namespace miw::server
