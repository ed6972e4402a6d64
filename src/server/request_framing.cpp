#include "request_framing.hpp"

#include <boost/asio/error.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/error.hpp>

namespace miw::server {

std::optional<std::string> framing_problem(const RequestHead& head) {
    if (head.transfer_encodings > 1 || !head.only_chunked) return std::string("Transfer-Encoding must be exactly \"chunked\" (or absent, with a Content-Length)");
    if (head.version >= 11 && head.hosts != 1) return std::string("an HTTP/1.1 request carries exactly one Host header");
    return std::nullopt;
}

std::optional<std::uint64_t> announced_length(const RequestHead& head) {
    const std::string_view text = head.content_length;
    if (text.empty() || text.size() > 19) return std::nullopt;
    std::uint64_t n = 0;
    for (char c : text) {
        if (c < '0' || c > '9') return std::nullopt;
        n = n * 10 + static_cast<std::uint64_t>(c - '0');
    }
    return n;
}

bool is_quiet_close(const boost::beast::error_code& ec) {
    namespace http = boost::beast::http;
    namespace net = boost::asio;
    return ec == http::error::end_of_stream || ec == net::error::eof || ec == boost::beast::error::timeout || ec == net::error::operation_aborted ||
           ec == net::error::connection_reset || ec == net::ssl::error::stream_truncated || ec == http::error::partial_message;
}

}  // namespace miw::server
