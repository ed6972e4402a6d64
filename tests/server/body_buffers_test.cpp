// The strings request bodies are read into, reused and bounded.
#include "../../src/server/body_buffers.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

using namespace miw::server;

namespace {

constexpr std::size_t kLarge = 128u << 10;  // a body past the mmap threshold's half
constexpr std::size_t kSmall = 2u << 10;    // a ModelArtifact review

std::string body_of(std::size_t capacity) {
    std::string s;
    s.reserve(capacity);
    s.assign(100, 'x');
    return s;
}

}  // namespace

TEST_CASE("a body's string is reused by the next body it fits", "[body_buffers]") {
    struct Case {
        const char* name;
        std::size_t kept;  // capacity of the string kept after the first body
        std::size_t next;  // bytes the next body needs
        bool reused;
    };
    const Case cases[] = {
        {"a large body of the same size", 3 * kLarge, 3 * kLarge, true},
        {"a body half the size of the one kept", 2 * kLarge, kLarge, true},
        {"a body a third of the size of the one kept, left for a larger one", 3 * kLarge, kLarge, false},
        {"a body larger than what was kept", 3 * kLarge, 4 * kLarge, false},
        {"a small body of the same size", kSmall, kSmall, true},
        {"a small body or answer after a large body, left for the next large one", 3 * kLarge, kSmall, false},
        {"a tiny answer in the smallest string kept", BodyBuffers::kMinKeptBytes, 100, true},
        {"a body one byte larger than a small one kept", kSmall, kSmall + 1, false},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            BodyBuffers buffers;
            std::string first = body_of(c.kept);
            const char* const memory = first.data();
            const std::size_t capacity = first.capacity();
            buffers.keep(first);
            REQUIRE(buffers.kept_count() == 1);
            CHECK(buffers.kept_bytes() == capacity);
            CHECK(first.empty());
            std::string next;
            buffers.reserve(next, c.next);
            CHECK(next.capacity() >= c.next);
            CHECK(next.empty());  // nothing of the earlier body is left in it
            CHECK((next.data() == memory) == c.reused);
            CHECK(buffers.kept_count() == (c.reused ? 0u : 1u));
            CHECK(buffers.kept_bytes() == (c.reused ? 0u : capacity));
        }
    }
}

TEST_CASE("a body to be read into in place keeps the bytes of the kept string it is given", "[body_buffers]") {
    struct Case {
        const char* name;
        std::size_t kept_capacity;  // 0: nothing kept
        std::size_t kept_size;      // bytes the kept string held
        std::size_t room;           // the room asked for (a body's length and slack)
        bool reused;
    };
    const Case cases[] = {
        {"nothing kept: a new, empty string", 0, 0, kSmall + 64, false},
        {"a smaller body in the string of a larger one", 3 * kLarge, 3 * kLarge - 10, 2 * kLarge + 64, true},
        {"a larger body in a kept string that held fewer bytes", 3 * kLarge, 100, 2 * kLarge + 64, true},
        {"a body the kept string is too small for: a new, empty string", kSmall, kSmall, kLarge + 64, false},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            BodyBuffers buffers;
            const char* memory = nullptr;
            if (c.kept_capacity > 0) {
                std::string kept;
                kept.reserve(c.kept_capacity);
                kept.assign(c.kept_size, 'k');
                memory = kept.data();
                buffers.keep(kept);
                REQUIRE(buffers.kept_count() == 1);
            }
            std::string body;
            buffers.reserve_for_overwrite(body, c.room);
            CHECK(body.capacity() >= c.room);
            CHECK((body.data() == memory) == c.reused);
            CHECK(body == std::string(c.reused ? c.kept_size : 0, 'k'));
            CHECK(buffers.kept_count() == (c.reused || c.kept_capacity == 0 ? 0u : 1u));
            // reserve() gives the same string, emptied.
            std::string answer;
            BodyBuffers others;
            others.keep(body);
            others.reserve(answer, c.room);
            CHECK(answer.empty());
        }
    }
}

