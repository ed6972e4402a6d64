#!/usr/bin/env bash
# Two or more builds of the server side by side on one case, alternating, so
# that the machine's drift falls on each alike: for each run, requests a
# second, the server's CPU a request (utime+stime from /proc), its page faults
# a request (minflt) and its peak RSS. The server is pinned to CPU 0 and wrk
# (16 keep-alive connections, the shared benchmark's TLS suite order) to CPU 1,
# as in bench/run.sh. A measurement: it prints, it never fails on a figure.
#
#   bash bench/alternate.sh CASE ROUNDS BUILD...
#   bash bench/alternate.sh mutate-large 3 /tmp/before/model-image-webhook build/model-image-webhook
#   bash bench/alternate.sh mutate-small 3 build/model-image-webhook "build/model-image-webhook --registry-check=warn"
#
# A BUILD may carry flags of its own after the binary, in one argument.
#
# CASE is a body of ../shared/bench/bodies (validate, validate-kubectl,
# mutate-small, mutate-kubectl, mutate-large). SECONDS_EACH (6) sets a run's length.
set -euo pipefail
cd "$(dirname "$0")/.."
case_name=$1 rounds=$2
shift 2
builds=("$@")
[[ ${#builds[@]} -ge 1 ]] || { echo "usage: bench/alternate.sh CASE ROUNDS BUILD..." >&2; exit 2; }
refs=${MIW_BENCH_REFERENCES:-$(pwd)/../shared/bench}
work=/tmp/miw-bench-alternate
if [[ ! -f $work/certs/ecdsa/tls.crt ]]; then
  rm -rf "$work" && cp -r "$refs" "$work" && chmod -R u+w "$work"
  (cd "$work" && bash gen-certs.sh >/dev/null)
fi
body=$refs/bodies/$case_name.json
[[ -f $body ]] || { echo "bench: no body $body" >&2; exit 2; }
endpoint=mutate
[[ $case_name == validate* ]] && endpoint=validate
export OPENSSL_CONF=$work/wrk/openssl-client.cnf
seconds=${SECONDS_EACH:-6}

measure() {
  local build=$1 port=$((19500 + RANDOM % 400)) pid n f0 f1 c0 c1 hwm
  # shellcheck disable=SC2086  # the binary, then the build's own flags
  taskset -c 0 ${build%% *} serve ${build#"${build%% *}"} --listen 127.0.0.1:$port --tls-cert "$work/certs/ecdsa/tls.crt" --tls-key "$work/certs/ecdsa/tls.key" \
    --kube-version v1.35.0 --shutdown-delay 0s >/dev/null 2>&1 &
  pid=$!
  for _ in $(seq 50); do curl -s --cacert "$work/certs/ca.crt" "https://localhost:$port/healthz" >/dev/null && break; sleep 0.1; done
  WRK_BODY=$body taskset -c 1 wrk -t1 -c16 -d2s -s "$work/wrk/post.lua" "https://127.0.0.1:$port/$endpoint" >/dev/null
  read -r f0 c0 < <(awk '{print $10, $14 + $15}' /proc/$pid/stat)
  n=$(WRK_BODY=$body taskset -c 1 wrk -t1 -c16 -d"${seconds}s" -s "$work/wrk/post.lua" "https://127.0.0.1:$port/$endpoint" |
    sed -n 's/.*WRKRESULT requests=\([0-9]*\).*/\1/p')
  read -r f1 c1 < <(awk '{print $10, $14 + $15}' /proc/$pid/stat)
  hwm=$(awk '/VmHWM/ {print $2}' /proc/$pid/status)
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  local ticks_per_second
  ticks_per_second=$(getconf CLK_TCK)
  awk -v b="$build" -v c="$case_name" -v n="$n" -v s="$seconds" -v cpu=$((c1 - c0)) -v hz="$ticks_per_second" -v faults=$((f1 - f0)) -v hwm="$hwm" \
    'BEGIN { printf "%-50s %-16s %7.0f req/s  %7.1f us CPU/req  %6.2f faults/req  peak RSS %5.1f MiB\n", b, c, n / s, cpu / hz * 1e6 / n, faults / n, hwm / 1024 }'
}

for _ in $(seq "$rounds"); do
  for build in "${builds[@]}"; do measure "$build"; done
done
