// Which answer an HTTP request gets: routing on the path (the query holds the
// apiserver's ?timeout=), method and content-type checks, and the review
// itself. No I/O: the session reads and writes.
#pragma once

#include "server_state.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace miw::server {

struct HttpAnswer {
    int status = 200;
    std::string_view content_type = "text/plain; charset=utf-8";  // always a literal
    std::string body;
    std::string allow;  // the Allow header of a 405
};

enum class Port { admission, metrics_only };

// What a request's registry lookups need, told before it is reviewed
// (--registry-check on): the cache's answers for every reference its body
// may make the review ask about, so that it is reviewed where it was read;
// or that one is not cached, so that it is reviewed where it may wait.
struct RegistryPlan {
    bool needs_look = false;
    std::vector<std::pair<std::string, RegistryLookup>> known;  // by reference as the body writes it
    struct KnownSignature {
        std::string reference;  // as the body writes it
        std::size_t policy = 0;
        SignatureOutcome outcome;
    };
    std::vector<KnownSignature> signatures;  // --signature-policy: each matching policy's kept verdict
};
RegistryPlan plan_registry_lookups(const ServerState& state, Port port, std::string_view target, std::string_view body);

// body is parsed in place. received: when the request's last byte arrived; the
// request's ?timeout= counts from then, queueing included. planned: the
// registry's answers told before (a review that must not wait); null: the
// review may wait for a look.
HttpAnswer route(ServerState& state, Port port, std::string_view method, std::string_view target, std::string_view content_type, std::string& body,
                 std::chrono::steady_clock::time_point received = std::chrono::steady_clock::now(), const RegistryPlan* planned = nullptr);

// RFC 9112 3.2.2: a request in absolute form ("https://host/validate?timeout=10s")
// is taken by its path and query; any other target as it is.
std::string_view origin_form(std::string_view target);

// A duration as Go writes simple ones: "10s", "500ms", "5m", "1h".
std::optional<std::chrono::milliseconds> parse_duration(std::string_view text);

// The ?timeout= the apiserver appends ("10s"), if any.
std::optional<std::chrono::milliseconds> request_timeout(std::string_view target);

}  // namespace miw::server
