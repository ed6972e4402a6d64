// What the webhook's clients (of the Kubernetes API and of registries)
// share: the peer name a server's certificate must carry, and an answer body
// capped while it is read. Transport only: Beast and OpenSSL.
#pragma once

#include <boost/asio/buffer.hpp>
#include <boost/beast/http.hpp>
#include <boost/optional.hpp>

#include <openssl/ssl.h>

#include <cstdint>
#include <string>

namespace miw::server {

// The name the certificate must carry, checked as Go's crypto/tls does: an IP
// address against the IP SANs, a name against the DNS SANs (one whole-label
// wildcard at most), never the subject's common name.
bool expect_peer_name(SSL* ssl, const std::string& host);

// A response body that refuses to grow past its limit while it is read.
// Beast's own body_limit is not enough: Boost 1.74 drops that error when the
// header and the start of the body arrive in one read, and a chunked answer
// has no length to check up front.
struct CappedBody {
    struct value_type {
        std::string text;
        std::size_t limit = 0;
    };

    class reader {
    public:
        template <bool IsRequest, class Fields>
        reader(boost::beast::http::header<IsRequest, Fields>&, value_type& body) : body_(body) {}

        void init(const boost::optional<std::uint64_t>& length, boost::beast::error_code& ec) {
            if (length && *length > body_.limit) {
                ec = boost::beast::http::error::body_limit;
                return;
            }
            if (length) body_.text.reserve(static_cast<std::size_t>(*length));
            ec = {};
        }

        template <class ConstBuffers>
        std::size_t put(const ConstBuffers& buffers, boost::beast::error_code& ec) {
            const std::size_t n = boost::asio::buffer_size(buffers);
            if (n > body_.limit - body_.text.size()) {
                ec = boost::beast::http::error::body_limit;
                return 0;
            }
            for (auto it = boost::asio::buffer_sequence_begin(buffers); it != boost::asio::buffer_sequence_end(buffers); ++it) {
                const boost::asio::const_buffer piece = *it;
                body_.text.append(static_cast<const char*>(piece.data()), piece.size());
            }
            ec = {};
            return n;
        }

        void finish(boost::beast::error_code& ec) { ec = {}; }

    private:
        value_type& body_;
    };
};

}  // namespace miw::server
