#!/usr/bin/python3
"""`model-image-webhook test`: manifests in, the webhook's own verdicts out.

  test_command_test.py BINARY REPO_DIR
"""
import base64
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

BINARY, REPO = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
MANIFESTS = os.path.join(REPO, "examples", "manifests")
WORK = tempfile.mkdtemp(prefix="miw-test-mode-")
REF = "registry.example.com/team/qwen@sha256:9372c470eeadd5ecd9c3c74c2b3cb633f8e2f2fad799250a0f70d652b6b825e4"


def run(*args, stdin=None):
    p = subprocess.run([BINARY, "test"] + list(args), input=stdin, capture_output=True, cwd=REPO, timeout=60)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def write(name, content, mode="w"):
    path = os.path.join(WORK, name)
    with open(path, mode) as f:
        f.write(content)
    return path


def artifact(name, ref):
    return "apiVersion: worker.gpustack.ai/v1alpha1\nkind: ModelArtifact\nmetadata:\n  name: %s\nspec:\n  source:\n    image:\n      reference: %s\n" % (name, ref)


def verdicts(args):
    code, out, err = run(*args, "--output", "json")
    doc = json.loads(out)
    return code, [(o["name"], o["verdict"], o["line"]) for o in doc["objects"]], doc


TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


@test
def the_examples_give_the_expected_report():
    code, out, _ = run("examples/manifests")
    with open(os.path.join(MANIFESTS, "expected.txt")) as f:
        assert out == f.read(), "the report differs from examples/manifests/expected.txt:\n" + out
    assert code == 1


@test
def manifests_shaped_as_the_public_serving_examples():
    """vLLM, SGLang, LeaderWorkerSet, KServe, TGI, TEI, NVIDIA Dynamo, TensorRT-LLM, llama.cpp and NVIDIA NIM deployments as their
    projects publish them, and wrapper entrypoints and init processes as their users write them (tests/fixtures/serving), opted in: the report is the one
    kept beside them, and each rendered object, read back, is left alone."""
    serving = os.path.join("tests", "fixtures", "serving")
    code, out, _ = run("--kube-version", "v1.35.0", serving)
    with open(os.path.join(REPO, serving, "expected.txt")) as f:
        assert out == f.read(), "the report differs from tests/fixtures/serving/expected.txt:\n" + out
    assert code == 0
    code, out, err = run("--kube-version", "v1.35.0", "--show-patched", "--output", "json", serving)
    objects = json.loads(out)["objects"]
    rendered = [o for o in objects if o["verdict"] == "allowed"]
    assert code == 0 and len(rendered) == 25 and all(o["patch"] for o in rendered), err
    # Every warning reaches kubectl whole: the apiserver passes on 256 bytes, without control characters.
    warnings = [w for o in objects for w in o.get("warnings", [])]
    assert warnings and all(len(w.encode()) <= 256 and not any(ord(ch) < 0x20 or 0x7f <= ord(ch) <= 0x9f for ch in w) for w in warnings), \
        [w for w in warnings if len(w.encode()) > 256]
    again = json.loads(run("--kube-version", "v1.35.0", "--output", "json", write("rendered.json", json.dumps(
        {"apiVersion": "v1", "kind": "List", "items": [o["patched"] for o in rendered]})))[1])["objects"]
    assert [(o["name"], o["verdict"], o["patch"]) for o in again] == [(o["name"], "allowed", None) for o in rendered], again


@test
def multi_document_files_with_comments_anchors_boms_and_crlf():
    text = ("\ufeff# leading comment\n---\n" + artifact("good", REF) + "---\n---\n# only a comment\n---\n" + artifact("tagged", "r.io/q:v1") +
            "...\n---\n" + "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  labels: &l {gpustack.ai/model-delivery: image}\n"
            "  annotations: {gpustack.ai/model-image: '" + REF + "'}\nspec:\n  template:\n    metadata: {labels: *l}\n    spec:\n"
            "      containers: [{name: c, image: i}]\n")
    path = write("mixed.yaml", text.replace("\n", "\r\n"), mode="w")
    code, objects, doc = verdicts([path])
    assert objects == [("good", "allowed", 3), ("tagged", "denied", 15), ("d", "allowed", 25)], objects
    assert code == 1
    assert doc["objects"][2]["patch"] is not None and doc["objects"][2]["endpoints"] == ["mutate"], "a Deployment is sent to the mutating webhook only"


