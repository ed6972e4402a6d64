// One HTTP request of the registry client (registry_client.cpp), over TLS or,
// for a --registry-insecure host, plain TCP: on an io_context of its own, run
// until it completes or its deadline passes, its answer capped while read.
#pragma once

#include "client_tls.hpp"
#include "name_resolution.hpp"

#include "model_image_webhook/registry_cache.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <openssl/x509.h>

#include <limits>
#include <string>
#include <type_traits>

namespace miw::server {

namespace registry_http {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;

// Where a request goes.
struct Endpoint {
    std::string host;
    std::string port;
    std::string authority;  // the Host header
    bool tls = true;
};

struct Answer {
    int status = 0;
    std::string body;
    std::string content_type;
    std::string www_authenticate;
    std::string location;
    RegistryFailure failure = RegistryFailure::none;  // set when no answer came
    std::string error;
};

inline std::string header_value(const http::response<CappedBody>& response, http::field field) {
    const auto v = response[field];
    return std::string(v.data(), v.size());
}

// One request on a private io_context, run until it completes or the
// deadline passes (the io_context going out of scope cancels what is left).
template <class Stream>
class Exchange {
public:
    template <class... StreamArgs>
    Exchange(const Endpoint& endpoint, http::verb method, const std::string& target, const std::string& authorization, std::string_view accept,
             std::size_t max_body, StreamArgs&&... stream_args)
        : endpoint_(endpoint), stream_(io_, std::forward<StreamArgs>(stream_args)...) {
        request_.version(11);
        request_.method(method);
        request_.target(target);
        request_.set(http::field::host, endpoint.authority);
        request_.set(http::field::user_agent, "model-image-webhook");
        if (!accept.empty()) request_.set(http::field::accept, std::string(accept));
        if (!authorization.empty()) request_.set(http::field::authorization, authorization);
        parser_.body_limit(std::numeric_limits<std::uint64_t>::max());  // CappedBody caps
        parser_.get().body().limit = max_body;
        if (method == http::verb::head) parser_.skip(true);
    }

    Answer run(Deadline deadline) {
        if constexpr (kTls) {
            if (!expect_peer_name(stream_.native_handle(), endpoint_.host)) return failed(RegistryFailure::tls, "cannot check the certificate against \"" + endpoint_.host + "\"");
        }
        const Resolved resolved = resolve_until(endpoint_.host, endpoint_.port, deadline);
        if (resolved.endpoints.empty()) return failed(resolved.timed_out ? RegistryFailure::timeout : RegistryFailure::unreachable, resolved.error);
        beast::get_lowest_layer(stream_).async_connect(resolved.endpoints, [this](boost::system::error_code e, const tcp::endpoint&) {
            if (e) return done(RegistryFailure::unreachable, "cannot connect to " + endpoint_.authority + ": " + e.message());
            if constexpr (kTls) {
                stream_.async_handshake(ssl::stream_base::client, [this](boost::system::error_code e2) {
                    if (e2) return done(RegistryFailure::tls, handshake_failure(e2));
                    send();
                });
            } else {
                send();
            }
        });
        io_.run_until(deadline);
        if (!finished_) return failed(RegistryFailure::timeout, "no answer from " + endpoint_.authority + " within the time allowed");
        return std::move(answer_);
    }

private:
    static constexpr bool kTls = !std::is_same_v<Stream, beast::tcp_stream>;

    void send() {
        http::async_write(stream_, request_, [this](boost::system::error_code e, std::size_t) {
            if (e) return done(RegistryFailure::unreachable, "cannot send the request to " + endpoint_.authority + ": " + e.message());
            http::async_read(stream_, buffer_, parser_, [this](boost::system::error_code e2, std::size_t) {
                if (e2 == http::error::body_limit) {
                    return done(RegistryFailure::too_large, "the answer is larger than " + std::to_string(parser_.get().body().limit) + " bytes; it was not read");
                }
                if (e2) return done(RegistryFailure::unreachable, "cannot read the answer of " + endpoint_.authority + ": " + e2.message());
                auto& response = parser_.get();
                answer_.status = static_cast<int>(response.result_int());
                answer_.content_type = header_value(response, http::field::content_type);
                answer_.www_authenticate = header_value(response, http::field::www_authenticate);
                answer_.location = header_value(response, http::field::location);
                answer_.body = std::move(response.body().text);
                done(RegistryFailure::none, {});
            });
        });
    }

    std::string handshake_failure(const boost::system::error_code& ec) {
        if constexpr (kTls) {
            const long verify = SSL_get_verify_result(stream_.native_handle());
            if (verify != X509_V_OK) {
                return std::string("the certificate of ") + endpoint_.authority + " was refused (" + X509_verify_cert_error_string(verify) +
                       "): add its CA with --registry-ca";
            }
        }
        return "TLS handshake with " + endpoint_.authority + " failed: " + ec.message();
    }
    void done(RegistryFailure failure, std::string error) {
        finished_ = true;
        answer_.failure = failure;
        answer_.error = std::move(error);
        io_.stop();
    }
    static Answer failed(RegistryFailure failure, std::string error) {
        Answer a;
        a.failure = failure;
        a.error = std::move(error);
        return a;
    }

    const Endpoint& endpoint_;
    net::io_context io_;
    Stream stream_;
    http::request<http::empty_body> request_;
    beast::flat_buffer buffer_{16u << 10};
    http::response_parser<CappedBody> parser_;
    Answer answer_;
    bool finished_ = false;
};

}  // namespace registry_http

}  // namespace miw::server
