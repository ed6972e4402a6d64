// The Prometheus text the server exposes.
#include "../../src/server/metrics.hpp"

#include "model_image_webhook/rule.hpp"

#include <catch2/catch.hpp>

#include <iterator>
#include <string>
#include <vector>

using namespace miw::server;

TEST_CASE("reviews are counted by their labels, unknown kinds as other", "[metrics]") {
    Metrics m;
    m.observe_review("validate", "ModelArtifact", "CREATE", "denied", 0.0003);
    m.observe_review("validate", "ModelArtifact", "CREATE", "denied", 0.002);
    m.observe_review("mutate", "SomethingNew", "UPDATE", "allowed", 0.5);
    m.observe_review("mutate", "", "", "busy", 0.001);  // refused for memory before the request was read
    const std::string text = m.render();
    CHECK_THAT(text, Catch::Contains(R"(miw_admission_requests_total{endpoint="validate",kind="ModelArtifact",operation="CREATE",verdict="denied"} 2)"));
    CHECK_THAT(text, Catch::Contains(R"(miw_admission_requests_total{endpoint="mutate",kind="other",operation="UPDATE",verdict="allowed"} 1)"));
    CHECK_THAT(text, Catch::Contains(R"(verdict="busy"} 1)"));
    CHECK_THAT(text, Catch::Contains("# TYPE miw_admission_requests_total counter"));
}

TEST_CASE("denials are counted by rule, enforced or softened", "[metrics]") {
    Metrics m;
    m.observe_review("validate", "ModelArtifact", "CREATE", "would-deny", 0.0001);
    m.observe_findings("digest-required,patterns-forbidden", "would-deny");
    m.observe_findings("digest-required", "would-deny");
    m.observe_findings("node-floor", "denied");
    m.observe_findings("malformed-request", "bad-request");  // not a finding
    m.observe_findings("no-such-rule", "denied");
    const std::string text = m.render();
    CHECK_THAT(text, Catch::Contains(R"(miw_admission_requests_total{endpoint="validate",kind="ModelArtifact",operation="CREATE",verdict="would-deny"} 1)"));
    CHECK_THAT(text, Catch::Contains(R"(miw_admission_rule_findings_total{rule="digest-required",verdict="would-deny"} 2)"));
    CHECK_THAT(text, Catch::Contains(R"(miw_admission_rule_findings_total{rule="patterns-forbidden",verdict="would-deny"} 1)"));
    CHECK_THAT(text, Catch::Contains(R"(miw_admission_rule_findings_total{rule="node-floor",verdict="denied"} 1)"));
    CHECK_THAT(text, !Catch::Contains(R"(rule="malformed-request")"));
    CHECK_THAT(text, !Catch::Contains("no-such-rule"));
    CHECK(miw::rule_registry().size() <= Metrics::kRules);
}

TEST_CASE("latencies fill cumulative histogram buckets", "[metrics]") {
    // The buckets' bounds: 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 2.5, 5, 10.
    struct Case {
        const char* name;
        std::vector<double> latencies;
        std::vector<int> cumulative;  // each bucket's count, in order, then +Inf's
    };
    const Case cases[] = {
        {"one under 0.5 ms, one under 2.5 ms", {0.0003, 0.002}, {0, 0, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}},
        {"a latency on a bucket's bound counts in that bucket", {0.0001, 0.001}, {1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}},
        {"the usual review, a few microseconds", {0.000004, 0.000002, 0.00001}, {3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3}},
        {"a review that waited seconds, near the webhook's timeoutSeconds", {2.5, 4.2, 0.3}, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 3, 3}},
        {"past the last bound: in +Inf only", {12.0, 0.3}, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2}},
    };
    const char* const bounds[] = {"0.0001", "0.00025", "0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "1", "2.5", "5", "10", "+Inf"};
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            Metrics m;
            for (double latency : c.latencies) m.observe_review("validate", "Pod", "CREATE", "allowed", latency);
            const std::string text = m.render();
            for (std::size_t i = 0; i < std::size(bounds); ++i) {
                CHECK_THAT(text, Catch::Contains("miw_admission_request_duration_seconds_bucket{endpoint=\"validate\",le=\"" + std::string(bounds[i]) + "\"} " +
                                                 std::to_string(c.cumulative[i]) + "\n"));
            }
            CHECK_THAT(text, Catch::Contains("miw_admission_request_duration_seconds_count{endpoint=\"validate\"} " + std::to_string(c.latencies.size()) + "\n"));
            CHECK_THAT(text, !Catch::Contains(R"(duration_seconds_count{endpoint="mutate"})"));  // nothing observed there
        }
    }
}

