// The connections that wait, oldest first: the oldest is asked to close to
// make room, each once, and one that has left is never asked.
#include "../../src/server/oldest_first.hpp"
#include "../../src/server/session.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <thread>
#include <vector>

using namespace miw::server;

namespace {

// As a session does: it leaves the ledger when it goes.
struct Connection : SessionBase {
    explicit Connection(OldestFirst& ledger) : ledger(ledger) {}
    ~Connection() override { ledger.leave(membership); }
    OldestFirst& ledger;
    int evictions = 0;
    OldestFirst::Membership membership;
    void close_if_idle() override {}
    void evict() override { ++evictions; }
};

}  // namespace

TEST_CASE("the oldest waiting connection is the one asked to make room", "[oldest_first]") {
    OldestFirst waiting;
    std::vector<std::shared_ptr<Connection>> c;
    for (int i = 0; i < 4; ++i) {
        c.push_back(std::make_shared<Connection>(waiting));
        waiting.enter(c.back(), c.back()->membership);
    }
    SECTION("oldest first, each once") {
        CHECK(waiting.evict_oldest());
        CHECK(c[0]->evictions == 1);
        CHECK(waiting.evict_oldest());
        CHECK(c[1]->evictions == 1);
        CHECK(c[0]->evictions == 1);
        CHECK(waiting.size() == 2);
    }
    SECTION("one that left (its request began) is passed over") {
        waiting.leave(c[0]->membership);
        waiting.leave(c[0]->membership);  // twice is harmless
        CHECK(waiting.evict_oldest());
        CHECK(c[0]->evictions == 0);
        CHECK(c[1]->evictions == 1);
    }
    SECTION("one that has gone is passed over") {
        c[0].reset();
        CHECK(waiting.size() == 3);
        CHECK(waiting.evict_oldest());
        CHECK(c[1]->evictions == 1);
        waiting.leave(c[1]->membership);  // leaving after an eviction does nothing
        CHECK(waiting.size() == 2);
    }
    SECTION("none left: nothing to evict") {
        for (auto& one : c) waiting.leave(one->membership);
        CHECK_FALSE(waiting.evict_oldest());
        CHECK(waiting.size() == 0);
    }
    SECTION("re-entering after leaving joins at the back") {
        waiting.leave(c[0]->membership);
        waiting.enter(c[0], c[0]->membership);
        for (int i = 0; i < 3; ++i) CHECK(waiting.evict_oldest());
        CHECK(c[0]->evictions == 0);
        CHECK(waiting.evict_oldest());
        CHECK(c[0]->evictions == 1);
    }
}

TEST_CASE("threads entering, leaving and evicting at once each evict a different connection", "[oldest_first]") {
    OldestFirst waiting;
    constexpr int kPerThread = 2000;
    std::vector<std::vector<std::shared_ptr<Connection>>> made(4);
    std::vector<std::thread> threads;
    std::atomic<int> evicted{0};
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < kPerThread; ++i) {
                auto c = std::make_shared<Connection>(waiting);
                waiting.enter(c, c->membership);
                made[t].push_back(c);
                if (i % 3 == 0) waiting.leave(c->membership);
                if (i % 2 == 0 && waiting.evict_oldest()) ++evicted;
            }
            for (auto& c : made[t]) waiting.leave(c->membership);
        });
    }
    for (auto& t : threads) t.join();
    int asked = 0;
    for (const auto& list : made) {
        for (const auto& c : list) {
            CHECK(c->evictions <= 1);
            asked += c->evictions;
        }
    }
    CHECK(asked == evicted.load());
    CHECK(waiting.size() == 0);
}
