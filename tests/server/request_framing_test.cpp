// A request's framing judged (RFC 9112 6.1, 6.3), its announced length read,
// and a connection's quiet end told from an error worth an answer.
#include "../../src/server/request_framing.hpp"

#include <boost/asio/error.hpp>
#include <boost/beast/http/error.hpp>

#include <catch2/catch.hpp>

#include <vector>

using namespace miw::server;

TEST_CASE("only a Content-Length or exactly one chunked coding frames a request", "[request_framing]") {
    struct Case {
        const char* name;
        unsigned version, hosts, transfer_encodings;
        bool only_chunked;
        const char* problem;  // "" for none
    };
    const std::vector<Case> cases = {
        {"one Host, a length", 11, 1, 0, true, ""},
        {"chunked", 11, 1, 1, true, ""},
        {"gzip beside chunked", 11, 1, 1, false, "Transfer-Encoding must be exactly \"chunked\""},
        {"two Transfer-Encoding fields", 11, 1, 2, true, "Transfer-Encoding must be exactly \"chunked\""},
        {"no Host on HTTP/1.1", 11, 0, 0, true, "exactly one Host header"},
        {"two Hosts", 11, 2, 0, true, "exactly one Host header"},
        {"no Host on HTTP/1.0", 10, 0, 0, true, ""},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            RequestHead head;
            head.version = c.version;
            head.hosts = c.hosts;
            head.transfer_encodings = c.transfer_encodings;
            head.only_chunked = c.only_chunked;
            const auto problem = framing_problem(head);
            if (*c.problem == '\0') {
                CHECK_FALSE(problem);
            } else {
                REQUIRE(problem);
                CHECK_THAT(*problem, Catch::Contains(c.problem));
            }
        }
    }
}

TEST_CASE("the announced length is read as sent, or not at all", "[request_framing]") {
    RequestHead head;
    CHECK_FALSE(announced_length(head));
    head.content_length = "8388609";
    CHECK(announced_length(head) == 8388609u);
    head.content_length = "12a";
    CHECK_FALSE(announced_length(head));
    head.content_length = "99999999999999999999";  // 20 digits: past any body
    CHECK_FALSE(announced_length(head));
}

TEST_CASE("a peer gone or a deadline passed ends a connection without an answer", "[request_framing]") {
    CHECK(is_quiet_close(boost::beast::http::error::end_of_stream));
    CHECK(is_quiet_close(boost::asio::error::connection_reset));
    CHECK(is_quiet_close(boost::beast::error::timeout));
    CHECK_FALSE(is_quiet_close(boost::beast::http::error::bad_method));
}