@test
def json_files_lists_and_stdin():
    items = [json.loads(json.dumps({"apiVersion": "worker.gpustack.ai/v1", "kind": "ModelArtifact", "metadata": {"name": "a%d" % i},
                                    "spec": {"source": {"image": {"reference": REF if i else "r.io/q:v1"}}}})) for i in range(3)]
    path = write("list.json", json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=2))
    code, objects, _ = verdicts([path])
    assert [o[:2] for o in objects] == [("a0", "denied"), ("a1", "allowed"), ("a2", "allowed")], objects
    assert [o[2] for o in objects] == [5, 19, 33], "each item's own line: %s" % objects
    code, out, _ = run("-", stdin=artifact("from-stdin", REF).encode())
    assert code == 0 and "(stdin):1: ModelArtifact from-stdin: allowed" in out, out


@test
def directories_are_walked_recursively():
    d = os.path.join(WORK, "tree")
    os.makedirs(os.path.join(d, "sub", "deeper"))
    os.makedirs(os.path.join(d, ".git"))
    write("tree/b.yaml", artifact("b", REF))
    write("tree/sub/a.yml", artifact("a", REF))
    write("tree/sub/deeper/c.json", json.dumps({"apiVersion": "worker.gpustack.ai/v1", "kind": "ModelArtifact", "metadata": {"name": "c"},
                                                "spec": {"source": {"image": {"reference": REF}}}}))
    write("tree/notes.txt", "not a manifest")
    write("tree/.git/x.yaml", "broken: [")
    code, objects, _ = verdicts([d])
    assert code == 0 and [o[0] for o in objects] == ["b", "a", "c"], objects


@test
def broken_yaml_is_an_input_error_with_its_line():
    path = write("broken.yaml", artifact("ok", REF) + "---\nmetadata:\n  name: x\n bad: indent\n")  # line 12 is off by one space
    code, out, _ = run(path)
    assert code == 2 and "broken.yaml:12:" in out, out
    path = write("unclosed.yaml", "a: [1, 2\n")
    code, out, _ = run(path)
    assert code == 2 and "unclosed.yaml:" in out
    path = write("notk8s.yaml", "just: a config\n")
    code, out, _ = run(path)
    assert code == 2 and "notk8s.yaml:1: not a Kubernetes object" in out, out


@test
def an_input_error_wins_over_denials():
    denied = write("denied.yaml", artifact("tagged", "r.io/q:v1"))
    code, _, _ = run(denied)
    assert code == 1
    code, out, _ = run(denied, os.path.join(WORK, "missing.yaml"))
    assert code == 2 and "missing.yaml: no such file or directory" in out, out


@test
def usage_errors():
    for args, says in [(["--no-such-flag", "x"], "no-such-flag"), (["--kube-version", "banana", MANIFESTS], "cannot be read"),
                       (["--output", "xml", MANIFESTS], "--output must be"), ([], "name the manifests"),
                       (["--nodes", "/nonexistent.yaml", MANIFESTS], "cannot read /nonexistent.yaml")]:
        code, _, err = run(*args)
        assert code == 2 and says in err, (args, code, err)


@test
def the_apiserver_version_is_said():
    code, out, _ = run(os.path.join(MANIFESTS, "artifacts.yaml"))
    assert "apiserver version: v1.35.0 (assumed" in out
    code, out, _ = run("--kube-version", "v1.34.1", os.path.join(MANIFESTS, "artifacts.yaml"))
    assert "apiserver version: v1.34.1\n" in out and "apiserver-floor" in out and code == 1
    code, _, doc = verdicts(["--kube-version", "v1.36.0", os.path.join(MANIFESTS, "artifacts.yaml")])
    assert doc["kubeVersion"] == "v1.36.0" and doc["kubeVersionAssumed"] is False


