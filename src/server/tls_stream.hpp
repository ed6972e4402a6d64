// A TLS connection as a Beast AsyncStream: OpenSSL reads and writes the
// socket itself (SSL_set_fd) and the stream waits for readiness when OpenSSL
// asks for it.
//
// The executor rule: a stream belongs to the one io_context of its socket,
// run by one thread, and its handlers are invoked directly by that
// io_context's completions (or posted to it when an operation finishes at
// once), never inside the call that started the operation. There is no
// strand: callers must start operations from that same thread, as a
// session's handlers do. At most one read and one write may be outstanding.
//
// Why not Asio's ssl::stream: it keeps two 17 KiB record buffers and a BIO
// pair for every connection, busy or idle, and copies each record through
// them. Here an idle connection holds only OpenSSL's session state (its
// record buffers are released between requests), and records go straight
// between the socket and OpenSSL.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/error.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>

namespace miw::server {

using Socket = boost::asio::basic_stream_socket<boost::asio::ip::tcp, boost::asio::io_context::executor_type>;

// What one non-blocking OpenSSL call came to: finished (with an error or a
// byte count), or waiting until the socket can be read or written.
struct TlsStep {
    enum class Want { nothing, read, write } want = Want::nothing;
    boost::system::error_code error;
    std::size_t bytes = 0;
};

class TlsStream {
public:
    using executor_type = boost::asio::io_context::executor_type;
    using Clock = std::chrono::steady_clock;

    // The largest plaintext of one TLS record: small buffers of one write
    // are sent together in a record up to this size.
    static constexpr std::size_t kRecordBytes = 16384;
    // OpenSSL's read buffer once the handshake is done, against its 16.3 KiB
    // (one record). With read-ahead one read() takes in what the socket has,
    // up to this: a request of up to 24 KiB (a Pod as `kubectl apply` sends
    // it, its last-applied annotation and managedFields included, is about
    // 20) arrives in one system call, not two. Held only while a record is
    // partly read; every connection may hold one, so this is sized against
    // the memory budget (docs/operations.md), not for the largest objects.
    static constexpr std::size_t kRequestReadBufferBytes = 24u << 10;

    TlsStream(Socket&& socket, boost::asio::ssl::context& context);
    ~TlsStream();
    TlsStream(const TlsStream&) = delete;
    TlsStream& operator=(const TlsStream&) = delete;

    executor_type get_executor() noexcept { return state_->socket.get_executor(); }

    // Operations still waiting when the deadline passes end with
    // beast::error::timeout. Cheap to call before every operation: the timer
    // is only re-armed when the deadline moves earlier.
    void expires_after(Clock::duration timeout) { expires_at(Clock::now() + timeout); }
    void expires_at(Clock::time_point deadline);
    // Operations waiting now end with operation_aborted.
    void cancel();
    void close();

    template <class Handler>
    void async_handshake(Handler&& handler) {
        run([](State& s) { return handshake_step(s); },
            [h = std::forward<Handler>(handler)](boost::system::error_code ec, std::size_t) mutable { h(ec); });
    }

    // Completes once the socket has bytes to read (or its peer closed it),
    // with no OpenSSL work: what a connection waits for before its handshake.
    template <class Handler>
    void async_wait_readable(Handler&& handler) {
        run([waited = false](State& s) mutable {
                boost::system::error_code ec;
                if (waited || s.socket.available(ec) > 0 || ec) return TlsStep{};
                waited = true;
                return TlsStep{TlsStep::Want::read, {}, 0};
            },
            [h = std::forward<Handler>(handler)](boost::system::error_code ec, std::size_t) mutable { h(ec); });
    }

    template <class MutableBuffers, class Handler>
    void async_read_some(const MutableBuffers& buffers, Handler&& handler) {
        const boost::asio::mutable_buffer target = first_nonempty(buffers);
        run([target](State& s) { return read_step(s, target.data(), target.size()); }, std::forward<Handler>(handler));
    }

    template <class ConstBuffers, class Handler>
    void async_write_some(const ConstBuffers& buffers, Handler&& handler) {
        // One buffer, or a large first one, is written where it lies; several
        // small ones (an answer's header and body) are gathered into one record.
        const boost::asio::const_buffer first = first_nonempty(buffers);
        if (first.size() >= kRecordBytes || boost::asio::buffer_size(buffers) == first.size()) {
            return run([first](State& s) { return write_step(s, first.data(), first.size()); }, std::forward<Handler>(handler));
        }
        auto gathered = std::make_shared<std::string>();
        gathered->resize(std::min(boost::asio::buffer_size(buffers), kRecordBytes));
        boost::asio::buffer_copy(boost::asio::buffer(gathered->data(), gathered->size()), buffers);
        run([gathered](State& s) { return write_step(s, gathered->data(), gathered->size()); }, std::forward<Handler>(handler));
    }

