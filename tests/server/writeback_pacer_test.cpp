// Which outputs the log's write-back is started for, and how often.
#include "../../src/server/writeback_pacer.hpp"

#include <catch2/catch.hpp>

#include <cstdio>
#include <fcntl.h>
#include <string>
#include <unistd.h>
#include <vector>

using namespace miw::server;

namespace {

// Writes `chunks` chunks of `chunk` bytes to fd as the log does, telling the
// pacer of each; returns after which chunks (counted from 1) it started the
// write-back.
std::vector<int> starts_over(int fd, WritebackPacer& pacer, int chunks, std::size_t chunk) {
    const std::string bytes(chunk, 'x');
    std::vector<int> started;
    for (int i = 1; i <= chunks; ++i) {
        REQUIRE(write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
        if (pacer.wrote(bytes.size())) started.push_back(i);
    }
    return started;
}

}  // namespace

TEST_CASE("the log's write-back is started each MiB written to a regular file", "[writeback_pacer]") {
    struct Case {
        const char* name;
        std::size_t chunk;
        int chunks;
        std::vector<int> started;
    };
    const Case cases[] = {
        {"the writer's 64 KiB flushes: every sixteenth", 64u << 10, 40, {16, 32}},
        {"flushes of a line or two: none short of a MiB", 300, 3000, {}},
        {"a flush larger than a MiB: each", 3u << 20, 3, {1, 2, 3}},
        {"a MiB and a byte: the count starts again after each", (1u << 20) + 1, 2, {1, 2}},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            std::FILE* file = std::tmpfile();
            REQUIRE(file != nullptr);
            WritebackPacer pacer(fileno(file));
            CHECK(pacer.pacing());
            CHECK(starts_over(fileno(file), pacer, c.chunks, c.chunk) == c.started);
            CHECK(pacer.pacing());
            std::fclose(file);
        }
    }
}

TEST_CASE("the log's write-back is left to the kernel for outputs that are not files", "[writeback_pacer]") {
    SECTION("a pipe (a container's log, read by the runtime)") {
        int ends[2];
        REQUIRE(pipe2(ends, O_NONBLOCK) == 0);
        WritebackPacer pacer(ends[1]);
        CHECK_FALSE(pacer.pacing());
        CHECK(starts_over(ends[1], pacer, 2, 32u << 10).empty());  // within the pipe's 64 KiB
        close(ends[0]);
        close(ends[1]);
    }
    SECTION("a character device (/dev/null)") {
        const int fd = open("/dev/null", O_WRONLY);
        REQUIRE(fd >= 0);
        WritebackPacer pacer(fd);
        CHECK_FALSE(pacer.pacing());
        CHECK(starts_over(fd, pacer, 20, 1u << 20).empty());
        close(fd);
    }
    SECTION("a closed descriptor") {
        WritebackPacer pacer(-1);
        CHECK_FALSE(pacer.pacing());
        CHECK_FALSE(pacer.wrote(2u << 20));
    }
}
