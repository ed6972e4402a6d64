// What the sessions share: the registry shutdown closes the idle ones
// through, and the budget of request bytes in flight (session.hpp).
#include "session.hpp"

namespace miw::server {

void SessionRegistry::add(std::weak_ptr<SessionBase> session) {
    std::lock_guard lock(mutex_);
    if (++adds_since_sweep_ >= 256) {
        sessions_.remove_if([](const auto& w) { return w.expired(); });
        adds_since_sweep_ = 0;
    }
    sessions_.push_back(std::move(session));
}

bool BytesInFlight::reserve(std::size_t bytes) {
    std::size_t current = in_flight_.load(std::memory_order_relaxed);
    do {
        if (bytes > limit_ || current > limit_ - bytes) return false;
    } while (!in_flight_.compare_exchange_weak(current, current + bytes, std::memory_order_relaxed));
    return true;
}

void SessionRegistry::close_idle() {
    std::lock_guard lock(mutex_);
    for (const auto& w : sessions_) {
        if (auto s = w.lock()) s->close_if_idle();
    }
}

}  // namespace miw::server
