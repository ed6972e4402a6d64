#include "model_image_webhook/registry/cache.hpp"

#include "model_image_webhook/registry/locator.hpp"

#include <exception>

namespace miw {

RegistryCache::RegistryCache(const RegistryFetcher& fetcher, RegistryCacheSettings settings) : fetcher_(fetcher), settings_(settings) {
    if (settings_.workers == 0) settings_.workers = 1;
    workers_.reserve(settings_.workers);
    for (std::size_t i = 0; i < settings_.workers; ++i) workers_.emplace_back([this] { work(); });
}

RegistryCache::~RegistryCache() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    work_ready_.notify_all();
    for (std::thread& t : workers_) t.join();
}


std::optional<RegistryLookup> RegistryCache::cached_locked(std::string_view key, std::chrono::steady_clock::time_point now) const {
    if (const auto it = found_index_.find(key); it != found_index_.end()) {
        if (it->second->expires <= now) {
            const FoundList::iterator entry = it->second;
            found_index_.erase(it);
            found_.erase(entry);
            return std::nullopt;
        }
        found_.splice(found_.begin(), found_, it->second);
        return it->second->lookup;
    }
    if (const auto it = negative_.find(key); it != negative_.end()) {
        if (it->second.expires > now) return it->second.lookup;
        negative_.erase(it);
    }
    return std::nullopt;
}

void RegistryCache::remember_locked(const std::string& key, const RegistryLookup& lookup, std::chrono::steady_clock::time_point now) const {
    if (lookup.status != RegistryLookupStatus::found) {
        // Bounded whatever references requests bring: expired ones go first, then all.
        if (negative_.size() >= settings_.max_found) {
            for (auto it = negative_.begin(); it != negative_.end();) it = it->second.expires <= now ? negative_.erase(it) : std::next(it);
            if (negative_.size() >= settings_.max_found) negative_.clear();
        }
        negative_[key] = Negative{lookup, now + settings_.negative_ttl};
        return;
    }
    if (const auto it = negative_.find(key); it != negative_.end()) negative_.erase(it);
    if (const auto it = found_index_.find(key); it != found_index_.end()) {
        it->second->expires = now + settings_.found_ttl;
        return;
    }
    found_.push_front(Found{key, lookup, now + settings_.found_ttl});
    found_index_.emplace(found_.front().key, found_.begin());
    if (found_.size() > settings_.max_found) {
        found_index_.erase(found_.back().key);
        found_.pop_back();
    }
}

std::string_view RegistryCache::key_of(std::string_view reference, std::string_view identity, std::string& owned) {
    // A canonical reference looked up with the node's credentials is its own key: no copy on the warm path.
    if (identity.empty() && is_canonical_reference(reference)) return reference;
    owned = canonical_reference(reference);
    if (!identity.empty()) {
        owned += '\n';  // in no reference
        owned += identity;
    }
    return owned;
}

std::optional<RegistryLookup> RegistryCache::cached(std::string_view reference, std::string_view identity) const {
    std::string owned;
    const std::string_view key = key_of(reference, identity, owned);
    std::lock_guard lock(mutex_);
    return cached_locked(key, std::chrono::steady_clock::now());
}

