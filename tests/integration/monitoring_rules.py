"""The shipped alerts and dashboard, checked without a cluster: promtool
reads the rules and runs their unit tests (tests/monitoring/rules_test.yaml);
every alert has a severity, a summary, a description and a runbook that
exists, and is tested firing and quiet; every metric a rule or a panel reads
is one the webhook exports (its /metrics, from the real binary).

Usage: monitoring_rules.py BINARY REPO. Exits 77 (skipped) when promtool is
not installed (scripts/setup-debian.sh installs Debian's prometheus)."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.request

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import monitoring_kit as kit  # noqa: E402

BINARY, REPO = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
ONLY = sys.argv[3] if len(sys.argv) > 3 else ""
PROMTOOL = shutil.which("promtool")
if PROMTOOL is None:
    print("promtool is not installed (apt-get install prometheus, or bash scripts/setup-debian.sh): skipped")
    sys.exit(77)
WORK = tempfile.mkdtemp(prefix="miw-monitoring-rules-")
RULES = os.path.join(WORK, "rules.yaml")
kit.write_rules_file(REPO, RULES)
# Metrics the kit reads that other exporters give: Prometheus's own, kube-state-metrics'.
EXTERNAL = {"up", "kube_poddisruptionbudget_status_current_healthy", "kube_poddisruptionbudget_status_desired_healthy"}

TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


@test
def promtool_reads_every_rule():
    done = subprocess.run([PROMTOOL, "check", "rules", RULES], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    count = sum(len(g["rules"]) for g in kit.groups(REPO))
    assert "SUCCESS: %d rules found" % count in done.stdout, done.stdout


@test
def every_alert_fires_on_its_series_and_stays_quiet_on_healthy_ones():
    shutil.copy(os.path.join(REPO, "tests", "monitoring", "rules_test.yaml"), os.path.join(WORK, "rules_test.yaml"))
    done = subprocess.run([PROMTOOL, "test", "rules", os.path.join(WORK, "rules_test.yaml")], capture_output=True, text=True)
    assert done.returncode == 0 and "SUCCESS" in done.stdout, done.stdout + done.stderr
    with open(os.path.join(REPO, "tests", "monitoring", "rules_test.yaml")) as f:
        cases = yaml.safe_load(f)["tests"]
    firing, quiet = set(), set()
    for case in cases:
        for check in case["alert_rule_test"]:
            (firing if check["exp_alerts"] else quiet).add(check["alertname"])
    names = {a["alert"] for a in kit.alerts(REPO)}
    assert names - firing == set(), "alerts never tested firing: %s" % sorted(names - firing)
    assert names - quiet == set(), "alerts never tested quiet: %s" % sorted(names - quiet)


@test
def every_alert_says_how_severe_what_and_where_its_runbook_is():
    with open(os.path.join(REPO, "docs", "operations.md")) as f:
        anchors = {re.sub(r"[^a-z0-9 -]", "", line.lstrip("#").strip().lower()).replace(" ", "-") for line in f if line.startswith("#")}
    for a in kit.alerts(REPO):
        name = a["alert"]
        assert a["labels"].get("severity") in ("warning", "critical"), name
        for key in ("summary", "description", "runbook_url"):
            assert a["annotations"].get(key), (name, key)
        url = a["annotations"]["runbook_url"]
        assert url.startswith("https://") and "/docs/operations.md#" in url, (name, url)
        anchor = url.split("#", 1)[1]
        assert anchor in anchors, "%s: docs/operations.md has no section #%s" % (name, anchor)
    # Critical only where admission is at stake.
    critical = {a["alert"] for a in kit.alerts(REPO) if a["labels"]["severity"] == "critical"}
    assert critical == {"MIWDown", "MIWAdmissionFailing", "MIWAdmissionFailClosed", "MIWApiserverVersionUnknown", "MIWReviewLatencyNearTimeout",
                        "MIWCertificateExpiresWithin2Days"}, critical


def exported_metrics():
    import server_test as st  # noqa: E402  (the real server on 127.0.0.1)
    s = st.Server("--registry-check", "warn")
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % s.metrics_port, timeout=5) as r:
            text = r.read().decode()
    finally:
        s.stop()
    return {line.split()[2] for line in text.splitlines() if line.startswith("# HELP ")}


@test
def every_metric_a_rule_or_a_panel_reads_is_one_the_webhook_exports():
    exported = exported_metrics()
    assert "miw_admission_requests_total" in exported and "process_resident_memory_bytes" in exported, exported
    recorded = set(kit.recorded(REPO))
    expressions = [("rule " + (r.get("alert") or r.get("record")), r["expr"]) for g in kit.groups(REPO) for r in g["rules"]]
    expressions += [("panel " + title, expr) for title, expr in kit.dashboard_queries(REPO)]
    unknown = []
    for where, expr in expressions:
        names = kit.metric_names(expr)
        assert names, "%s reads no metric: %s" % (where, expr)
        for name in names:
            if kit.exported_family(name) not in exported and name not in recorded and name not in EXTERNAL:
                unknown.append((where, name))
    assert not unknown, unknown


@test
def the_dashboard_asks_the_chosen_prometheus_for_the_chosen_namespace():
    d = kit.dashboard(REPO)
    variables = {v["name"]: v for v in d["templating"]["list"]}
    assert variables["datasource"]["type"] == "datasource" and variables["datasource"]["query"] == "prometheus"
    assert d["uid"] == "model-image-webhook" and d["panels"]
    for panel in d["panels"]:
        assert panel["datasource"]["uid"] == "${datasource}", panel["title"]
        for target in panel["targets"]:
            assert 'namespace=~"$namespace"' in target["expr"], (panel["title"], target["expr"])
    # The kustomization ships it as the sidecar's ConfigMap.
    with open(os.path.join(REPO, kit.KIT, "kustomization.yaml")) as f:
        k = yaml.safe_load(f)
    generator = k["configMapGenerator"][0]
    assert generator["options"]["labels"] == {"grafana_dashboard": "1"}, generator
    assert generator["files"] == ["model-image-webhook.json=dashboard.json"], generator


@test
def the_metric_reader_finds_names_and_not_labels_or_functions():
    assert kit.metric_names('sum by (job, le) (rate(a_bucket{job="x", le=~"1|2"}[5m])) / b > 0.5 unless on (instance) c') == {"a_bucket", "b", "c"}
    assert kit.metric_names('absent(up{job="a"} == 1)') == {"up"}
    assert kit.metric_names("histogram_quantile(0.99, x:y:rate5m) > 2.5 * 86400") == {"x:y:rate5m"}


def cleanup():
    shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    harness.run_tests(TESTS, "monitoring rules", ONLY, cleanup)