TEST_CASE("connections, HTTP answers, lookups and the apiserver version are exposed", "[metrics]") {
    Metrics m;
    m.connection_opened();
    m.connection_opened();
    m.connection_closed();
    m.connection_rejected();
    m.handshake_failed();
    m.observe_http(404);
    m.observe_http(404);
    m.observe_http(503);
    m.node_lookup("found");
    m.pull_secret_read("secret", "forbidden");
    m.pull_secret_read("secret", "forbidden");
    m.pull_secret_read("serviceaccount", "read");
    m.set_apiserver_version("v1.35.2");
    const std::string text = m.render();
    CHECK(m.open_connections() == 1);
    CHECK_THAT(text, Catch::Contains("miw_connections_open 1\n"));
    CHECK_THAT(text, Catch::Contains("miw_connections_rejected_total 1\n"));
    CHECK_THAT(text, Catch::Contains("miw_tls_handshake_failures_total 1\n"));
    CHECK_THAT(text, Catch::Contains("miw_http_responses_total{code=\"404\"} 2\n"));
    CHECK_THAT(text, Catch::Contains("miw_http_responses_total{code=\"503\"} 1\n"));
    CHECK_THAT(text, Catch::Contains("miw_node_lookups_total{result=\"found\"} 1\n"));
    CHECK_THAT(text, Catch::Contains("miw_pull_secret_reads_total{kind=\"secret\",result=\"forbidden\"} 2\n"));
    CHECK_THAT(text, Catch::Contains("miw_pull_secret_reads_total{kind=\"serviceaccount\",result=\"read\"} 1\n"));
    CHECK_THAT(text, Catch::Contains("miw_apiserver_version_info{version=\"v1.35.2\"} 1\n"));
    CHECK_THAT(text, Catch::Contains("# HELP process_resident_memory_bytes"));
}

TEST_CASE("a label value is escaped as the exposition format asks", "[metrics]") {
    Metrics m;
    m.set_apiserver_version("v1\"2\\3\n");
    CHECK_THAT(m.render(), Catch::Contains(R"(miw_apiserver_version_info{version="v1\"2\\3\n"} 1)"));
}

TEST_CASE("registry lookups are counted by result, cache hits apart, looks timed", "[metrics]") {
    Metrics m;
    miw::RegistryLookup found;
    found.status = miw::RegistryLookupStatus::found;
    miw::RegistryLookup missing;
    missing.status = miw::RegistryLookupStatus::not_found;
    miw::RegistryLookup refused;
    refused.failure = miw::RegistryFailure::unauthorized;
    miw::RegistryLookup limited;
    limited.failure = miw::RegistryFailure::rate_limited;
    m.registry_lookup(found, false, 0.004);
    m.registry_lookup(found, true, 0);
    m.registry_lookup(found, true, 0);
    m.registry_lookup(missing, false, 0.3);
    m.registry_lookup(refused, false, 7.0);
    m.registry_lookup(limited, true, 0);
    const std::string text = m.render();
    CHECK_THAT(text, Catch::Contains("miw_registry_lookups_total{result=\"found\"} 3\n"));
    CHECK_THAT(text, Catch::Contains("miw_registry_lookups_total{result=\"not-found\"} 1\n"));
    CHECK_THAT(text, Catch::Contains("miw_registry_lookups_total{result=\"unauthorized\"} 1\n"));
    CHECK_THAT(text, Catch::Contains("miw_registry_lookups_total{result=\"rate-limited\"} 1\n"));
    CHECK_THAT(text, !Catch::Contains("miw_registry_lookups_total{result=\"timeout\"}"));
    CHECK_THAT(text, Catch::Contains("miw_registry_cache_hits_total 3\n"));
    // Only looks are timed: three, at 4 ms, 0.3 s and 7 s.
    CHECK_THAT(text, Catch::Contains("miw_registry_lookup_duration_seconds_bucket{le=\"0.005\"} 1\n"));
    CHECK_THAT(text, Catch::Contains("miw_registry_lookup_duration_seconds_bucket{le=\"0.5\"} 2\n"));
    CHECK_THAT(text, Catch::Contains("miw_registry_lookup_duration_seconds_bucket{le=\"10\"} 3\n"));
    CHECK_THAT(text, Catch::Contains("miw_registry_lookup_duration_seconds_bucket{le=\"+Inf\"} 3\n"));
    CHECK_THAT(text, Catch::Contains("miw_registry_lookup_duration_seconds_count 3\n"));
    CHECK_THAT(text, Catch::Contains("# TYPE miw_registry_lookup_duration_seconds histogram\n"));
}
