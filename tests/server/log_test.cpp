// The log line's fields as written: escaped strings, cut long values, numbers.
#include "../../src/server/log.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace miw::server;

TEST_CASE("a log line holds each field as JSON, after the time, level and message", "[log]") {
    struct Case {
        const char* name;
        Log::Value value;
        std::string written;  // the field's JSON
    };
    const std::string long_uid(600, 'u');
    const Case cases[] = {
        {"a plain string", std::string_view("gpustack"), R"("gpustack")"},
        {"a string with quotes, a backslash and control characters", std::string_view("a\"b\\c\n\x01"), R"("a\"b\\c\n\u0001")"},
        {"a string past 512 bytes, cut with its length", std::string_view(long_uid), "\"" + std::string(512, 'u') + "...(cut, 600 bytes)\""},
        {"an integer", 15LL, "15"},
        {"a negative integer", -3LL, "-3"},
        {"true", true, "true"},
        {"false", false, "false"},
        {"a latency of a few microseconds", 0.0049, "0.005"},
        {"a latency rounded to thousandths", 12.3456, "12.346"},
        {"a whole latency", 7.0, "7.000"},
        {"a latency of over a thousand seconds", 1234567.8901, "1234567.890"},
        {"a negative number (a clock gone back)", -1.5, "-1.500"},
        {"a number past the thousandths' range", 2e12, "2000000000000.000"},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            const std::string line = log_line("info", "admission", {{"field", c.value}});
            INFO(line);
            CHECK(line.rfind("{\"time\":\"", 0) == 0);
            CHECK(line.size() > 34);
            CHECK(line.compare(33, std::string::npos, "\",\"level\":\"info\",\"msg\":\"admission\",\"field\":" + c.written + "}\n") == 0);
        }
    }
}

TEST_CASE("a log line's time is UTC to the millisecond", "[log]") {
    const std::string line = log_line("error", "x", {});
    REQUIRE(line.size() > 33);
    const std::string time = line.substr(9, 24);
    INFO(time);
    CHECK(time[4] == '-');
    CHECK(time[10] == 'T');
    CHECK(time[19] == '.');
    CHECK(time[23] == 'Z');
}
