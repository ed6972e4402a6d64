// Which answer an HTTP request gets: routing on the path (the query holds the
// apiserver's ?timeout=), method and content-type checks, and the review
// itself. No I/O: the session reads and writes.
#pragma once

#include "server_state.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace miw::server {

struct HttpAnswer {
    int status = 200;
    std::string_view content_type = "text/plain; charset=utf-8";  // always a literal
    std::string body;
    std::string allow;  // the Allow header of a 405
    // Reviewed with RegistryReach::cache_only, and a digest was not in the
    // cache: the answer is to be thrown away and the request routed again,
    // where a review may wait for the registry.
    bool needs_registry_look = false;
};

// Whether a review may wait on a registry look (off the I/O threads), or
// must take the cache's answer or none.
enum class RegistryReach { look, cache_only };

enum class Port { admission, metrics_only };

// body is parsed in place. received: when the request's last byte arrived; the
// request's ?timeout= counts from then, queueing included.
HttpAnswer route(ServerState& state, Port port, std::string_view method, std::string_view target, std::string_view content_type, std::string& body,
                 std::chrono::steady_clock::time_point received = std::chrono::steady_clock::now(), RegistryReach reach = RegistryReach::look);

// With --registry-check on: the request answered from the registry cache
// alone, on this thread; nullopt when a digest it names is not cached yet,
// the body then left as it came, for route() on a thread that may wait. The
// review parses the body in place, so it reads a copy the thread keeps (no
// allocation once warm); a body over 256 KiB is not copied: nullopt at once.
std::optional<HttpAnswer> route_from_registry_cache(ServerState& state, Port port, std::string_view method, std::string_view target,
                                                    std::string_view content_type, std::string& body, std::chrono::steady_clock::time_point received);

// RFC 9112 3.2.2: a request in absolute form ("https://host/validate?timeout=10s")
// is taken by its path and query; any other target as it is.
std::string_view origin_form(std::string_view target);

// A duration as Go writes simple ones: "10s", "500ms", "5m", "1h".
std::optional<std::chrono::milliseconds> parse_duration(std::string_view text);

// The ?timeout= the apiserver appends ("10s"), if any.
std::optional<std::chrono::milliseconds> request_timeout(std::string_view target);

}  // namespace miw::server
