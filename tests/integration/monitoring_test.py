"""The shipped alerts and dashboard against a real Prometheus (Debian's, on a
loopback port) scraping the real webhook with the labels the Prometheus
Operator sets (job, namespace, service, pod, endpoint), with the shipped
rules loaded: every rule evaluates without error; no critical alert during
healthy traffic (allowed and denied reviews); the right alert's expression
holds when every registry lookup fails, when the serving certificate expires
within 2 days, and when the webhook is gone; every dashboard query is
accepted.

Usage: monitoring_test.py BINARY REPO [ONLY]. Exits 77 (skipped) when
prometheus is not installed (scripts/setup-debian.sh installs it)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import monitoring_kit as kit  # noqa: E402

BINARY, REPO = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
ONLY = sys.argv[3] if len(sys.argv) > 3 else ""
PROMETHEUS = shutil.which("prometheus")
if PROMETHEUS is None:
    print("prometheus is not installed (apt-get install prometheus, or bash scripts/setup-debian.sh): skipped")
    sys.exit(77)
sys.argv = [sys.argv[0], BINARY, REPO]
import server_test as st  # noqa: E402  (the real server on 127.0.0.1, and its certificates)

WORK = tempfile.mkdtemp(prefix="miw-monitoring-test-")
TARGETS = os.path.join(WORK, "targets.json")
RULES = os.path.join(WORK, "rules.yaml")
kit.write_rules_file(REPO, RULES)
ALERTS = {a["alert"]: a for a in kit.alerts(REPO)}
SHORT_CERTS = os.path.join(WORK, "short-certs")
subprocess.run(["bash", os.path.join(REPO, "certs", "gen-certs.sh"), "--out", SHORT_CERTS, "--days", "1"], check=True, capture_output=True)


class Prometheus:
    """One Prometheus process: 1 s scrapes and rule evaluations, targets from
    a file it watches, labelled as the Operator labels a ServiceMonitor's."""

    def __init__(self):
        self.port = st.free_ports(1)[0]
        config = os.path.join(WORK, "prometheus.yml")
        with open(config, "w") as f:
            f.write("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                    "rule_files: [%s]\n"
                    "scrape_configs:\n- job_name: model-image-webhook\n  scrape_timeout: 900ms\n"
                    "  file_sd_configs:\n  - files: [%s]\n    refresh_interval: 1s\n" % (RULES, TARGETS))
        self.webhooks = {}
        self.write_targets()
        self.log = open(os.path.join(WORK, "prometheus.log"), "w")
        self.proc = subprocess.Popen([PROMETHEUS, "--config.file=" + config, "--storage.tsdb.path=" + os.path.join(WORK, "data"),
                                      "--web.listen-address=127.0.0.1:%d" % self.port, "--log.level=warn"],
                                     stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                with urllib.request.urlopen("http://127.0.0.1:%d/-/ready" % self.port, timeout=1) as r:
                    if r.status == 200:
                        return
            except OSError:
                if self.proc.poll() is not None:
                    raise AssertionError("prometheus exited: " + open(self.log.name).read())
                time.sleep(0.2)
        raise AssertionError("prometheus did not become ready")

    def write_targets(self):
        groups = [{"targets": ["127.0.0.1:%d" % server.metrics_port],
                   "labels": {"namespace": "model-image-webhook", "service": "model-image-webhook", "pod": pod, "endpoint": "metrics"}}
                  for pod, server in self.webhooks.items()]
        with open(TARGETS + ".new", "w") as f:
            json.dump(groups, f)
        os.replace(TARGETS + ".new", TARGETS)

    def scrape(self, pod, server):
        self.webhooks[pod] = server
        self.write_targets()

    def api(self, path, **params):
        url = "http://127.0.0.1:%d/api/v1/%s" % (self.port, path)
        if params:
            url += "?" + urllib.parse.urlencode(params)
        with urllib.request.urlopen(url, timeout=10) as r:
            answer = json.loads(r.read())
        assert answer["status"] == "success", answer
        return answer["data"]

    def query(self, expr):
        return self.api("query", query=expr)["result"]

    def wait_for(self, expr, what, timeout=30):
        deadline = time.time() + timeout
        while time.time() < deadline:
            result = self.query(expr)
            if result:
                return result
            time.sleep(0.5)
        raise AssertionError("%s: `%s` returned nothing in %d s" % (what, expr, timeout))

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


PROM = Prometheus()
HEALTHY = st.Server()
PROM.scrape("model-image-webhook-healthy", HEALTHY)
SERVERS = [HEALTHY]

TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


def send_healthy_traffic(server, rounds=5):
    for _ in range(rounds):
        for name in ("artifact-pinned-create", "artifact-tag-only", "artifact-status-image"):
            resp, _ = server.post("/validate", st.example(name))
            assert resp.status == 200


def rules_evaluated_without_error():
    evaluated = 0
    for group in PROM.api("rules")["groups"]:
        for rule in group["rules"]:
            assert rule["health"] == "ok" and not rule.get("lastError"), rule
            evaluated += not rule["lastEvaluation"].startswith("0001-")
    return evaluated


@test
def every_rule_evaluates_and_no_critical_alert_fires_during_healthy_traffic():
    PROM.wait_for('up{job="model-image-webhook", pod="model-image-webhook-healthy"} == 1', "the webhook scraped")
    for _ in range(4):
        send_healthy_traffic(HEALTHY)
        time.sleep(1)
    PROM.wait_for('miw:admission_requests:rate5m{verdict="denied"} > 0', "the reviews recorded")
    time.sleep(2)  # evaluations after every series is in
    assert rules_evaluated_without_error() == sum(len(g["rules"]) for g in kit.groups(REPO))
    loaded = {r.get("name") for g in PROM.api("rules")["groups"] for r in g["rules"]}
    assert set(ALERTS) <= loaded, set(ALERTS) - loaded
    active = PROM.api("alerts")["alerts"]
    critical = [a for a in active if a["labels"].get("severity") == "critical"]
    assert not critical, critical
    # Allowed and denied reviews were seen, and none failed.
    verdicts = {r["metric"]["verdict"] for r in PROM.query('miw:admission_requests:rate5m > 0')}
    assert {"allowed", "denied"} <= verdicts and not verdicts & {"internal-error", "busy"}, verdicts


@test
def every_dashboard_query_is_accepted():
    for title, expr in kit.dashboard_queries(REPO):
        try:
            PROM.query(expr)
        except urllib.error.HTTPError as e:
            raise AssertionError("panel %r: %s: %s" % (title, expr, e.read().decode()))
    # And the reviews panel shows the healthy traffic.
    reviews = [expr for title, expr in kit.dashboard_queries(REPO) if title == "Reviews by endpoint and verdict"][0]
    assert PROM.query(reviews), reviews


@test
def the_registry_alert_holds_when_every_lookup_cannot_ask():
    failing = st.Server("--registry-check", "warn", "--registry-timeout", "300ms")
    SERVERS.append(failing)
    PROM.scrape("model-image-webhook-registry", failing)
    PROM.wait_for('up{pod="model-image-webhook-registry"} == 1', "the second replica scraped")
    port = st.free_ports(1)[0]  # nothing listens: every lookup is unreachable
    for i in range(6):
        for j in range(5):
            reference = "127.0.0.1:%d/models/qwen@sha256:%064x" % (port, i * 10 + j)
            review = json.loads(st.example("artifact-pinned-create"))
            review["request"]["object"]["spec"]["source"]["image"]["reference"] = reference
            resp, data = failing.post("/validate", json.dumps(review).encode())
            assert resp.status == 200 and "unreachable" in data.decode(), data
        time.sleep(1)
    expr = ALERTS["MIWRegistryLookupsCannotAsk"]["expr"]
    result = PROM.wait_for(expr, "MIWRegistryLookupsCannotAsk's expression")
    assert float(result[0]["value"][1]) > 0.2, result
    # The healthy replica's answers alone would not raise it.
    assert not PROM.query('miw:registry_lookups:rate5m{result="found"} > 0')


@test
def the_certificate_alerts_hold_when_it_expires_within_two_days():
    short = st.Server(certs=SHORT_CERTS)
    SERVERS.append(short)
    PROM.scrape("model-image-webhook-short-certificate", short)
    PROM.wait_for('up{pod="model-image-webhook-short-certificate"} == 1', "the replica with a one-day certificate scraped")
    for name in ("MIWCertificateExpiresWithin2Days", "MIWCertificateExpiresSoon"):
        result = PROM.wait_for(ALERTS[name]["expr"], name + "'s expression")
        assert float(result[0]["value"][1]) < 86400 + 60, result
    states = {a["labels"]["alertname"]: a["state"] for a in PROM.api("alerts")["alerts"]}
    assert states.get("MIWCertificateExpiresWithin2Days") in ("pending", "firing"), states


@test
def the_down_alert_holds_when_the_webhook_is_gone():
    assert not PROM.query(ALERTS["MIWDown"]["expr"])
    for server in SERVERS:
        server.stop()
    PROM.wait_for('max(up{job="model-image-webhook"}) == 0', "every replica scraped down")
    result = PROM.wait_for(ALERTS["MIWDown"]["expr"], "MIWDown's expression")
    assert result[0]["value"][1] == "1", result
    deadline = time.time() + 10
    while time.time() < deadline:
        states = {a["labels"]["alertname"]: a for a in PROM.api("alerts")["alerts"]}
        if "MIWDown" in states:
            break
        time.sleep(0.5)
    assert states["MIWDown"]["state"] == "pending" and states["MIWDown"]["labels"]["severity"] == "critical", states
    assert rules_evaluated_without_error()


def cleanup():
    for server in SERVERS:
        server.stop()
    PROM.stop()
    shutil.rmtree(WORK, ignore_errors=True)
    shutil.rmtree(st.WORK, ignore_errors=True)


if __name__ == "__main__":
    harness.run_tests(TESTS, "monitoring", ONLY, cleanup)