@test
def objects_the_webhook_never_sees_are_skipped():
    code, objects, doc = verdicts([os.path.join(MANIFESTS, "workloads.yaml")])
    skipped = {o["name"]: o["message"] for o in doc["objects"] if o["verdict"] == "skipped"}
    assert set(skipped) == {"web", "vllm-settings"} and code == 0, skipped
    assert "the objectSelector of delivery.model-image-webhook.gpustack.ai (gpustack.ai/model-delivery=image) does not select it" in skipped["web"]
    assert doc["summary"] == {"objects": 5, "allowed": 3, "denied": 0, "wouldDeny": 0, "skipped": 2, "errors": 0}


@test
def pinned_pods_use_the_nodes_among_the_inputs_or_a_nodes_file():
    code, objects, _ = verdicts([os.path.join(MANIFESTS, "pods.yaml")])
    assert ("qwen-7b-on-a100", "denied", 5) in objects, "without the Nodes, a pinned Pod's node does not exist"
    code, objects, _ = verdicts(["--nodes", os.path.join(REPO, "examples", "nodes.yaml"), os.path.join(MANIFESTS, "pods.yaml")])
    assert ("qwen-7b-on-a100", "allowed", 5) in objects and ("qwen-7b-on-t4", "denied", 18) in objects


@test
def junit_output_is_xml_with_a_testcase_per_object():
    code, out, _ = run("--output", "junit", "examples/manifests")
    root = ET.fromstring(out)
    cases = root.findall("./testsuite/testcase")
    assert len(cases) == 16, len(cases)
    failures = [c for c in cases if c.find("failure") is not None]
    skipped = [c for c in cases if c.find("skipped") is not None]
    assert len(failures) == 4 and len(skipped) == 5
    assert root.get("tests") == "16" and root.get("failures") == "4" and root.get("skipped") == "5"
    names = [c.get("name") for c in failures]
    assert "ModelArtifact gpustack/qwen2-5-7b-latest" in names
    assert failures[0].find("failure").get("type") in ("digest-required", "patterns-forbidden", "node-floor", "two-weight-sources")
    # markup in names and messages is escaped
    path = write("markup.yaml", artifact("a-b", "r.io/<q>&\"x\":v1"))
    code, out, _ = run("--output", "junit", path)
    case = ET.fromstring(out).find("./testsuite/testcase")
    assert "<q>&" in case.find("failure").text
    # characters XML cannot hold, which YAML escapes can put in a name or a reference, are replaced
    path = write("unholdable.yaml", artifact('"q\\uFFFEx\\x01y"', '"r.io/q:v1\\uFFFF"'))
    code, out, _ = run("--output", "junit", path)
    case = ET.fromstring(out).find("./testsuite/testcase")
    assert case.get("name") == "ModelArtifact q?x?y", case.get("name")
    code, out, _ = run("--output", "junit", os.path.join(WORK, "missing.yaml"))
    assert code == 2 and ET.fromstring(out).find("./testsuite/testcase/error") is not None


def review(kind, group, version, obj, endpoint):
    body = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
            "request": {"uid": "u", "kind": {"group": group, "version": version, "kind": kind}, "operation": "CREATE",
                        "name": obj["metadata"].get("name", ""), "namespace": obj["metadata"].get("namespace", ""), "object": obj}}
    p = subprocess.run([BINARY, "review", "--endpoint", endpoint, "--nodes", os.path.join(MANIFESTS, "nodes.yaml"), "-"], input=json.dumps(body).encode(),
                       capture_output=True, timeout=30)
    return json.loads(p.stdout)["response"]


def manifest_objects():
    """The objects of examples/manifests in the order `test` reads them,
    read by PyYAML: an independent reader."""
    objects = []
    for name in sorted(os.listdir(MANIFESTS)):
        if not name.endswith((".yaml", ".yml", ".json")):
            continue
        with open(os.path.join(MANIFESTS, name)) as f:
            for doc in yaml.safe_load_all(f):
                if doc is None:
                    continue
                objects.extend(doc["items"] if doc.get("kind", "").endswith("List") and "items" in doc else [doc])
    return objects