TEST_CASE("the kept string that fits most closely is the one taken", "[body_buffers]") {
    BodyBuffers buffers;
    std::string large = body_of(3 * kLarge);
    std::string small = body_of(kSmall);
    std::string middle = body_of(kLarge);
    const char* const small_memory = small.data();
    const char* const middle_memory = middle.data();
    buffers.keep(large);
    buffers.keep(small);
    buffers.keep(middle);
    REQUIRE(buffers.kept_count() == 3);
    std::string a;
    buffers.reserve(a, kSmall / 2);
    CHECK(a.data() == small_memory);
    std::string b;
    buffers.reserve(b, kLarge / 2 + 1);
    CHECK(b.data() == middle_memory);
    CHECK(buffers.kept_count() == 1);
}

TEST_CASE("what is kept stays within its bounds", "[body_buffers]") {
    SECTION("strings malloc's own caches serve are not kept") {
        BodyBuffers buffers;
        std::string tiny = body_of(BodyBuffers::kMinKeptBytes / 2);
        buffers.keep(tiny);
        CHECK(buffers.kept_count() == 0);
        CHECK(tiny.size() == 100);  // left with its owner
    }
    SECTION("bytes") {
        BodyBuffers buffers;
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
    SECTION("strings") {
        BodyBuffers buffers;
        for (std::size_t i = 0; i < 2 * BodyBuffers::kMaxKept; ++i) {
            std::string body = body_of(kSmall);
            buffers.keep(body);
        }
        CHECK(buffers.kept_count() == BodyBuffers::kMaxKept);
    }
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

TEST_CASE("at the bound, the string kept longest ago makes room for the new one", "[body_buffers]") {
    struct Case {
        const char* name;
        std::size_t earlier;   // capacity of each string kept first
        std::size_t count;     // how many of them
        std::size_t next;      // capacity of the string kept then
        std::size_t dropped;   // how many of the earlier ones make room for it
    };
    const Case cases[] = {
        {"small answers of an earlier traffic fill every place, then a large body", kSmall, BodyBuffers::kMaxKept, 3 * kLarge, 1},
        {"large bodies fill the bytes, then another", 3 * kLarge, BodyBuffers::kMaxKeptBytes / (3 * kLarge), 3 * kLarge + 4096, 1},
        {"large bodies fill the bytes, then a larger one", 3 * kLarge, BodyBuffers::kMaxKeptBytes / (3 * kLarge), 6 * kLarge, 2},
        {"room left: nothing is dropped", kSmall, 4, 3 * kLarge, 0},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            BodyBuffers buffers;
            std::vector<const char*> earlier;
            for (std::size_t i = 0; i < c.count; ++i) {
                std::string body = body_of(c.earlier);
                earlier.push_back(body.data());
                buffers.keep(body);
            }
            REQUIRE(buffers.kept_count() == c.count);
            std::string next = body_of(c.next);
            const char* const next_memory = next.data();
            buffers.keep(next);
            CHECK(next.empty());
            CHECK(buffers.kept_count() == c.count - c.dropped + 1);
            CHECK(buffers.kept_count() <= BodyBuffers::kMaxKept);
            CHECK(buffers.kept_bytes() <= BodyBuffers::kMaxKeptBytes);
            // The new string is there for the next body of its size...
            std::string taken;
            buffers.reserve(taken, c.next);
            CHECK(taken.data() == next_memory);
            // ...and the ones dropped were the first kept: the others are all still there.
            std::vector<std::string> again(c.count - c.dropped);
            for (std::string& a : again) {
                buffers.reserve(a, c.earlier);
                const auto at = std::find(earlier.begin(), earlier.end(), a.data());
                REQUIRE(at != earlier.end());
                CHECK(at - earlier.begin() >= static_cast<std::ptrdiff_t>(c.dropped));
            }
            CHECK(buffers.kept_count() == 0);
        }
    }
}

TEST_CASE("a string larger than the whole bound is not kept, and drops nothing", "[body_buffers]") {
    BodyBuffers buffers;
    std::string small = body_of(kSmall);
    buffers.keep(small);
    std::string huge = body_of(BodyBuffers::kMaxKeptBytes + 1);
    buffers.keep(huge);
    CHECK(buffers.kept_count() == 1);
    CHECK(huge.size() == 100);  // left with its owner
}
