#!/usr/bin/python3
"""Prints the benchmark table of one run (the rows of results.tsv since a
given time): each target's figures, and this server's ratios to the Go peer
and to nginx, against the figures to reach. Where the run had several
interleaved rounds, each figure is the median over them (req/s with its
range), leaving out rounds that other tasks disturbed, and each ratio is one
of medians; beside it, for reference, the ratio in each round (the servers of
a case run one after the other within a round, so a round's pair shares the
machine's state more nearly than two medians do).

  summarize.py RESULTS_TSV SINCE_ISO_TIME [EXTRA_LINES_FILE]
"""
import csv
import statistics
import sys

path, since = sys.argv[1], sys.argv[2]
rows = [r for r in csv.DictReader(open(path), delimiter="\t") if r["date"] >= since]
FIELDS = ["rps", "p50_ms", "p99_ms", "p999_ms", "cpu_per_req_us", "srv_hwm_mib"]
grouped = {}
for r in rows:
    grouped.setdefault((r["label"], r["case"]), []).append(r)
# A round in which other tasks (or the hypervisor) took more than a tenth of
# the server's CPU measured the machine, not the server: left out of the
# medians when an undisturbed round of the same case remains.
DISTURBED = 0.1


def disturbed(r):
    return float(r.get("other_cpu_cores") or 0) > DISTURBED or float(r.get("steal_cores") or 0) > DISTURBED


by, spread = {}, {}
for key, runs in grouped.items():
    clean = [r for r in runs if not disturbed(r)] or runs
    by[key] = {f: "%g" % statistics.median(float(r[f]) for r in clean) for f in FIELDS}
    rps = [float(r["rps"]) for r in runs]
    left_out = len(runs) - len(clean)
    spread[key] = "" if len(runs) == 1 else " [%d–%d, %d rounds%s]" % (min(rps), max(rps), len(runs), ", %d disturbed left out" % left_out if left_out else "")
cases = ["validate", "validate-kubectl", "mutate-small", "mutate-kubectl", "mutate-large"]
labels = ["nginx", "peer-go", "model-image-webhook", "model-image-webhook-threads-1"]
OURS = "model-image-webhook"  # at its default thread count

print("| target | case | req/s | p50 ms | p99 ms | p99.9 ms | server CPU µs/req | peak RSS MiB |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
for label in labels:
    for case in cases:
        r = by.get((label, case))
        if r:
            print("| %s | %s | %s%s | %s | %s | %s | %s | %s |" % (label, case, r["rps"], spread[(label, case)], r["p50_ms"], r["p99_ms"], r["p999_ms"], r["cpu_per_req_us"],
                                                             r["srv_hwm_mib"]))


def ratio(case, field, other, ours_label=OURS):
    ours, theirs = by.get((ours_label, case)), by.get((other, case))
    if not ours or not theirs:
        return None
    return float(ours[field]) / float(theirs[field])


def by_round(case, field, other, ours_label=OURS):
    """The ratio in each round, the k-th row of each label being its k-th round."""
    ours, theirs = grouped.get((ours_label, case), []), grouped.get((other, case), [])
    if len(ours) < 2 or len(ours) != len(theirs):
        return ""
    return ", ".join("%.2f" % (float(a[field]) / float(b[field])) for a, b in zip(ours, theirs))


print()
print("| figure | measured | round by round | to reach | |")
print("|---|---:|---:|---:|---|")
goals = [(name, ratio(case, field, other), by_round(case, field, other), goal, higher_better) for name, case, field, other, goal, higher_better in [
    ("mutate-kubectl req/s ÷ nginx", "mutate-kubectl", "rps", "nginx", 0.6, True),
    ("mutate-small req/s ÷ nginx", "mutate-small", "rps", "nginx", 0.7, True),
    ("validate req/s ÷ nginx", "validate", "rps", "nginx", 0.9, True),
    ("validate-kubectl req/s ÷ nginx", "validate-kubectl", "rps", "nginx", 0.8, True),
    ("mutate-large req/s ÷ peer-go", "mutate-large", "rps", "peer-go", 15.0, True),
    ("mutate-small req/s ÷ peer-go", "mutate-small", "rps", "peer-go", 4.0, True),
    ("mutate-small CPU/req ÷ nginx", "mutate-small", "cpu_per_req_us", "nginx", 2.5, False),
]]
# nginx's rate can be held by wrk's own core (its cli_cpu nears 1): the CPU
# per request says the same thing without that ceiling, printed for reference.
cpu_ratios = ["%s %.2f" % (case, ratio(case, "cpu_per_req_us", "nginx")) for case in cases if ratio(case, "cpu_per_req_us", "nginx")]
for case in ("validate", "mutate-small", "mutate-kubectl"):
    value = ratio(case, "rps", "model-image-webhook-threads-1")
    if value is not None:
        goals.append(("%s req/s, default threads ÷ --threads 1" % case, value, by_round(case, "rps", "model-image-webhook-threads-1"), 0.95, True))
ours_small = by.get((OURS, "mutate-small"))
for name, value, rounds, goal, higher_better in goals:
    if value is None:
        continue
    met = value >= goal if higher_better else value <= goal
    print("| %s | %.2f | %s | %s %g | %s |" % (name, value, rounds, "≥" if higher_better else "≤", goal, "met" if met else "not met"))
if ours_small:
    p99, p999 = float(ours_small["p99_ms"]), float(ours_small["p999_ms"])
    small_rounds = grouped[(OURS, "mutate-small")]
    tail_rounds = ", ".join("%.2f" % (float(r["p999_ms"]) / float(r["p99_ms"])) for r in small_rounds) if len(small_rounds) > 1 else ""
    print("| mutate-small p99 | %.2f ms | | < 2 ms | %s |" % (p99, "met" if p99 < 2 else "not met"))
    print("| mutate-small p99.9 ÷ p99 | %.2f (p99.9 %.2f ms) | %s | < 3 | %s |" % (p999 / p99, p999, tail_rounds, "met" if p999 < 3 * p99 else "not met"))
    hwm = max(float(by[(OURS, c)]["srv_hwm_mib"]) for c in cases if (OURS, c) in by)
    print("| peak RSS under load | %.1f MiB | | ≤ 24 MiB | %s |" % (hwm, "met" if hwm <= 24 else "not met"))
if cpu_ratios:
    print("| server CPU per request ÷ nginx's (for reference) | %s | | | |" % ", ".join(cpu_ratios))
if len(sys.argv) > 3:
    for line in open(sys.argv[3]):
        print(line.rstrip())
