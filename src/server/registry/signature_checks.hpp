// The signature checks of --signature-policy (design.md 1.11): a digest's
// signatures fetched once for every review that asks at the same time (one
// fetch for a burst of a thousand Pods of one image, and one for those that
// write it otherwise at the same time), each policy's verdict then kept by
// the reference as written, credentials and policy: a verified one for
// --registry-found-ttl, an unsigned or mismatched one for
// --registry-negative-ttl (a signature may be attached a minute after the
// push), a fetch that failed never. The fetch and the verifier are given:
// RegistryLookups' fetcher over the current hosts and credentials, and
// src/sigstore/'s ImagePolicyVerifier. No Boost, no libcurl here.
#pragma once

#include "signature_fetcher.hpp"

#include "model_image_webhook/registry/cache.hpp"
#include "model_image_webhook/signature_check.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace miw::sigstore {
class ImagePolicyVerifier;
}

namespace miw::server {

using SignatureFetchFunction = std::function<SignatureFetch(std::string_view reference, const PullCredentials& who, Deadline deadline)>;

struct SignatureCheckSettings {
    std::chrono::milliseconds fetch_timeout{3000};  // --registry-timeout: one fetch
    std::chrono::milliseconds verified_ttl{600000};  // --registry-found-ttl
    std::chrono::milliseconds negative_ttl{30000};  // --registry-negative-ttl
    std::size_t max_entries = 4096;
    std::function<void()> fetched;  // told of each fetch over the network (the metric); may be empty
};

// How an outcome was had, for the metrics.
struct SignatureAnswer {
    SignatureOutcome outcome;
    bool from_cache = false;
};

class SignatureChecks {
public:
    SignatureChecks(SignatureFetchFunction fetch, std::shared_ptr<const sigstore::ImagePolicyVerifier> verifier, SignatureCheckSettings settings);

    // What is known without a fetch.
    std::optional<SignatureOutcome> cached(std::string_view reference, std::size_t policy, std::string_view identity = {}) const;
    // The kept outcome, or the verdict over the signatures fetched now (or
    // by a review already fetching them), waited for until `deadline`.
    SignatureAnswer check(std::string_view reference, std::size_t policy, const PullCredentials& who, Deadline deadline) const;

    // How many digests' signatures were fetched over the network (the tests' and the benchmark's count).
    std::uint64_t fetches() const;

private:
    struct Flight {
        bool done = false;
        SignatureFetch result;
        std::condition_variable finished;
    };
    struct Kept {
        SignatureOutcome outcome;
        std::chrono::steady_clock::time_point expires;
    };
    SignatureFetch fetch_once(const std::string& key, std::string_view reference, const PullCredentials& who, Deadline deadline) const;
    void keep(const std::string& key, const SignatureOutcome& outcome) const;

    SignatureFetchFunction fetch_;
    std::shared_ptr<const sigstore::ImagePolicyVerifier> verifier_;
    SignatureCheckSettings settings_;
    mutable std::mutex mutex_;
    mutable std::unordered_map<std::string, Kept> kept_;
    mutable std::unordered_map<std::string, std::shared_ptr<Flight>> in_flight_;
    mutable std::uint64_t fetches_ = 0;
};

// The checks as the offline commands' rules see them, each bounded by `timeout`.
class TimedSignatureSource : public SignatureSource {
public:
    TimedSignatureSource(const SignatureChecks& checks, std::chrono::milliseconds timeout) : checks_(checks), timeout_(timeout) {}
    SignatureOutcome verify(std::string_view reference, std::size_t policy, const PullSecretsRef* /*who*/) const override {
        return checks_.check(reference, policy, PullCredentials{}, std::chrono::steady_clock::now() + timeout_).outcome;
    }

private:
    const SignatureChecks& checks_;
    std::chrono::milliseconds timeout_;
};

}  // namespace miw::server
