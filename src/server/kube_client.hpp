// A small client of the Kubernetes API: GET /version and GET Nodes, over TLS
// with the service account's token and CA, every call bounded by a deadline.
#pragma once

#include "kube_api_config.hpp"
#include "server_state.hpp"

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace miw::server {

class KubeClient {
public:
    struct Response {
        int status = 0;  // 0 when no answer came
        std::string body;
        std::string error;  // why no answer came
    };

    explicit KubeClient(KubeApiConfig config);
    ~KubeClient();

    // The apiserver's certificate is verified against the CA file (or the
    // system's roots) and the host's name or address, as client-go does,
    // before the token is sent; an answer body over max_body is not read.
    // stop, when given, ends the call within about 100 ms of being set (shutdown).
    Response get(const std::string& path, std::size_t max_body, std::chrono::steady_clock::time_point deadline,
                 const std::atomic<bool>* stop = nullptr) const;
    // A GET whose 200 answer is a stream of lines (a watch): each line is
    // handed to on_line as it arrives (false stops reading); the call returns
    // when the server ends the stream, on an error, at the deadline, after
    // `idle` without a byte, or soon after stop is set. A line over max_line
    // bytes ends it. Another status's body (capped the same) is in the Response.
    Response stream(const std::string& path, std::size_t max_line, std::chrono::steady_clock::time_point deadline, std::chrono::milliseconds idle,
                    const std::atomic<bool>& stop, const std::function<bool(std::string&)>& on_line) const;
    std::string describe() const { return "https://" + config_.host + ":" + config_.port; }

private:
    KubeApiConfig config_;
};

// The apiserver's gitVersion from GET /version.
Result<std::string> fetch_apiserver_version(const KubeClient& client, std::chrono::milliseconds timeout);

// Nodes from the Kubernetes API, each kept for a short while.
class ApiNodeSource : public DeadlineNodeSource {
public:
    ApiNodeSource(const KubeClient& client, std::chrono::milliseconds ttl, std::chrono::milliseconds timeout)
        : client_(client), ttl_(ttl), timeout_(timeout) {}

    NodeLookup lookup(const NodeRef& node) const override { return lookup_until(node, std::chrono::steady_clock::now() + timeout_); }
    // By name, GET /api/v1/nodes/NAME; by hostname label, a list by label selector.
    NodeLookup lookup_until(const NodeRef& node, std::chrono::steady_clock::time_point deadline) const override;
    std::string origin() const override { return "the Kubernetes API"; }
    // One Node at a time: which hold an image is the watch's to know.
    std::optional<std::vector<std::string>> nodes_holding(std::string_view, std::size_t) const override { return std::nullopt; }

private:
    struct Cached {
        NodeLookup lookup;
        std::chrono::steady_clock::time_point expires;
    };
    const KubeClient& client_;
    std::chrono::milliseconds ttl_;
    std::chrono::milliseconds timeout_;
    mutable std::mutex mutex_;
    mutable std::map<std::string, Cached, std::less<>> cache_;
};

}  // namespace miw::server
