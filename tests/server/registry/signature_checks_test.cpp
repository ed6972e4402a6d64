// The signature checks over a scripted fetch: one fetch for reviews that
// ask at once, verdicts kept for their TTL, a failure to fetch never kept.
#include "../../../src/server/registry/signature_checks.hpp"

#include "../../../src/sigstore/image_policy.hpp"
#include "../../sigstore/repository_file.hpp"

#include "model_image_webhook/sigstore/trusted_root.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <thread>

using namespace miw;
using namespace miw::server;
using namespace std::chrono_literals;

namespace {

const std::string kReference = "registry.example.com/models/qwen@sha256:" + std::string(64, 'a');

// A verifier of one policy of one key authority: what it finds is the fetch's to say.
std::shared_ptr<const sigstore::ImagePolicyVerifier> verifier() {
    PolicyAuthority a;
    a.name = "k";
    a.key_pem = test::repository_file(test::kConformanceCases + "managed-key-happy-path/key.pub");
    ImagePolicy p;
    p.name = "models";
    p.authorities = {a};
    SignaturePolicy policy;
    policy.policies = {p};
    auto root = sigstore::read_trusted_root(test::repository_file("sigstore/trusted_root.public-good.json"));
    auto made = sigstore::ImagePolicyVerifier::create(policy, *root);
    INFO((made ? std::string() : made.error()));
    REQUIRE(made);
    return *made;
}

SignatureFetch nothing_attached() {
    SignatureFetch f;
    f.fetched = true;
    return f;
}

SignatureFetch unreachable() {
    SignatureFetch f;
    f.failure.failure = RegistryFailure::timeout;
    f.failure.detail = "the registry registry.example.com could not be reached";
    return f;
}

}  // namespace

TEST_CASE("reviews asking at once share one fetch, and the verdict is kept", "[signature_checks]") {
    std::atomic<int> fetches{0};
    SignatureChecks checks(
        [&](std::string_view, const PullCredentials&, Deadline) {
            ++fetches;
            std::this_thread::sleep_for(100ms);
            return nothing_attached();
        },
        verifier(), SignatureCheckSettings{});
    std::vector<std::thread> threads;
    std::vector<SignatureStatus> statuses(16);
    for (int i = 0; i < 16; ++i) {
        threads.emplace_back([&, i] { statuses[i] = checks.check(kReference, 0, PullCredentials{}, std::chrono::steady_clock::now() + 5s).outcome.status; });
    }
    for (auto& t : threads) t.join();
    CHECK(fetches == 1);
    for (SignatureStatus s : statuses) CHECK(s == SignatureStatus::unsigned_image);
    const SignatureAnswer again = checks.check(kReference, 0, PullCredentials{}, std::chrono::steady_clock::now() + 5s);
    CHECK(again.from_cache);
    CHECK(fetches == 1);
    // Other credentials are another entry; another spelling of the digest is kept apart, and fetched for itself.
    CHECK_FALSE(checks.cached(kReference, 0, "someone-else"));
    CHECK(checks.check("registry.example.com/models/qwen:v1@sha256:" + std::string(64, 'a'), 0, PullCredentials{}, std::chrono::steady_clock::now() + 5s)
              .outcome.status == SignatureStatus::unsigned_image);
    CHECK(fetches == 2);  // kept apart from the first spelling, each fetched once
}

TEST_CASE("a failure to fetch is told as unavailable and never kept", "[signature_checks]") {
    int fetches = 0;
    SignatureChecks checks(
        [&](std::string_view, const PullCredentials&, Deadline) {
            ++fetches;
            return unreachable();
        },
        verifier(), SignatureCheckSettings{});
    const SignatureAnswer first = checks.check(kReference, 0, PullCredentials{}, std::chrono::steady_clock::now() + 5s);
    CHECK(first.outcome.status == SignatureStatus::unavailable);
    // A timeout reads as unreachable to a tenant, as the registry check's words do.
    CHECK(first.outcome.detail == "unreachable: the registry registry.example.com could not be reached");
    CHECK_FALSE(checks.cached(kReference, 0));
    checks.check(kReference, 0, PullCredentials{}, std::chrono::steady_clock::now() + 5s);
    CHECK(fetches == 2);
}

TEST_CASE("an unsigned verdict is kept for the negative TTL only", "[signature_checks]") {
    SignatureCheckSettings settings;
    settings.negative_ttl = 50ms;
    int fetches = 0;
    SignatureChecks checks(
        [&](std::string_view, const PullCredentials&, Deadline) {
            ++fetches;
            return nothing_attached();
        },
        verifier(), settings);
    checks.check(kReference, 0, PullCredentials{}, std::chrono::steady_clock::now() + 5s);
    CHECK(checks.cached(kReference, 0));
    std::this_thread::sleep_for(80ms);
    CHECK_FALSE(checks.cached(kReference, 0));
    checks.check(kReference, 0, PullCredentials{}, std::chrono::steady_clock::now() + 5s);
    CHECK(fetches == 2);
}

TEST_CASE("a review that cannot wait for a fetch under way is told so, and the fetch goes on", "[signature_checks]") {
    std::atomic<bool> release{false};
    SignatureChecks checks(
        [&](std::string_view, const PullCredentials&, Deadline) {
            while (!release) std::this_thread::sleep_for(5ms);
            return nothing_attached();
        },
        verifier(), SignatureCheckSettings{});
    std::thread first([&] { checks.check(kReference, 0, PullCredentials{}, std::chrono::steady_clock::now() + 5s); });
    std::this_thread::sleep_for(30ms);
    const SignatureAnswer hurried = checks.check(kReference, 0, PullCredentials{}, std::chrono::steady_clock::now() + 20ms);
    CHECK(hurried.outcome.status == SignatureStatus::unavailable);
    CHECK_THAT(hurried.outcome.detail, Catch::Contains("still being fetched"));
    release = true;
    first.join();
    CHECK(checks.cached(kReference, 0));
    CHECK(checks.fetches() == 1);
}

TEST_CASE("a fetch that throws is an answer, and the next review fetches again", "[signature_checks]") {
    int fetches = 0;
    SignatureChecks checks(
        [&](std::string_view, const PullCredentials&, Deadline) -> SignatureFetch {
            if (++fetches == 1) throw std::runtime_error("out of memory");
            return nothing_attached();
        },
        verifier(), SignatureCheckSettings{});
    CHECK(checks.check(kReference, 0, PullCredentials{}, std::chrono::steady_clock::now() + 5s).outcome.status == SignatureStatus::unavailable);
    CHECK(checks.check(kReference, 0, PullCredentials{}, std::chrono::steady_clock::now() + 5s).outcome.status == SignatureStatus::unsigned_image);
}
