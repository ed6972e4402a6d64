#!/usr/bin/python3
"""Memory under hostile clients: starts the server with the flags the shipped
manifest gives it, throws at it, one phase after another, what an attacker on
the network could, and prints the peak resident memory of each phase and what
is left once the attackers have gone. It measures; it never fails.

  python3 bench/hostile_clients.py [BINARY] [--scale F] [-- EXTRA SERVER FLAGS]

Phases (counts times --scale): 4,200 half-open TLS handshakes (half a
ClientHello each), and the time a real client's review takes meanwhile; 20 uploads of 7.9 MiB bodies sent slowly; 12 concurrent
reviews with a 7.9 MiB uid; 12 concurrent reviews of 7.9 MiB of small values
("0,0,0,...", which JSON read whole holds in 16 times its size); 5,000 idle TLS
connections; 1,000 requests stopped inside a TLS record; then all six at
once. Every request loop is
bounded in count and time, on loopback only.
"""
import json
import os
import resource
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
args = sys.argv[1:]
extra = []
if "--" in args:
    extra = args[args.index("--") + 1:]
    args = args[:args.index("--")]
scale = 1.0
if "--scale" in args:
    scale = float(args[args.index("--scale") + 1])
    del args[args.index("--scale"):args.index("--scale") + 2]
BINARY = os.path.abspath(args[0] if args else os.path.join(REPO, "build", "model-image-webhook"))

soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

work = tempfile.mkdtemp(prefix="miw-hostile-")
certs = os.path.join(work, "certs")
subprocess.run(["bash", os.path.join(REPO, "certs", "gen-certs.sh"), "--out", certs], check=True, capture_output=True)
probe = socket.socket()
probe.bind(("127.0.0.1", 0))
port = probe.getsockname()[1]
probe.close()
log = open(os.path.join(work, "server.log"), "w")
server = subprocess.Popen([BINARY, "serve", "--listen", "127.0.0.1:%d" % port, "--tls-cert", os.path.join(certs, "tls.crt"),
                           "--tls-key", os.path.join(certs, "tls.key"), "--kube-version", "v1.35.0"] + extra, stdout=log, stderr=subprocess.STDOUT)
for _ in range(100):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
        break
    except OSError:
        time.sleep(0.05)

ctx = ssl.create_default_context(cafile=os.path.join(certs, "ca.crt"))


