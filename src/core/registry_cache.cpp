#include "model_image_webhook/registry_cache.hpp"

namespace miw {

std::optional<RegistryLookup> RegistryCache::cached_locked(std::string_view reference, std::chrono::steady_clock::time_point now) const {
    if (const auto it = found_index_.find(reference); it != found_index_.end()) {
        found_.splice(found_.begin(), found_, it->second);
        return it->second->second;
    }
    if (const auto it = negative_.find(reference); it != negative_.end()) {
        if (it->second.expires > now) return it->second.lookup;
        negative_.erase(it);
    }
    return std::nullopt;
}

void RegistryCache::remember_locked(const std::string& reference, const RegistryLookup& lookup, std::chrono::steady_clock::time_point now) const {
    if (lookup.failure == RegistryFailure::busy) return;  // the webhook's own crowd, not the registry's answer
    if (lookup.status != RegistryLookupStatus::found) {
        // Bounded whatever references requests bring: expired ones go first, then all.
        if (negative_.size() >= max_found_) {
            for (auto it = negative_.begin(); it != negative_.end();) it = it->second.expires <= now ? negative_.erase(it) : std::next(it);
            if (negative_.size() >= max_found_) negative_.clear();
        }
        negative_[reference] = Negative{lookup, now + negative_ttl_};
        return;
    }
    negative_.erase(reference);
    if (found_index_.count(reference) != 0) return;
    found_.emplace_front(reference, lookup);
    found_index_.emplace(found_.front().first, found_.begin());
    if (found_.size() > max_found_) {
        found_index_.erase(found_.back().first);
        found_.pop_back();
    }
}

std::optional<RegistryLookup> RegistryCache::cached(std::string_view reference) const {
    std::lock_guard lock(mutex_);
    return cached_locked(reference, std::chrono::steady_clock::now());
}

RegistryAnswer RegistryCache::lookup_until(std::string_view reference, Deadline deadline) const {
    std::string key;  // made only past the cache: a hit copies nothing
    std::shared_ptr<Flight> flight;
    {
        std::unique_lock lock(mutex_);
        if (auto known = cached_locked(reference, std::chrono::steady_clock::now())) return {std::move(*known), RegistryAnswerOrigin::cache};
        key.assign(reference);
        if (const auto it = in_flight_.find(key); it != in_flight_.end()) {
            // Another review is looking: wait for its answer.
            std::shared_ptr<Flight> shared = it->second;
            if (!shared->finished.wait_until(lock, deadline, [&] { return shared->done; })) {
                RegistryLookup late;
                late.failure = RegistryFailure::timeout;
                late.detail = "no answer before the review's deadline (a lookup of the same digest was under way)";
                return {std::move(late), RegistryAnswerOrigin::shared};
            }
            return {shared->result, RegistryAnswerOrigin::shared};
        }
        flight = std::make_shared<Flight>();
        in_flight_.emplace(key, flight);
    }
    RegistryLookup result = fetcher_.fetch(reference, deadline);
    {
        std::lock_guard lock(mutex_);
        remember_locked(key, result, std::chrono::steady_clock::now());
        flight->result = result;
        flight->done = true;
        in_flight_.erase(key);
    }
    flight->finished.notify_all();
    return {std::move(result), RegistryAnswerOrigin::fetched};
}

std::size_t RegistryCache::found_entries() const {
    std::lock_guard lock(mutex_);
    return found_.size();
}

}  // namespace miw
