#!/usr/bin/env bash
# Measures the offline test mode: checks 10,000 generated objects (ModelArtifacts,
# opted-in Deployments and Pods, in multi-document YAML files) and prints objects
# per second. A measurement: it prints, it never fails on a figure.
#
#   bench/test-mode.sh [OBJECTS]        (build first: bash scripts/build.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
objects=${1:-10000}
bin=build/model-image-webhook
[[ -x $bin ]] || { echo "build first: bash scripts/build.sh" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
/usr/bin/python3 - "$dir" "$objects" <<'PY'
import sys
out, total = sys.argv[1], int(sys.argv[2])
digest = "sha256:9372c470eeadd5ecd9c3c74c2b3cb633f8e2f2fad799250a0f70d652b6b825e4"
per_file = 500
for f in range((total + per_file - 1) // per_file):
    docs = []
    for i in range(f * per_file, min(total, (f + 1) * per_file)):
        ref = "registry.example.com/team/model-%d@%s" % (i, digest) if i % 10 else "registry.example.com/team/model-%d:v1" % i
        if i % 3 == 0:
            docs.append("apiVersion: worker.gpustack.ai/v1alpha1\nkind: ModelArtifact\nmetadata:\n  name: m-%d\n  namespace: ns\n"
                        "spec:\n  source:\n    image:\n      reference: %s\n" % (i, ref))
        elif i % 3 == 1:
            docs.append("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d-%d\n  namespace: ns\n  labels: {gpustack.ai/model-delivery: image}\n"
                        "  annotations: {gpustack.ai/model-image: '%s'}\nspec:\n  selector: {matchLabels: {app: d}}\n  template:\n    metadata: {labels: {app: d}}\n"
                        "    spec:\n      containers:\n      - name: vllm\n        image: vllm/vllm-openai:v0.6.3\n        args: [--model, /m, --revision, main]\n"
                        "        env:\n        - {name: HF_TOKEN, value: x}\n        - {name: PORT, value: '8000'}\n        volumeMounts: [{name: c, mountPath: /root/.cache/huggingface}]\n"
                        "      volumes: [{name: c, emptyDir: {}}]\n" % (i, ref))
        else:
            docs.append("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p-%d\n  namespace: ns\n  labels: {gpustack.ai/model-delivery: image}\n"
                        "  annotations: {gpustack.ai/model-image: '%s'}\nspec:\n  containers:\n  - {name: vllm, image: 'vllm/vllm-openai:v0.6.3'}\n" % (i, ref))
    with open("%s/objects-%03d.yaml" % (out, f), "w") as fh:
        fh.write("---\n".join(docs))
PY
size=$(du -sh "$dir" | cut -f1)
start=$(date +%s.%N)
set +e
"$bin" test "$dir" --output json >"$dir.out"
status=$?
set -e
end=$(date +%s.%N)
checked=$(/usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['summary']['objects'])" "$dir.out")
rm -f "$dir.out"
/usr/bin/python3 - "$objects" "$checked" "$start" "$end" "$size" "$status" <<'PY'
import sys
objects, checked, start, end, size, status = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5], sys.argv[6]
seconds = end - start
print("test mode: %d objects (%s of YAML) checked in %.2f s: %.0f objects/s (exit %s: one object in ten is refused)" % (checked, size, seconds, checked / seconds, status))
PY
