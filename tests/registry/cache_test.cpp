// Registry lookups kept by digest: found for the found TTL, misses briefly, one look shared, only what the registry said kept.
#include "model_image_webhook/registry/cache.hpp"
#include "model_image_webhook/registry/kubelet_keyring.hpp"

#include <stdexcept>

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
    bool incomplete = false;
    std::chrono::milliseconds delay{0};
    mutable std::atomic<int> calls{0};

    RegistryLookup fetch(std::string_view, const PullCredentials&, Deadline) const override {
        ++calls;
        if (delay.count() > 0) std::this_thread::sleep_for(delay);
        RegistryLookup out;
        out.status = status;
        if (status == RegistryLookupStatus::found) out.compressed_bytes = 42;
        if (status == RegistryLookupStatus::unavailable) out.failure = failure;
        out.incomplete = incomplete;
        return out;
    }
};

// A registry that answers in `takes`: a look whose deadline comes first times out, as the real client does.
class SlowRegistry : public RegistryFetcher {
public:
    std::chrono::milliseconds takes{200};
    mutable std::atomic<int> calls{0};
    RegistryLookup fetch(std::string_view, const PullCredentials&, Deadline deadline) const override {
        ++calls;
        RegistryLookup out;
        if (std::chrono::steady_clock::now() + takes > deadline) {
            std::this_thread::sleep_until(deadline);
            out.failure = RegistryFailure::timeout;
            return out;
        }
        std::this_thread::sleep_for(takes);
        out.status = RegistryLookupStatus::found;
        out.compressed_bytes = 7;
        return out;
    }
};