def status_kib(field):
    with open("/proc/%d/status" % server.pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


class Sampler:
    """The peak of VmRSS while a phase runs (VmHWM never comes down, so each
    phase's own peak is sampled)."""

    def __init__(self):
        self.peak = 0
        self.running = True
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()

    def loop(self):
        while self.running:
            self.peak = max(self.peak, status_kib("VmRSS"))
            time.sleep(0.02)

    def stop(self):
        self.running = False
        self.thread.join()
        return self.peak / 1024.0


def client_hello():
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    obj = ssl.create_default_context().wrap_bio(incoming, outgoing, server_hostname="localhost")
    try:
        obj.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return outgoing.read()


def review_body(uid_bytes=0, small_values_bytes=0):
    with open(os.path.join(REPO, "examples", "reviews", "artifact-pinned-create.json")) as f:
        review = json.load(f)
    if uid_bytes:
        review["request"]["uid"] = "u" * uid_bytes
    if small_values_bytes:
        # "0,0,0,...": a value every two bytes, which a DOM holds in 16 and its parse stack in 16 more.
        review["request"]["object"]["spec"]["files"] = "values"
        return json.dumps(review).encode().replace(b'"files": "values"', b'"files": [' + b",".join([b"0"] * (small_values_bytes // 2)) + b"]")
    return json.dumps(review).encode()


def post(body, timeout=30):
    try:
        return post_once(body, timeout)
    except OSError:
        return "refused"


def post_once(body, timeout):
    t = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=timeout), server_hostname="127.0.0.1")
    t.sendall(b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % len(body))
    t.sendall(body)
    got = b""
    while True:
        piece = t.recv(1 << 20)
        if not piece:
            break
        got += piece
    t.close()
    return int(got.split(b" ", 2)[1]) if got else 0


def phase(name, fn):
    sampler = Sampler()
    start = time.time()
    note = fn()
    peak = sampler.stop()
    time.sleep(1.5)  # what is left once the phase's connections are gone
    print("%-44s peak RSS %6.1f MiB   after %6.1f MiB   %5.1fs   %s" % (name, peak, status_kib("VmRSS") / 1024.0, time.time() - start, note))
    return peak


def half_open_handshakes():
    count = int(4200 * scale)
    hello = client_hello()
    held, refused = [], 0
    for _ in range(count):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(hello[: len(hello) // 2])
            held.append(s)
        except OSError:
            refused += 1
    # A real client meanwhile: a new connection, its handshake and one review, five times.
    latencies, statuses = [], []
    for _ in range(5):
        start = time.time()
        statuses.append(post(review_body(), timeout=10))
        latencies.append(time.time() - start)
    time.sleep(1.0)
    for s in held:
        s.close()
    return "%d opened, %d refused at connect; a real review meanwhile: slowest %.3f s, answers %s" % (
        len(held), refused, max(latencies), sorted(set(statuses), key=str))


def slow_uploads():
    count = int(20 * scale)
    size = int(7.9 * (1 << 20))
    held, statuses = [], []
    for _ in range(count):
        try:
            t = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=10), server_hostname="127.0.0.1")
            t.sendall(b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % size)
            held.append(t)
        except OSError:
            statuses.append("refused")
    chunk = b"x" * (256 << 10)
    for _ in range(8):  # 2 MiB each, slowly, on every connection still open
        for t in held:
            try:
                t.sendall(chunk)
            except OSError:
                pass
        time.sleep(0.25)
    for t in held:
        t.settimeout(0.5)
        try:
            head = t.recv(64)
            statuses.append(int(head.split(b" ", 2)[1]) if head else 0)
        except (OSError, ValueError, IndexError):
            statuses.append(0)
        t.close()
    return "answers before the body was whole: %s" % {s: statuses.count(s) for s in set(statuses)}


def concurrent_reviews(body):
    count = int(12 * scale)
    results = []
    threads = [threading.Thread(target=lambda: results.append(post(body))) for _ in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return "answers: %s" % {s: results.count(s) for s in set(results)}


def huge_uids():
    return concurrent_reviews(review_body(int(7.9 * (1 << 20)) - 2000))


def small_values():
    return concurrent_reviews(review_body(small_values_bytes=int(7.9 * (1 << 20)) - 2000))


def idle_connections():
    count = int(5000 * scale)
    held, closed = [], 0
    body = review_body()
    for _ in range(count):
        try:
            t = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=5), server_hostname="127.0.0.1")
            t.sendall(b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
            if t.recv(65536):
                held.append(t)
            else:
                closed += 1
                t.close()
        except OSError:
            closed += 1
    time.sleep(1.0)
    for t in held:
        t.close()
    return "%d kept alive after one request, %d closed by the server" % (len(held), closed)


def partial_records():
    """Connections that complete the handshake, then send a request's first
    31,000 bytes (a whole 16 KiB TLS record and most of the next) less the
    last few and stop: as much as OpenSSL's read buffer can be made to hold,
    held until the record is whole or the read timeout ends the
    connection."""
    count = int(1000 * scale)
    head = b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n"
    request = head + b" " * (31000 - len(head))
    held, failed = [], 0
    for _ in range(count):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
            tls = ctx.wrap_bio(incoming, outgoing, server_hostname="127.0.0.1")
            while True:
                try:
                    tls.do_handshake()
                    break
                except ssl.SSLWantReadError:
                    s.sendall(outgoing.read())
                    data = s.recv(65536)
                    if not data:
                        raise OSError("closed during the handshake")
                    incoming.write(data)
            s.sendall(outgoing.read())
            tls.write(request)
            record = outgoing.read()
            s.sendall(record[:-64])
            held.append(s)
        except (OSError, ssl.SSLError):
            failed += 1
    time.sleep(1.0)
    for s in held:
        s.close()
    return "%d held a record short of its end, %d failed" % (len(held), failed)


print("server %s, flags: %s" % (BINARY, " ".join(extra) or "(the shipped defaults)"))
print("%-44s          %6.1f MiB" % ("idle, before any client", status_kib("VmRSS") / 1024.0))
peaks = [phase("%d half-open TLS handshakes" % int(4200 * scale), half_open_handshakes),
         phase("%d slow 7.9 MiB uploads" % int(20 * scale), slow_uploads),
         phase("%d concurrent reviews with a 7.9 MiB uid" % int(12 * scale), huge_uids),
         phase("%d concurrent 7.9 MiB bodies of small values" % int(12 * scale), small_values),
         phase("%d idle TLS connections" % int(5000 * scale), idle_connections),
         phase("%d requests stopped inside a TLS record" % int(1000 * scale), partial_records)]


def all_at_once():
    notes = []
    threads = [threading.Thread(target=lambda f=f: notes.append(f()))
               for f in (half_open_handshakes, slow_uploads, huge_uids, small_values, idle_connections, partial_records)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    return "; ".join(notes)


peaks.append(phase("all six at once", all_at_once))
alive = post(review_body()) == 200
print("worst peak RSS %.1f MiB (VmHWM %.1f MiB); still answering: %s" % (max(peaks), status_kib("VmHWM") / 1024.0, alive))
server.terminate()
server.wait(30)
