#!/usr/bin/python3
"""The deployment manifests: every kustomize target renders with kubectl,
every rendered object is valid under the Kubernetes 1.35 OpenAPI schemas, and
the webhook configurations are safe (checked on the rendered YAML).

  manifests_test.py REPO_DIR [BINARY]
kubectl is 1.35's where scripts/setup-debian.sh installed it (kube_tools.py).
Exit 77 (skipped) when kubectl is not installed.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import kube_tools  # noqa: E402

REPO = os.path.abspath(sys.argv[1])
# The binary reads the shipped signature policy as the Pod would (built beside the repository by default).
BINARY = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else os.path.join(REPO, "build", "model-image-webhook")
KUBECTL = kube_tools.tool("kubectl")
if KUBECTL is None:
    print("kubectl is not installed: the manifests cannot be rendered here")
    sys.exit(77)
_probe = subprocess.run([KUBECTL, "kustomize", os.path.join(REPO, "manifests", "base")], capture_output=True, text=True, timeout=60)
if 'unknown field "labels"' in _probe.stderr:
    print("this kubectl's kustomize predates the `labels` field (kubectl 1.21 or newer reads it): the manifests cannot be rendered here")
    sys.exit(77)
OPENAPI = kube_tools.OpenApi(REPO)

WORK = tempfile.mkdtemp(prefix="miw-manifests-")
MANIFESTS = os.path.join(WORK, "manifests")
shutil.copytree(os.path.join(REPO, "manifests"), MANIFESTS)
subprocess.run(["bash", os.path.join(REPO, "certs", "gen-certs.sh"), "--out", os.path.join(WORK, "certs"), "--overlay",
                os.path.join(MANIFESTS, "overlays", "self-signed")], check=True, capture_output=True)
# Each overlay with the pull-secrets component, as an operator composes them.
for overlay in ("cert-manager", "self-signed"):
    composed = os.path.join(MANIFESTS, "with-pull-secrets", overlay)
    os.makedirs(composed)
    with open(os.path.join(composed, "kustomization.yaml"), "w") as f:
        f.write("resources: [../../overlays/%s]\ncomponents: [../../overlays/pull-secrets]\n" % overlay)
# And with the signatures component.
for overlay in ("cert-manager", "self-signed"):
    composed = os.path.join(MANIFESTS, "with-signatures", overlay)
    os.makedirs(composed)
    with open(os.path.join(composed, "kustomization.yaml"), "w") as f:
        f.write("resources: [../../overlays/%s]\ncomponents: [../../overlays/signatures]\n" % overlay)
TARGETS = ["base", "overlays/cert-manager", "overlays/self-signed", "with-pull-secrets/cert-manager", "with-pull-secrets/self-signed",
           "with-signatures/cert-manager", "with-signatures/self-signed"]
SHIPPED = [t for t in TARGETS if not t.startswith(("with-pull-secrets/", "with-signatures/"))]


def render(target):
    return kube_tools.kustomize(KUBECTL, os.path.join(MANIFESTS, target))


TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


@test
def every_target_renders_to_valid_objects():
    for target in TARGETS:
        objects = render(target)
        assert objects, target
        for obj in objects:
            OPENAPI.validate(obj, target)


def webhooks(target):
    objects = render(target)
    v = [o for o in objects if o["kind"] == "ValidatingWebhookConfiguration"]
    m = [o for o in objects if o["kind"] == "MutatingWebhookConfiguration"]
    assert len(v) == 1 and len(m) == 1
    return v[0], m[0], objects


@test
def every_webhook_is_safe_for_the_cluster():
    for target in TARGETS:
        v, m, _ = webhooks(target)
        for hook in v["webhooks"] + m["webhooks"]:
            name = "%s %s" % (target, hook["name"])
            assert hook["admissionReviewVersions"] == ["v1"], name
            assert hook["sideEffects"] == "None", name
            assert hook["matchPolicy"] == "Equivalent", name
            assert hook["failurePolicy"] == "Fail", name
            assert 1 <= hook["timeoutSeconds"] <= 10, name
            svc = hook["clientConfig"]["service"]
            assert (svc["name"], svc["namespace"], svc["port"]) == ("model-image-webhook", "model-image-webhook", 443), name
            excluded = [e for e in hook["namespaceSelector"]["matchExpressions"] if e["key"] == "kubernetes.io/metadata.name"]
            assert excluded and excluded[0]["operator"] == "NotIn" and {"kube-system", "model-image-webhook"} <= set(excluded[0]["values"]), name


@test
def the_validating_webhooks_send_artifacts_and_pinned_pods_with_image_volumes():
    v, _, _ = webhooks("base")
    by_name = {h["name"]: h for h in v["webhooks"]}
    artifacts = by_name["modelartifacts.model-image-webhook.gpustack.ai"]
    assert artifacts["clientConfig"]["service"]["path"] == "/validate"
    assert artifacts["rules"] == [{"apiGroups": ["worker.gpustack.ai"], "apiVersions": ["*"], "operations": ["CREATE", "UPDATE"],
                                   "resources": ["modelartifacts"], "scope": "*"},
                                  {"apiGroups": ["worker.gpustack.ai"], "apiVersions": ["*"], "operations": ["UPDATE"],
                                   "resources": ["modelartifacts/status"], "scope": "*"}]
    pods = by_name["pinned-pods.model-image-webhook.gpustack.ai"]
    assert pods["clientConfig"]["service"]["path"] == "/validate"
    assert pods["rules"][0]["resources"] == ["pods"] and pods["rules"][0]["operations"] == ["CREATE"]
    conditions = {c["name"]: c["expression"] for c in pods["matchConditions"]}
    assert "v.image" in conditions["mounts-an-image-volume"] and "nodeName" in conditions["pinned-to-a-node"]


@test
def the_mutating_webhook_sends_opted_in_pods_and_workloads():
    _, m, _ = webhooks("base")
    hook = m["webhooks"][0]
    assert hook["clientConfig"]["service"]["path"] == "/mutate"
    assert hook["reinvocationPolicy"] == "IfNeeded"
    assert hook["objectSelector"] == {"matchLabels": {"gpustack.ai/model-delivery": "image"}}
    resources = {(g, r) for rule in hook["rules"] for g in rule["apiGroups"] for r in rule["resources"]}
    assert resources == {("", "pods"), ("apps", "deployments"), ("apps", "statefulsets"), ("apps", "daemonsets"), ("apps", "replicasets"),
                         ("batch", "jobs"), ("batch", "cronjobs"), ("leaderworkerset.x-k8s.io", "leaderworkersets")}, resources
    pods = [r for r in hook["rules"] if r["resources"] == ["pods"]][0]
    assert pods["operations"] == ["CREATE"], "a Pod's volumes cannot change after creation"


def selects(selector, labels):
    """metav1.LabelSelector on a label map, as the apiserver evaluates a namespaceSelector."""
    for key, value in selector.get("matchLabels", {}).items():
        if labels.get(key) != value:
            return False
    for e in selector.get("matchExpressions", []):
        has, value = e["key"] in labels, labels.get(e["key"])
        op = e["operator"]
        if (op == "In" and not (has and value in e["values"])) or (op == "NotIn" and has and value in e["values"]) or \
                (op == "Exists" and not has) or (op == "DoesNotExist" and has):
            return False
    return True


ENFORCEMENT_LABEL = "gpustack.ai/model-image-enforcement"


def namespace(name, mode=None):
    labels = {"kubernetes.io/metadata.name": name}
    if mode is not None:
        labels[ENFORCEMENT_LABEL] = mode
    return labels


@test
def each_webhook_comes_once_per_enforcement_mode_and_the_modes_partition_the_namespaces():
    # (namespace labels, the path prefix that must receive its requests; None: no webhook at all)
    cases = [
        (namespace("gpustack"), ""),
        (namespace("gpustack", "warn"), "/warn"),
        (namespace("gpustack", "audit"), "/audit"),
        (namespace("gpustack", "deny"), ""),
        (namespace("gpustack", "Warn"), ""),  # label values are case-sensitive: anything else enforces
        (namespace("gpustack", ""), ""),
        (namespace("kube-system"), None),
        (namespace("kube-system", "warn"), None),
        (namespace("model-image-webhook", "audit"), None),
    ]
    for target in TARGETS:
        v, m, _ = webhooks(target)
        for config in (v, m):
            groups = {}
            for hook in config["webhooks"]:
                base = hook["name"].split(".", 1)[1] if hook["name"].split(".", 1)[0] in ("warn", "audit") else hook["name"]
                groups.setdefault(base, []).append(hook)
            for base, hooks in groups.items():
                name = "%s %s" % (target, base)
                endpoint = hooks[0]["clientConfig"]["service"]["path"]
                assert endpoint in ("/validate", "/mutate"), name
                assert sorted(h["clientConfig"]["service"]["path"] for h in hooks) == sorted([endpoint, "/warn" + endpoint, "/audit" + endpoint]), name
                for h in hooks[1:]:
                    for key in ("rules", "objectSelector", "matchConditions", "failurePolicy", "timeoutSeconds", "reinvocationPolicy", "sideEffects"):
                        assert h.get(key) == hooks[0].get(key), "%s: %s differs between the modes' entries" % (name, key)
                for labels, prefix in cases:
                    chosen = [h["clientConfig"]["service"]["path"] for h in hooks if selects(h["namespaceSelector"], labels)]
                    want = [] if prefix is None else [prefix + endpoint]
                    assert chosen == want, "%s: namespace %s goes to %s, expected %s" % (name, labels, chosen, want)


@test
def the_deployment_survives_drains_and_runs_restricted():
    _, _, objects = webhooks("base")
    d = [o for o in objects if o["kind"] == "Deployment"][0]
    spec = d["spec"]
    assert spec["replicas"] >= 2 and spec["strategy"]["rollingUpdate"]["maxUnavailable"] == 0
    pod = spec["template"]["spec"]
    assert pod["topologySpreadConstraints"][0]["topologyKey"] == "kubernetes.io/hostname"
    assert pod["securityContext"]["runAsNonRoot"] is True and pod["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault"
    c = pod["containers"][0]
    sc = c["securityContext"]
    assert sc["allowPrivilegeEscalation"] is False and sc["readOnlyRootFilesystem"] is True and sc["capabilities"]["drop"] == ["ALL"]
    assert c["readinessProbe"]["httpGet"]["path"] == "/readyz" and c["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert c["resources"]["requests"]["memory"] and c["resources"]["limits"]["memory"]
    assert any(a.startswith("--tls-cert=/etc/model-image-webhook/tls/") for a in c["args"])
    mount = [mt for mt in c["volumeMounts"] if mt["name"] == "tls"][0]
    assert "subPath" not in mount, "the Secret is mounted as a directory, so rotation reaches the files"
    pdb = [o for o in objects if o["kind"] == "PodDisruptionBudget"][0]
    assert pdb["spec"]["minAvailable"] == 1
    roles = {o["metadata"]["name"]: o for o in objects if o["kind"] == "ClusterRole"}
    assert roles["model-image-webhook"]["rules"] == [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "list", "watch"]},
                                                     {"apiGroups": ["worker.gpustack.ai"], "resources": ["modelartifacts"], "verbs": ["list", "watch"]}], \
        "reading Nodes and ModelArtifacts, nothing else"
    assert set(roles) == {"model-image-webhook"}
    bindings = {o["roleRef"]["name"] for o in objects if o["kind"] == "ClusterRoleBinding"}
    assert bindings == set(roles)


def grants_secrets(role):
    return any(set(r.get("resources", [])) & {"secrets", "*"} and set(r.get("apiGroups", [])) & {"", "*"} for r in role.get("rules", []))


@test
def no_shipped_render_binds_secrets_cluster_wide_and_pull_secrets_are_off_by_default():
    for target in TARGETS:
        objects = render(target)
        roles = {o["metadata"]["name"]: o for o in objects if o["kind"] in ("ClusterRole", "Role")}
        for binding in (o for o in objects if o["kind"] == "ClusterRoleBinding"):
            assert not grants_secrets(roles[binding["roleRef"]["name"]]), "%s: %s binds Secrets cluster-wide" % (target, binding["metadata"]["name"])
        args = [o for o in objects if o["kind"] == "Deployment"][0]["spec"]["template"]["spec"]["containers"][0]["args"]
        pull = [a for a in args if a.startswith("--registry-pull-secrets")]
        if target in SHIPPED:
            assert pull == [], (target, pull)
            assert not any(grants_secrets(r) for r in roles.values()), target
            assert not [o for o in objects if o["kind"] == "RoleBinding"], target


@test
def the_pull_secrets_component_grants_get_by_role_bindings_in_the_listed_namespaces_and_turns_the_flag_on():
    for target in ("with-pull-secrets/cert-manager", "with-pull-secrets/self-signed"):
        objects = render(target)
        role = [o for o in objects if o["kind"] == "ClusterRole" and o["metadata"]["name"] == "model-image-webhook-pull-secrets"][0]
        assert role["rules"] == [{"apiGroups": [""], "resources": ["secrets", "serviceaccounts"], "verbs": ["get"]}], "by name only: never list or watch"
        bindings = [o for o in objects if o["kind"] == "RoleBinding"]
        assert sorted(b["metadata"]["namespace"] for b in bindings) == ["ml-batch", "ml-serving"], bindings
        for b in bindings:
            assert b["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "model-image-webhook-pull-secrets"}
            assert b["subjects"] == [{"kind": "ServiceAccount", "name": "model-image-webhook", "namespace": "model-image-webhook"}]
        args = [o for o in objects if o["kind"] == "Deployment"][0]["spec"]["template"]["spec"]["containers"][0]["args"]
        assert args.count("--registry-pull-secrets=true") == 1 and "--registry-check=warn" in args, args


@test
def the_signatures_component_mounts_its_policy_which_the_binary_reads():
    for target in ("with-signatures/cert-manager", "with-signatures/self-signed"):
        objects = render(target)
        config = [o for o in objects if o["kind"] == "ConfigMap" and o["metadata"]["name"] == "model-image-webhook-signature-policy"][0]
        assert config["metadata"]["namespace"] == "model-image-webhook", config["metadata"]
        pod = [o for o in objects if o["kind"] == "Deployment"][0]["spec"]["template"]["spec"]
        container = pod["containers"][0]
        assert container["args"].count("--signature-policy=/etc/model-image-webhook/signatures/policy.yaml") == 1, container["args"]
        assert {"name": "signature-policy", "mountPath": "/etc/model-image-webhook/signatures", "readOnly": True} in container["volumeMounts"]
        assert {"name": "signature-policy", "configMap": {"name": "model-image-webhook-signature-policy"}} in pod["volumes"]
        # The policy shipped is one the binary starts with: read it as the Pod would.
        policy = os.path.join(WORK, "policy.yaml")
        with open(policy, "w") as f:
            f.write(config["data"]["policy.yaml"])
        done = subprocess.run([BINARY, "test", "--signature-policy", policy, os.path.join(REPO, "examples", "manifests")], capture_output=True, text=True, timeout=60)
        assert done.returncode in (0, 1) and "--signature-policy" not in done.stderr, (done.returncode, done.stderr)
    for target in SHIPPED:
        args = [o for o in render(target) if o["kind"] == "Deployment"][0]["spec"]["template"]["spec"]["containers"][0]["args"]
        assert not [a for a in args if a.startswith("--signature-policy")], (target, args)


@test
def the_network_policy_admits_the_apiserver_and_keeps_metrics_inside():
    for target in TARGETS:
        objects = render(target)
        policy = [o for o in objects if o["kind"] == "NetworkPolicy"]
        assert len(policy) == 1, target
        spec = policy[0]["spec"]
        deployment = [o for o in objects if o["kind"] == "Deployment"][0]
        assert spec["podSelector"]["matchLabels"].items() <= deployment["spec"]["template"]["metadata"]["labels"].items(), "it selects the webhook's Pods"
        assert spec["policyTypes"] == ["Ingress"], "egress stays open: the server calls the Kubernetes API"
        ports = {p["name"]: p["containerPort"] for p in deployment["spec"]["template"]["spec"]["containers"][0]["ports"]}
        rules = {r["ports"][0]["port"]: r["from"] for r in spec["ingress"]}
        assert set(rules) == set(ports) == {"https", "metrics"}, (rules, ports)
        assert [f for f in rules["https"] if "ipBlock" in f], "the admission port is opened by address: the apiserver is not a Pod"
        assert rules["metrics"] == [{"namespaceSelector": {}}], "metrics from Pods inside the cluster only, never an outside address"


@test
def the_monitoring_kit_renders_and_scrapes_the_base_services_metrics_port():
    objects = render("monitoring")
    kinds = sorted(o["kind"] for o in objects)
    assert kinds == ["ConfigMap", "PrometheusRule", "ServiceMonitor"], kinds
    for obj in objects:
        assert obj["metadata"]["namespace"] == "model-image-webhook", obj["metadata"]
        OPENAPI.validate(obj, "monitoring")
    dashboard = [o for o in objects if o["kind"] == "ConfigMap"][0]
    assert dashboard["metadata"]["labels"]["grafana_dashboard"] == "1", dashboard["metadata"]
    assert json.loads(dashboard["data"]["model-image-webhook.json"])["uid"] == "model-image-webhook"
    monitor = [o for o in objects if o["kind"] == "ServiceMonitor"][0]
    service = [o for o in render("base") if o["kind"] == "Service"][0]
    assert monitor["spec"]["selector"]["matchLabels"].items() <= service["metadata"]["labels"].items(), "it selects the webhook's Service"
    assert monitor["spec"]["namespaceSelector"]["matchNames"] == [service["metadata"]["namespace"]]
    assert [e["port"] for e in monitor["spec"]["endpoints"]] == ["metrics"] and "metrics" in [p["name"] for p in service["spec"]["ports"]]


@test
def each_overlay_brings_the_certificate_and_the_ca_bundle():
    v, m, objects = webhooks("overlays/self-signed")
    secret = [o for o in objects if o["kind"] == "Secret"][0]
    assert secret["metadata"]["name"] == "model-image-webhook-tls" and secret["type"] == "kubernetes.io/tls"
    with open(os.path.join(WORK, "certs", "ca.crt"), "rb") as f:
        import base64
        ca = base64.b64encode(f.read()).decode()
    assert all(h["clientConfig"]["caBundle"] == ca for h in v["webhooks"] + m["webhooks"])
    v, m, objects = webhooks("overlays/cert-manager")
    for config in (v, m):
        assert config["metadata"]["annotations"]["cert-manager.io/inject-ca-from"] == "model-image-webhook/model-image-webhook-serving"
    serving = [o for o in objects if o["kind"] == "Certificate" and o["metadata"]["name"] == "model-image-webhook-serving"][0]
    assert serving["spec"]["secretName"] == "model-image-webhook-tls"
    assert "model-image-webhook.model-image-webhook.svc" in serving["spec"]["dnsNames"]


harness.run_tests(TESTS, "manifests", cleanup=lambda: shutil.rmtree(WORK, ignore_errors=True))
