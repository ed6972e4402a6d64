// One connection's life as one state machine (handshaking, waiting, reading,
// answering), with every deadline, limit and budget it is held to, in the
// order a connection goes through them. What stands alone is elsewhere: the
// request's head (request_parser.hpp), its framing (request_framing.hpp), the
// answer's head (answer_head.hpp), the sessions' bookkeeping (session_registry.cpp).
#include "session.hpp"

#include "answer_head.hpp"
#include "request_framing.hpp"

#include "body_buffers.hpp"
#include "log.hpp"
#include "request_parser.hpp"
#include "tls_stream.hpp"
#include "model_image_webhook/admission_review.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <array>
#include <charconv>
#include <optional>
#include <type_traits>

namespace miw::server {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;

namespace {

using TcpStream = beast::basic_stream<tcp, net::io_context::executor_type>;

template <bool Tls>
class Session : public SessionBase, public std::enable_shared_from_this<Session<Tls>> {
    using Stream = std::conditional_t<Tls, TlsStream, TcpStream>;
    enum class State { handshaking, waiting, reading, answering };

public:
    Session(Socket&& socket, std::shared_ptr<ssl::context> tls, ServerContext& context, Port port)
        : tls_(std::move(tls)), stream_(make_stream(std::move(socket), tls_.get())), context_(context), port_(port) {
        context_.state.metrics.connection_opened();
        if (port_ == Port::admission) ++context_.admission_connections;
    }
    ~Session() override {
        end_handshake();
        context_.unserved.leave(unserved_);
        release_body_budget();
        context_.state.metrics.connection_closed();
        if (port_ == Port::admission) --context_.admission_connections;
    }

    void start() {
        if (port_ == Port::admission) context_.unserved.enter(this->weak_from_this(), unserved_);
        net::post(stream_.get_executor(), [self = this->shared_from_this()] { self->handshake(); });
    }

    void evict() override {
        net::post(stream_.get_executor(), [self = this->shared_from_this()] {
            const bool unserved = self->requests_served_ == 0 && (self->state_ == State::handshaking || self->state_ == State::waiting);
            if (!unserved || self->closing_) return;
            self->context_.state.metrics.connection_evicted();
            self->closing_ = true;
            self->lowest().close();
        });
    }

    // At shutdown nothing is waited for that has not started: a connection
    // kept alive between requests is closed at once, and one still in its
    // handshake or that has not begun its first request once it is a second
    // old (a client that connected just now is about to send its request;
    // shutdown asks again every 50 ms). No TLS close_notify exchange.
    void close_if_idle() override {
        net::post(stream_.get_executor(), [self = this->shared_from_this()] {
            const bool between_requests = self->state_ == State::waiting && self->requests_served_ > 0;
            const bool never_asked = (self->state_ == State::handshaking || self->state_ == State::waiting) && self->requests_served_ == 0 &&
                                     std::chrono::steady_clock::now() - self->opened_ >= kNewConnectionGrace;
            if (between_requests || never_asked) {
                self->closing_ = true;
                self->lowest().close();
            }
        });
    }

private:
    static Stream make_stream(Socket&& socket, ssl::context* tls) {
        if constexpr (Tls) return Stream(std::move(socket), *tls);
        else return Stream(std::move(socket));
    }

    // The stream that keeps the deadlines and owns the socket.
    auto& lowest() { return beast::get_lowest_layer(stream_); }

    // A connection that has sent nothing costs no OpenSSL work: its handshake
    // starts, and takes one of --max-handshakes, when its first bytes arrive,
    // within handshake_timeout of the accept. Past the cap the oldest
    // handshake still going is closed to make room: a slow or stalled one,
    // never one that a client completes in the usual milliseconds.
    void handshake() {
        if constexpr (Tls) {
            state_ = State::handshaking;
            lowest().expires_after(context_.limits.handshake_timeout);
            stream_.async_wait_readable(beast::bind_front_handler(&Session::on_readable, this->shared_from_this()));
        } else {
            wait_for_request();
        }
    }

