// An HTTP/1.1 answer's head, written by hand rather than by Beast's
// serializer: it has at most five fields, known in advance, and goes out with
// the body in one write (one TLS record for a small answer).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace miw::server {

// Appends the status line and the fields, through the blank line, to `out`.
// content_length: the body's (a HEAD answer's is the GET answer's).
void write_answer_head(std::string& out, int status, std::string_view content_type, std::string_view allow, std::size_t content_length, bool keep_alive);

}  // namespace miw::server