    // Reads what is there now, without waiting: what OpenSSL holds already,
    // or what the socket has. would_block when there is nothing yet.
    std::size_t read_available(boost::asio::mutable_buffer buffer, boost::system::error_code& ec) {
        const TlsStep step = read_step(*state_, buffer.data(), buffer.size());
        ec = step.want == TlsStep::Want::nothing ? step.error : make_error_code(boost::asio::error::would_block);
        return step.bytes;
    }

    // Sends close_notify, stops sending, and reads what the peer still sends
    // (discarded) until it closes or the deadline passes, so that closing the
    // socket cannot reset an answer the peer has not read yet.
    template <class Handler>
    void async_shutdown(Handler&& handler) {
        run([](State& s) { return shutdown_step(s); },
            [h = std::forward<Handler>(handler)](boost::system::error_code ec, std::size_t) mutable { h(ec); });
    }

private:
    struct State;

    template <class Buffers>
    static auto first_nonempty(const Buffers& buffers) {
        auto it = boost::asio::buffer_sequence_begin(buffers);
        const auto end = boost::asio::buffer_sequence_end(buffers);
        using Buffer = std::decay_t<decltype(*it)>;
        for (; it != end; ++it) {
            if (Buffer b(*it); b.size() > 0) return b;
        }
        return Buffer();
    }

    static TlsStep handshake_step(State& s);
    static TlsStep read_step(State& s, void* data, std::size_t size);
    static TlsStep write_step(State& s, const void* data, std::size_t size);
    static TlsStep shutdown_step(State& s);

    // Waits for readiness as a step asks, then tries the step again; a step
    // that finishes at once completes through the executor (never inside the
    // call that started it).
    template <class Step, class Handler>
    void run(Step step, Handler&& handler) {
        Operation<Step, std::decay_t<Handler>> op{state_, std::move(step), std::forward<Handler>(handler)};
        TlsStep result = op.step(*state_);
        if (result.want == TlsStep::Want::nothing) {
            return boost::asio::post(get_executor(),
                                     [h = std::move(op.handler), result]() mutable { h(result.error, result.bytes); });
        }
        op.wait(result.want);
    }

    template <class Step, class Handler>
    struct Operation {
        std::shared_ptr<State> state;
        Step step;
        Handler handler;

        void wait(TlsStep::Want want);
        void operator()(boost::system::error_code ec) {
            State& s = *state;
            --s.waiting;
            if (s.timed_out) return finish(boost::beast::error::timeout, 0);
            if (ec) return finish(ec, 0);
            TlsStep result = step(s);
            if (result.want == TlsStep::Want::nothing) return finish(result.error, result.bytes);
            wait(result.want);
        }
        void finish(boost::system::error_code ec, std::size_t bytes) {
            state.reset();
            handler(ec, bytes);
        }
    };

    // Shared with the deadline timer's handler (which holds it weakly), so a
    // deadline that fires as the connection ends finds nothing to touch.
    struct State : std::enable_shared_from_this<State> {
        State(Socket&& s, SSL* tls) : socket(std::move(s)), timer(socket.get_executor()), ssl(tls) {}
        ~State();
        void arm_timer();
        void on_timer(boost::system::error_code ec, unsigned generation);

        Socket socket;
        boost::asio::steady_timer timer;
        SSL* ssl;
        Clock::time_point deadline = Clock::time_point::max();
        Clock::time_point armed_for = Clock::time_point::max();
        unsigned timer_generation = 0;
        bool timer_armed = false;
        bool timed_out = false;
        bool shutdown_sent = false;
        int waiting = 0;  // readiness waits outstanding
    };

    std::shared_ptr<State> state_;
};

template <class Step, class Handler>
void TlsStream::Operation<Step, Handler>::wait(TlsStep::Want want) {
    State& s = *state;
    if (s.timed_out) return finish(boost::beast::error::timeout, 0);
    s.arm_timer();
    ++s.waiting;
    const auto direction = want == TlsStep::Want::read ? Socket::wait_read : Socket::wait_write;
    s.socket.async_wait(direction, std::move(*this));
}

}  // namespace miw::server