    void on_readable(beast::error_code ec) {
        if (ec || closing_) {
            if (ec && !closing_) context_.state.metrics.handshake_failed();
            return;  // the socket closes with the session
        }
        if (context_.handshakes.fetch_add(1) >= context_.limits.max_handshakes) context_.handshaking.evict_oldest();
        handshake_counted_ = true;
        context_.handshaking.enter(this->weak_from_this(), handshaking_);
        stream_.async_handshake(beast::bind_front_handler(&Session::on_handshake, this->shared_from_this()));
    }

    void end_handshake() {
        if constexpr (Tls) {
            if (handshake_counted_) {
                handshake_counted_ = false;
                --context_.handshakes;
                context_.handshaking.leave(handshaking_);
            }
        }
    }

    void on_handshake(beast::error_code ec) {
        end_handshake();
        if (ec) {
            context_.state.metrics.handshake_failed();
            return;  // the socket closes with the session
        }
        wait_for_request();
    }

    // A new connection's first request must begin, and its header arrive,
    // within header_timeout of the handshake; between later requests a
    // connection may idle for idle_timeout. Once a request starts, all of it
    // must arrive within read_timeout.
    void wait_for_request() {
        state_ = State::waiting;
        if (requests_served_ == 0) header_deadline_ = std::chrono::steady_clock::now() + context_.limits.header_timeout;
        if (buffer_.size() > 0) return read_header();  // a pipelined request is already here
        lowest().expires_after(requests_served_ == 0 ? context_.limits.header_timeout : context_.limits.idle_timeout);
        stream_.async_read_some(buffer_.prepare(kWaitReadBytes), beast::bind_front_handler(&Session::on_first_bytes, this->shared_from_this()));
    }

    void on_first_bytes(beast::error_code ec, std::size_t n) {
        if (ec) return shutdown();
        if (requests_served_ == 0) context_.unserved.leave(unserved_);  // a request has begun: served from here on
        buffer_.commit(n);
        read_header();
    }

    void read_header() {
        state_ = State::reading;
        request_.clear();
        parser_.emplace(request_);
        parser_->header_limit(static_cast<std::uint32_t>(context_.limits.max_header_bytes));
        parser_->body_limit(context_.limits.max_body_bytes);
        request_started_ = std::chrono::steady_clock::now();
        // The request's deadlines are points in time from its start: the
        // header's here, the whole request's again once the header is read.
        auto deadline = request_started_ + context_.limits.read_timeout;
        if (requests_served_ == 0) deadline = std::min(deadline, header_deadline_);
        lowest().expires_at(deadline);
        beast::error_code ec;
        if (parse_arrived(true, ec)) return on_header(ec, 0);
        http::async_read_header(stream_, buffer_, *parser_, beast::bind_front_handler(&Session::on_header, this->shared_from_this()));
    }

    // Parses what has already arrived, and over TLS reads on while more is
    // already there (up to kArrivedReadBytes), so that a request that came in
    // whole is answered in one turn of the event loop rather than a round
    // trip through it for each read. True when the header (header_only) or the
    // whole request is read, or on an error (in ec); false when the rest is
    // still to come, for the asynchronous read to wait for.
    bool parse_arrived(bool header_only, beast::error_code& ec) {
        std::size_t read_now = 0;
        for (;;) {
            if (header_only ? parser_->is_header_done() : parser_->is_done()) return true;
            if (buffer_.size() > 0) {
                const std::size_t used = parser_->put(buffer_.data(), ec);
                buffer_.consume(used);
                if (ec != http::error::need_more) {
                    if (ec) return true;
                    if (used > 0) continue;
                    return false;  // no progress: the asynchronous read takes over
                }
                ec = {};
            }
            if constexpr (!Tls) {
                return false;
            } else {
                if (read_now >= kArrivedReadBytes) return false;
                const std::size_t n = stream_.read_available(buffer_.prepare(read_size()), ec);
                if (ec == net::error::would_block) {
                    ec = {};
                    return false;
                }
                if (ec) return true;
                buffer_.commit(n);
                read_now += n;
            }
        }
    }

    // At most what the request still lacks, when its length is known: the rest
    // of a small body then fits the buffer the wait for it made, where growing
    // the buffer to a full chunk would cost two allocations a request.
    std::size_t read_size() const {
        if (!parser_->is_header_done()) return kReadChunkBytes;
        const auto left = parser_->content_length_remaining();
        if (!left || *left == 0) return kReadChunkBytes;
        return static_cast<std::size_t>(std::min<std::uint64_t>(*left, kReadChunkBytes));
    }

