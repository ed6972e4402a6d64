// Connections in one waiting state (not yet served; in a TLS handshake),
// oldest first, so that the oldest can be closed to make room for a newer one:
// a client that completes its handshake and sends its request is served
// however many half-open connections someone else holds. Shared by the I/O
// threads; each connection belongs to one of them, so closing one is asked
// of it (SessionBase::evict), not done here.
#pragma once

#include <list>
#include <memory>
#include <mutex>
#include <utility>

namespace miw::server {

class SessionBase;

class OldestFirst {
public:
    // A connection's place, owned by it; touched only under the ledger's lock.
    class Membership {
        friend class OldestFirst;
        std::list<std::pair<std::weak_ptr<SessionBase>, Membership*>>::iterator at_;
        bool in_ = false;
    };

    // Joins at the back (the newest). Once only, until it leaves or is evicted.
    void enter(std::weak_ptr<SessionBase> session, Membership& membership);
    // Leaves; nothing when it was never in or was evicted already.
    void leave(Membership& membership);
    // Takes the oldest member out and asks it to close. False when there is
    // none (every member has gone already).
    bool evict_oldest();
    std::size_t size() const;

private:
    mutable std::mutex mutex_;
    std::list<std::pair<std::weak_ptr<SessionBase>, Membership*>> members_;
};

}  // namespace miw::server
