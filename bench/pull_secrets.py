"""Pull secrets, measured: what a mutation whose digest is cached costs with
--registry-pull-secrets on (its service account and secret read from the API,
kept 10 s; the review on the pool) against off (--registry-auth, the review on
the I/O thread), and how many API reads a burst of 1,000 Pods of one namespace
makes. Debian's docker-registry with htpasswd over TLS and the stand-in API,
as registry_test.py starts them.

Usage: python3 bench/pull_secrets.py [BINARY] [REQUESTS]
A measurement: it prints, it never fails."""
import json
import os
import statistics
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
BINARY = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "build", "model-image-webhook"))
REQUESTS = int(sys.argv[2]) if len(sys.argv) > 2 else 2000

sys.argv = [sys.argv[0], BINARY, REPO]
sys.path.insert(0, os.path.join(REPO, "tests", "integration"))
import registry_test as rt  # noqa: E402  (starts the registries and pushes the images)

REFERENCE = rt.ref(rt.BASIC, "models/qwen", rt.BASIC_IMAGE)


def pod(i, ns="team-a"):
    document = rt.namespaced_pod_review(REFERENCE, ns, uid="u-%d" % i)
    document["request"]["object"]["metadata"]["name"] = "qwen-%d" % i
    return json.dumps(document).encode()


def sequential(server, count):
    """Mutations one after another on one kept-alive connection: each one's latency, in ms."""
    conn = server.connection()
    bodies = [pod(i) for i in range(count)]
    times = []
    for body in bodies:
        started = time.perf_counter()
        resp, data = server.post("/mutate?timeout=10s", body, conn=conn)
        times.append((time.perf_counter() - started) * 1000)
        assert resp.status == 200 and b'"allowed":true' in data, data[:300]
    conn.close()
    return times


def burst(server, count, clients=16):
    """count Pods of one namespace from `clients` connections at once: the wall time."""
    bodies = [pod(100000 + i) for i in range(count)]
    share = [bodies[i::clients] for i in range(clients)]
    failures = []

    def run(mine):
        conn = server.connection()
        for body in mine:
            resp, data = server.post("/mutate?timeout=10s", body, conn=conn)
            if resp.status != 200 or b"6.0 MiB compressed" not in data:
                failures.append(data[:200])
        conn.close()

    started = time.perf_counter()
    threads = [threading.Thread(target=run, args=(m,)) for m in share]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - started, failures


def describe(name, times):
    times = sorted(times)
    print("%-34s median %.3f ms  p99 %.3f ms  mean %.3f ms  (%d mutations)" % (
        name, statistics.median(times), times[int(len(times) * 0.99) - 1], statistics.mean(times), len(times)))


def main():
    api = rt.pull_secret_api()
    api.put_service_account("team-a", "default", ["regcred"])
    flags = ["--threads", "1"]
    on = rt.pull_secret_server(api, *flags)
    off = rt.pull_secret_server(api, "--registry-pull-secrets=false", "--registry-auth", rt.AUTH_FILE, *flags)
    try:
        for server in (on, off):
            sequential(server, 50)  # warm: the digest found and cached, the secrets read
        results = {"on": [], "off": []}
        for _ in range(4):  # alternating, so that drift on the machine falls on both
            for name, server in (("on", on), ("off", off)):
                results[name] += sequential(server, REQUESTS // 4)
        describe("pull secrets on (pool)", results["on"])
        describe("pull secrets off (I/O thread)", results["off"])
        delta = statistics.median(results["on"]) - statistics.median(results["off"])
        print("a cached mutation with pull secrets on: %+.3f ms at the median" % delta)

        time.sleep(11)  # past the 10 s the secrets are kept: the burst starts cold
        before = len(rt.secret_reads(api))
        seconds, failures = burst(on, 1000)
        reads = rt.secret_reads(api)[before:]
        print("1,000 Pods of one namespace from 16 connections: %.2f s, %d failed, %d API reads (%s)" % (
            seconds, len(failures), len(reads), ", ".join(sorted(set(reads)))))
    finally:
        on.stop()
        off.stop()
        api.stop()
        rt.cleanup()


if __name__ == "__main__":
    main()
