// The Prometheus text the server exposes.
#include "../../src/server/metrics.hpp"

#include <catch2/catch.hpp>

using namespace miw::server;

TEST_CASE("reviews are counted by their labels, unknown kinds as other", "[metrics]") {
    Metrics m;
    m.observe_review("validate", "ModelArtifact", "CREATE", "denied", 0.0003);
    m.observe_review("validate", "ModelArtifact", "CREATE", "denied", 0.002);
    m.observe_review("mutate", "SomethingNew", "UPDATE", "allowed", 0.5);
    const std::string text = m.render();
    CHECK_THAT(text, Catch::Contains(R"(miw_admission_requests_total{endpoint="validate",kind="ModelArtifact",operation="CREATE",verdict="denied"} 2)"));
    CHECK_THAT(text, Catch::Contains(R"(miw_admission_requests_total{endpoint="mutate",kind="other",operation="UPDATE",verdict="allowed"} 1)"));
    CHECK_THAT(text, Catch::Contains("# TYPE miw_admission_requests_total counter"));
}

TEST_CASE("latencies fill cumulative histogram buckets", "[metrics]") {
    Metrics m;
    m.observe_review("validate", "Pod", "CREATE", "allowed", 0.0003);
    m.observe_review("validate", "Pod", "CREATE", "allowed", 0.002);
    const std::string text = m.render();
    CHECK_THAT(text, Catch::Contains(R"(miw_admission_request_duration_seconds_bucket{endpoint="validate",le="0.00025"} 0)"));
    CHECK_THAT(text, Catch::Contains(R"(miw_admission_request_duration_seconds_bucket{endpoint="validate",le="0.0005"} 1)"));
    CHECK_THAT(text, Catch::Contains(R"(miw_admission_request_duration_seconds_bucket{endpoint="validate",le="0.0025"} 2)"));
    CHECK_THAT(text, Catch::Contains(R"(miw_admission_request_duration_seconds_bucket{endpoint="validate",le="+Inf"} 2)"));
    CHECK_THAT(text, Catch::Contains(R"(miw_admission_request_duration_seconds_count{endpoint="validate"} 2)"));
    CHECK_THAT(text, !Catch::Contains(R"(duration_seconds_count{endpoint="mutate"})"));  // nothing observed there
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
    m.set_apiserver_version("v1.35.2");
    const std::string text = m.render();
    CHECK(m.open_connections() == 1);
    CHECK_THAT(text, Catch::Contains("miw_connections_open 1\n"));
    CHECK_THAT(text, Catch::Contains("miw_connections_rejected_total 1\n"));
    CHECK_THAT(text, Catch::Contains("miw_tls_handshake_failures_total 1\n"));
    CHECK_THAT(text, Catch::Contains("miw_http_responses_total{code=\"404\"} 2\n"));
    CHECK_THAT(text, Catch::Contains("miw_http_responses_total{code=\"503\"} 1\n"));
    CHECK_THAT(text, Catch::Contains("miw_node_lookups_total{result=\"found\"} 1\n"));
    CHECK_THAT(text, Catch::Contains("miw_apiserver_version_info{version=\"v1.35.2\"} 1\n"));
    CHECK_THAT(text, Catch::Contains("# HELP process_resident_memory_bytes"));
}

TEST_CASE("a label value is escaped as the exposition format asks", "[metrics]") {
    Metrics m;
    m.set_apiserver_version("v1\"2\\3\n");
    CHECK_THAT(m.render(), Catch::Contains(R"(miw_apiserver_version_info{version="v1\"2\\3\n"} 1)"));
}
