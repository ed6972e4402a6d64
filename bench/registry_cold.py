"""A cold registry lookup, measured: the TCP connections (each one a TLS
handshake) and the wall time of one `review --registry-check deny` against
Debian's docker-registry with token auth over TLS (the test's own token
endpoint), as registry_test.py starts it. Each run is a new process, so
nothing is cached: what a webhook replica meets for a digest it has not seen.

Usage: python3 bench/registry_cold.py [BINARY] [RUNS]
Prints, per case, the connections made (counted by strace's connect calls
to the loopback registry and token server) and the median and worst time.
A measurement: it prints, it never fails."""
import json
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
BINARY = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "build", "model-image-webhook"))
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 10

sys.argv = [sys.argv[0], BINARY, REPO]
sys.path.insert(0, os.path.join(REPO, "tests", "integration"))
import registry_test as rt  # noqa: E402  (starts the registries and pushes the images)


def connections(strace_log, ports):
    count = 0
    with open(strace_log) as f:
        for line in f:
            m = re.search(r"connect\(\d+, \{sa_family=AF_INET, sin_port=htons\((\d+)\)", line)
            if m and int(m.group(1)) in ports:
                count += 1
    return count


def measure(name, document, *flags):
    ports = {rt.TOKEN.port, rt.TOKEN_SERVER.server_address[1]}
    times, conns = [], []
    trace = os.path.join(rt.WORK, "connect.trace")
    for _ in range(RUNS):
        args = ["strace", "-f", "-qq", "-e", "trace=connect", "-o", trace, BINARY, "review", "--endpoint", "validate",
                "--registry-check", "deny", "--registry-ca", rt.CA, *flags, "-"]
        started = time.perf_counter()
        done = subprocess.run(args, input=json.dumps(document).encode(), capture_output=True, timeout=60)
        times.append(time.perf_counter() - started)
        conns.append(connections(trace, ports))
        if done.returncode not in (0, 1):
            print("%s: exit %d %s" % (name, done.returncode, done.stderr.decode()[:300]))
    # strace slows every process alike; the times without it too.
    plain = []
    for _ in range(RUNS):
        args = [BINARY, "review", "--endpoint", "validate", "--registry-check", "deny", "--registry-ca", rt.CA, *flags, "-"]
        started = time.perf_counter()
        subprocess.run(args, input=json.dumps(document).encode(), capture_output=True, timeout=60)
        plain.append(time.perf_counter() - started)
    print("%-44s connections %s  time median %.1f ms, worst %.1f ms" % (
        name, "/".join(str(c) for c in sorted(set(conns))), statistics.median(plain) * 1000, max(plain) * 1000))


def main():
    print("binary:", BINARY, " runs:", RUNS)
    measure("public image, anonymous Bearer", rt.artifact_review(rt.ref(rt.TOKEN, "public/llama", rt.PUBLIC_IMAGE)))
    measure("private image, Bearer with credentials", rt.artifact_review(rt.ref(rt.TOKEN, "private/mistral", rt.PRIVATE_IMAGE)),
            "--registry-auth", rt.AUTH_FILE)
    measure("index, its linux/arm64/v8 entry", rt.artifact_review(rt.ref(rt.TOKEN, "public/llama", rt.INDEX)),
            "--registry-platform", "linux/arm64/v8")
    measure("unknown digest, anonymous Bearer", rt.artifact_review(rt.ref(rt.TOKEN, "public/llama", rt.ZERO_DIGEST)))


if __name__ == "__main__":
    try:
        main()
    finally:
        rt.cleanup()
