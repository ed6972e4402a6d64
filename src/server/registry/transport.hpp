// One HTTP exchange with a registry or its token server, as the layers above
// it (the authorizer, the client) see it: a request in, an answer or the
// reason there is none out, bounded by a deadline and its body capped while
// it is read. The real one is libcurl's (curl_transport.hpp); the tests give
// a scripted one. No Boost, no libcurl in this header.
#pragma once

#include "model_image_webhook/registry/cache.hpp"

#include <string>
#include <utility>
#include <vector>

namespace miw::server {

struct HttpRequest {
    std::string url;  // absolute: https://host[:port]/path?query
    std::vector<std::pair<std::string, std::string>> headers;  // Accept, Authorization, a hosts.toml's own
    std::size_t max_body = 0;  // a body over this is too_large, not read further
    // The host's own TLS settings (a hosts.toml's): a CA file trusted besides
    // the system's roots and --registry-ca, or no verification at all.
    std::vector<std::string> ca_files;
    bool skip_verify = false;
};

struct HttpResponse {
    int status = 0;
    std::string body;
    std::string content_type;
    std::vector<std::string> www_authenticate;  // every such field, in order
    std::string location;
    RegistryFailure failure = RegistryFailure::none;  // set when no answer came
    std::string error;  // what stopped it, in a few words (never a credential)
    // What only the operator reads, in the log: a credential plugin's own
    // words (its stderr), never told to a tenant.
    std::string log_error;
    // A source of credentials could not answer (a plugin failed or ran out
    // of time), so not every credential the node has was tried: the answer
    // is not the registry's last word, and is not kept.
    bool incomplete = false;
};

// What an answer's status means where it is neither what was asked for nor a 404.
inline RegistryFailure failure_for_status(int status) {
    if (status == 401 || status == 403) return RegistryFailure::unauthorized;
    if (status == 429) return RegistryFailure::rate_limited;
    if (status >= 300 && status < 400) return RegistryFailure::redirect;
    return RegistryFailure::server_error;
}

class Transport {
public:
    virtual ~Transport() = default;
    // Never follows a redirect. May be called from several threads at once.
    virtual HttpResponse send(const HttpRequest& request, Deadline deadline) const = 0;
};

}  // namespace miw::server