    void on_header(beast::error_code ec, std::size_t) {
        if (ec) return on_read_error(ec);
        if (auto problem = framing_problem(request_)) return answer_error(400, *problem + "\n");
        lowest().expires_at(request_started_ + context_.limits.read_timeout);
        const auto length = parser_->content_length();
        // A chunked body counts as the largest it may grow to.
        const std::size_t budget = length ? static_cast<std::size_t>(std::min<std::uint64_t>(*length, context_.limits.max_body_bytes))
                                          : context_.limits.max_body_bytes;
        if (budget > 0 && !context_.bytes_in_flight.reserve(budget)) {
            return answer_error(503, "the server is reading as many request bodies as it holds at once (--max-body-bytes-in-flight " +
                                         std::to_string(context_.limits.max_body_bytes_in_flight) + " bytes); retry\n");
        }
        body_budget_ = budget;
        // A body of known, accepted length is read into its place (0: through the parser).
        body_length_ = length && *length <= context_.limits.max_body_bytes ? static_cast<std::size_t>(*length) : 0;
        if (body_length_ > 0) {
            // Room for all of it and the review's slack after it, up front:
            // the body is read into its place and never copied.
            std::string& body = request_.body;
            thread_body_buffers().reserve_for_overwrite(body, body_length_ + kReviewBodySlack);
            if (body.size() > body_length_) body.resize(body_length_);
            body_filled_ = 0;
        }
        if (request_.expect_continue) {
            // curl asks before sending a large body; the apiserver does not.
            continue_ = std::make_unique<http::response<http::empty_body>>(http::status::continue_, 11);
            return http::async_write(stream_, *continue_, [self = this->shared_from_this()](beast::error_code write_ec, std::size_t) {
                self->continue_.reset();
                if (write_ec) return;
                self->read_body();
            });
        }
        read_body();
    }

    void read_body() {
        if (body_length_ > 0) return read_body_in_place();
        beast::error_code ec;
        if (parse_arrived(false, ec)) return on_body(ec, 0);
        http::async_read(stream_, buffer_, *parser_, beast::bind_front_handler(&Session::on_body, this->shared_from_this()));
    }

    // A body of known length (no chunks) is read straight into its string,
    // not through the parser, which would read it into the connection's
    // buffer and then copy it: first what came in with the header, then,
    // over TLS, what has arrived already (up to kArrivedReadBytes before a
    // turn of the event loop, as parse_arrived), then what is still to come.
    // Exactly the body's bytes are read: a pipelined request after it stays
    // in the connection's buffer.
    void read_body_in_place() {
        if (body_filled_ == 0 && buffer_.size() > 0) {
            body_filled_ = net::buffer_copy(next_body_piece(buffer_.size()), buffer_.data());
            buffer_.consume(body_filled_);
        }
        if constexpr (Tls) {
            for (std::size_t read_now = 0; body_filled_ < body_length_ && read_now < kArrivedReadBytes;) {
                beast::error_code ec;
                const std::size_t n = stream_.read_available(next_body_piece(kReadChunkBytes), ec);
                if (ec == net::error::would_block) break;
                if (ec) return on_read_error(ec);
                body_filled_ += n;
                read_now += n;
            }
        }
        if (body_filled_ == body_length_) return answer_request();
        stream_.async_read_some(next_body_piece(kReadChunkBytes), [self = this->shared_from_this()](beast::error_code ec, std::size_t n) {
            if (ec) return self->on_read_error(ec);
            self->body_filled_ += n;
            self->read_body_in_place();
        });
    }

    // Where the next up to `most` bytes of the body go. The string grows only
    // as far as the bytes a read may bring (a kept string's old bytes cost no
    // zeros): a client that announces a large body and sends little of it
    // holds no more memory than it sent, as when the parser appended it.
    net::mutable_buffer next_body_piece(std::size_t most) {
        std::string& body = request_.body;
        const std::size_t end = body_filled_ + std::min(most, body_length_ - body_filled_);
        if (body.size() < end) body.resize(end);
        return net::buffer(body.data() + body_filled_, end - body_filled_);
    }

