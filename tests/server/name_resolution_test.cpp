// Names resolved within the caller's deadline, whatever the DNS server does.
#include "../../src/server/name_resolution.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <thread>

using namespace miw::server;
using namespace std::chrono_literals;

namespace {

std::atomic<int> hanging_calls{0};

// A DNS server that answers after a second and a half.
Resolved slow_lookup(const std::string& host, const std::string&) {
    ++hanging_calls;
    std::this_thread::sleep_for(1500ms);
    Resolved out;
    out.error = "cannot resolve " + host + ": too late";
    return out;
}

Resolved instant_lookup(const std::string&, const std::string& port) {
    Resolved out;
    out.endpoints.emplace_back(boost::asio::ip::make_address("192.0.2.7"), static_cast<unsigned short>(std::stoi(port)));
    return out;
}

}  // namespace

TEST_CASE("an IP address is taken as it is, without a lookup", "[name_resolution]") {
    struct Case {
        const char* host;
        const char* port;
        const char* endpoint;  // "" for an error
    };
    const Case cases[] = {
        {"127.0.0.1", "5000", "127.0.0.1:5000"},
        {"::1", "443", "[::1]:443"},
        {"127.0.0.1", "70000", ""},
        {"127.0.0.1", "http", ""},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.host << " port " << c.port) {
            const Resolved r = resolve_until(c.host, c.port, std::chrono::steady_clock::now() + 1s, slow_lookup);
            if (*c.endpoint == '\0') {
                CHECK(r.endpoints.empty());
                CHECK_THAT(r.error, Catch::Contains("is not a port number"));
            } else {
                REQUIRE(r.endpoints.size() == 1);
                const auto& e = r.endpoints[0];
                const std::string text = e.address().is_v6() ? "[" + e.address().to_string() + "]:" + std::to_string(e.port())
                                                             : e.address().to_string() + ":" + std::to_string(e.port());
                CHECK(text == c.endpoint);
            }
        }
    }
}

TEST_CASE("a name is resolved by the lookup given", "[name_resolution]") {
    const Resolved r = resolve_until("registry.example.com", "5000", std::chrono::steady_clock::now() + 1s, instant_lookup);
    REQUIRE(r.endpoints.size() == 1);
    CHECK(r.endpoints[0].port() == 5000);
    CHECK_FALSE(r.timed_out);
}

TEST_CASE("a DNS server that does not answer costs the caller its deadline, no more", "[name_resolution]") {
    hanging_calls = 0;
    const auto start = std::chrono::steady_clock::now();
    const Resolved r = resolve_until("hangs.example.com", "443", start + 200ms, slow_lookup);
    const auto waited = std::chrono::steady_clock::now() - start;
    CHECK(r.timed_out);
    CHECK(r.endpoints.empty());
    CHECK_THAT(r.error, Catch::Contains("no answer from DNS for hangs.example.com"));
    CHECK(waited < 1000ms);
    CHECK(hanging_calls == 1);
    std::this_thread::sleep_for(1500ms);  // the lookup left running ends before the process does
}

TEST_CASE("lookups left running are bounded: past the bound a name fails at once", "[name_resolution]") {
    std::vector<Resolved> answers;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kMaxNameLookupsOutstanding + 4; ++i) {
        answers.push_back(resolve_until("hangs-" + std::to_string(i) + ".example.com", "443", std::chrono::steady_clock::now() + 10ms, slow_lookup));
    }
    CHECK(std::chrono::steady_clock::now() - start < 1400ms);  // none waited for the slow lookups
    int refused = 0;
    for (const Resolved& r : answers) {
        CHECK(r.endpoints.empty());
        if (r.error.find("earlier name lookups have not finished") != std::string::npos) ++refused;
    }
    CHECK(refused >= 4);
    // Once they finish, lookups are made again.
    std::this_thread::sleep_for(1700ms);
    CHECK(resolve_until("registry.example.com", "443", std::chrono::steady_clock::now() + 1s, instant_lookup).endpoints.size() == 1);
}
