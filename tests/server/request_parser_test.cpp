// The request line and the header fields the server acts on, as Beast's
// parser reads them from the wire.
#include "../../src/server/request_parser.hpp"

#include <catch2/catch.hpp>

#include <boost/asio/buffer.hpp>

#include <string>

using namespace miw::server;
namespace http = boost::beast::http;

namespace {

// Parses the whole of wire (a request with its body); the parser's error, if any.
boost::beast::error_code parse(const std::string& wire, RequestHead& head) {
    RequestParser parser(head);
    parser.eager(true);
    boost::beast::error_code ec;
    std::size_t used = 0;
    while (used < wire.size() && !parser.is_done()) {
        const std::size_t n = parser.put(boost::asio::buffer(wire.data() + used, wire.size() - used), ec);
        used += n;
        if (ec == http::error::need_more) {
            ec = {};
            parser.put_eof(ec);
            break;
        }
        if (ec) break;
    }
    return ec;
}

}  // namespace

TEST_CASE("the fields the server acts on are read from the request, the first of each", "[request_parser]") {
    struct Case {
        const char* name;
        std::string wire;
        std::string method, target, content_type, content_length;
        bool expect_continue, keep_alive;
        unsigned hosts, transfer_encodings;
        bool only_chunked;
        std::string body;
    };
    const Case cases[] = {
        {"the apiserver's request", "POST /validate?timeout=10s HTTP/1.1\r\nHost: webhook.svc:443\r\nContent-Type: application/json\r\nAccept: application/json\r\n"
                                    "Content-Length: 2\r\n\r\n{}",
         "POST", "/validate?timeout=10s", "application/json", "2", false, true, 1, 0, true, "{}"},
        {"curl's Expect: 100-continue, any case", "POST /mutate HTTP/1.1\r\nHost: x\r\nexpect: 100-Continue\r\nContent-Length: 0\r\n\r\n", "POST", "/mutate", "",
         "0", true, true, 1, 0, true, ""},
        {"another expectation", "POST /mutate HTTP/1.1\r\nHost: x\r\nExpect: something\r\nContent-Length: 0\r\n\r\n", "POST", "/mutate", "", "0", false, true, 1, 0,
         true, ""},
        {"two content types: the first", "POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Type: text/plain\r\nContent-Length: 0\r\n\r\n",
         "POST", "/validate", "application/json", "0", false, true, 1, 0, true, ""},
        {"Connection: close", "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "GET", "/healthz", "", "", false, false, 1, 0, true, ""},
        {"HTTP/1.0 without keep-alive", "GET /healthz HTTP/1.0\r\n\r\n", "GET", "/healthz", "", "", false, false, 0, 0, true, ""},
        {"HTTP/1.0 with keep-alive", "GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", "GET", "/healthz", "", "", false, true, 0, 0, true, ""},
        {"no Host, two Hosts: counted", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", "GET", "/", "", "", false, true, 2, 0, true, ""},
        {"a chunked body, decoded", "POST /validate HTTP/1.1\r\nHost: x\r\nTransfer-Encoding:  chunked \r\n\r\n2\r\n{\"\r\n4\r\na\":1\r\n1\r\n}\r\n0\r\n\r\n", "POST",
         "/validate", "", "", false, true, 1, 1, true, "{\"a\":1}"},
        {"a method Beast does not know, kept as sent", "BREW /pot HTTP/1.1\r\nHost: x\r\n\r\n", "BREW", "/pot", "", "", false, true, 1, 0, true, ""},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            RequestHead head;
            REQUIRE_FALSE(parse(c.wire, head));
            CHECK(head.method_text == c.method);
            CHECK(head.target == c.target);
            CHECK(head.content_type == c.content_type);
            CHECK(head.content_length == c.content_length);
            CHECK(head.expect_continue == c.expect_continue);
            CHECK(head.keep_alive == c.keep_alive);
            CHECK(head.hosts == c.hosts);
            CHECK(head.transfer_encodings == c.transfer_encodings);
            CHECK(head.only_chunked == c.only_chunked);
            CHECK(head.body == c.body);
        }
    }
}

TEST_CASE("a framing other than one chunked coding is refused, by Beast or by the framing check", "[request_parser]") {
    const char* const cases[] = {
        "Transfer-Encoding: gzip, chunked\r\n",
        "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n",
        "Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n",
        "Transfer-Encoding: identity\r\nContent-Length: 0\r\n",
        "Transfer-Encoding: chunked, gzip\r\n",
    };
    for (const char* fields : cases) {
        DYNAMIC_SECTION(fields) {
            RequestHead head;
            RequestParser parser(head);
            boost::beast::error_code ec;
            const std::string wire = std::string("POST /validate HTTP/1.1\r\nHost: x\r\n") + fields + "\r\n";
            parser.put(boost::asio::buffer(wire), ec);
            const bool framing_refuses = head.transfer_encodings > 1 || !head.only_chunked;
            CHECK(((ec && ec != http::error::need_more) || framing_refuses));
        }
    }
}

TEST_CASE("a request head is cleared for the next request and gives back what a long one took", "[request_parser]") {
    RequestHead head;
    const std::string long_target = "/validate?" + std::string(4000, 'q');
    REQUIRE_FALSE(parse("POST " + long_target + " HTTP/1.1\r\nHost: x\r\nContent-Type: a\r\nExpect: 100-continue\r\nContent-Length: 0\r\n\r\n", head));
    CHECK(head.target == long_target);
    head.give_back_large();
    CHECK(head.target.capacity() <= 256);
    head.clear();
    REQUIRE_FALSE(parse("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", head));
    CHECK(head.target == "/healthz");
    CHECK(head.content_type.empty());
    CHECK_FALSE(head.expect_continue);
    CHECK(head.hosts == 1);
}
