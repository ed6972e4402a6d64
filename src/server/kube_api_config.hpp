// Where the Kubernetes API is and how to prove who we are to it, and the
// caps on what is read from it. No Boost here.
#pragma once

#include "model_image_webhook/result.hpp"

#include <cstddef>
#include <optional>
#include <string>

namespace miw::server {

struct KubeApiConfig {
    std::string host;  // name or IP address
    std::string port = "443";
    std::string token_file;  // empty: no Authorization header
    std::string ca_file;  // the CA that signs the apiserver's certificate; empty: the system's roots
};

// The largest answers read from the API; anything larger is cut off while it
// is read and counts as no answer. A /version answer is a few hundred bytes; a
// Node is tens of KiB (kubelet reports at most 50 images by default), and no
// object the apiserver stores exceeds etcd's 1.5 MiB request limit.
inline constexpr std::size_t kMaxVersionAnswerBytes = 64u << 10;
inline constexpr std::size_t kMaxNodeAnswerBytes = 2u << 20;

inline constexpr const char* kServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount";

// From KUBERNETES_SERVICE_HOST and _PORT and the service account files;
// nullopt when not running in a cluster.
std::optional<KubeApiConfig> in_cluster_config();

// "https://host:port" into host and port (443 when none is given).
Result<KubeApiConfig> parse_api_url(const std::string& url);

}  // namespace miw::server