@test
def test_and_review_agree_on_every_example():
    code, out, _ = run("--output", "json", "--show-patched", "examples/manifests")
    doc = json.loads(out)
    originals = manifest_objects()
    assert len(originals) == len(doc["objects"]), (len(originals), len(doc["objects"]))
    checked = 0
    for o, original in zip(doc["objects"], originals):
        assert (o["kind"], o["name"]) == (original["kind"], original["metadata"]["name"]), (o["name"], original["metadata"]["name"])
        if o["verdict"] == "skipped":
            continue
        group, _, version = o["apiVersion"].rpartition("/")
        first = review(o["kind"], group, version, original, o["endpoints"][0])
        if o["endpoints"][0] == "mutate":
            patch = json.loads(base64.b64decode(first["patch"])) if "patch" in first else None
            assert patch == o["patch"], (o["name"], patch, o["patch"])
        if o["verdict"] == "denied":
            last = first if not first["allowed"] else review(o["kind"], group, version, o["patched"] or original, "validate")
            assert last["allowed"] is False and last["auditAnnotations"]["rule"] == o["rule"] and last["status"]["message"] == o["message"], (o["name"], last)
        else:
            assert first["allowed"] is True, o["name"]
            if o["patched"]:
                assert review(o["kind"], group, version, o["patched"], "validate")["allowed"] is True
        checked += 1
    assert checked == 11, checked



@test
def files_that_are_not_manifests_by_their_role_are_skipped_with_a_note():
    repo = os.path.join(WORK, "repo")
    os.makedirs(os.path.join(repo, "chart", "templates"), exist_ok=True)
    with open(os.path.join(repo, "kustomization.yaml"), "w") as f:
        f.write("resources: [app.yaml]\n")
    with open(os.path.join(repo, "chart", "Chart.yaml"), "w") as f:
        f.write("apiVersion: v2\nname: app\nversion: 0.1.0\n")
    with open(os.path.join(repo, "chart", "values-prod.yaml"), "w") as f:
        f.write("replicas: 2\n")
    with open(os.path.join(repo, "chart", "templates", "deploy.yaml"), "w") as f:
        f.write("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n")
    with open(os.path.join(repo, "app.yaml"), "w") as f:
        f.write(artifact("good", REF))
    code, objects, doc = verdicts([repo])
    assert code == 0 and objects == [("good", "allowed", 1)], (code, objects, doc["errors"])
    assert len(doc["notes"]) == 4 and all("skipped" in n for n in doc["notes"]), doc["notes"]
    assert any("kustomization" in n for n in doc["notes"]) and any("helm template" in n for n in doc["notes"])


@test
def unserved_api_versions_and_generate_name():
    path = write("old.yaml", "apiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: nightly\n---\n"
                 "apiVersion: v1\nkind: Pod\nmetadata:\n  generateName: load-test-\nspec:\n  containers: [{name: c, image: i}]\n")
    code, objects, doc = verdicts([path])
    assert code == 2 and objects == [("load-test-*", "skipped", 6)], (code, objects)
    assert doc["errors"] == [path + ":1: CronJob nightly: batch/v1beta1 is not served by Kubernetes 1.35: write apiVersion: batch/v1"], doc["errors"]


@test
def yaml_is_read_as_kubectl_reads_it():
    # an anchor on its own line before a block scalar (KServe's OpenAPI YAML has this shape)
    path = write("anchor.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a:\n    &anc |\n    hello\n")
    code, objects, _ = verdicts([path])
    assert code == 0 and objects == [("x", "skipped", 1)], objects
    # 0755 is octal to kubectl; --show-patched writes what reads back the same
    pod = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels: {gpustack.ai/model-delivery: image}\n"
           "  annotations: {gpustack.ai/model-image: '" + REF + "'}\nspec:\n  containers:\n  - name: c\n    image: i\n"
           "    env: [{name: A, value: '0x1F'}, {name: B, value: '0b101'}, {name: C, value: 'yes'}]\n"
           "  volumes: [{name: cfg, configMap: {name: c, defaultMode: 0755}}]\n")
    code, out, err = run(write("pod.yaml", pod), "--show-patched", "--output", "json")
    assert code == 0, err
    patched = json.loads(out)["objects"][0]["patched"]
    assert patched["spec"]["volumes"][0]["configMap"]["defaultMode"] == 493
    assert [e["value"] for e in patched["spec"]["containers"][0]["env"]] == ["0x1F", "0b101", "yes"]
    code, text, _ = run(write("pod2.yaml", pod), "--show-patched")
    shown = text.split("---\n", 1)[1].split("...\n", 1)[0]
    reread = run(write("shown.yaml", shown), "--show-patched", "--output", "json")[1]
    again = json.loads(reread)["objects"][0]
    assert again["patch"] is None, "the shown object, read back, is already rendered"
    assert "defaultMode: 493" in shown and '"0x1F"' in shown and '"yes"' in shown, shown