RegistryAnswer RegistryCache::lookup_until(std::string_view reference, Deadline deadline, const PullCredentials& who) const {
    std::string owned;
    const std::string_view key = key_of(reference, who.identity, owned);
    std::shared_ptr<Flight> flight;
    bool started = false;
    std::unique_lock lock(mutex_);
    const auto now = std::chrono::steady_clock::now();
    if (auto known = cached_locked(key, now)) return {std::move(*known), RegistryAnswerOrigin::cache};
    if (const auto it = in_flight_.find(key); it != in_flight_.end()) {
        flight = it->second;
    } else {
        if (waiting_.size() >= settings_.max_waiting) {
            RegistryLookup busy;
            busy.failure = RegistryFailure::busy;
            busy.detail = "the webhook's registry lookups were all taken, with " + std::to_string(waiting_.size()) + " more digests waiting";
            return {std::move(busy), RegistryAnswerOrigin::fetched};
        }
        flight = std::make_shared<Flight>();
        flight->key = std::string(key);
        flight->reference = std::string(reference);
        flight->who = who;
        flight->asked = now;
        flight->deadline = now + settings_.fetch_timeout;
        in_flight_.emplace(flight->key, flight);
        waiting_.push_back(flight);
        started = true;
        work_ready_.notify_one();
    }
    const RegistryAnswerOrigin origin = started ? RegistryAnswerOrigin::fetched : RegistryAnswerOrigin::shared;
    if (!flight->finished.wait_until(lock, deadline, [&] { return flight->done; })) {
        // The look goes on, and its answer serves the next review. A tenant
        // reads what a refused connection reads: a port that never answers
        // is told no otherwise than one that refuses.
        RegistryLookup late;
        late.failure = RegistryFailure::timeout;
        const Result<RegistryLocator> located = locate_in_registry(reference);
        late.detail = "the registry " + (located ? located->registry : std::string("of the reference")) + " could not be reached";
        return {std::move(late), origin};
    }
    return {flight->result, origin};
}

RegistryLookup RegistryCache::look(const Flight& flight, bool& keep) const {
    keep = true;
    if (std::chrono::steady_clock::now() >= flight.deadline) {
        RegistryLookup busy;
        busy.failure = RegistryFailure::busy;
        busy.detail = "the webhook's " + std::to_string(settings_.workers) + " registry lookups at once were all taken until the deadline";
        return busy;
    }
    // Whatever happens in the fetch, the flight ends with an answer.
    RegistryLookup failed;
    failed.failure = RegistryFailure::bad_answer;
    keep = false;  // the webhook's failure, not the registry's answer: asked again next time
    try {
        RegistryLookup answer = fetcher_.fetch(flight.reference, flight.who, flight.deadline);
        keep = true;
        return answer;
    } catch (const std::exception& e) {
        failed.detail = std::string("the lookup failed inside the webhook: ") + e.what();
    } catch (...) {
        failed.detail = "the lookup failed inside the webhook";
    }
    return failed;
}

bool RegistryCache::keepable(const Flight& flight, const RegistryLookup& lookup, std::chrono::steady_clock::time_point started) const {
    if (lookup.incomplete || lookup.failure == RegistryFailure::busy) return false;
    // A look that waited for a worker had less than --registry-timeout: its
    // timeout is the webhook's crowd, not the registry's slowness.
    if (lookup.failure == RegistryFailure::timeout && started - flight.asked > settings_.fetch_timeout / 10) return false;
    return true;
}

void RegistryCache::work() {
    std::unique_lock lock(mutex_);
    while (true) {
        work_ready_.wait(lock, [&] { return stopping_ || !waiting_.empty(); });
        if (waiting_.empty()) return;  // stopping, nothing left
        std::shared_ptr<Flight> flight = std::move(waiting_.front());
        waiting_.pop_front();
        lock.unlock();
        const auto started = std::chrono::steady_clock::now();
        bool keep = true;
        RegistryLookup result = look(*flight, keep);
        lock.lock();
        if (keep && keepable(*flight, result, started)) remember_locked(flight->key, result, std::chrono::steady_clock::now());
        flight->result = std::move(result);
        flight->done = true;
        in_flight_.erase(flight->key);
        flight->finished.notify_all();
    }
}

void RegistryCache::forget_misses() const {
    std::lock_guard lock(mutex_);
    negative_.clear();
}

std::size_t RegistryCache::waiting() const {
    std::lock_guard lock(mutex_);
    return waiting_.size();
}

std::size_t RegistryCache::found_entries() const {
    std::lock_guard lock(mutex_);
    return found_.size();
}

}  // namespace miw