    void on_body(beast::error_code ec, std::size_t) {
        if (ec) return on_read_error(ec);
        answer_request();
    }

    void on_read_error(beast::error_code ec) {
        if (ec == http::error::body_limit) {
            // A client still sending the body would fail on a closed socket
            // before it reads the 413: take in what it announced (up to a
            // bound, within the read deadline) before answering.
            const auto announced = announced_length(request_);
            if (announced && *announced <= kMaxDrainedBody) {
                drain_left_ = *announced > buffer_.size() ? *announced - buffer_.size() : 0;
                buffer_.consume(buffer_.size());
                return drain_body();
            }
            return answer_too_large();
        }
        if (ec == http::error::header_limit) return answer_error(431, "the request header is too large\n");
        if (is_quiet_close(ec)) return shutdown();
        answer_error(400, "malformed HTTP/1.1 request: " + ec.message() + "\n");
    }

    void drain_body() {
        if (drain_left_ == 0) {
            drain_.reset();
            return answer_too_large();
        }
        constexpr std::size_t kChunk = 16384;
        if (!drain_) drain_ = std::make_unique<char[]>(kChunk);
        const std::size_t chunk = static_cast<std::size_t>(std::min<std::uint64_t>(drain_left_, kChunk));
        stream_.async_read_some(net::buffer(drain_.get(), chunk), [self = this->shared_from_this()](beast::error_code ec, std::size_t n) {
            if (ec) return self->shutdown();
            self->drain_left_ -= n;
            self->drain_body();
        });
    }

    void answer_too_large() {
        answer_error(413, "the request body is larger than --max-body-bytes (" + std::to_string(context_.limits.max_body_bytes) + " bytes)\n");
    }

    void answer_error(int status, std::string body) {
        state_ = State::answering;
        context_.state.metrics.observe_http(status);
        HttpAnswer a;
        a.status = status;
        a.body = std::move(body);
        write(std::move(a), false, false);
    }

    void answer_request() {
        state_ = State::answering;
        context_.state.metrics.request_started();
        received_ = std::chrono::steady_clock::now();
        ++requests_served_;
        const bool may_wait = context_.blocking != nullptr && context_.state.nodes != nullptr && port_ == Port::admission &&
                              origin_form(request_.target).rfind("/validate", 0) == 0;
        if (may_wait) return route_off_io_thread();
        if ((context_.state.registry == nullptr && context_.state.signatures == nullptr) || context_.blocking == nullptr || port_ != Port::admission) {
            return post_answer(route_request());
        }
        // --registry-check: reviewed here when the cache knows every digest
        // the request may name; else on the pool, where a review may wait.
        // Either way it is reviewed once.
        const RegistryPlan plan = plan_registry_lookups(context_.state, port_, request_.target, request_.body);
        if (plan.needs_look) return route_off_io_thread();
        post_answer(route(context_.state, port_, request_.method_text, request_.target, request_.content_type, request_.body, received_, &plan));
    }

    void route_off_io_thread() {
        net::post(*context_.blocking, [self = this->shared_from_this()] { self->post_answer(self->route_request()); });
    }

    // The answer is written from the connection's I/O thread, after the other
    // connections' requests that arrived with this one: the answers then go
    // out one after another, and a client waiting on several is woken once,
    // not once an answer (a wake-up across CPUs costs the writer more than a
    // small review). Alone, the answer waits for nothing.
    void post_answer(HttpAnswer a) {
        net::post(stream_.get_executor(), [self = this->shared_from_this(), a = std::move(a)]() mutable { self->write_answer(std::move(a)); });
    }

    HttpAnswer route_request() {
        return route(context_.state, port_, request_.method_text, request_.target, request_.content_type, request_.body, received_);
    }

    void write_answer(HttpAnswer a) {
        context_.state.metrics.request_finished();
        const bool keep_alive = request_.keep_alive && !context_.state.draining;
        const bool head = request_.method == http::verb::head;
        thread_body_buffers().keep(request_.body);
        std::string().swap(request_.body);  // not kept: given back now, not held while the connection idles
        write(std::move(a), keep_alive, head);
    }

