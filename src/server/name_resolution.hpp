// Host names resolved within a deadline, for the registry client. Asio's
// resolver runs getaddrinfo on a thread of its own and joins that thread when
// its io_context goes: a DNS server that never answers would hold a review
// for glibc's own timeouts (5 s an attempt, past the apiserver's ?timeout=).
// Here a name is looked up on a detached thread; the caller waits only until
// its deadline, and a late lookup finishes alone.
#pragma once

#include <boost/asio/ip/tcp.hpp>

#include <chrono>
#include <string>
#include <vector>

namespace miw::server {

// Detached lookups still running at most: past it a new name fails at once
// (a resolver that hangs cannot make the process start threads without end).
inline constexpr int kMaxNameLookupsOutstanding = 16;

struct Resolved {
    std::vector<boost::asio::ip::tcp::endpoint> endpoints;  // empty on failure
    bool timed_out = false;
    std::string error;  // why there are none
};

// How a name is looked up: getaddrinfo, or a stand-in in tests.
using NameLookup = Resolved (*)(const std::string& host, const std::string& port);
Resolved system_name_lookup(const std::string& host, const std::string& port);

// An IP address is taken as it is, without a lookup.
Resolved resolve_until(const std::string& host, const std::string& port, std::chrono::steady_clock::time_point deadline,
                       NameLookup lookup_name = system_name_lookup);

}  // namespace miw::server
