// What the sessions share: the registry shutdown closes idle ones through, and
// the budget of request bytes in flight.
#include "../../src/server/session.hpp"

#include <catch2/catch.hpp>

#include <memory>
#include <vector>

using namespace miw::server;

namespace {

class CountingSession : public SessionBase {
public:
    void close_if_idle() override { ++closed; }
    void evict() override {}
    int closed = 0;
};

}  // namespace

TEST_CASE("the bytes in flight are held to their limit, and given back", "[session_registry]") {
    BytesInFlight budget(100);
    CHECK(budget.reserve(60));
    CHECK_FALSE(budget.reserve(41));  // nothing taken when it does not fit
    CHECK(budget.reserve(40));
    CHECK_FALSE(budget.reserve(1));
    budget.release(60);
    CHECK(budget.reserve(60));
    CHECK_FALSE(budget.reserve(static_cast<std::size_t>(-1)));  // no wrap-around
    CHECK(budget.capacity() == 100);
}

TEST_CASE("shutdown reaches the sessions still open, and only those", "[session_registry]") {
    SessionRegistry registry;
    auto open = std::make_shared<CountingSession>();
    registry.add(open);
    for (int i = 0; i < 300; ++i) {  // past a sweep of the expired ones
        auto s = std::make_shared<CountingSession>();
        registry.add(s);
    }
    registry.close_idle();
    CHECK(open->closed == 1);
}
