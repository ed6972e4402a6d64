#!/usr/bin/python3
"""The Helm chart, with real helm and kubectl 1.35: it lints strictly; its
defaults render what `kubectl kustomize manifests/overlays/cert-manager`
renders, object by object (one source of truth: they never drift); each value
changes what it says and nothing else; the schema refuses wrong values with
its own words; every object is valid under the 1.35 OpenAPI schemas; the
packaged chart renders as the folder does; another release and namespace are
followed by names, selectors and monitoring matchers.

  chart_test.py REPO_DIR BINARY [ONLY]
Exit 77 (skipped) without helm (scripts/setup-debian.sh installs it)."""
import base64
import json
import os
import subprocess
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import kube_tools  # noqa: E402

REPO = os.path.abspath(sys.argv[1])
BINARY = os.path.abspath(sys.argv[2])
ONLY = sys.argv[3] if len(sys.argv) > 3 else ""
HELM, KUBECTL = kube_tools.tool("helm"), kube_tools.tool("kubectl")
if HELM is None or KUBECTL is None:
    print("helm or kubectl is not installed (bash scripts/setup-debian.sh installs 1.35's): skipped")
    sys.exit(77)
CHART = os.path.join(REPO, "charts", "model-image-webhook")
OPENAPI = kube_tools.OpenApi(REPO)
WORK = tempfile.mkdtemp(prefix="miw-chart-")
# What Helm adds to every object's labels and the chart to its selectors; the kustomize manifests have neither.
BOOKKEEPING = {"helm.sh/chart", "app.kubernetes.io/managed-by", "app.kubernetes.io/instance", "app.kubernetes.io/version"}


def helm(*args, check=True):
    run = subprocess.run([HELM, *args], capture_output=True, text=True, timeout=120)
    if check:
        assert run.returncode == 0, run.stderr
    return run


def template(*sets, release="model-image-webhook", namespace="model-image-webhook", chart=CHART):
    args = ["template", release, chart, "-n", namespace]
    for s in sets:
        args += ["--set", s] if not s.startswith("-f") else ["-f", s[2:]]
    return [d for d in yaml.safe_load_all(helm(*args).stdout) if d]


def find(objects, kind, name=None):
    found = [o for o in objects if o["kind"] == kind and (name is None or o["metadata"]["name"] == name)]
    return found


def one(objects, kind, name=None):
    found = find(objects, kind, name)
    assert len(found) == 1, (kind, name, [(o["kind"], o["metadata"]["name"]) for o in objects])
    return found[0]


def container(objects):
    return one(objects, "Deployment")["spec"]["template"]["spec"]["containers"][0]


