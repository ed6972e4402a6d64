// Prometheus metrics of the server, rendered in the text exposition format.
// The review path is lock-free (one atomic counter per label combination, the
// kind folded into a fixed set); the rarely written maps (HTTP codes, Node
// lookups, the apiserver version) sit behind one mutex.
#pragma once

#include "model_image_webhook/registry/source.hpp"
#include "model_image_webhook/signature_check.hpp"

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace miw::server {

class Metrics {
public:
    // Room for the rule registry's findings; a test holds the registry to it.
    static constexpr std::size_t kRules = 64;

    // One answered admission request.
    void observe_review(std::string_view endpoint, std::string_view kind, std::string_view operation, std::string_view verdict, double seconds);
    // The rules of a denial or a would-be denial (rules comma-separated, as
    // the audit annotation holds them), each counted under verdict.
    void observe_findings(std::string_view rules, std::string_view verdict);
    // Any other HTTP answer (health, metrics, errors), by status code.
    void observe_http(int status);

    void request_started() { in_flight_.fetch_add(1, std::memory_order_relaxed); }
    void request_finished() { in_flight_.fetch_sub(1, std::memory_order_relaxed); }
    void connection_opened() { open_connections_.fetch_add(1, std::memory_order_relaxed); }
    void connection_closed() { open_connections_.fetch_sub(1, std::memory_order_relaxed); }
    void connection_rejected() { rejected_connections_.fetch_add(1, std::memory_order_relaxed); }
    void connection_evicted() { evicted_connections_.fetch_add(1, std::memory_order_relaxed); }
    void handshake_failed() { handshake_failures_.fetch_add(1, std::memory_order_relaxed); }
    void certificate_reloaded(std::int64_t not_after_unix);
    void certificate_reload_failed() { reload_errors_.fetch_add(1, std::memory_order_relaxed); }
    void set_apiserver_version(std::string version);
    void node_lookup(std::string_view result);
    // One read of a pull secret or service account from the API (kind:
    // "secret" or "serviceaccount"; result: read, not-found, forbidden,
    // invalid, unreadable, busy).
    void pull_secret_read(std::string_view kind, std::string_view result);
    // A reload of the registry check's files: applied, or failed (a file that
    // no longer reads; its last good version serves).
    void registry_config_reload(bool applied) { (applied ? registry_reloads_applied_ : registry_reloads_failed_).fetch_add(1, std::memory_order_relaxed); }
    // One answer of --registry-check given to a review: its result, whether
    // the cache had it, and (not from the cache) how long the review waited.
    void registry_lookup(const RegistryLookup& lookup, bool from_cache, double seconds);
    // One policy's signature verdict given to a review (--signature-policy).
    // One digest's signatures fetched over the network (a burst of reviews of one digest shares one).
    void signature_fetch() { signature_fetches_.fetch_add(1, std::memory_order_relaxed); }
    void signature_verification(SignatureStatus status) { signature_verifications_[static_cast<std::size_t>(status)].fetch_add(1, std::memory_order_relaxed); }
    // The Node watch: Nodes held and when the cache last heard from the API
    // (a list or an event), relists after the first list, and failures.
    void node_cache_synced(std::size_t nodes, std::int64_t unix_time) {
        node_cache_nodes_.store(static_cast<std::int64_t>(nodes), std::memory_order_relaxed);
        node_cache_sync_.store(unix_time, std::memory_order_relaxed);
    }
    void node_cache_relisted() { node_cache_relists_.fetch_add(1, std::memory_order_relaxed); }
    void node_watch_failed() { node_watch_failures_.fetch_add(1, std::memory_order_relaxed); }
    void artifact_cache_synced(std::size_t artifacts, std::int64_t unix_time) {
        artifact_cache_artifacts_.store(static_cast<std::int64_t>(artifacts), std::memory_order_relaxed);
        artifact_cache_sync_.store(unix_time, std::memory_order_relaxed);
    }
    void artifact_cache_relisted() { artifact_cache_relists_.fetch_add(1, std::memory_order_relaxed); }
    void artifact_watch_failed() { artifact_watch_failures_.fetch_add(1, std::memory_order_relaxed); }

    std::int64_t open_connections() const { return open_connections_.load(std::memory_order_relaxed); }

    std::string render() const;

private:
    // Up to 10 s: a review that waits on a Node or registry lookup may approach the webhook
    // configuration's timeoutSeconds (5), which the latency alert must be able to see.
    static constexpr std::array<double, 15> kBuckets = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 2.5, 5.0, 10.0};
    static constexpr std::size_t kEndpoints = 2, kKinds = 11, kOperations = 5, kVerdicts = 7;
    static constexpr std::size_t kFindingVerdicts = 2;  // denied, would-deny
    // Lock-free on the hot path: one counter per label combination, which
    // the fixed label sets keep small.
    template <std::size_t N>
    struct HistogramOf {
        std::array<std::atomic<std::uint64_t>, N> buckets{};
        std::atomic<std::uint64_t> count{0};
        std::atomic<std::uint64_t> sum_ns{0};
    };
    std::array<std::atomic<std::uint64_t>, kEndpoints * kKinds * kOperations * kVerdicts> reviews_{};
    using Histogram = HistogramOf<kBuckets.size()>;
    std::array<Histogram, kEndpoints> latency_{};
    std::array<std::atomic<std::uint64_t>, kRules * kFindingVerdicts> findings_{};
    // found, not-found, digest-mismatch, then one per RegistryFailure.
    static constexpr std::size_t kRegistryResults = 3 + 12;
    static constexpr std::array<double, 12> kRegistryBuckets = {0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0};
    std::array<std::atomic<std::uint64_t>, kRegistryResults> registry_lookups_{};
    std::array<std::atomic<std::uint64_t>, 4> signature_verifications_{};  // by SignatureStatus
    std::atomic<std::uint64_t> signature_fetches_{0};
    std::atomic<std::uint64_t> registry_cache_hits_{0};
    HistogramOf<kRegistryBuckets.size()> registry_latency_{};

    mutable std::mutex mutex_;  // for the rarely written maps below
    std::map<int, std::uint64_t> http_;
    std::map<std::string, std::uint64_t> node_lookups_;
    std::map<std::pair<std::string, std::string>, std::uint64_t> pull_secret_reads_;  // by kind and result: a few fixed words
    std::string apiserver_version_;

    std::atomic<std::int64_t> in_flight_{0};
    std::atomic<std::uint64_t> registry_reloads_applied_{0};
    std::atomic<std::uint64_t> registry_reloads_failed_{0};
    std::atomic<std::int64_t> open_connections_{0};
    std::atomic<std::uint64_t> rejected_connections_{0};
    std::atomic<std::uint64_t> evicted_connections_{0};
    std::atomic<std::uint64_t> handshake_failures_{0};
    std::atomic<std::uint64_t> reloads_{0};
    std::atomic<std::uint64_t> reload_errors_{0};
    std::atomic<std::int64_t> not_after_{0};
    std::atomic<std::int64_t> node_cache_nodes_{0};
    std::atomic<std::int64_t> node_cache_sync_{0};
    std::atomic<std::uint64_t> node_cache_relists_{0};
    std::atomic<std::uint64_t> node_watch_failures_{0};
    std::atomic<std::int64_t> artifact_cache_artifacts_{0};
    std::atomic<std::int64_t> artifact_cache_sync_{0};
    std::atomic<std::uint64_t> artifact_cache_relists_{0};
    std::atomic<std::uint64_t> artifact_watch_failures_{0};
};

}  // namespace miw::server