    // The head and a body that fits in a TLS record go out as one string (one
    // of the thread's kept strings when it is a KiB or more); a larger body is
    // written where it lies.
    static constexpr std::size_t kHeadRoom = 256;
    void write(HttpAnswer a, bool keep_alive, bool head) {
        // A HEAD answer's head is the GET answer's, its Content-Length too; no body follows.
        const std::size_t content_length = a.body.size();
        if (head) a.body.clear();
        const bool one_piece = a.body.size() <= TlsStream::kRecordBytes;
        head_.clear();
        if (const std::size_t room = kHeadRoom + (one_piece ? a.body.size() : 0); head_.capacity() < room) thread_body_buffers().reserve(head_, room);
        write_answer_head(head_, a.status, a.content_type, a.allow, content_length, keep_alive);
        if (one_piece) head_ += a.body;
        else answer_body_ = std::move(a.body);
        lowest().expires_after(context_.limits.write_timeout);
        const std::array<net::const_buffer, 2> answer = {net::buffer(head_), net::buffer(answer_body_)};
        net::async_write(stream_, answer, beast::bind_front_handler(&Session::on_write, this->shared_from_this(), keep_alive));
    }

    void release_body_budget() {
        context_.bytes_in_flight.release(body_budget_);
        body_budget_ = 0;
    }

    void on_write(bool keep_alive, beast::error_code ec, std::size_t) {
        release_body_budget();
        if (ec) return;
        if (!keep_alive) return shutdown();
        // An idle connection keeps no request, answer or buffer space: the
        // answer's string goes to the thread's kept ones, for the next answers.
        thread_body_buffers().keep(head_);
        std::string().swap(head_);
        std::string().swap(answer_body_);
        parser_.reset();
        request_.give_back_large();
        if (buffer_.size() == 0 && buffer_.capacity() > kWaitReadBytes) buffer_.shrink_to_fit();
        wait_for_request();
    }

    void shutdown() {
        if (closing_) return lowest().close();
        if constexpr (Tls) {
            lowest().expires_after(std::chrono::seconds(1));
            stream_.async_shutdown([self = this->shared_from_this()](beast::error_code) { self->lowest().close(); });
        } else {
            beast::error_code ignored;
            lowest().socket().shutdown(Socket::shutdown_send, ignored);
        }
    }

    std::shared_ptr<ssl::context> tls_;  // before stream_: the stream refers to it
    Stream stream_;
    ServerContext& context_;
    Port port_;
    State state_ = State::handshaking;
    beast::flat_buffer buffer_;
    RequestHead request_;  // the request being read or answered
    std::optional<RequestParser> parser_;  // after request_: it refers to it
    std::string head_;  // the answer being written: its head, and its body when that is small
    std::string answer_body_;  // a large answer's body
    std::chrono::steady_clock::time_point received_;
    std::uint64_t requests_served_ = 0;
    const std::chrono::steady_clock::time_point opened_ = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point header_deadline_;  // the first request's
    std::chrono::steady_clock::time_point request_started_;
    std::size_t body_budget_ = 0;  // of ServerContext's body budget, held until the answer is sent
    std::size_t body_length_ = 0;  // a body read into its string in place (read_body_in_place): its Content-Length; 0 for none
    std::size_t body_filled_ = 0;  // ... and how much of it is there
    bool handshake_counted_ = false;  // holds one of context_.handshakes
    OldestFirst::Membership unserved_;  // until the first request begins
    OldestFirst::Membership handshaking_;  // while handshake_counted_
    bool closing_ = false;  // shutdown: close without a TLS close_notify
    std::uint64_t drain_left_ = 0;
    std::unique_ptr<char[]> drain_;  // only while a refused body is read
    std::unique_ptr<http::response<http::empty_body>> continue_;  // only while a 100 Continue is written
};

}  // namespace

void start_session(Socket socket, std::shared_ptr<ssl::context> tls, ServerContext& context, Port port) {
    if (tls) {
        auto session = std::make_shared<Session<true>>(std::move(socket), std::move(tls), context, port);
        context.registry.add(session);
        session->start();
    } else {
        auto session = std::make_shared<Session<false>>(std::move(socket), nullptr, context, port);
        context.registry.add(session);
        session->start();
    }
}

}  // namespace miw::server
