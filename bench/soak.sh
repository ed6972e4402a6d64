#!/usr/bin/env bash
# Soak: sends REQUESTS requests (default 1,000,000) of a mixed load (allowed, denied,
# mutated and malformed reviews) over keep-alive TLS, checks every answer, and reports
# unexpected answers and the server's resident memory over time.
#
#   bash bench/soak.sh [REQUESTS]      (build first: bash scripts/build.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
total=${1:-1000000}
sudo=""; [[ $(id -u) -eq 0 ]] || sudo=sudo
command -v wrk >/dev/null || $sudo apt-get install -y -qq wrk >/dev/null
work=$(mktemp -d)
trap 'kill $pid $sampler 2>/dev/null || true; rm -rf "$work"' EXIT
bash certs/gen-certs.sh --out "$work/certs" >/dev/null
cp examples/reviews/artifact-pinned-create.json "$work/allowed.json"
cp examples/reviews/artifact-tag-only.json "$work/denied.json"
cp examples/reviews/pod-vllm-download-era.json "$work/mutated.json"
printf '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":' >"$work/malformed.json"
port=18999
./build/model-image-webhook serve --listen 127.0.0.1:$port --tls-cert "$work/certs/tls.crt" --tls-key "$work/certs/tls.key" \
  --kube-version v1.35.0 >"$work/server.log" 2>&1 &
pid=$!
for _ in $(seq 50); do curl -s --cacert "$work/certs/ca.crt" "https://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
( while kill -0 $pid 2>/dev/null; do echo "$(date +%s) $(awk '/VmRSS/ {print $2}' /proc/$pid/status)"; sleep 1; done ) >"$work/rss" &
sampler=$!
# wrk runs for a time, not a count: the rate is measured first, then the run is sized to it.
probe=$(SOAK_DIR=$work wrk -t2 -c16 -d3s -s bench/soak.lua "https://127.0.0.1:$port" | awk '/^SOAK/ {split($2, a, "="); print a[2]}')
seconds=$(( total * 3 / probe + 1 ))
echo "soak: about $((probe / 3)) requests/s; running ${seconds}s for about $total requests"
result=$(SOAK_DIR=$work wrk -t2 -c16 -d${seconds}s --timeout 10s -s bench/soak.lua "https://127.0.0.1:$port" | grep '^SOAK')
kill $sampler 2>/dev/null || true
echo "$result"
/usr/bin/python3 - "$work/rss" <<'PY'
import sys
samples = [tuple(map(int, l.split())) for l in open(sys.argv[1]) if len(l.split()) == 2]
rss = [kb / 1024.0 for _, kb in samples]
warm = rss[len(rss) // 10:] if len(rss) > 10 else rss  # the first tenth is warm-up
start, end, peak = warm[0], warm[-1], max(warm)
print("rss: start %.1f MiB, after warm-up %.1f MiB, end %.1f MiB, peak %.1f MiB, growth after warm-up %+.1f%%" %
      (rss[0], start, end, peak, (end - start) * 100.0 / start))
step = max(1, len(rss) // 10)
print("rss over time (MiB, every %ds): %s" % (step, " ".join("%.1f" % r for r in rss[::step])))
PY
