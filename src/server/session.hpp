// One client connection: TLS handshake (on the admission port), HTTP/1.1
// requests read with limits and deadlines, answers written back, keep-alive.
#pragma once

#include "oldest_first.hpp"
#include "router.hpp"
#include "server_limits.hpp"
#include "server_state.hpp"
#include "tls_stream.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/thread_pool.hpp>

#include <atomic>
#include <chrono>
#include <list>
#include <memory>
#include <mutex>

namespace miw::server {

class SessionBase {
public:
    virtual ~SessionBase() = default;
    // Closes the connection if no request is in progress on it: in its TLS
    // handshake, or waiting for a request (shutdown).
    virtual void close_if_idle() = 0;
    // Closes the connection if it has not begun a request yet (still waiting
    // for its first byte, in its TLS handshake, or after it): asked of the
    // oldest such to make room for a newer one (OldestFirst).
    virtual void evict() = 0;
};

// The open sessions, so that shutdown can close the idle ones.
class SessionRegistry {
public:
    void add(std::weak_ptr<SessionBase> session);
    void close_idle();

private:
    std::mutex mutex_;
    std::list<std::weak_ptr<SessionBase>> sessions_;
    std::size_t adds_since_sweep_ = 0;
};

// The bytes of request bodies in flight and of the JSON read from them,
// capped by --max-body-bytes-in-flight: a session takes a body's length when
// its header says it, a review takes what its document grows to past its
// thread's arena (ReviewMemory); each gives its share back when done.
class BytesInFlight final : public ReviewMemory {
public:
    explicit BytesInFlight(std::size_t limit) : limit_(limit) {}
    // Takes `bytes`; false (and nothing taken) when that would go past the limit.
    bool reserve(std::size_t bytes) override;
    void release(std::size_t bytes) override { in_flight_ -= bytes; }
    std::size_t capacity() const override { return limit_; }

private:
    const std::size_t limit_;
    std::atomic<std::size_t> in_flight_{0};
};

struct ServerContext {
    ServerState& state;
    ServerLimits limits;
    SessionRegistry registry;
    // Where reviews that may wait on the Kubernetes API run (a /validate
    // with a Node source), so that a slow API never stalls the I/O threads.
    boost::asio::thread_pool* blocking = nullptr;
    // Open connections on the admission port, which --max-connections caps;
    // the metrics port is not counted, so a full server can still be scraped.
    std::atomic<std::size_t> admission_connections{0};
    std::atomic<std::size_t> handshakes{0};  // holding OpenSSL's handshake state, capped by max_handshakes
    // Admission connections that have not begun a request, and those of them
    // in a TLS handshake: past --max-connections, or --max-handshakes, the
    // oldest is closed to make room.
    OldestFirst unserved{};
    OldestFirst handshaking{};
    BytesInFlight bytes_in_flight{limits.max_body_bytes_in_flight};
};

// Each connection belongs to one I/O thread's io_context for its whole life
// (Socket, from tls_stream.hpp, is bound to it), so its handlers never run
// concurrently: no strand, and no type-erased executor on the hot path.

// tls null: a plain HTTP connection (the metrics port).
void start_session(Socket socket, std::shared_ptr<boost::asio::ssl::context> tls, ServerContext& context, Port port);

}  // namespace miw::server
