// An answer's head as the server writes it by hand.
#include "../../src/server/answer_head.hpp"

#include <catch2/catch.hpp>

using namespace miw::server;

TEST_CASE("an answer's head holds its status, its few fields and the blank line", "[answer_head]") {
    std::string out;
    write_answer_head(out, 200, "application/json", "", 42, true);
    CHECK(out == "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 42\r\n\r\n");
    out.clear();
    write_answer_head(out, 405, "text/plain; charset=utf-8", "GET, HEAD", 9, false);
    CHECK(out == "HTTP/1.1 405 Method Not Allowed\r\nContent-Type: text/plain; charset=utf-8\r\nAllow: GET, HEAD\r\nConnection: close\r\nContent-Length: 9\r\n\r\n");
    out = "kept ";
    write_answer_head(out, 503, "text/plain", "", 0, true);
    CHECK(out.rfind("kept HTTP/1.1 503 Service Unavailable\r\n", 0) == 0);
}
