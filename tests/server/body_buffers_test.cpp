// The strings large request bodies are read into, reused and bounded.
#include "../../src/server/body_buffers.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <thread>

using namespace miw::server;

namespace {

constexpr std::size_t kLarge = BodyBuffers::kLargeBodyBytes;

std::string body_of(std::size_t capacity) {
    std::string s;
    s.reserve(capacity);
    s.assign(100, 'x');
    return s;
}

}  // namespace

TEST_CASE("a large body's string is reused by the next body it fits", "[body_buffers]") {
    struct Case {
        const char* name;
        std::size_t kept;  // capacity of the string kept after the first body
        std::size_t next;  // bytes the next body needs
        bool reused;
    };
    const Case cases[] = {
        {"a body of the same size", 3 * kLarge, 3 * kLarge, true},
        {"a smaller large body", 3 * kLarge, kLarge, true},
        {"a body larger than what was kept", 3 * kLarge, 4 * kLarge, false},
        {"a small body (the heap serves it)", 3 * kLarge, kLarge - 1, false},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            BodyBuffers buffers;
            std::string first = body_of(c.kept);
            const char* const memory = first.data();
            buffers.keep(first);
            REQUIRE(buffers.kept_count() == 1);
            const std::size_t kept_bytes = buffers.kept_bytes();
            CHECK(kept_bytes >= c.kept);
            CHECK(first.empty());
            std::string next;
            buffers.reserve(next, c.next);
            CHECK(next.capacity() >= c.next);
            CHECK(next.empty());  // nothing of the earlier body is left in it
            CHECK((next.data() == memory) == c.reused);
            CHECK(buffers.kept_count() == (c.reused ? 0u : 1u));
            CHECK(buffers.kept_bytes() == (c.reused ? 0u : kept_bytes));
        }
    }
}

TEST_CASE("what is kept stays within its bound", "[body_buffers]") {
    BodyBuffers buffers;
    std::string small = body_of(kLarge / 2);
    buffers.keep(small);
    CHECK(buffers.kept_count() == 0);  // small strings are not kept
    CHECK(small.size() == 100);
    std::size_t offered = 0;
    for (int i = 0; i < 64; ++i) {
        std::string body = body_of(kLarge * 3);
        offered += body.capacity();
        buffers.keep(body);
        CHECK(buffers.kept_bytes() <= BodyBuffers::kMaxKeptBytes);
    }
    CHECK(offered > BodyBuffers::kMaxKeptBytes);
    CHECK(buffers.kept_bytes() > BodyBuffers::kMaxKeptBytes - kLarge * 3);  // filled up to the bound
    const std::size_t count = buffers.kept_count();
    std::string taken;
    buffers.reserve(taken, kLarge * 2);
    CHECK(buffers.kept_count() == count - 1);
    CHECK(buffers.kept_bytes() <= BodyBuffers::kMaxKeptBytes - taken.capacity());
}

TEST_CASE("each thread keeps its own", "[body_buffers]") {
    std::string body = body_of(kLarge * 2);
    thread_body_buffers().keep(body);
    const std::size_t here = thread_body_buffers().kept_count();
    std::size_t there = 99;
    std::thread([&] { there = thread_body_buffers().kept_count(); }).join();
    CHECK(here >= 1);
    CHECK(there == 0);
}
