#include "metrics.hpp"

#include "log.hpp"

#include "model_image_webhook/rule.hpp"


#include <cstdio>
#include <fstream>
#include <unistd.h>

namespace miw::server {

namespace {

// A label value as the exposition format quotes it.
std::string label(std::string_view value) {
    std::string out = "\"";
    for (char c : value) {
        if (c == '\\' || c == '"') out += '\\';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        out += c;
    }
    return out + "\"";
}

std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
}

void header(std::string& out, const char* name, const char* type, const char* help) {
    out += "# HELP ";
    out += name;
    out += ' ';
    out += help;
    out += "\n# TYPE ";
    out += name;
    out += ' ';
    out += type;
    out += '\n';
}

// A metric with one value and no labels.
void single(std::string& out, const char* name, const char* type, const char* help, long long value) {
    header(out, name, type, help);
    out += name;
    out += ' ';
    out += std::to_string(value);
    out += '\n';
}

long resident_bytes() {
    std::ifstream statm("/proc/self/statm");
    long pages_total = 0, pages_resident = 0;
    if (!(statm >> pages_total >> pages_resident)) return 0;
    return pages_resident * sysconf(_SC_PAGESIZE);
}

}  // namespace

namespace {

constexpr std::string_view kEndpointLabels[] = {"validate", "mutate"};
constexpr std::string_view kKindLabels[] = {"ModelArtifact", "Pod", "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "CronJob", "LeaderWorkerSet",
                                            "other", ""};
constexpr std::string_view kOperationLabels[] = {"CREATE", "UPDATE", "DELETE", "CONNECT", ""};
constexpr std::string_view kVerdictLabels[] = {"allowed", "denied", "would-deny", "bad-request", "unreadable", "busy", "internal-error"};
constexpr std::string_view kFindingVerdictLabels[] = {"denied", "would-deny"};

template <std::size_t N>
std::size_t index_of(const std::string_view (&labels)[N], std::string_view value, std::size_t otherwise) {
    for (std::size_t i = 0; i < N; ++i) {
        if (labels[i] == value) return i;
    }
    return otherwise;
}

}  // namespace

namespace {

template <std::size_t N>
void count_in_bucket(std::array<std::atomic<std::uint64_t>, N>& buckets, const std::array<double, N>& bounds, double seconds) {
    for (std::size_t i = 0; i < N; ++i) {
        if (seconds <= bounds[i]) {
            buckets[i].fetch_add(1, std::memory_order_relaxed);
            break;
        }
    }
}

// A histogram's exposition; labels: "" or `name="value"`.
template <std::size_t N>
void render_histogram(std::string& out, const std::string& name, const std::string& labels, const std::array<std::atomic<std::uint64_t>, N>& buckets,
                      const std::array<double, N>& bounds, std::uint64_t count, std::uint64_t sum_ns) {
    const std::string before = labels.empty() ? "{" : "{" + labels + ",";
    const std::string own = labels.empty() ? "" : "{" + labels + "}";
    std::uint64_t at_or_below = 0;  // Prometheus's buckets are cumulative
    for (std::size_t i = 0; i < N; ++i) {
        at_or_below += buckets[i].load(std::memory_order_relaxed);
        out += name + "_bucket" + before + "le=\"" + number(bounds[i]) + "\"} " + std::to_string(at_or_below) + "\n";
    }
    // An observation counted in its bucket and not yet in the count, as this
    // is read, still shows in +Inf and the count: no bucket is above them.
    count = std::max(count, at_or_below);
    out += name + "_bucket" + before + "le=\"+Inf\"} " + std::to_string(count) + "\n";
    out += name + "_sum" + own + " " + number(static_cast<double>(sum_ns) / 1e9) + "\n";
    out += name + "_count" + own + " " + std::to_string(count) + "\n";
}

std::size_t registry_result_index(const RegistryLookup& lookup) {
    switch (lookup.status) {
        case RegistryLookupStatus::found: return 0;
        case RegistryLookupStatus::not_found: return 1;
        case RegistryLookupStatus::digest_mismatch: return 2;
        case RegistryLookupStatus::unavailable: break;
    }
    return 3 + static_cast<std::size_t>(lookup.failure);
}

std::string_view registry_result_label(std::size_t index) {
    if (index == 0) return "found";
    if (index == 1) return "not-found";
    if (index == 2) return "digest-mismatch";
    return to_string(static_cast<RegistryFailure>(index - 3));
}

}  // namespace

