#include "oldest_first.hpp"

#include "session.hpp"

namespace miw::server {

void OldestFirst::enter(std::weak_ptr<SessionBase> session, Membership& membership) {
    std::lock_guard lock(mutex_);
    if (membership.in_) return;
    members_.emplace_back(std::move(session), &membership);
    membership.at_ = std::prev(members_.end());
    membership.in_ = true;
}

void OldestFirst::leave(Membership& membership) {
    std::lock_guard lock(mutex_);
    if (!membership.in_) return;
    members_.erase(membership.at_);
    membership.in_ = false;
}

bool OldestFirst::evict_oldest() {
    std::shared_ptr<SessionBase> oldest;
    {
        std::lock_guard lock(mutex_);
        while (!members_.empty() && !oldest) {
            // A member whose last owner is gone is on its way out: its
            // destructor waits on this lock to leave, and finds itself out.
            oldest = members_.front().first.lock();
            members_.front().second->in_ = false;
            members_.pop_front();
        }
    }
    if (!oldest) return false;
    oldest->evict();
    return true;
}

std::size_t OldestFirst::size() const {
    std::lock_guard lock(mutex_);
    return members_.size();
}

}  // namespace miw::server
