#include "answer_head.hpp"

#include <boost/beast/http/status.hpp>

#include <charconv>

namespace miw::server {

void write_answer_head(std::string& out, int status, std::string_view content_type, std::string_view allow, std::size_t content_length, bool keep_alive) {
    out += "HTTP/1.1 ";
    char digits[24];
    out.append(digits, std::to_chars(digits, digits + sizeof digits, status).ptr);
    out += ' ';
    const auto reason = boost::beast::http::obsolete_reason(static_cast<boost::beast::http::status>(status));
    out.append(reason.data(), reason.size());
    out += "\r\nContent-Type: ";
    out += content_type;
    if (!allow.empty()) {
        out += "\r\nAllow: ";
        out += allow;
    }
    if (!keep_alive) out += "\r\nConnection: close";
    out += "\r\nContent-Length: ";
    out.append(digits, std::to_chars(digits, digits + sizeof digits, content_length).ptr);
    out += "\r\n\r\n";
}

}  // namespace miw::server
