// Listen addresses as the command line gives them.
#include "../../src/server/listener.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace miw::server;

TEST_CASE("listen addresses are HOST:PORT with an IP address", "[listener]") {
    struct Case {
        const char* text;
        bool ok;
        std::string address;
        unsigned short port;
    };
    const std::vector<Case> cases = {
        {"0.0.0.0:8443", true, "0.0.0.0", 8443}, {"127.0.0.1:0", true, "127.0.0.1", 0},  {"[::1]:8443", true, "::1", 8443},
        {":9090", true, "0.0.0.0", 9090},        {"localhost:8443", false, "", 0},       {"127.0.0.1", false, "", 0},
        {"127.0.0.1:70000", false, "", 0},      {"127.0.0.1:", false, "", 0},           {"127.0.0.1:8x", false, "", 0},
    };
    for (const auto& c : cases) {
        INFO(c.text);
        const auto endpoint = parse_listen_address(c.text);
        CHECK(endpoint.ok() == c.ok);
        if (c.ok) {
            CHECK(endpoint->address().to_string() == c.address);
            CHECK(endpoint->port() == c.port);
        } else {
            CHECK_FALSE(endpoint.error().empty());
        }
    }
}
