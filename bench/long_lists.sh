#!/usr/bin/env bash
# Bodies of long lists, as a hostile user could write a Pod within the
# apiserver's 3 MiB: 150,000 download flags, 150,000 KServe --model_id flags,
# 60,000 cache volumes each mounted, 30,000 containers named in the containers
# annotation (known, and not), 150,000 LoRA adapters, 150,000 words after a
# launcher whose options are not read, 150,000 env assignments before an
# engine and as many variables set in a script. Prints the time and peak
# memory of one review of each (`model-image-webhook review`): each should be
# linear in its size, a fraction of a second, never the square of it.
#   bash bench/long_lists.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/model-image-webhook
[[ -x $bin ]] || bash scripts/build.sh >/dev/null
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$dir" <<'PY'
import json, sys
out = sys.argv[1]
def review(spec, annotations=None):
    a = {"gpustack.ai/model-image": "registry.example.com/m@sha256:" + "a" * 64}
    a.update(annotations or {})
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "d",
           "labels": {"gpustack.ai/model-delivery": "image"}, "annotations": a}, "spec": spec}
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {"uid": "u",
            "kind": {"group": "", "version": "v1", "kind": "Pod"}, "resource": {"group": "", "version": "v1", "resource": "pods"},
            "namespace": "d", "operation": "CREATE", "object": pod}}
def engine(args, image="vllm/vllm-openai:v0.8.5"):
    return {"containers": [{"name": "c", "image": image, "args": args}]}
bodies = {
    "150k-download-flags": review(engine(["--revision=x"] * 150000)),
    "150k-kserve-model-ids": review(engine(["--model_id=x"] * 150000, "kserve/huggingfaceserver:v0.15.2")),
    "60k-cache-volumes": review({"containers": [{"name": "c", "image": "i",
        "volumeMounts": [{"name": "v%d" % i, "mountPath": "/root/.cache/huggingface/%d" % i} for i in range(60000)]}],
        "volumes": [{"name": "v%d" % i, "emptyDir": {}} for i in range(60000)]}),
    "30k-unknown-container-names": review({"containers": [{"name": "c%d" % i, "image": "i"} for i in range(30000)]},
        {"gpustack.ai/model-containers": ",".join("x%d" % i for i in range(30000))}),
    "30k-known-container-names": review({"containers": [{"name": "c%d" % i, "image": "i"} for i in range(30000)]},
        {"gpustack.ai/model-containers": ",".join("c%d" % i for i in range(30000))}),
    "150k-lora-adapters": review(engine(["--lora-modules"] + ["a=/x"] * 150000)),
    "150k-words-after-a-launcher": review({"containers": [{"name": "c", "image": "i",
        "command": ["mpirun"] + ["-X", "python3"] * 75000 + ["vllm", "serve", "m"]}]}),
    "150k-env-assignments": review({"containers": [{"name": "c", "image": "i",
        "command": ["env"] + ["HF_V%d=1" % i for i in range(150000)] + ["vllm", "serve", "m"]}]}),
    "150k-variables-in-a-script": review({"containers": [{"name": "c", "image": "i",
        "command": ["sh", "-c", " ".join("HF_V%d=1" % i for i in range(150000)) + " ./run.sh"]}]}),
}
for name, body in bodies.items():
    with open("%s/%s.json" % (out, name), "w") as f:
        json.dump(body, f)
PY
printf '%-30s %10s %10s %12s\n' body bytes seconds 'peak RSS KiB'
for f in "$dir"/*.json; do
  stats=$( { /usr/bin/time -f '%e %M' "$bin" review --endpoint mutate "$f" >/dev/null; } 2>&1 | tail -1)
  printf '%-30s %10s %10s %12s\n' "$(basename "$f" .json)" "$(stat -c %s "$f")" $stats
done
