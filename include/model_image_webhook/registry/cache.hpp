// Registry lookups kept by the digest they name (design.md 1.6): a found
// digest for --registry-found-ttl, in a bounded LRU (content addressing
// fixes what a digest holds, not that the registry keeps it or still lets
// this Pod read it); a miss or a failure for --registry-negative-ttl. Only
// what the registry said is kept: a look the webhook cut short is not. Keyed by the normalised locator, so
// "qwen@d" and "docker.io/library/qwen@d" are one entry, and by who may see
// it (PullCredentials::identity): what one Pod's pull secrets found is not
// found for a Pod without them.
//
// Looks run on the cache's own few workers, each to --registry-timeout from
// when it was asked, whoever asked first: a review waits for the answer until
// its own deadline only, and a review sent with a short ?timeout= leaves the
// look running for the reviews after it. So no answer is ever the result of
// one caller's deadline, and nothing a fetch does (an exception included)
// leaves a look unfinished. No I/O here: the fetcher does that.
#pragma once

#include "model_image_webhook/registry/keyring.hpp"
#include "model_image_webhook/registry/source.hpp"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

namespace miw {

using Deadline = std::chrono::steady_clock::time_point;

class RegistryFetcher {
public:
    virtual ~RegistryFetcher() = default;
    // One look over the network with `who`'s credentials before the node's,
    // ending by the deadline. May throw: the cache turns that into an answer.
    virtual RegistryLookup fetch(std::string_view reference, const PullCredentials& who, Deadline deadline) const = 0;
    // With the node's credentials alone.
    RegistryLookup fetch(std::string_view reference, Deadline deadline) const { return fetch(reference, PullCredentials{}, deadline); }
};

// The found digests kept: a few hundred bytes each.
inline constexpr std::size_t kRegistryCacheEntries = 4096;

// How an answer was had, for the metrics.
enum class RegistryAnswerOrigin : unsigned char { cache, fetched, shared };

struct RegistryAnswer {
    RegistryLookup lookup;
    RegistryAnswerOrigin origin = RegistryAnswerOrigin::fetched;
};

struct RegistryCacheSettings {
    std::chrono::milliseconds negative_ttl{30000};  // --registry-negative-ttl
    std::chrono::milliseconds found_ttl{600000};  // --registry-found-ttl
    std::chrono::milliseconds fetch_timeout{3000};  // --registry-timeout: one look, from when it is asked
    std::size_t workers = 4;  // looks over the network at once
    std::size_t max_waiting = 64;  // distinct digests waiting for a worker; past it, busy
    std::size_t max_found = kRegistryCacheEntries;
};

class RegistryCache {
public:
    RegistryCache(const RegistryFetcher& fetcher, RegistryCacheSettings settings);
    // Kept for tests and tools: the defaults but for the negative TTL.
    RegistryCache(const RegistryFetcher& fetcher, std::chrono::milliseconds negative_ttl) : RegistryCache(fetcher, settings_with(negative_ttl)) {}
    ~RegistryCache();
    RegistryCache(const RegistryCache&) = delete;
    RegistryCache& operator=(const RegistryCache&) = delete;

    // What is known without a look, for whoever holds `identity`; nullopt
    // when a look is needed.
    std::optional<RegistryLookup> cached(std::string_view reference, std::string_view identity = {}) const;
    // The cached answer, or the answer of the look for this digest and these
    // credentials (started now, or already under way), waited for until
    // `deadline`: past it, a timeout that is not kept, the look going on for
    // whoever asks next.
    RegistryAnswer lookup_until(std::string_view reference, Deadline deadline, const PullCredentials& who = {}) const;

    // Drops every miss and failure kept: what the registry said under
    // credentials or hosts that have since changed (a reload of the files).
    void forget_misses() const;

    std::size_t found_entries() const;
    // Digests waiting for a worker now.
    std::size_t waiting() const;

private:
    struct Flight {
        std::string key;
        std::string reference;
        PullCredentials who;
        Deadline asked;  // when the first review asked for it
        Deadline deadline;  // the look's own: --registry-timeout from when it was asked
        bool done = false;
        RegistryLookup result;
        std::condition_variable finished;
    };
    struct Negative {
        RegistryLookup lookup;
        std::chrono::steady_clock::time_point expires;
    };
    struct Found {
        std::string key;
        RegistryLookup lookup;
        std::chrono::steady_clock::time_point expires;
    };
    using FoundList = std::list<Found>;
    // Found by a string_view of the key, without a copy.
    struct TransparentHash {
        using is_transparent = void;
        std::size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
    };

    static RegistryCacheSettings settings_with(std::chrono::milliseconds negative_ttl) {
        RegistryCacheSettings s;
        s.negative_ttl = negative_ttl;
        return s;
    }
    // The normalised reference, and the identity after it where there is one
    // (made in `owned` where it is not the reference itself).
    static std::string_view key_of(std::string_view reference, std::string_view identity, std::string& owned);
    std::optional<RegistryLookup> cached_locked(std::string_view key, std::chrono::steady_clock::time_point now) const;
    void remember_locked(const std::string& key, const RegistryLookup& lookup, std::chrono::steady_clock::time_point now) const;
    void work();
    RegistryLookup look(const Flight& flight, bool& keep) const;
    // Whether a look's answer is the registry's to keep, not the webhook's own shortfall.
    bool keepable(const Flight& flight, const RegistryLookup& lookup, std::chrono::steady_clock::time_point started) const;

    const RegistryFetcher& fetcher_;
    RegistryCacheSettings settings_;
    mutable std::mutex mutex_;
    mutable std::condition_variable work_ready_;
    mutable std::deque<std::shared_ptr<Flight>> waiting_;
    bool stopping_ = false;
    mutable FoundList found_;  // most recently used first
    mutable std::unordered_map<std::string_view, FoundList::iterator> found_index_;  // keys view found_'s strings
    mutable std::unordered_map<std::string, Negative, TransparentHash, std::equal_to<>> negative_;
    mutable std::unordered_map<std::string, std::shared_ptr<Flight>, TransparentHash, std::equal_to<>> in_flight_;
    std::vector<std::thread> workers_;
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