def without_bookkeeping(value):
    """The object as the kustomize manifests would write it: Helm's labels gone wherever labels are."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k in ("labels", "matchLabels", "selector") and isinstance(v, dict) and all(isinstance(x, str) for x in v.values()):
                v = {lk: lv for lk, lv in v.items() if lk not in BOOKKEEPING}
            out[k] = without_bookkeeping(v)
        return out
    if isinstance(value, list):
        return [without_bookkeeping(v) for v in value]
    return value


def kustomize(target):
    return kube_tools.kustomize(KUBECTL, os.path.join(REPO, target))


TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


@test
def the_chart_lints_strictly():
    run = helm("lint", "--strict", CHART)
    assert "1 chart(s) linted, 0 chart(s) failed" in run.stdout, run.stdout
    for mode in ("self-signed", "cert-manager"):
        helm("lint", "--strict", CHART, "--set", "certificates.mode=" + mode, "--set", "monitoring.prometheusRule.enabled=true",
             "--set", "monitoring.dashboard.enabled=true", "--set", "monitoring.serviceMonitor.enabled=true")


@test
def the_defaults_render_the_kustomize_cert_manager_overlay_object_by_object():
    chart = {(o["kind"], o["metadata"]["name"]): o for o in template()}
    kustomized = {(o["kind"], o["metadata"]["name"]): o for o in kustomize("manifests/overlays/cert-manager") if o["kind"] != "Namespace"}
    assert sorted(chart) == sorted(kustomized), (sorted(chart), sorted(kustomized))
    for key, expected in kustomized.items():
        got = without_bookkeeping(chart[key])
        labels = got["metadata"].get("labels", {})
        # The cert-manager objects of the overlay carry no labels; the chart's carry its two.
        if "labels" not in expected["metadata"]:
            assert labels == {"app.kubernetes.io/name": "model-image-webhook", "app.kubernetes.io/part-of": "gpustack"}, (key, labels)
            got["metadata"].pop("labels")
        assert got == expected, "%s differs:\nchart:     %s\nkustomize: %s" % (key, json.dumps(got, sort_keys=True), json.dumps(expected, sort_keys=True))


@test
def the_chart_renders_no_namespace_and_every_object_is_valid_for_1_35():
    renders = [template(), template("certificates.mode=self-signed"), template("certificates.mode=provided", "certificates.provided.secretName=mine",
                                                                                 "certificates.provided.caBundle=" + base64.b64encode(b"ca").decode()),
               template("registryCheck.pullSecrets.enabled=true", "registryCheck.pullSecrets.namespaces={ml-serving,ml-batch}",
                        "signatures.policy=x", "monitoring.serviceMonitor.enabled=true", "monitoring.prometheusRule.enabled=true",
                        "monitoring.dashboard.enabled=true", "registryCheck.ca.secretName=ca", "registryCheck.auth.secretName=auth",
                        "registryCheck.hostsDir.configMapName=hosts", "registryCheck.proxy.https=http://proxy:3128")]
    for objects in renders:
        assert not find(objects, "Namespace")
        for obj in objects:
            OPENAPI.validate(obj, "helm template")


@test
def self_signed_certificates_are_made_at_render_time_and_the_ca_bundle_trusts_them():
    objects = template("certificates.mode=self-signed")
    assert not find(objects, "Certificate") and not find(objects, "Issuer")
    secret = one(objects, "Secret", "model-image-webhook-tls")
    assert secret["type"] == "kubernetes.io/tls", secret
    pem = {k: base64.b64decode(v) for k, v in secret["data"].items()}
    for path, key in (("ca.crt", "ca.crt"), ("tls.crt", "tls.crt")):
        with open(os.path.join(WORK, path), "wb") as f:
            f.write(pem[key])
    done = subprocess.run(["openssl", "verify", "-CAfile", os.path.join(WORK, "ca.crt"), os.path.join(WORK, "tls.crt")], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    text = subprocess.run(["openssl", "x509", "-noout", "-ext", "subjectAltName", "-in", os.path.join(WORK, "tls.crt")], capture_output=True, text=True).stdout
    assert "DNS:model-image-webhook.model-image-webhook.svc" in text, text
    for config in find(objects, "ValidatingWebhookConfiguration") + find(objects, "MutatingWebhookConfiguration"):
        assert "annotations" not in config["metadata"], config["metadata"]
        for w in config["webhooks"]:
            assert base64.b64decode(w["clientConfig"]["caBundle"]) == pem["ca.crt"], w["name"]


@test
def provided_certificates_name_their_secret_and_ca_and_are_required():
    ca = base64.b64encode(b"-----BEGIN CERTIFICATE-----\n...\n").decode()
    objects = template("certificates.mode=provided", "certificates.provided.secretName=corp-tls", "certificates.provided.caBundle=" + ca)
    assert not find(objects, "Secret") and not find(objects, "Certificate")
    volumes = one(objects, "Deployment")["spec"]["template"]["spec"]["volumes"]
    assert {"name": "tls", "secret": {"secretName": "corp-tls"}} in volumes, volumes
    for config in find(objects, "ValidatingWebhookConfiguration") + find(objects, "MutatingWebhookConfiguration"):
        assert all(w["clientConfig"]["caBundle"] == ca for w in config["webhooks"])
    run = helm("template", "x", CHART, "--set", "certificates.mode=provided", check=False)
    assert run.returncode != 0 and "is required with certificates.mode=provided" in run.stderr, run.stderr


@test
def each_registry_value_becomes_its_flag_mount_or_environment():
    assert "--registry-check=warn" in container(template())["args"]
    for mode in ("off", "deny"):
        assert "--registry-check=" + mode in container(template("registryCheck.mode=" + mode))["args"]
    objects = template("registryCheck.ca.secretName=corp-ca", "registryCheck.auth.secretName=node-pull", "registryCheck.hostsDir.configMapName=certs-d",
                       "registryCheck.hostsDir.items[0].key=registry.example.com", "registryCheck.hostsDir.items[0].path=registry.example.com/hosts.toml",
                       "registryCheck.proxy.https=http://proxy.corp:3128", "registryCheck.proxy.noProxy=.svc",
                       "registryCheck.allowedRegistries={registry.example.com,*.ecr.aws}")
    c = container(objects)
    for flag in ("--registry-ca=/etc/model-image-webhook/registry-ca/ca.crt", "--registry-auth=/etc/model-image-webhook/registry-auth/.dockerconfigjson",
                 "--registry-hosts-dir=/etc/model-image-webhook/certs.d", "--registry-allow=registry.example.com,*.ecr.aws"):
        assert flag in c["args"], (flag, c["args"])
    assert {"name": "HTTPS_PROXY", "value": "http://proxy.corp:3128"} in c["env"] and {"name": "NO_PROXY", "value": ".svc"} in c["env"], c["env"]
    volumes = {v["name"]: v for v in one(objects, "Deployment")["spec"]["template"]["spec"]["volumes"]}
    assert volumes["registry-ca"]["secret"]["secretName"] == "corp-ca" and volumes["registry-auth"]["secret"]["secretName"] == "node-pull"
    assert volumes["registry-hosts"]["configMap"] == {"name": "certs-d", "items": [{"key": "registry.example.com", "path": "registry.example.com/hosts.toml"}]}
    assert all(m["readOnly"] for m in c["volumeMounts"]), c["volumeMounts"]


@test
def pull_secrets_are_off_by_default_and_granted_only_in_the_namespaces_listed():
    default = template()
    assert not [a for a in container(default)["args"] if a.startswith("--registry-pull-secrets")]
    for role in find(default, "ClusterRole"):
        assert all("secrets" not in r["resources"] for r in role["rules"]), role
    objects = template("registryCheck.pullSecrets.enabled=true", "registryCheck.pullSecrets.namespaces={ml-serving,ml-batch}")
    assert "--registry-pull-secrets=true" in container(objects)["args"]
    role = one(objects, "ClusterRole", "model-image-webhook-pull-secrets")
    assert role["rules"] == [{"apiGroups": [""], "resources": ["secrets", "serviceaccounts"], "verbs": ["get"]}], role
    bindings = find(objects, "RoleBinding")
    assert sorted(b["metadata"]["namespace"] for b in bindings) == ["ml-batch", "ml-serving"], bindings
    for b in bindings:
        assert b["roleRef"]["name"] == "model-image-webhook-pull-secrets"
        assert b["subjects"] == [{"kind": "ServiceAccount", "name": "model-image-webhook", "namespace": "model-image-webhook"}]
    assert [b["roleRef"]["name"] for b in find(objects, "ClusterRoleBinding")] == ["model-image-webhook"], "never a ClusterRoleBinding to Secrets"


@test
def a_signature_policy_is_a_config_map_the_binary_reads():
    with open(os.path.join(REPO, "manifests", "overlays", "signatures", "policy.yaml")) as f:
        policy = f.read()
    values = os.path.join(WORK, "signatures.yaml")
    with open(values, "w") as f:
        yaml.safe_dump({"signatures": {"policy": policy}}, f)
    objects = template("-f" + values)
    config = one(objects, "ConfigMap", "model-image-webhook-signature-policy")
    assert config["data"]["policy.yaml"].strip() == policy.strip()
    deployment = one(objects, "Deployment")
    assert "--signature-policy=/etc/model-image-webhook/signatures/policy.yaml" in container(objects)["args"]
    assert "checksum/signature-policy" in deployment["spec"]["template"]["metadata"]["annotations"]
    path = os.path.join(WORK, "policy.yaml")
    with open(path, "w") as f:
        f.write(config["data"]["policy.yaml"])
    done = subprocess.run([BINARY, "test", "--signature-policy", path, os.path.join(REPO, "examples", "manifests")], capture_output=True, text=True, timeout=60)
    assert done.returncode in (0, 1) and "--signature-policy" not in done.stderr, done.stderr
    assert not find(template(), "ConfigMap")


@test
def enforcement_sets_the_flag_and_the_per_namespace_webhooks():
    assert not [a for a in container(template())["args"] if a.startswith("--enforcement")]
    assert "--enforcement=warn" in container(template("enforcement.mode=warn"))["args"]
    names = [w["name"] for w in one(template(), "ValidatingWebhookConfiguration")["webhooks"]]
    assert len(names) == 6 and "warn.modelartifacts.model-image-webhook.gpustack.ai" in names, names
    single = template("enforcement.perNamespace=false")
    for config in find(single, "ValidatingWebhookConfiguration") + find(single, "MutatingWebhookConfiguration"):
        for w in config["webhooks"]:
            assert not w["name"].startswith(("warn.", "audit.")), w["name"]
            assert w["namespaceSelector"] == {"matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "NotIn",
                                                                    "values": ["kube-system", "model-image-webhook"]}]}, w


@test
def monitoring_equals_the_kit_and_follows_another_release():
    assert not find(template(), "PrometheusRule") and not find(template(), "ServiceMonitor")
    kit = {(o["kind"], o["metadata"]["name"]): o for o in kustomize("manifests/monitoring")}
    on = ("monitoring.serviceMonitor.enabled=true", "monitoring.prometheusRule.enabled=true", "monitoring.dashboard.enabled=true")
    objects = template(*on)
    rule = one(objects, "PrometheusRule")
    assert rule["spec"] == kit[("PrometheusRule", "model-image-webhook")]["spec"]
    assert "{{ $value" in json.dumps(rule["spec"]), "alert templates stay literal"
    dashboard = one(objects, "ConfigMap", "model-image-webhook-dashboard")
    assert dashboard["metadata"]["labels"]["grafana_dashboard"] == "1"
    assert json.loads(dashboard["data"]["model-image-webhook.json"]) == json.loads(kit[("ConfigMap", "model-image-webhook-dashboard")]["data"]["model-image-webhook.json"])
    assert without_bookkeeping(one(objects, "ServiceMonitor"))["spec"] == kit[("ServiceMonitor", "model-image-webhook")]["spec"]
    # The chart's copies are the kit's files.
    for name in ("prometheusrule.yaml", "dashboard.json"):
        with open(os.path.join(CHART, "files", name)) as a, open(os.path.join(REPO, "manifests", "monitoring", name)) as b:
            assert a.read() == b.read(), name
    other = template(*on, "monitoring.serviceMonitor.labels.release=kps", release="ml-admission", namespace="platform")
    dashboard = json.loads(one(other, "ConfigMap", "ml-admission-model-image-webhook-dashboard")["data"]["model-image-webhook.json"])
    exprs = [r["expr"] for g in one(other, "PrometheusRule")["spec"]["groups"] for r in g["rules"]]
    exprs += [t["expr"] for p in dashboard["panels"] for t in p["targets"]] + [json.dumps(v) for v in dashboard["templating"]["list"]]
    for matcher in ('job="model-image-webhook"', 'namespace="model-image-webhook"', 'poddisruptionbudget="model-image-webhook"',
                    'job=\\"model-image-webhook\\"'):
        assert not [e for e in exprs if matcher in e], matcher
    joined = "\n".join(exprs)
    for matcher in ('job="ml-admission-model-image-webhook"', 'namespace="platform"', 'poddisruptionbudget="ml-admission-model-image-webhook"'):
        assert matcher in joined, matcher
    assert one(other, "ServiceMonitor")["metadata"]["labels"]["release"] == "kps"


@test
def another_release_and_namespace_are_followed_by_names_and_selectors():
    objects = template(release="team-a", namespace="platform")
    name = "team-a-model-image-webhook"
    for kind in ("ClusterRole", "ClusterRoleBinding", "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "Deployment", "Service"):
        one(objects, kind, name)
    for config in find(objects, "ValidatingWebhookConfiguration") + find(objects, "MutatingWebhookConfiguration"):
        assert config["metadata"]["annotations"]["cert-manager.io/inject-ca-from"] == "platform/%s-serving" % name
        for w in config["webhooks"]:
            assert w["clientConfig"]["service"]["name"] == name and w["clientConfig"]["service"]["namespace"] == "platform"
            assert w["namespaceSelector"]["matchExpressions"][0]["values"] == ["kube-system", "platform"], w["namespaceSelector"]
    assert one(objects, "Certificate", name + "-serving")["spec"]["dnsNames"][0] == name + ".platform.svc"
    selector = one(objects, "Deployment")["spec"]["selector"]["matchLabels"]
    assert selector == {"app.kubernetes.io/name": "model-image-webhook", "app.kubernetes.io/instance": "team-a"}, selector


@test
def the_pod_values_reach_the_pod():
    objects = template("replicaCount=3", "image.digest=sha256:" + "a" * 64, "image.tag=0.1.1", "nodeSelector.pool=system",
                       "tolerations[0].key=dedicated", "tolerations[0].operator=Exists", "priorityClassName=system-cluster-critical",
                       "resources.limits.memory=256Mi", "extraArgs={--registry-timeout=5s,--node-cache-ttl=1m}")
    deployment = one(objects, "Deployment")
    spec = deployment["spec"]["template"]["spec"]
    assert deployment["spec"]["replicas"] == 3 and one(objects, "PodDisruptionBudget")["spec"]["minAvailable"] == 1
    assert spec["containers"][0]["image"] == "registry.example.com/gpustack/model-image-webhook:0.1.1@sha256:" + "a" * 64
    assert spec["nodeSelector"] == {"pool": "system"} and spec["tolerations"] == [{"key": "dedicated", "operator": "Exists"}]
    assert spec["priorityClassName"] == "system-cluster-critical"
    assert spec["containers"][0]["resources"]["limits"]["memory"] == "256Mi"
    assert spec["containers"][0]["args"][-2:] == ["--registry-timeout=5s", "--node-cache-ttl=1m"]
    # One replica: no PodDisruptionBudget that would block every eviction.
    assert not find(template("replicaCount=1"), "PodDisruptionBudget")
    affinity = template("affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].key=pool",
                        "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator=Exists")
    assert list(one(affinity, "Deployment")["spec"]["template"]["spec"]["affinity"]) == ["nodeAffinity"]


@test
def the_schema_refuses_wrong_values_in_its_own_words():
    cases = [("registryCheck.mode=maybe", "at '/registryCheck/mode': value must be one of 'off', 'warn', 'deny'"),
             ("replicaCount=two", "at '/replicaCount': got string, want integer"),
             ("certificates.mode=maybe", "at '/certificates/mode': value must be one of 'cert-manager', 'self-signed', 'provided'"),
             ("enforcement.mode=maybe", "at '/enforcement/mode': value must be one of 'deny', 'warn', 'audit'"),
             ("registryCheck.pullSecrets.namespaces=ml-serving", "at '/registryCheck/pullSecrets/namespaces': got string, want array"),
             ("image.digest=sha256:abc", "at '/image/digest'"),
             ("replicaCount=0", "at '/replicaCount'"),
             ("registryChek.mode=deny", "registryChek")]
    for value, words in cases:
        run = helm("template", "x", CHART, "--set", value, check=False)
        assert run.returncode != 0 and words in run.stderr, (value, run.stderr)


@test
def the_packaged_chart_renders_as_the_folder_does():
    run = helm("package", CHART, "-d", WORK)
    package = [os.path.join(WORK, f) for f in os.listdir(WORK) if f.endswith(".tgz")][0]
    assert os.path.basename(package) == "model-image-webhook-0.1.0.tgz", run.stdout
    for sets in ((), ("monitoring.prometheusRule.enabled=true", "monitoring.dashboard.enabled=true", "registryCheck.mode=deny")):
        assert template(*sets, chart=package) == template(*sets)


def cleanup():
    import shutil
    shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    harness.run_tests(TESTS, "chart", ONLY, cleanup)
