// What one client may make the server hold, and for how long. The defaults
// are the memory budget of docs/operations.md: what a hostile client can make
// the server hold stays inside the shipped memory limit. No Boost here.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace miw::server {

struct ServerLimits {
    std::size_t max_body_bytes = 8u << 20;
    std::size_t max_header_bytes = 16u << 10;
    std::chrono::milliseconds handshake_timeout{5000};
    std::chrono::milliseconds header_timeout{5000};  // from the handshake's end to the first request's header
    std::chrono::milliseconds read_timeout{10000};  // from a request's first byte to its last
    std::chrono::milliseconds write_timeout{10000};
    std::chrono::milliseconds idle_timeout{120000};  // between requests on a kept-alive connection
    std::size_t max_connections = 1024;
    // TLS handshakes in progress at once: OpenSSL holds about 47 KiB for
    // each, however little the client has sent. A connection's handshake
    // starts when its first bytes arrive; past the cap the oldest handshake
    // still going is closed to make room.
    std::size_t max_handshakes = 256;
    // Request bodies being read or reviewed at once, in bytes (a body's
    // Content-Length is counted from its header until its answer is sent).
    std::size_t max_body_bytes_in_flight = 24u << 20;
};

// The limits each connection is held to that no flag sets.
// The largest refused body that is still read to its end before the 413.
inline constexpr std::uint64_t kMaxDrainedBody = 64u << 20;
// What is read at once when a request's bytes are already there, and how much
// of a request is taken that way before the rest goes through the event loop
// (so that one large body does not hold up the other connections).
inline constexpr std::size_t kReadChunkBytes = 16u << 10;
inline constexpr std::size_t kArrivedReadBytes = 64u << 10;
// What a connection waiting for its next request reads into. Kept between
// requests (a connection that waits holds it anyway); a buffer grown past it
// for a large request is given back.
inline constexpr std::size_t kWaitReadBytes = 4u << 10;
// How long shutdown leaves a connection that has not yet sent its first request.
inline constexpr std::chrono::seconds kNewConnectionGrace{1};

}  // namespace miw::server
