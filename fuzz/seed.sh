#!/usr/bin/env bash
# Writes the seed corpus of each fuzz target into DIR/<target>/, from the tests'
# fixtures and the examples.
#   fuzz/seed.sh DIR
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
out=$1
mkdir -p "$out"/{reference,version,review,mutation,yaml,api_answers,registry,sigstore}
i=0
for ref in "registry.example.com/team/qwen@sha256:9372c470eeadd5ecd9c3c74c2b3cb633f8e2f2fad799250a0f70d652b6b825e4" \
           "registry.example.com:5000/team/qwen:v1@sha256:9372c470eeadd5ecd9c3c74c2b3cb633f8e2f2fad799250a0f70d652b6b825e4" \
           "[2001:db8::1]:5000/repo:tag" "localhost:8080@sha256:be178c0543eb17f5f3043021c9e5fcf30285e557a4fc309cce97ff9ca6182912" \
           "a/b/c__d.e-f:_tag" "qwen:latest" "r.io/*"; do
  printf '%s' "$ref" >"$out/reference/$((i++))"
done
for v in v1.35.0 1.35.7 v1.35.5-kind.1 v1.36.1-gke.1200 v2.0.0 "containerd://2.1.6+bottlerocket" "2.1.0-beta.0-18-g8237c496"; do
  printf '%s' "$v" >"$out/version/$((i++))"
done
cp "$repo"/examples/reviews/*.json "$out/review/"
cp "$repo"/tests/fixtures/admission.k8s.io.*.json "$out/review/"
/usr/bin/python3 - "$repo" "$out/mutation" <<'PY'
import glob, json, os, sys
repo, out = sys.argv[1], sys.argv[2]
n = 0
for path in glob.glob(os.path.join(repo, "examples/reviews/*.json")) + [os.path.join(repo, "tests/fixtures/core.v1.Pod.json")]:
    if path.endswith(".response.json"):
        continue
    doc = json.load(open(path))
    obj = doc.get("request", {}).get("object") if "request" in doc else doc
    spec = None
    if isinstance(obj, dict):
        spec = obj.get("spec")
        if isinstance(spec, dict) and "template" in spec:
            spec = spec["template"].get("spec")
    if isinstance(spec, dict):
        open(os.path.join(out, "spec-%d.json" % n), "w").write(json.dumps(spec))
        n += 1
# The pod specs of the manifests shaped as the serving projects publish them.
import yaml
for path in sorted(glob.glob(os.path.join(repo, "tests/fixtures/serving/*.yaml"))):
    for obj in yaml.safe_load_all(open(path)):
        spec = (obj or {}).get("spec") or {}
        lws = spec.get("leaderWorkerTemplate") or {}
        for template in (spec.get("template"), lws.get("leaderTemplate"), lws.get("workerTemplate")):
            if isinstance(template, dict) and isinstance(template.get("spec"), dict):
                open(os.path.join(out, "spec-%d.json" % n), "w").write(json.dumps(template["spec"]))
                n += 1
PY
# Reviews shaped as a kubectl apply CREATE reaches the webhook: compact, with
# the last-applied annotation and metadata.managedFields (which the reader
# checks 64 bytes at a time), so that mutations start from that shape.
/usr/bin/python3 - "$repo" "$out/review" <<'PY'
import glob, json, os, sys
repo, out = sys.argv[1], sys.argv[2]
def fields(v):
    if isinstance(v, dict):
        return {"f:" + k: fields(x) for k, x in v.items()}
    if isinstance(v, list):
        return {'k:{"name":"%s"}' % x.get("name", "") if isinstance(x, dict) else 'v:"%s"' % x: {".": {}, **(fields(x) if isinstance(x, dict) else {})} for x in v}
    return {}
for n, path in enumerate(sorted(glob.glob(os.path.join(repo, "examples/reviews/*.json")))):
    if path.endswith(".response.json"):
        continue
    doc = json.load(open(path))
    obj = doc.get("request", {}).get("object")
    if not isinstance(obj, dict) or not isinstance(obj.get("metadata"), dict):
        continue
    meta = obj["metadata"]
    meta.setdefault("annotations", {})["kubectl.kubernetes.io/last-applied-configuration"] = json.dumps(obj, separators=(",", ":")) + "\n"
    meta["managedFields"] = [{"manager": "kubectl-client-side-apply", "operation": "Update", "apiVersion": obj.get("apiVersion", "v1"),
                              "time": "2026-11-30T10:00:00Z", "fieldsType": "FieldsV1",
                              "fieldsV1": fields({k: v for k, v in obj.items() if k not in ("status",)})}]
    open(os.path.join(out, "kubectl-%d.json" % n), "w").write(json.dumps(doc, separators=(",", ":")))
PY
cp "$repo"/examples/manifests/*.yaml "$repo"/tests/fixtures/serving/*.yaml "$out/yaml/"
cp "$repo"/examples/nodes.yaml "$out/yaml/nodes-list.yaml"
# What the Kubernetes API answers the Node watch: pages, watch events, /version.
cp "$repo"/fuzz/seeds/api_answers/*.json "$out/api_answers/"
# What registries and their token servers answer, challenges, an auth file, a reference.
cp "$repo"/fuzz/seeds/registry/* "$out/registry/"
# Sigstore bundles, trusted roots and checkpoints: sigstore-conformance's cases.
n=0
for f in "$repo"/tests/fixtures/sigstore-conformance/test/assets/bundle-verify/*/*.json "$repo"/sigstore/trusted_root.public-good.json; do
  cp "$f" "$out/sigstore/seed-$n.json"; n=$((n + 1))
done
