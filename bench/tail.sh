#!/usr/bin/env bash
# Where the slowest answers' time goes: this server pinned to CPU 0 and wrk to
# CPU 1 (as in bench/run.sh), under `perf sched record`, then
#   - wrk's percentiles (what a client sees),
#   - the server's own latencies from its log (last byte of a request to its
#     answer: the review and the write),
#   - the server's I/O thread: how often and how long it was off its CPU, and
#     how long it waited to be scheduled,
#   - every other task that ran for 0.3 ms or more on either CPU meanwhile
#     (kernel threads, other processes): each one on CPU 1 stalls wrk, each one
#     on CPU 0 stalls the server.
# A measurement: it prints, it never fails on a figure.
#
#   bash bench/tail.sh [CASE] [SECONDS]     (CASE from ../shared/bench/bodies, default mutate-small; 10 s)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
case_name=${1:-mutate-small}
seconds=${2:-10}
refs=${MIW_BENCH_REFERENCES:-$repo/../shared/bench}
[[ -f "$refs/bodies/$case_name.json" ]] || { echo "tail: no body $refs/bodies/$case_name.json" >&2; exit 2; }
sudo=""; [[ $(id -u) -eq 0 ]] || sudo=sudo
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends wrk linux-perf openssl curl >/dev/null
bash scripts/build.sh >/dev/null

work=$(mktemp -d)
server=""
trap '[[ -n "$server" ]] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
# The references are read-only where they are shared: a copy makes its certificates.
cp -r "$refs" "$work/ref" && chmod -R u+w "$work/ref"
refs=$work/ref
bash "$refs/gen-certs.sh" >/dev/null
certs=$refs/certs
endpoint=$([[ $case_name == validate* ]] && echo validate || echo mutate)
port=18779
taskset -c 0 build/model-image-webhook serve --listen 127.0.0.1:$port --tls-cert "$certs/ecdsa/tls.crt" --tls-key "$certs/ecdsa/tls.key" \
  --kube-version v1.35.0 >>"$work/server.log" 2>&1 &
server=$!
for _ in $(seq 50); do curl -s --cacert "$certs/ca.crt" "https://localhost:$port/healthz" >/dev/null && break; sleep 0.1; done
load() { WRK_BODY="$refs/bodies/$case_name.json" taskset -c 1 wrk -t1 -c16 -d"$1"s --latency -s "$refs/wrk/post.lua" "https://127.0.0.1:$port/$endpoint"; }
load 2 >/dev/null  # warm-up
: >"$work/server.log"  # appended to (>>), so this empties it for the run
perf sched record -a -o "$work/sched.data" -- sleep $((seconds + 2)) >/dev/null 2>&1 &
recorder=$!
sleep 0.5
start=$(awk '{print $1}' /proc/uptime)
load "$seconds" | grep WRKRESULT >"$work/wrk.txt"
stop=$(awk '{print $1}' /proc/uptime)
wait "$recorder" || true
perf sched timehist -i "$work/sched.data" >"$work/timehist.txt" 2>/dev/null

/usr/bin/python3 - "$work" "$server" "$start" "$stop" <<'PY'
import json, re, sys
work, server, start, stop = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
wrk = dict(kv.split("=") for kv in open(work + "/wrk.txt").read().split()[1:])
print("client (wrk, 16 connections): %s requests, p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.2f ms" % (
    wrk["requests"], int(wrk["p50_us"]) / 1000, int(wrk["p99_us"]) / 1000, int(wrk["p999_us"]) / 1000, int(wrk["max_us"]) / 1000))
lat = []
for line in open(work + "/server.log", errors="replace"):
    if '"msg":"admission"' in line:
        try:
            lat.append(json.loads(line)["latencyMs"])
        except ValueError:
            pass  # a line cut by the emptying above
lat.sort()
if lat:
    pick = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))]  # noqa: E731
    print("server (last byte to answer, %d reviews): p50 %.3f ms, p99 %.3f ms, p99.9 %.3f ms, max %.3f ms" % (
        len(lat), pick(0.5), pick(0.99), pick(0.999), lat[-1]))
# perf sched timehist: time, [cpu], task[tid/pid], wait ms, sched delay ms, run ms.
# Its times are seconds since boot, as /proc/uptime's: the rows of wrk's run are kept.
rows = []
for line in open(work + "/timehist.txt"):
    m = re.match(r"\s*([0-9.]+)\s+\[(\d+)\]\s+(.+?)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s*$", line)
    if m:
        rows.append((float(m.group(1)), int(m.group(2)), m.group(3), float(m.group(4)), float(m.group(5)), float(m.group(6))))
if not rows:
    print("no scheduler trace (perf sched needs root and the sched tracepoints)")
    sys.exit(0)
inside = [r for r in rows if start + 0.05 <= r[0] <= stop - 0.05]
io = [r for r in inside if r[2].endswith("[%s]" % server)]  # the main thread runs the I/O loop at one thread
if io:
    gaps = sorted((r[3] for r in io), reverse=True)
    delays = sorted((r[4] for r in io), reverse=True)
    print("server I/O thread: %d times off its CPU; longest %s ms; longest wait to be scheduled %.2f ms" % (
        len(io), ", ".join("%.2f" % g for g in gaps[:5]), delays[0]))
    # What ran on wrk's CPU while the server, with nothing to do, was off its own.
    for r in sorted(io, key=lambda r: -r[3])[:5]:
        began = r[0] - r[5] / 1000
        idle_from = began - r[3] / 1000
        on_wrk_cpu = sorted({re.sub(r"\[.*$", "", o[2]) for o in inside
                             if o[1] == 1 and not o[2].startswith("wrk") and "idle" not in o[2]
                             and o[0] - o[5] / 1000 < began and o[0] > idle_from})
        print("  off %.2f ms from %.3f s: on CPU 1 meanwhile %s" % (r[3], idle_from, ", ".join(on_wrk_cpu) or "only wrk"))
others = [r for r in inside if "model-image-web" not in r[2] and not r[2].startswith("wrk") and "idle" not in r[2] and r[5] >= 0.3]
print("other tasks that ran 0.3 ms or more (CPU 0: the server's, CPU 1: wrk's; perf is this measurement's own):")
by = {}
for r in others:
    name = re.sub(r"\[\d+(/\d+)?\]$", "", r[2])
    key = (r[1], name)
    n, total, longest = by.get(key, (0, 0.0, 0.0))
    by[key] = (n + 1, total + r[5], max(longest, r[5]))
for (cpu, name), (n, total, longest) in sorted(by.items(), key=lambda kv: -kv[1][2]):
    print("  CPU %d  %-28s %3d runs, longest %.2f ms, %.1f ms in all" % (cpu, name, n, longest, total))
if not by:
    print("  none")
PY