void Metrics::observe_review(std::string_view endpoint, std::string_view kind, std::string_view operation, std::string_view verdict, double seconds) {
    const std::size_t e = index_of(kEndpointLabels, endpoint, 0);
    const std::size_t k = kind.empty() ? 10 : index_of(kKindLabels, kind, 9);
    const std::size_t o = index_of(kOperationLabels, operation, 4);
    const std::size_t v = index_of(kVerdictLabels, verdict, kVerdicts - 1);
    reviews_[((e * kKinds + k) * kOperations + o) * kVerdicts + v].fetch_add(1, std::memory_order_relaxed);
    Histogram& h = latency_[e];
    // One bucket counted, the first the latency fits; the exposition adds
    // them up. (Counting every bucket it fits, as the exposition shows them,
    // took twelve atomic additions a review, most reviews being under 0.1 ms.)
    count_in_bucket(h.buckets, kBuckets, seconds);
    h.count.fetch_add(1, std::memory_order_relaxed);
    h.sum_ns.fetch_add(static_cast<std::uint64_t>(seconds * 1e9), std::memory_order_relaxed);
}

void Metrics::registry_lookup(const RegistryLookup& lookup, bool from_cache, double seconds) {
    static_assert(3 + static_cast<std::size_t>(RegistryFailure::not_allowed) + 1 == kRegistryResults, "a label for every result");
    const std::size_t r = registry_result_index(lookup);
    if (r < kRegistryResults) registry_lookups_[r].fetch_add(1, std::memory_order_relaxed);
    if (from_cache) {
        registry_cache_hits_.fetch_add(1, std::memory_order_relaxed);
        return;
    }
    count_in_bucket(registry_latency_.buckets, kRegistryBuckets, seconds);
    registry_latency_.count.fetch_add(1, std::memory_order_relaxed);
    registry_latency_.sum_ns.fetch_add(static_cast<std::uint64_t>(seconds * 1e9), std::memory_order_relaxed);
}

void Metrics::observe_findings(std::string_view rules, std::string_view verdict) {
    const std::size_t v = index_of(kFindingVerdictLabels, verdict, kFindingVerdicts);
    if (v == kFindingVerdicts) return;
    const auto registry = rule_registry();
    while (!rules.empty()) {
        const std::size_t comma = rules.find(',');
        const std::string_view id = rules.substr(0, comma);
        rules = comma == std::string_view::npos ? std::string_view() : rules.substr(comma + 1);
        for (std::size_t r = 0; r < registry.size() && r < kRules; ++r) {
            if (registry[r]->id == id) findings_[r * kFindingVerdicts + v].fetch_add(1, std::memory_order_relaxed);
        }
    }
}

void Metrics::observe_http(int status) {
    std::lock_guard lock(mutex_);
    ++http_[status];
}

void Metrics::certificate_reloaded(std::int64_t not_after_unix) {
    reloads_.fetch_add(1, std::memory_order_relaxed);
    not_after_.store(not_after_unix, std::memory_order_relaxed);
}

void Metrics::set_apiserver_version(std::string version) {
    std::lock_guard lock(mutex_);
    apiserver_version_ = std::move(version);
}

void Metrics::node_lookup(std::string_view result) {
    std::lock_guard lock(mutex_);
    ++node_lookups_[std::string(result)];
}

void Metrics::pull_secret_read(std::string_view kind, std::string_view result) {
    std::lock_guard lock(mutex_);
    ++pull_secret_reads_[{std::string(kind), std::string(result)}];
}

