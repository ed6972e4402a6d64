#include "signature_checks.hpp"

#include "../../sigstore/image_policy.hpp"

#include "model_image_webhook/registry/locator.hpp"

#include <ctime>

namespace miw::server {

namespace {

// What the registry's failure reads as to a tenant: a refused connection, a
// timeout and a TLS failure alike (design.md 1.8), with its words.
std::string failure_detail(const RegistryLookup& failure) {
    const RegistryFailure f = failure.failure == RegistryFailure::timeout || failure.failure == RegistryFailure::tls ? RegistryFailure::unreachable : failure.failure;
    return std::string(to_string(f)) + ": " + failure.detail;
}

// A fetch's key: the reference as one string for every way of writing it,
// and whose credentials.
std::string fetch_key_of(std::string_view reference, std::string_view identity) {
    std::string key = canonical_reference(reference);
    key += '\n';
    key += identity;
    return key;
}

// A kept verdict's key: the reference as written (the Pods of one workload
// write it alike; another spelling is kept apart, fetched on its own once
// the first is done), whose credentials, which policy. Made in `key`, a buffer the caller
// keeps: a warm review allocates nothing and parses nothing.
void verdict_key_of(std::string& key, std::string_view reference, std::string_view identity, std::size_t policy) {
    key.assign(reference);
    key += '\n';
    key += identity;
    key += '\n';
    do {
        key += static_cast<char>('0' + policy % 10);
        policy /= 10;
    } while (policy != 0);
}

}  // namespace

SignatureChecks::SignatureChecks(SignatureFetchFunction fetch, std::shared_ptr<const sigstore::ImagePolicyVerifier> verifier, SignatureCheckSettings settings)
    : fetch_(std::move(fetch)), verifier_(std::move(verifier)), settings_(settings) {}

std::optional<SignatureOutcome> SignatureChecks::cached(std::string_view reference, std::size_t policy, std::string_view identity) const {
    thread_local std::string key;
    verdict_key_of(key, reference, identity, policy);
    std::lock_guard lock(mutex_);
    const auto it = kept_.find(key);
    if (it == kept_.end() || it->second.expires <= std::chrono::steady_clock::now()) return std::nullopt;
    return it->second.outcome;
}

std::uint64_t SignatureChecks::fetches() const {
    std::lock_guard lock(mutex_);
    return fetches_;
}

void SignatureChecks::keep(const std::string& key, const SignatureOutcome& outcome) const {
    if (outcome.status == SignatureStatus::unavailable) return;  // the registry's silence, not its word
    const auto now = std::chrono::steady_clock::now();
    const auto ttl = outcome.status == SignatureStatus::verified ? settings_.verified_ttl : settings_.negative_ttl;
    std::lock_guard lock(mutex_);
    if (kept_.size() >= settings_.max_entries) {
        for (auto it = kept_.begin(); it != kept_.end();) it = it->second.expires <= now ? kept_.erase(it) : std::next(it);
        if (kept_.size() >= settings_.max_entries) kept_.erase(kept_.begin());
    }
    kept_[key] = Kept{outcome, now + ttl};
}

SignatureFetch SignatureChecks::fetch_once(const std::string& key, std::string_view reference, const PullCredentials& who, Deadline deadline) const {
    std::unique_lock lock(mutex_);
    if (const auto it = in_flight_.find(key); it != in_flight_.end()) {
        const std::shared_ptr<Flight> flight = it->second;
        if (!flight->finished.wait_until(lock, deadline, [&] { return flight->done; })) {
            SignatureFetch late;
            late.failure.failure = RegistryFailure::timeout;
            late.failure.detail = "the signatures were still being fetched when the review's time ran out";
            return late;
        }
        return flight->result;
    }
    auto flight = std::make_shared<Flight>();
    in_flight_.emplace(key, flight);
    ++fetches_;
    lock.unlock();
    if (settings_.fetched) settings_.fetched();
    SignatureFetch result;
    try {
        result = fetch_(reference, who, std::min(deadline, std::chrono::steady_clock::now() + settings_.fetch_timeout));
    } catch (const std::exception& e) {
        result = SignatureFetch{};
        result.failure.failure = RegistryFailure::bad_answer;
        result.failure.detail = std::string("the fetch failed: ") + e.what();
    }
    lock.lock();
    flight->result = result;
    flight->done = true;
    in_flight_.erase(key);
    flight->finished.notify_all();
    return result;
}

SignatureAnswer SignatureChecks::check(std::string_view reference, std::size_t policy, const PullCredentials& who, Deadline deadline) const {
    if (std::optional<SignatureOutcome> known = cached(reference, policy, who.identity)) return {std::move(*known), true};
    const std::string fetch_key = fetch_key_of(reference, who.identity);
    const SignatureFetch fetched = fetch_once(fetch_key, reference, who, deadline);
    SignatureAnswer out;
    if (!fetched.fetched) {
        out.outcome.status = SignatureStatus::unavailable;
        out.outcome.detail = failure_detail(fetched.failure);
        return out;
    }
    const std::size_t at = reference.rfind('@');
    const std::string_view digest = at == std::string_view::npos ? std::string_view() : reference.substr(at + 1);
    out.outcome = verifier_->verify(fetched.found, digest, policy, static_cast<std::int64_t>(std::time(nullptr)));
    std::string kept_key;
    verdict_key_of(kept_key, reference, who.identity, policy);
    keep(kept_key, out.outcome);
    return out;
}

}  // namespace miw::server
