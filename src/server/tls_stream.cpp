#include "tls_stream.hpp"

#include <boost/asio/error.hpp>
#include <boost/asio/ssl/error.hpp>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <cerrno>
#include <sys/socket.h>

namespace miw::server {

namespace net = boost::asio;
using boost::system::error_code;

namespace {

// What SSL_get_error says of a call that did not succeed, as a step.
TlsStep classify(SSL* ssl, int ret, int saved_errno) {
    switch (SSL_get_error(ssl, ret)) {
    case SSL_ERROR_WANT_READ:
        return {TlsStep::Want::read, {}, 0};
    case SSL_ERROR_WANT_WRITE:
        return {TlsStep::Want::write, {}, 0};
    case SSL_ERROR_ZERO_RETURN:
        return {TlsStep::Want::nothing, net::error::eof, 0};
    case SSL_ERROR_SYSCALL:
        ERR_clear_error();
        // No errno: the peer closed without close_notify.
        if (saved_errno == 0) return {TlsStep::Want::nothing, net::ssl::error::stream_truncated, 0};
        return {TlsStep::Want::nothing, error_code(saved_errno, boost::system::system_category()), 0};
    default: {
        const unsigned long code = ERR_peek_last_error();
        ERR_clear_error();
        if (ERR_GET_LIB(code) == ERR_LIB_SSL && ERR_GET_REASON(code) == SSL_R_UNEXPECTED_EOF_WHILE_READING) {
            return {TlsStep::Want::nothing, net::ssl::error::stream_truncated, 0};
        }
        if (code == 0) return {TlsStep::Want::nothing, net::error::connection_aborted, 0};
        return {TlsStep::Want::nothing, error_code(static_cast<int>(code), net::error::get_ssl_category()), 0};
    }
    }
}

// OpenSSL's error queue is per thread and outlives a call: it must be empty
// before a call so that SSL_get_error sees only this call's errors. Looked at
// first: it is nearly always empty, and clearing walks all its slots.
template <class Call>
TlsStep attempt(SSL* ssl, Call call) {
    if (ERR_peek_error() != 0) ERR_clear_error();
    errno = 0;
    std::size_t done = 0;
    const int ret = call(done);
    if (ret > 0) return {TlsStep::Want::nothing, {}, done};
    return classify(ssl, ret, errno);
}

}  // namespace

TlsStream::TlsStream(Socket&& socket, net::ssl::context& context) {
    SSL* ssl = SSL_new(context.native_handle());
    error_code ignored;
    socket.non_blocking(true, ignored);
    if (ssl != nullptr) {
        SSL_set_fd(ssl, static_cast<int>(socket.native_handle()));
        SSL_set_accept_state(ssl);
        // Partial writes: a write completes record by record, as write_some
        // promises. Moving buffer: a write retried after the socket filled up
        // may come from another address with the same bytes. Read ahead: one
        // read() takes in as much as is there, not a record header and then
        // its body.
        SSL_set_mode(ssl, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS);
        SSL_set_read_ahead(ssl, 1);
    }
    state_ = std::make_shared<State>(std::move(socket), ssl);
}

TlsStream::~TlsStream() {
    error_code ignored;
    state_->timer.cancel();
    state_->socket.close(ignored);
}

TlsStream::State::~State() {
    if (ssl != nullptr) SSL_free(ssl);
}

void TlsStream::expires_at(Clock::time_point deadline) {
    State& s = *state_;
    s.deadline = deadline;
    s.timed_out = false;
    if (s.waiting > 0) s.arm_timer();
}

void TlsStream::cancel() {
    error_code ignored;
    state_->socket.cancel(ignored);
}

void TlsStream::close() {
    error_code ignored;
    state_->timer.cancel();
    state_->timer_armed = false;
    state_->socket.close(ignored);
}

// The timer stays armed for the earliest deadline it may have to enforce;
// a deadline moved later is checked when the timer fires, which then re-arms
// for it. Steady keep-alive traffic so re-arms about once per read timeout,
// not several times a request.
void TlsStream::State::arm_timer() {
    if (timer_armed && armed_for <= deadline) return;
    timer_armed = true;
    armed_for = deadline;
    const unsigned generation = ++timer_generation;
    timer.expires_at(deadline);
    timer.async_wait([weak = weak_from_this(), generation](error_code ec) {
        if (auto s = weak.lock()) s->on_timer(ec, generation);
    });
}

void TlsStream::State::on_timer(error_code ec, unsigned generation) {
    if (ec == net::error::operation_aborted || generation != timer_generation) return;  // re-armed or closed
    timer_armed = false;
    if (Clock::now() < deadline) {
        if (waiting > 0) arm_timer();  // the deadline moved on since this was armed
        return;
    }
    timed_out = true;
    error_code ignored;
    socket.cancel(ignored);
}

TlsStep TlsStream::handshake_step(State& s) {
    if (s.ssl == nullptr) return {TlsStep::Want::nothing, net::error::no_memory, 0};
    const TlsStep step = attempt(s.ssl, [&](std::size_t&) { return SSL_do_handshake(s.ssl); });
    // Set once the handshake is done, so that half-open handshakes keep
    // OpenSSL's smaller buffer; it takes effect when the buffer is next
    // allocated (it is released whenever it empties).
    if (step.want == TlsStep::Want::nothing && !step.error) SSL_set_default_read_buffer_len(s.ssl, kRequestReadBufferBytes);
    return step;
}

TlsStep TlsStream::read_step(State& s, void* data, std::size_t size) {
    if (s.ssl == nullptr) return {TlsStep::Want::nothing, net::error::no_memory, 0};
    if (size == 0) return {};
    return attempt(s.ssl, [&](std::size_t& done) { return SSL_read_ex(s.ssl, data, size, &done); });
}

TlsStep TlsStream::write_step(State& s, const void* data, std::size_t size) {
    if (s.ssl == nullptr) return {TlsStep::Want::nothing, net::error::no_memory, 0};
    // Record after record while the socket takes them: a large answer is not
    // a round through the executor per 16 KiB.
    std::size_t written = 0;
    while (written < size) {
        TlsStep step = attempt(s.ssl, [&](std::size_t& done) {
            return SSL_write_ex(s.ssl, static_cast<const char*>(data) + written, size - written, &done);
        });
        if (step.want != TlsStep::Want::nothing || step.error) {
            if (written > 0) return {TlsStep::Want::nothing, {}, written};
            return step;
        }
        written += step.bytes;
    }
    return {TlsStep::Want::nothing, {}, written};
}

TlsStep TlsStream::shutdown_step(State& s) {
    if (s.ssl != nullptr && !s.shutdown_sent) {
        TlsStep step = attempt(s.ssl, [&](std::size_t&) { return SSL_shutdown(s.ssl) >= 0 ? 1 : -1; });
        if (step.want == TlsStep::Want::write) return step;
        // Sent, or it cannot be (the peer went away): either way, on to closing.
        s.shutdown_sent = true;
        error_code ignored;
        s.socket.shutdown(Socket::shutdown_send, ignored);
    }
    // Whatever the peer still sends is read and dropped until it closes; a
    // peer that keeps sending goes back through the wait, where the deadline
    // ends it.
    char sink[4096];
    for (int reads = 0; reads < 16;) {
        const ssize_t n = ::recv(s.socket.native_handle(), sink, sizeof sink, 0);
        if (n > 0) {
            ++reads;
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return {TlsStep::Want::read, {}, 0};
        if (n < 0 && errno == EINTR) continue;
        return {};
    }
    return {TlsStep::Want::read, {}, 0};
}

}  // namespace miw::server
