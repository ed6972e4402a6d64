// Registry lookups kept by digest: found for good, misses briefly, one look shared.
#include "model_image_webhook/registry_cache.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <thread>
#include <vector>

using namespace miw;
using namespace std::chrono_literals;

namespace {

class CountingFetcher : public RegistryFetcher {
public:
    RegistryLookupStatus status = RegistryLookupStatus::found;
    RegistryFailure failure = RegistryFailure::timeout;  // when unavailable
    std::chrono::milliseconds delay{0};
    mutable std::atomic<int> calls{0};

    RegistryLookup fetch(std::string_view, Deadline) const override {
        ++calls;
        if (delay.count() > 0) std::this_thread::sleep_for(delay);
        RegistryLookup out;
        out.status = status;
        if (status == RegistryLookupStatus::found) out.compressed_bytes = 42;
        if (status == RegistryLookupStatus::unavailable) out.failure = failure;
        return out;
    }
};

Deadline soon() { return std::chrono::steady_clock::now() + 5s; }

}  // namespace

TEST_CASE("a found digest is answered from the cache from then on", "[registry_cache]") {
    CountingFetcher fetcher;
    RegistryCache cache(fetcher, 30s);
    CHECK_FALSE(cache.cached("r/a@sha256:1").has_value());
    CHECK(cache.lookup_until("r/a@sha256:1", soon()).origin == RegistryAnswerOrigin::fetched);
    const RegistryAnswer again = cache.lookup_until("r/a@sha256:1", soon());
    CHECK(again.origin == RegistryAnswerOrigin::cache);
    CHECK(again.lookup.compressed_bytes == 42u);
    CHECK(fetcher.calls == 1);
    REQUIRE(cache.cached("r/a@sha256:1").has_value());
}

TEST_CASE("a miss or a failure is kept for the negative TTL only", "[registry_cache]") {
    for (const auto status : {RegistryLookupStatus::not_found, RegistryLookupStatus::unavailable, RegistryLookupStatus::digest_mismatch}) {
        CountingFetcher fetcher;
        fetcher.status = status;
        RegistryCache cache(fetcher, 50ms);
        cache.lookup_until("r/a@sha256:1", soon());
        CHECK(cache.lookup_until("r/a@sha256:1", soon()).origin == RegistryAnswerOrigin::cache);
        CHECK(fetcher.calls == 1);
        std::this_thread::sleep_for(80ms);
        CHECK_FALSE(cache.cached("r/a@sha256:1").has_value());
        fetcher.status = RegistryLookupStatus::found;  // pushed since
        CHECK(cache.lookup_until("r/a@sha256:1", soon()).lookup.status == RegistryLookupStatus::found);
        CHECK(fetcher.calls == 2);
    }
}

TEST_CASE("a lookup the webhook was too busy to make is not kept: the registry said nothing", "[registry_cache]") {
    CountingFetcher fetcher;
    fetcher.status = RegistryLookupStatus::unavailable;
    fetcher.failure = RegistryFailure::busy;
    RegistryCache cache(fetcher, 30s);
    CHECK(cache.lookup_until("r/a@sha256:1", soon()).lookup.failure == RegistryFailure::busy);
    CHECK_FALSE(cache.cached("r/a@sha256:1").has_value());
    CHECK(cache.lookup_until("r/a@sha256:1", soon()).origin == RegistryAnswerOrigin::fetched);
    CHECK(fetcher.calls == 2);
}

TEST_CASE("the found digests kept are bounded, the least recently used going first", "[registry_cache]") {
    CountingFetcher fetcher;
    RegistryCache cache(fetcher, 30s, 3);
    for (const char* r : {"a", "b", "c"}) cache.lookup_until(r, soon());
    cache.lookup_until("a", soon());  // used again: kept
    cache.lookup_until("d", soon());  // b goes
    CHECK(cache.found_entries() == 3);
    CHECK(cache.cached("a").has_value());
    CHECK_FALSE(cache.cached("b").has_value());
    CHECK(cache.cached("d").has_value());
}

TEST_CASE("reviews asking for one digest at once share one look", "[registry_cache]") {
    CountingFetcher fetcher;
    fetcher.delay = 200ms;
    RegistryCache cache(fetcher, 30s);
    std::vector<std::thread> threads;
    std::atomic<int> found{0};
    for (int i = 0; i < 8; ++i) {
        threads.emplace_back([&] {
            if (cache.lookup_until("r/a@sha256:1", soon()).lookup.status == RegistryLookupStatus::found) ++found;
        });
    }
    for (auto& t : threads) t.join();
    CHECK(fetcher.calls == 1);
    CHECK(found == 8);
}

TEST_CASE("a review whose deadline passes while another looks gets a timeout, not a wait", "[registry_cache]") {
    CountingFetcher fetcher;
    fetcher.delay = 300ms;
    RegistryCache cache(fetcher, 30s);
    std::thread first([&] { cache.lookup_until("r/a@sha256:1", soon()); });
    std::this_thread::sleep_for(50ms);
    const RegistryAnswer late = cache.lookup_until("r/a@sha256:1", std::chrono::steady_clock::now() + 20ms);
    first.join();
    CHECK(late.origin == RegistryAnswerOrigin::shared);
    CHECK(late.lookup.status == RegistryLookupStatus::unavailable);
    CHECK(late.lookup.failure == RegistryFailure::timeout);
    CHECK(fetcher.calls == 1);
}
