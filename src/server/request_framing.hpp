// How a request's framing is judged, and how a connection's end is told from
// an error worth an answer (RFC 9112 6.1, 6.3).
#pragma once

#include "request_parser.hpp"

#include <boost/beast/core/error.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace miw::server {

// A request whose framing is anything but a Content-Length or exactly one
// "chunked" coding is refused, and its connection closed, since a server and a
// proxy in front of it could tell its end differently; so is an HTTP/1.1
// request without exactly one Host. Why, or nothing.
std::optional<std::string> framing_problem(const RequestHead& head);

// Content-Length as the client sent it (the parser's own figure may not be
// asked for once it has stopped at the limit); nothing when absent or not a
// number of at most 19 digits.
std::optional<std::uint64_t> announced_length(const RequestHead& head);

// Errors that end a connection without an answer: the peer went away, or a
// deadline passed while nothing was being asked.
bool is_quiet_close(const boost::beast::error_code& ec);

}  // namespace miw::server
