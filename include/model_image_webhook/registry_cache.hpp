// Registry lookups kept by digest (design.md 1.6): a found digest is found
// for good (content addressed), in a bounded LRU; a miss or a failure for
// --registry-negative-ttl; reviews asking for one digest at once share one
// lookup. No I/O here: the fetcher does that.
#pragma once

#include "model_image_webhook/registry_source.hpp"

#include <chrono>
#include <condition_variable>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace miw {

using Deadline = std::chrono::steady_clock::time_point;

class RegistryFetcher {
public:
    virtual ~RegistryFetcher() = default;
    // One look over the network, ending by the deadline.
    virtual RegistryLookup fetch(std::string_view reference, Deadline deadline) const = 0;
};

// The found digests kept: a few hundred bytes each.
inline constexpr std::size_t kRegistryCacheEntries = 4096;

// How an answer was had, for the metrics.
enum class RegistryAnswerOrigin : unsigned char { cache, fetched, shared };

struct RegistryAnswer {
    RegistryLookup lookup;
    RegistryAnswerOrigin origin = RegistryAnswerOrigin::fetched;
};

class RegistryCache {
public:
    RegistryCache(const RegistryFetcher& fetcher, std::chrono::milliseconds negative_ttl, std::size_t max_found = kRegistryCacheEntries)
        : fetcher_(fetcher), negative_ttl_(negative_ttl), max_found_(max_found) {}

    // What is known without a look; nullopt when a look is needed.
    std::optional<RegistryLookup> cached(std::string_view reference) const;
    // The cached answer, or the answer of a look: this call's own, or the
    // one already under way for the same reference (waited for until the
    // deadline: past it, a timeout).
    RegistryAnswer lookup_until(std::string_view reference, Deadline deadline) const;

    std::size_t found_entries() const;

private:
    struct Flight {
        bool done = false;
        RegistryLookup result;
        std::condition_variable finished;
    };
    struct Negative {
        RegistryLookup lookup;
        std::chrono::steady_clock::time_point expires;
    };
    using FoundList = std::list<std::pair<std::string, RegistryLookup>>;
    // Found by a string_view of the request, without a copy of the reference.
    struct TransparentHash {
        using is_transparent = void;
        std::size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
    };

    std::optional<RegistryLookup> cached_locked(std::string_view reference, std::chrono::steady_clock::time_point now) const;
    void remember_locked(const std::string& reference, const RegistryLookup& lookup, std::chrono::steady_clock::time_point now) const;

    const RegistryFetcher& fetcher_;
    std::chrono::milliseconds negative_ttl_;
    std::size_t max_found_;
    mutable std::mutex mutex_;
    mutable FoundList found_;  // most recently used first
    mutable std::unordered_map<std::string_view, FoundList::iterator> found_index_;  // keys view found_'s strings
    mutable std::unordered_map<std::string, Negative, TransparentHash, std::equal_to<>> negative_;
    mutable std::unordered_map<std::string, std::shared_ptr<Flight>> in_flight_;
};

// The cache as the rules see it, each look bounded by `timeout` from when it is asked.
class CachedRegistrySource : public RegistrySource {
public:
    CachedRegistrySource(const RegistryCache& cache, std::chrono::milliseconds timeout) : cache_(cache), timeout_(timeout) {}
    RegistryLookup lookup(std::string_view reference) const override {
        return cache_.lookup_until(reference, std::chrono::steady_clock::now() + timeout_).lookup;
    }

private:
    const RegistryCache& cache_;
    std::chrono::milliseconds timeout_;
};

}  // namespace miw