@test
def sarif_output_is_valid_sarif_with_a_result_per_finding():
    import jsonschema
    with open(os.path.join(REPO, "tests", "fixtures", "sarif-schema-2.1.0.json")) as f:
        schema = json.load(f)
    broken = write("broken.yaml", "a: [1\n")
    code, out, err = run("examples/manifests", broken, "--output", "sarif")
    assert code == 2, (code, err)
    doc = json.loads(out)
    jsonschema.Draft4Validator(schema).validate(doc)
    run_ = doc["runs"][0]
    rules = [r["id"] for r in run_["tool"]["driver"]["rules"]]
    assert "digest-required" in rules and "two-weight-sources" in rules and "webhook-warning" in rules
    code_j, out_j, _ = run(os.path.join(MANIFESTS), "--output", "json")
    report = json.loads(out_j)
    denials = sum(1 for o in report["objects"] if o["verdict"] == "denied")
    warnings = sum(len(o["warnings"]) for o in report["objects"])
    results = run_["results"]
    assert sum(1 for r in results if r["level"] == "error" and r["ruleId"] != "manifest-error") == denials
    assert sum(1 for r in results if r["level"] == "warning") == warnings
    errors = [r for r in results if r["ruleId"] == "manifest-error"]
    assert len(errors) == 1 and errors[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("broken.yaml")
    for r in results:
        assert rules[r["ruleIndex"]] == r["ruleId"]
        region = r["locations"][0]["physicalLocation"]["region"]
        assert region["startLine"] >= 1
    tag = [r for r in results if r["ruleId"] == "digest-required"][0]
    assert tag["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "examples/manifests/artifacts.yaml"
    assert tag["locations"][0]["physicalLocation"]["region"]["startLine"] == 13


@test
def objects_are_selected_as_the_webhook_configurations_select_them():
    ds = ("apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: fluentd\n  namespace: kube-system\n  labels: {gpustack.ai/model-delivery: image}\n"
          "  annotations: {gpustack.ai/model-image: '" + REF + "'}\nspec:\n  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: b}}\n"
          "    spec:\n      containers: [{name: c, image: i}]\n")
    code, objects, doc = verdicts([write("ds.yaml", ds)])
    assert code == 0 and objects == [("fluentd", "skipped", 1)], objects
    assert "namespaceSelector" in doc["objects"][0]["message"] and "kube-system" in doc["objects"][0]["message"]
    # the same in a namespace of its own is rendered
    code, objects, doc = verdicts([write("ds2.yaml", ds.replace("kube-system", "logging"))])
    assert objects == [("fluentd", "allowed", 1)] and doc["objects"][0]["patch"], objects
    # a user's own configuration, whose namespaceSelector asks for a label that a Namespace in the input carries
    config = ("apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata: {name: mine}\nwebhooks:\n"
              "- name: delivery.example.com\n  clientConfig: {service: {name: w, namespace: w, path: /mutate}}\n"
              "  rules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [daemonsets]}]\n"
              "  namespaceSelector: {matchLabels: {models: 'on'}}\n")
    namespace = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: logging\n  labels: {models: 'on'}\n---\n"
    cfg = write("config.yaml", config)
    code, objects, _ = verdicts(["--webhook-config", cfg, write("ds3.yaml", namespace + ds.replace("kube-system", "logging"))])
    assert ("fluentd", "allowed", 7) in objects, objects
    code, objects, doc = verdicts(["--webhook-config", cfg, write("ds4.yaml", ds.replace("kube-system", "logging"))])
    assert objects == [("fluentd", "skipped", 1)] and "models=on" in doc["objects"][0]["message"], doc["objects"]


@test
def a_template_that_opts_in_is_judged_as_its_pods_will_be():
    dep = ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: tmpl\n  namespace: gpustack\nspec:\n  selector: {matchLabels: {a: b}}\n"
           "  template:\n    metadata:\n      labels: {a: b, gpustack.ai/model-delivery: image}\n      annotations: {gpustack.ai/model-image: 'r.io/m:v1'}\n"
           "    spec:\n      containers: [{name: c, image: i}]\n")
    code, objects, doc = verdicts([write("tmpl.yaml", dep)])
    assert code == 1 and objects == [("tmpl", "denied", 1)], objects
    o = doc["objects"][0]
    assert o["rule"] == "digest-required" and o["message"].startswith("its Pods will be refused: ")
    assert o["warnings"][0].startswith("judged as the Pods it creates")
    code, objects, doc = verdicts([write("tmpl-ok.yaml", dep.replace("r.io/m:v1", REF))])
    assert code == 0 and objects == [("tmpl", "allowed", 1)] and doc["objects"][0]["patch"], objects

@test
def enforcement_warn_reports_denials_as_softened_and_exits_zero():
    import jsonschema
    code, objects, doc = verdicts(["examples/manifests"])
    denied = sorted(name for name, verdict, _ in objects if verdict == "denied")
    assert code == 1 and denied, objects
    for mode in ("warn", "audit"):
        code, softened, doc = verdicts(["examples/manifests", "--enforcement", mode])
        assert code == 0, (mode, code)
        assert sorted(name for name, verdict, _ in softened if verdict == "would-deny") == denied, softened
        assert all(verdict != "denied" for _, verdict, _ in softened)
        assert doc["summary"]["wouldDeny"] == len(denied) and doc["summary"]["denied"] == 0
        for o in doc["objects"]:
            if o["verdict"] == "would-deny":
                assert o["enforcement"] == mode and o["rule"] and o["message"], o
                assert not any(w.startswith("would be denied") for w in o["warnings"]), "the finding is reported once, as the finding"
        # Objects that pass are reported as under deny.
        assert [x for x in softened if x[1] != "would-deny"] == [x for x in objects if x[1] != "denied"]
    code, out, _ = run("examples/manifests", "--enforcement", "warn")
    assert code == 0 and "allowed, WOULD BE DENIED (enforcement warn) [digest-required]" in out, out
    assert "would be denied (admitted by the enforcement mode)" in out
    code, out, _ = run("examples/manifests", "--enforcement", "warn", "--output", "junit")
    root = ET.fromstring(out)
    assert code == 0 and root.get("failures") == "0"
    softened_cases = [tc for tc in root.iter("testcase") if tc.find("properties") is not None]
    assert len(softened_cases) == len(denied)
    for tc in softened_cases:
        props = {p.get("name"): p.get("value") for p in tc.find("properties")}
        assert props["verdict"] == "would-deny" and props["enforcement"] == "warn" and props["rule"], props
        assert tc.find("failure") is None and "would be denied (enforcement warn)" in tc.find("system-out").text
    code, out, _ = run("examples/manifests", "--enforcement", "warn", "--output", "sarif")
    sarif = json.loads(out)
    with open(os.path.join(REPO, "tests", "fixtures", "sarif-schema-2.1.0.json")) as f:
        jsonschema.Draft4Validator(json.load(f)).validate(sarif)
    results = sarif["runs"][0]["results"]
    assert not [r for r in results if r["level"] == "error"], "nothing fails the check under warn"
    softened_results = [r for r in results if r.get("properties", {}).get("verdict") == "would-deny"]
    assert len(softened_results) == len(denied)
    for r in softened_results:
        assert r["level"] == "warning" and r["properties"]["enforcement"] == "warn" and r["ruleId"] != "webhook-warning"
        assert "would be denied (not enforced: warn)" in r["message"]["text"]
    code, _, err = run("examples/manifests", "--enforcement", "dryrun")
    assert code == 2 and "--enforcement \"dryrun\" is not one of deny, warn, audit" in err, err


@test
def a_namespace_labelled_for_a_mode_is_judged_in_that_mode():
    def namespace(name, mode):
        labels = "  labels: {gpustack.ai/model-image-enforcement: %s}\n" % mode if mode else ""
        return "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s\n%s---\n" % (name, labels)

    def tagged(name, ns):
        return artifact(name, "registry.example.com/team/qwen:v1").replace("metadata:\n", "metadata:\n  namespace: %s\n" % ns) + "---\n"

    text = namespace("trial", "warn") + namespace("watch", "audit") + namespace("prod", None) + namespace("other", "yes") + \
        tagged("a", "trial") + tagged("b", "watch") + tagged("c", "prod") + tagged("d", "other") + tagged("e", "kube-system")
    code, objects, doc = verdicts([write("modes.yaml", text)])
    by_name = {o["name"]: o for o in doc["objects"]}
    assert code == 1
    assert (by_name["a"]["verdict"], by_name["a"]["enforcement"]) == ("would-deny", "warn"), by_name["a"]
    assert (by_name["b"]["verdict"], by_name["b"]["enforcement"]) == ("would-deny", "audit"), by_name["b"]
    assert by_name["c"]["verdict"] == "denied" and by_name["d"]["verdict"] == "denied"
    assert by_name["e"]["verdict"] == "skipped" and "kube-system" in by_name["e"]["message"]
    # The flag sets the mode of namespaces that are not labelled; a labelled one keeps its own.
    code, objects, doc = verdicts(["--enforcement", "audit", write("modes2.yaml", text)])
    by_name = {o["name"]: o for o in doc["objects"]}
    assert code == 0 and by_name["a"]["enforcement"] == "warn" and by_name["c"]["enforcement"] == "audit"


@test
def pods_are_placed_towards_the_nodes_among_the_inputs_that_hold_their_image():
    pod = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: qwen-0\n  namespace: gpustack\n  labels: {gpustack.ai/model-delivery: image}\n"
           "  annotations: {gpustack.ai/model-image: '" + REF + "'}\nspec:\n  containers: [{name: vllm, image: vllm/vllm-openai:v0.6.3}]\n")
    # Named as clouds name Nodes: the term lists their kubernetes.io/hostname label values,
    # sorted by those; a warm Node without the label cannot be preferred and is left out.
    nodes = "".join("---\napiVersion: v1\nkind: Node\nmetadata: {name: %s%s}\nstatus:\n  nodeInfo: {kubeletVersion: v1.35.1, containerRuntimeVersion: 'containerd://2.1.3'}\n"
                    "  images: [{names: ['%s']}]\n" % (name, ", labels: {kubernetes.io/hostname: %s}" % host if host else "", image)
                    for name, host, image in [("ip-10-0-0-1.ec2.internal", "gpu-2", REF), ("ip-10-0-0-2.ec2.internal", "gpu-1", REF),
                                              ("ip-10-0-0-3.ec2.internal", "gpu-3", REF.split("@")[0] + ":v1"), ("ip-10-0-0-4.ec2.internal", None, REF)])
    code, objects, doc = verdicts(["--show-patched", write("placed.yaml", pod + nodes)])
    assert code == 0, objects
    placed = doc["objects"][0]["patched"]["spec"]["affinity"]["nodeAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"]
    assert placed == [{"weight": 100, "preference": {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": ["gpu-1", "gpu-2"]}]}}]
    code, objects, doc = verdicts(["--show-patched", "--prefer-nodes-with-image=false", write("placed2.yaml", pod + nodes)])
    assert "affinity" not in doc["objects"][0]["patched"]["spec"]


@test
def json_manifests_are_read_as_json_as_kubectl_reads_them():
    # json.dumps (as Go) writes a non-BMP character as a surrogate pair, which libyaml refuses.
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "rocket-\U0001F680", "labels": {"gpustack.ai/model-delivery": "image"},
                                                           "annotations": {"gpustack.ai/model-image": REF, "note": "a/b \u2028"}},
           "spec": {"containers": [{"name": "vllm", "image": "vllm/vllm-openai:v0.6.3"}]}}
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": [pod]}, indent=2).replace("/", "\\/")
    assert "\\ud83d\\ude80" in text and "\\/" in text
    text += "\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: after}\n"
    code, objects, doc = verdicts(["--show-patched", write("rocket.json", text)])
    assert code == 0, doc
    assert objects == [("rocket-\U0001F680", "allowed", 5), ("after", "skipped", text.count("\n") - 2)], objects
    assert doc["objects"][0]["patched"]["metadata"]["annotations"]["note"] == "a/b \u2028"
    # `kubectl get nodes -o json` as --nodes: JSON as well
    nodes = json.dumps({"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Node", "metadata": {
        "name": "gpu-\u00e9", "labels": {"kubernetes.io/hostname": "gpu-1", "note": "\U0001F680"}}, "status": {"nodeInfo": {
            "kubeletVersion": "v1.35.1", "containerRuntimeVersion": "containerd://2.1.3"}}}]})
    pinned = json.dumps(dict(pod, spec=dict(pod["spec"], nodeSelector={"kubernetes.io/hostname": "gpu-1"},
                                           volumes=[{"name": "gpustack-model", "image": {"reference": REF}}])))
    code, objects, doc = verdicts(["--nodes", write("nodes.json", nodes), write("pinned.json", pinned)])
    assert code == 0 and objects[0][1] == "allowed", doc


