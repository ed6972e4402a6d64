#include "metrics.hpp"


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

long resident_bytes() {
    std::ifstream statm("/proc/self/statm");
    long pages_total = 0, pages_resident = 0;
    if (!(statm >> pages_total >> pages_resident)) return 0;
    return pages_resident * sysconf(_SC_PAGESIZE);
}

}  // namespace

std::string_view kind_label(std::string_view kind) {
    static constexpr std::string_view kKnown[] = {"ModelArtifact", "Pod", "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "CronJob", "LeaderWorkerSet"};
    for (std::string_view k : kKnown) {
        if (k == kind) return k;
    }
    return kind.empty() ? std::string_view("") : std::string_view("other");
}

void Metrics::observe_review(std::string_view endpoint, std::string_view kind, std::string_view operation, std::string_view verdict, double seconds) {
    std::lock_guard lock(mutex_);
    ++reviews_[{std::string(endpoint), std::string(kind_label(kind)), std::string(operation), std::string(verdict)}];
    Histogram& h = latency_[std::string(endpoint)];
    for (std::size_t i = 0; i < kBuckets.size(); ++i) {
        if (seconds <= kBuckets[i]) ++h.buckets[i];
    }
    ++h.count;
    h.sum += seconds;
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

std::string Metrics::render() const {
    std::string out;
    out.reserve(4096);
    std::lock_guard lock(mutex_);
    header(out, "miw_admission_requests_total", "counter", "Admission reviews answered, by endpoint, kind, operation and verdict.");
    for (const auto& [key, count] : reviews_) {
        const auto& [endpoint, kind, operation, verdict] = key;
        out += "miw_admission_requests_total{endpoint=" + label(endpoint) + ",kind=" + label(kind) + ",operation=" + label(operation) +
               ",verdict=" + label(verdict) + "} " + std::to_string(count) + "\n";
    }
    header(out, "miw_admission_request_duration_seconds", "histogram", "Time from a complete request body to its answer, by endpoint.");
    for (const auto& [endpoint, h] : latency_) {
        for (std::size_t i = 0; i < kBuckets.size(); ++i) {
            out += "miw_admission_request_duration_seconds_bucket{endpoint=" + label(endpoint) + ",le=\"" + number(kBuckets[i]) + "\"} " +
                   std::to_string(h.buckets[i]) + "\n";
        }
        out += "miw_admission_request_duration_seconds_bucket{endpoint=" + label(endpoint) + ",le=\"+Inf\"} " + std::to_string(h.count) + "\n";
        out += "miw_admission_request_duration_seconds_sum{endpoint=" + label(endpoint) + "} " + number(h.sum) + "\n";
        out += "miw_admission_request_duration_seconds_count{endpoint=" + label(endpoint) + "} " + std::to_string(h.count) + "\n";
    }
    header(out, "miw_http_responses_total", "counter", "HTTP answers other than admission reviews, by status code.");
    for (const auto& [status, count] : http_) out += "miw_http_responses_total{code=\"" + std::to_string(status) + "\"} " + std::to_string(count) + "\n";
    header(out, "miw_requests_in_flight", "gauge", "Requests being answered now.");
    out += "miw_requests_in_flight " + std::to_string(in_flight_.load()) + "\n";
    header(out, "miw_connections_open", "gauge", "Open client connections.");
    out += "miw_connections_open " + std::to_string(open_connections_.load()) + "\n";
    header(out, "miw_connections_rejected_total", "counter", "Connections closed at once because --max-connections were open.");
    out += "miw_connections_rejected_total " + std::to_string(rejected_connections_.load()) + "\n";
    header(out, "miw_tls_handshake_failures_total", "counter", "TLS handshakes that failed or timed out.");
    out += "miw_tls_handshake_failures_total " + std::to_string(handshake_failures_.load()) + "\n";
    header(out, "miw_certificate_reloads_total", "counter", "Serving certificates loaded, the first one included.");
    out += "miw_certificate_reloads_total " + std::to_string(reloads_.load()) + "\n";
    header(out, "miw_certificate_reload_errors_total", "counter", "Changed certificate files that could not be loaded (the previous pair kept serving).");
    out += "miw_certificate_reload_errors_total " + std::to_string(reload_errors_.load()) + "\n";
    header(out, "miw_certificate_not_after_timestamp_seconds", "gauge", "notAfter of the serving certificate, as a Unix time.");
    out += "miw_certificate_not_after_timestamp_seconds " + std::to_string(not_after_.load()) + "\n";
    header(out, "miw_apiserver_version_info", "gauge", "The apiserver version the decisions use (1), by version.");
    if (!apiserver_version_.empty()) out += "miw_apiserver_version_info{version=" + label(apiserver_version_) + "} 1\n";
    header(out, "miw_node_lookups_total", "counter", "Node lookups for the pinned-node check, by result.");
    for (const auto& [result, count] : node_lookups_) out += "miw_node_lookups_total{result=" + label(result) + "} " + std::to_string(count) + "\n";
    header(out, "process_resident_memory_bytes", "gauge", "Resident memory size in bytes.");
    out += "process_resident_memory_bytes " + std::to_string(resident_bytes()) + "\n";
    return out;
}

}  // namespace miw::server