class ThrowingFetcher : public RegistryFetcher {
public:
    mutable std::atomic<int> calls{0};
    RegistryLookup fetch(std::string_view, const PullCredentials&, Deadline) const override {
        if (++calls == 1) throw std::runtime_error("Too many open files");
        RegistryLookup out;
        out.status = RegistryLookupStatus::found;
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

TEST_CASE("a found digest is kept for the found TTL only: the registry may drop it or close it", "[registry_cache]") {
    CountingFetcher fetcher;
    RegistryCacheSettings settings;
    settings.found_ttl = 50ms;
    RegistryCache cache(fetcher, settings);
    cache.lookup_until("r/a@sha256:1", soon());
    CHECK(cache.lookup_until("r/a@sha256:1", soon()).origin == RegistryAnswerOrigin::cache);
    std::this_thread::sleep_for(80ms);
    CHECK_FALSE(cache.cached("r/a@sha256:1").has_value());
    CHECK(cache.found_entries() == 0);
    fetcher.status = RegistryLookupStatus::not_found;  // deleted by a retention policy since
    CHECK(cache.lookup_until("r/a@sha256:1", soon()).lookup.status == RegistryLookupStatus::not_found);
    CHECK(fetcher.calls == 2);
}

TEST_CASE("a look the webhook cut short is not kept, whatever it says", "[registry_cache]") {
    struct Case {
        const char* name;
        RegistryLookupStatus status;
        RegistryFailure failure;
    };
    const Case cases[] = {
        {"unauthorized while a credential source could not answer", RegistryLookupStatus::unavailable, RegistryFailure::unauthorized},
        {"a timeout between hosts", RegistryLookupStatus::unavailable, RegistryFailure::timeout},
        {"an unknown manifest from the first of two hosts", RegistryLookupStatus::not_found, RegistryFailure::none},
    };
    for (const Case& c : cases) {
        SECTION(c.name) {
            CountingFetcher fetcher;
            fetcher.status = c.status;
            fetcher.failure = c.failure;
            fetcher.incomplete = true;
            RegistryCache cache(fetcher, 30s);
            CHECK(cache.lookup_until("r/a@sha256:1", soon()).lookup.status == c.status);
            CHECK_FALSE(cache.cached("r/a@sha256:1").has_value());
            CHECK(cache.lookup_until("r/a@sha256:1", soon()).origin == RegistryAnswerOrigin::fetched);
            CHECK(fetcher.calls == 2);
        }
    }
}

TEST_CASE("a look that waited for a worker and then timed out is not kept; one given its whole time is", "[registry_cache]") {
    SlowRegistry registry;
    registry.takes = 600ms;
    RegistryCacheSettings settings;
    settings.workers = 1;
    settings.fetch_timeout = 400ms;
    RegistryCache cache(registry, settings);
    // The first look has its whole time, and times out: the registry's slowness, kept.
    std::thread first([&] { cache.lookup_until("r/a@sha256:1", soon()); });
    while (registry.calls == 0) std::this_thread::sleep_for(1ms);
    std::this_thread::sleep_for(200ms);
    // The second waits behind it for the one worker, and has no time left when its turn comes.
    const RegistryAnswer second = cache.lookup_until("r/b@sha256:2", soon());
    first.join();
    CHECK(second.lookup.failure != RegistryFailure::none);
    CHECK(cache.cached("r/a@sha256:1").has_value());
    CHECK_FALSE(cache.cached("r/b@sha256:2").has_value());
}

TEST_CASE("misses are forgotten at once when the credentials or hosts change; found digests stay", "[registry_cache]") {
    CountingFetcher fetcher;
    fetcher.status = RegistryLookupStatus::unavailable;
    fetcher.failure = RegistryFailure::unauthorized;
    RegistryCache cache(fetcher, 30s);
    cache.lookup_until("r/a@sha256:1", soon());
    fetcher.status = RegistryLookupStatus::found;
    cache.lookup_until("r/b@sha256:2", soon());
    CHECK(cache.cached("r/a@sha256:1").has_value());
    cache.forget_misses();
    CHECK_FALSE(cache.cached("r/a@sha256:1").has_value());
    CHECK(cache.cached("r/b@sha256:2").has_value());
    CHECK(cache.lookup_until("r/a@sha256:1", soon()).lookup.status == RegistryLookupStatus::found);
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
    RegistryCacheSettings settings;
    settings.max_found = 3;
    RegistryCache cache(fetcher, settings);
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
    const std::string kPinned = "r/a@sha256:" + std::string(64, '1');
    CountingFetcher fetcher;
    fetcher.delay = 300ms;
    RegistryCache cache(fetcher, 30s);
    std::thread first([&] { cache.lookup_until(kPinned, soon()); });
    std::this_thread::sleep_for(50ms);
    const RegistryAnswer late = cache.lookup_until(kPinned, std::chrono::steady_clock::now() + 20ms);
    first.join();
    CHECK(late.origin == RegistryAnswerOrigin::shared);
    CHECK(late.lookup.status == RegistryLookupStatus::unavailable);
    CHECK(late.lookup.failure == RegistryFailure::timeout);
    // As a tenant reads a port that refuses: one that never answers is told no otherwise.
    CHECK(late.lookup.detail == "the registry docker.io could not be reached");
    CHECK(fetcher.calls == 1);
}

TEST_CASE("one review's short deadline never switches the check off for the reviews after it", "[registry_cache]") {
    SlowRegistry registry;
    RegistryCacheSettings settings;
    settings.fetch_timeout = 2s;
    RegistryCache cache(registry, settings);
    // Sent with ?timeout=1s, say: this review gives up before the registry answers.
    const RegistryAnswer hurried = cache.lookup_until("registry.example/team/qwen@sha256:1", std::chrono::steady_clock::now() + 50ms);
    CHECK(hurried.lookup.failure == RegistryFailure::timeout);
    CHECK_FALSE(cache.cached("registry.example/team/qwen@sha256:1").has_value());  // not the registry's answer: not kept
    // The look went on to --registry-timeout; the next review has its answer.
    std::this_thread::sleep_for(300ms);
    const RegistryAnswer next = cache.lookup_until("registry.example/team/qwen@sha256:1", soon());
    CHECK(next.origin == RegistryAnswerOrigin::cache);
    CHECK(next.lookup.status == RegistryLookupStatus::found);
    CHECK(registry.calls == 1);
}

TEST_CASE("a look that throws ends with an answer, is not kept, and the digest is looked up again", "[registry_cache]") {
    ThrowingFetcher fetcher;
    RegistryCache cache(fetcher, 30s);
    const RegistryAnswer first = cache.lookup_until("registry.example/team/qwen@sha256:1", soon());
    CHECK(first.lookup.status == RegistryLookupStatus::unavailable);
    CHECK(first.lookup.failure == RegistryFailure::bad_answer);
    CHECK(first.lookup.detail.find("Too many open files") != std::string::npos);
    CHECK_FALSE(cache.cached("registry.example/team/qwen@sha256:1").has_value());
    CHECK(cache.lookup_until("registry.example/team/qwen@sha256:1", soon()).lookup.status == RegistryLookupStatus::found);
    CHECK(fetcher.calls == 2);
}

TEST_CASE("every way of writing one digest is one entry", "[registry_cache]") {
    CountingFetcher fetcher;
    RegistryCache cache(fetcher, 30s);
    const std::string digest = "sha256:" + std::string(64, 'a');
    cache.lookup_until("qwen@" + digest, soon());
    CHECK(cache.lookup_until("docker.io/library/qwen@" + digest, soon()).origin == RegistryAnswerOrigin::cache);
    CHECK(cache.lookup_until("index.docker.io/qwen:v1@" + digest, soon()).origin == RegistryAnswerOrigin::cache);
    CHECK_FALSE(cache.cached("docker.io/library/other@" + digest).has_value());
    CHECK(fetcher.calls == 1);
    cache.lookup_until("registry.example.com:5000/team/qwen@" + digest, soon());
    CHECK(cache.lookup_until("registry.example.com:5000/team/qwen:v1@" + digest, soon()).origin == RegistryAnswerOrigin::cache);
    cache.lookup_until("docker.io/vllm/model:v2@" + digest, soon());
    CHECK(cache.lookup_until("vllm/model@" + digest, soon()).origin == RegistryAnswerOrigin::cache);
    CHECK(fetcher.calls == 3);
}

TEST_CASE("past the digests that may wait for a worker, a look is busy and not kept", "[registry_cache]") {
    CountingFetcher fetcher;
    fetcher.delay = 300ms;
    RegistryCacheSettings settings;
    settings.workers = 1;
    settings.max_waiting = 1;
    RegistryCache cache(fetcher, settings);
    // Until a condition holds: threads started a moment ago may not have begun on a loaded or sanitized build.
    const auto until = [](const auto& holds) {
        const auto limit = std::chrono::steady_clock::now() + 10s;
        while (!holds() && std::chrono::steady_clock::now() < limit) std::this_thread::sleep_for(1ms);
    };
    std::thread first([&] { cache.lookup_until("r/a@sha256:1", soon()); });
    until([&] { return fetcher.calls == 1; });  // r/a is being looked up
    std::thread second([&] { cache.lookup_until("r/b@sha256:1", soon()); });
    until([&] { return cache.waiting() == 1; });  // r/b waits
    const RegistryAnswer crowded = cache.lookup_until("r/c@sha256:1", soon());
    first.join();
    second.join();
    CHECK(crowded.lookup.failure == RegistryFailure::busy);
    CHECK_FALSE(cache.cached("r/c@sha256:1").has_value());
    CHECK(cache.cached("r/b@sha256:1").has_value());
}

namespace {

// A private repository: found only with the one credential that opens it.
class PrivateRegistry : public RegistryFetcher {
public:
    mutable std::atomic<int> calls{0};
    RegistryLookup fetch(std::string_view, const PullCredentials& who, Deadline) const override {
        ++calls;
        RegistryLookup out;
        const bool holds = who.keyring && !who.keyring->lookup("registry.example", "team/qwen").empty();
        if (holds) {
            out.status = RegistryLookupStatus::found;
        } else {
            out.failure = RegistryFailure::unauthorized;
            out.detail = "the registry refused the credentials";
        }
        return out;
    }
};

PullCredentials holding(const std::string& user) {
    auto keyring = std::make_shared<KubeletKeyring>();
    keyring->add("registry.example", RegistryCredential{user, "pw"});
    return PullCredentials{"holder-" + user, keyring};
}

}  // namespace

TEST_CASE("what one holder's credentials found is not found for another, nor for none", "[registry_cache]") {
    PrivateRegistry registry;
    RegistryCache cache(registry, 30s);
    const std::string reference = "registry.example/team/qwen@sha256:" + std::string(64, 'a');
    const PullCredentials alice = holding("alice");
    CHECK(cache.lookup_until(reference, soon(), alice).lookup.status == RegistryLookupStatus::found);
    // Without them: its own look, and the registry's refusal.
    const RegistryAnswer anonymous = cache.lookup_until(reference, soon());
    CHECK(anonymous.origin == RegistryAnswerOrigin::fetched);
    CHECK(anonymous.lookup.failure == RegistryFailure::unauthorized);
    CHECK_FALSE(cache.cached(reference).value().status == RegistryLookupStatus::found);
    // The same credentials (another Pod with a copy of the secret) share the answer.
    const RegistryAnswer again = cache.lookup_until(reference, soon(), holding("alice"));
    CHECK(again.origin == RegistryAnswerOrigin::cache);
    CHECK(again.lookup.status == RegistryLookupStatus::found);
    CHECK(cache.cached(reference, alice.identity).has_value());
    CHECK(cache.lookup_until(reference, soon(), holding("bob")).origin == RegistryAnswerOrigin::fetched);
    CHECK(registry.calls == 3);
}