@test
def workloads_that_name_a_model_artifact_mount_its_image():
    def artifact(name, source):
        return ("apiVersion: worker.gpustack.ai/v1alpha1\nkind: ModelArtifact\nmetadata: {name: %s, namespace: ml}\nspec:\n  source:\n    %s\n---\n"
                % (name, source))

    def deployment(name, annotations):
        return ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: %s\n  namespace: ml\n  labels: {gpustack.ai/model-delivery: image}\n"
                "  annotations: {%s}\nspec:\n  selector: {matchLabels: {app: m}}\n  template:\n    metadata: {labels: {app: m}}\n"
                "    spec:\n      containers: [{name: vllm, image: 'vllm/vllm-openai:v0.8.5'}]\n---\n" % (name, annotations))

    other = REF.replace("qwen", "llama")
    artifacts = write("artifacts.yaml", artifact("qwen", "image: {reference: '%s'}" % REF) + artifact("hub", "huggingFace: {repo: Qwen/Qwen2.5-7B-Instruct}"))
    workloads = write("by-artifact.yaml", deployment("ok", "gpustack.ai/model-artifact: qwen") + deployment("typo", "gpustack.ai/model-artifact: qwne") +
                      deployment("hub", "gpustack.ai/model-artifact: hub") +
                      deployment("both", "gpustack.ai/model-artifact: qwen, gpustack.ai/model-image: '%s'" % other))
    code, objects, doc = verdicts(["--show-patched", "--artifacts", artifacts, workloads])
    by_name = {o["name"]: o for o in doc["objects"]}
    assert code == 1, objects
    assert by_name["ok"]["verdict"] == "allowed", by_name["ok"]
    template = by_name["ok"]["patched"]["spec"]["template"]
    assert template["spec"]["volumes"] == [{"name": "gpustack-model", "image": {"reference": REF}}]
    assert template["metadata"]["annotations"]["gpustack.ai/model-image"] == REF, "its Pods carry the resolved image"
    for name, rule in (("typo", "artifact-not-found"), ("hub", "artifact-not-image"), ("both", "artifact-image-conflict")):
        assert by_name[name]["verdict"] == "denied" and by_name[name]["rule"] == rule, by_name[name]
    assert "--artifacts " + artifacts in by_name["typo"]["message"]
    # The artifacts among the inputs serve as well as --artifacts does.
    code, objects, doc = verdicts([artifacts, write("ok.yaml", deployment("ok", "gpustack.ai/model-artifact: qwen"))])
    verdict = {n: v for n, v, _ in objects}
    assert code == 0 and verdict["ok"] == "allowed" and verdict["qwen"] == "allowed", objects


harness.run_tests(TESTS, "test command")