std::string Metrics::render() const {
    std::string out;
    out.reserve(4096);
    std::lock_guard lock(mutex_);
    header(out, "miw_admission_requests_total", "counter", "Admission reviews answered, by endpoint, kind, operation and verdict.");
    for (std::size_t e = 0; e < kEndpoints; ++e) {
        for (std::size_t k = 0; k < kKinds; ++k) {
            for (std::size_t o = 0; o < kOperations; ++o) {
                for (std::size_t v = 0; v < kVerdicts; ++v) {
                    const std::uint64_t n = reviews_[((e * kKinds + k) * kOperations + o) * kVerdicts + v].load(std::memory_order_relaxed);
                    if (n == 0) continue;
                    out += "miw_admission_requests_total{endpoint=" + label(kEndpointLabels[e]) + ",kind=" + label(kKindLabels[k]) +
                           ",operation=" + label(kOperationLabels[o]) + ",verdict=" + label(kVerdictLabels[v]) + "} " + std::to_string(n) + "\n";
                }
            }
        }
    }
    header(out, "miw_admission_rule_findings_total", "counter",
           "Denials by rule: verdict denied where the rule was enforced, would-deny where warn or audit admitted the object.");
    const auto registry = rule_registry();
    for (std::size_t r = 0; r < registry.size() && r < kRules; ++r) {
        for (std::size_t v = 0; v < kFindingVerdicts; ++v) {
            const std::uint64_t n = findings_[r * kFindingVerdicts + v].load(std::memory_order_relaxed);
            if (n == 0) continue;
            out += "miw_admission_rule_findings_total{rule=" + label(registry[r]->id) + ",verdict=" + label(kFindingVerdictLabels[v]) + "} " +
                   std::to_string(n) + "\n";
        }
    }
    header(out, "miw_admission_request_duration_seconds", "histogram", "Time from a complete request body to its answer, by endpoint.");
    for (std::size_t e = 0; e < kEndpoints; ++e) {
        const Histogram& h = latency_[e];
        std::uint64_t count = h.count.load(std::memory_order_relaxed);
        if (count == 0) continue;
        render_histogram(out, "miw_admission_request_duration_seconds", "endpoint=" + label(kEndpointLabels[e]), h.buckets, kBuckets, count,
                         h.sum_ns.load(std::memory_order_relaxed));
    }
    header(out, "miw_http_responses_total", "counter", "HTTP answers other than admission reviews, by status code.");
    for (const auto& [status, count] : http_) out += "miw_http_responses_total{code=\"" + std::to_string(status) + "\"} " + std::to_string(count) + "\n";
    single(out, "miw_requests_in_flight", "gauge", "Requests being answered now.", static_cast<long long>(in_flight_.load()));
    single(out, "miw_connections_open", "gauge", "Open client connections.", static_cast<long long>(open_connections_.load()));
    single(out, "miw_connections_rejected_total", "counter", "Connections closed at once because --max-connections were open, none of them waiting.", static_cast<long long>(rejected_connections_.load()));
    single(out, "miw_connections_evicted_total", "counter",
           "Connections closed before their first request, the oldest first, to make room for newer ones (--max-connections, --max-handshakes).",
           static_cast<long long>(evicted_connections_.load()));
    single(out, "miw_tls_handshake_failures_total", "counter", "TLS handshakes that failed or timed out.", static_cast<long long>(handshake_failures_.load()));
    single(out, "miw_certificate_reloads_total", "counter", "Serving certificates loaded, the first one included.", static_cast<long long>(reloads_.load()));
    single(out, "miw_certificate_reload_errors_total", "counter", "Changed certificate files that could not be loaded (the previous pair kept serving).", static_cast<long long>(reload_errors_.load()));
    single(out, "miw_certificate_not_after_timestamp_seconds", "gauge", "notAfter of the serving certificate, as a Unix time.", static_cast<long long>(not_after_.load()));
    header(out, "miw_apiserver_version_info", "gauge", "The apiserver version the decisions use (1), by version.");
    if (!apiserver_version_.empty()) out += "miw_apiserver_version_info{version=" + label(apiserver_version_) + "} 1\n";
    header(out, "miw_node_lookups_total", "counter", "Node lookups for the pinned-node check, by result.");
    for (const auto& [result, count] : node_lookups_) out += "miw_node_lookups_total{result=" + label(result) + "} " + std::to_string(count) + "\n";
    header(out, "miw_pull_secret_reads_total", "counter",
           "Reads of pull secrets and service accounts from the API (--registry-pull-secrets), by kind and result: read, not-found, forbidden, "
           "invalid, unreadable, busy.");
    for (const auto& [key, count] : pull_secret_reads_) {
        out += "miw_pull_secret_reads_total{kind=" + label(key.first) + ",result=" + label(key.second) + "} " + std::to_string(count) + "\n";
    }
    header(out, "miw_registry_config_reloads_total", "counter",
           "Re-reads of the registry check's files after they changed (--registry-auth, --registry-ca, --registry-hosts-dir, "
           "--image-credential-provider-config), by result: applied, failed (the last good version serves).");
    out += "miw_registry_config_reloads_total{result=\"applied\"} " + std::to_string(registry_reloads_applied_.load()) + "\n";
    out += "miw_registry_config_reloads_total{result=\"failed\"} " + std::to_string(registry_reloads_failed_.load()) + "\n";
    header(out, "miw_registry_lookups_total", "counter",
           "Answers of --registry-check given to reviews, by result: found, not-found, digest-mismatch, or why no look could be had.");
    for (std::size_t r = 0; r < kRegistryResults; ++r) {
        const std::uint64_t n = registry_lookups_[r].load(std::memory_order_relaxed);
        if (n != 0) out += "miw_registry_lookups_total{result=" + label(registry_result_label(r)) + "} " + std::to_string(n) + "\n";
    }
    header(out, "miw_signature_verifications_total", "counter",
           "Signature verdicts of --signature-policy given to reviews, one a matching policy, by result: verified, unsigned, mismatch (no authority "
           "verified a signature found), unavailable (the signatures could not be fetched).");
    for (const SignatureStatus s : {SignatureStatus::verified, SignatureStatus::unsigned_image, SignatureStatus::mismatch, SignatureStatus::unavailable}) {
        out += "miw_signature_verifications_total{result=" + label(to_string(s)) + "} " +
               std::to_string(signature_verifications_[static_cast<std::size_t>(s)].load(std::memory_order_relaxed)) + "\n";
    }
    single(out, "miw_signature_fetches_total", "counter", "Digests whose signatures were fetched from their registry (referrers, referrers tag, .sig).",
           static_cast<long long>(signature_fetches_.load()));
    single(out, "miw_registry_cache_hits_total", "counter", "Registry answers the cache gave without a look.",
           static_cast<long long>(registry_cache_hits_.load()));
    header(out, "miw_registry_lookup_duration_seconds", "histogram", "Time a review waited for a registry look (its own, or one under way for the same digest).");
    render_histogram(out, "miw_registry_lookup_duration_seconds", "", registry_latency_.buckets, kRegistryBuckets, registry_latency_.count.load(),
                     registry_latency_.sum_ns.load());
    single(out, "miw_node_cache_nodes", "gauge", "Nodes the watch holds for placement and the node check.", static_cast<long long>(node_cache_nodes_.load()));
    single(out, "miw_node_cache_last_sync_timestamp_seconds", "gauge", "When the Node cache last heard from the API (a list or a watch event), as a Unix time; 0 before the first list.",
           static_cast<long long>(node_cache_sync_.load()));
    single(out, "miw_node_cache_relists_total", "counter", "Complete Node lists after the first (a watch expired or broke).", static_cast<long long>(node_cache_relists_.load()));
    single(out, "miw_node_watch_failures_total", "counter", "Node lists or watches that failed (each retried after a backoff).", static_cast<long long>(node_watch_failures_.load()));
    single(out, "miw_artifact_cache_artifacts", "gauge", "ModelArtifacts the watch holds for workloads that name one.", static_cast<long long>(artifact_cache_artifacts_.load()));
    single(out, "miw_artifact_cache_last_sync_timestamp_seconds", "gauge",
           "When the ModelArtifact cache last heard from the API (a list or a watch event), as a Unix time; 0 before the first list.",
           static_cast<long long>(artifact_cache_sync_.load()));
    single(out, "miw_artifact_cache_relists_total", "counter", "Complete ModelArtifact lists after the first (a watch expired or broke).",
           static_cast<long long>(artifact_cache_relists_.load()));
    single(out, "miw_artifact_watch_failures_total", "counter", "ModelArtifact lists or watches that failed (each retried after a backoff).",
           static_cast<long long>(artifact_watch_failures_.load()));
    single(out, "miw_log_lines_dropped_total", "counter", "Review log lines dropped because 8 MiB of log were waiting to be written (a stalled stdout).",
           static_cast<long long>(Log::instance().dropped()));
    single(out, "process_resident_memory_bytes", "gauge", "Resident memory size in bytes.", static_cast<long long>(resident_bytes()));
    return out;
}

}  // namespace miw::server
