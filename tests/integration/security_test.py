#!/usr/bin/python3
"""The server as an attacker and a faulty apiserver would meet it: an apiserver
whose certificate is wrong or whose answers are huge, requests framed to be
read two ways, connections that never speak, and clients that try to take more
memory than the budget allows. Each case is bounded in count and time, on
loopback.

  security_test.py BINARY REPO_DIR [TEST_NAME_FRAGMENT]
"""
import json
import os
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import server_test as st  # noqa: E402  (the Server helper, the certificates, the examples)
from fake_apiserver import FakeApiserver  # noqa: E402
import harness  # noqa: E402

TESTS = []
CA = os.path.join(st.CERTS, "ca.crt")


def test(fn):
    TESTS.append(fn)
    return fn


def other_ca_certs():
    """A serving certificate for 127.0.0.1 from a CA the server was not given."""
    out = os.path.join(st.WORK, "other-ca")
    if not os.path.exists(os.path.join(out, "tls.crt")):
        subprocess.run(["bash", os.path.join(st.REPO, "certs", "gen-certs.sh"), "--out", out], check=True, capture_output=True)
    return os.path.join(out, "tls.crt"), os.path.join(out, "tls.key")


def wrong_name_certs():
    """A certificate from the right CA whose SANs do not hold 127.0.0.1, and
    whose common name does (a name client-go never looks at)."""
    out = os.path.join(st.WORK, "wrong-name")
    os.makedirs(out, exist_ok=True)
    key, crt, csr, ext = (os.path.join(out, n) for n in ("tls.key", "tls.crt", "tls.csr", "ext"))
    if not os.path.exists(crt):
        with open(ext, "w") as f:
            f.write("basicConstraints=critical,CA:FALSE\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:elsewhere.example,IP:10.0.0.1\n")
        subprocess.run(["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", key], check=True, capture_output=True)
        subprocess.run(["openssl", "req", "-new", "-key", key, "-subj", "/CN=127.0.0.1", "-out", csr], check=True, capture_output=True)
        subprocess.run(["openssl", "x509", "-req", "-in", csr, "-CA", CA, "-CAkey", os.path.join(st.CERTS, "ca.key"), "-CAcreateserial",
                        "-CAserial", os.path.join(out, "ca.srl"), "-days", "2", "-extfile", ext, "-out", crt], check=True, capture_output=True)
    return crt, key


def auto_server(api, *extra):
    return st.Server("--kube-version", "auto", "--kube-api-url", api.url, "--kube-ca-file", CA, "--kube-token-file", st.TOKEN_FILE, *extra)


def refused_apiserver(cert, key, why):
    api = FakeApiserver(cert, key, "test-token")
    s = auto_server(api, "--version-refresh-interval", "1s")
    try:
        time.sleep(2.5)
        status, text = s.get("/readyz")
        assert status == 503 and "not known" in text, (status, text)
        r = st.review_of(s.post("/validate", st.example("artifact-pinned-create"))[1])
        assert r["allowed"] is False and r["auditAnnotations"]["rule"] == "apiserver-floor", "an unverified apiserver's version is not believed"
        assert api.tokens == [], "the token reached an apiserver whose certificate was not verified: %r" % api.tokens
        log = s.output()
        assert "the apiserver's certificate was refused" in log and why in log and "no token was sent" in log, log[-2000:]
        assert "test-token" not in log
    finally:
        s.stop()
        api.stop()
    # Node lookups go through the same check: the pinned Pod fails closed.
    api = FakeApiserver(cert, key, "test-token")
    api.nodes = {"gpu-new": ("v1.35.1", "containerd://2.1.3")}
    s = st.Server("--kube-api-url", api.url, "--kube-ca-file", CA, "--kube-token-file", st.TOKEN_FILE)
    try:
        r = st.review_of(s.post("/validate?timeout=10s", st.pinned_pod("gpu-new"))[1])
        assert r["allowed"] is False and r["auditAnnotations"]["rule"] == "node-unavailable", r
        assert "certificate was refused" in r["status"]["message"], r["status"]["message"]
        assert api.tokens == []
    finally:
        s.stop()
        api.stop()


@test
def an_apiserver_certificate_from_another_ca_is_refused():
    refused_apiserver(*other_ca_certs(), why="self-signed certificate in certificate chain")


@test
def an_apiserver_certificate_without_its_address_is_refused():
    refused_apiserver(*wrong_name_certs(), why="IP address mismatch")


@test
def the_version_is_asked_once_per_interval():
    api = FakeApiserver(os.path.join(st.CERTS, "tls.crt"), os.path.join(st.CERTS, "tls.key"), "test-token")
    s = auto_server(api, "--version-refresh-interval", "1s")
    try:
        start, timed_start = len(api.requests), len(api.timed_requests)
        time.sleep(10)
        times = [t for t, p in api.timed_requests[timed_start:] if p == "/version"]
        gaps = [b - a for a, b in zip(times, times[1:])]
        # Never more often than the interval; the next ask waits an interval
        # after the last answer, so a slow machine (sanitizers, a loaded CI
        # host) stretches each gap by the ask's own time. The times are taken
        # as this fake reads each request, which moves each by up to a tenth
        # of a second: a gap of half the interval still fails.
        assert len(times) >= 7 and all(0.75 <= g <= 2.5 for g in gaps), \
            "%d GET /version in 10 s at a 1 s interval, gaps %s" % (len(times), ["%.2f" % g for g in gaps])
        assert all(p == "/version" or p.startswith("/api/v1/nodes?") or p.startswith("/apis/worker.gpustack.ai/v1alpha1/modelartifacts?")
               for p in api.requests[start:]), "nothing but the version and the Node and ModelArtifact watches"
        assert all(t == "Bearer test-token" for t in api.tokens)
    finally:
        s.stop()
        api.stop()


@test
def huge_apiserver_answers_are_cut_at_the_cap():
    for chunked in (False, True):
        api = FakeApiserver(os.path.join(st.CERTS, "tls.crt"), os.path.join(st.CERTS, "tls.key"), "test-token")
        api.huge_bytes = 200 << 20
        api.huge_chunked = chunked
        s = auto_server(api, "--version-refresh-interval", "1s")
        try:
            assert st.wait_for(lambda: "larger than 65536 bytes" in s.output(), 10), s.output()[-2000:]
            time.sleep(2)  # a few more refused answers
            assert s.get("/readyz")[0] == 503, "a version read from a cut answer was believed"
            peak = harness.peak_rss_mib(s.proc.pid)
            # A sanitizer build's shadow memory has its own footprint; the cap is still checked by the log.
            if not os.environ.get("MIW_SANITIZED"):
                assert peak < 40, "peak RSS %.1f MiB while refusing 200 MiB answers" % peak
            print("     (%s 200 MiB answer: peak RSS %.1f MiB)" % ("chunked" if chunked else "sized", peak))
            api.huge_bytes = 0
            assert st.wait_for(lambda: s.get("/readyz")[0] == 200, 5), "a sane answer after huge ones is read"
        finally:
            s.stop()
            api.stop()


@test
def readiness_follows_an_unreadable_version():
    api = FakeApiserver(os.path.join(st.CERTS, "tls.crt"), os.path.join(st.CERTS, "tls.key"), "test-token", version="garbage")
    s = auto_server(api, "--version-refresh-interval", "1s")
    try:
        time.sleep(2)
        status, text = s.get("/readyz")
        assert status == 503 and "not readable" in text, (status, text)
        api.version = "v1.35.2"
        assert st.wait_for(lambda: s.get("/readyz")[0] == 200, 4), "a readable version makes the server ready"
        api.version = "garbage"
        assert st.wait_for(lambda: s.get("/readyz")[0] == 503, 4), "an unreadable version makes it not ready again"
        assert "apiserver version is not readable" in s.output()
    finally:
        s.stop()
        api.stop()


def raw_exchange(s, data, wait=3.0):
    """Sends data on one TLS connection and reads until the server closes it
    (or wait passes); returns every byte the server sent."""
    t = s.context().wrap_socket(socket.create_connection(("127.0.0.1", s.port)), server_hostname="127.0.0.1")
    t.settimeout(wait)
    t.sendall(data)
    got = b""
    try:
        while True:
            piece = t.recv(65536)
            if not piece:
                break
            got += piece
    except (socket.timeout, ssl.SSLError, OSError):
        pass
    t.close()
    return got


def statuses(reply):
    return [int(line.split()[1]) for line in reply.split(b"\r\n") if line.startswith(b"HTTP/1.")]


@test
def transfer_encodings_other_than_chunked_are_refused_and_closed():
    s = st.Server()
    try:
        body = st.example("artifact-pinned-create")
        smuggled = b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
        for coding in (b"gzip", b"identity", b"chunked, chunked", b"gzip, chunked", b"chunked\r\nTransfer-Encoding: chunked", b"chunked\r\nContent-Length: 5"):
            head = b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: " + coding + b"\r\n\r\n"
            reply = raw_exchange(s, head + smuggled)
            assert statuses(reply) == [400], (coding, reply[:300])
            assert b"Connection: close" in reply, coding
        # exactly "chunked" is read as chunked
        chunked = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
        reply = raw_exchange(s, b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: Chunked\r\nConnection: close\r\n\r\n" + chunked)
        assert statuses(reply) == [200] and b'"allowed":true' in reply, reply[:300]
    finally:
        s.stop()


@test
def host_is_required_once_on_http_1_1():
    s = st.Server()
    try:
        body = st.example("artifact-pinned-create")
        tail = b"Content-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(body), body)
        reply = raw_exchange(s, b"POST /validate HTTP/1.1\r\n" + tail)
        assert statuses(reply) == [400] and b"exactly one Host" in reply, reply[:300]
        reply = raw_exchange(s, b"POST /validate HTTP/1.1\r\nHost: a\r\nHost: b\r\n" + tail)
        assert statuses(reply) == [400], reply[:300]
        reply = raw_exchange(s, b"POST /validate HTTP/1.0\r\n" + tail)
        assert statuses(reply) == [200], "HTTP/1.0 has no Host requirement: %r" % reply[:300]
        reply = raw_exchange(s, b"POST /validate HTTP/1.1\r\nHost: x\r\n" + tail)
        assert statuses(reply) == [200]
    finally:
        s.stop()


@test
def absolute_form_targets_are_routed_by_their_path():
    s = st.Server()
    try:
        body = st.example("artifact-tag-only")
        for target in (b"https://127.0.0.1:%d/validate?timeout=10s" % s.port, b"HTTPS://webhook.example/validate"):
            reply = raw_exchange(s, b"POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s"
                                 % (target, len(body), body))
            assert statuses(reply) == [200] and b'"allowed":false' in reply, (target, reply[:300])
        reply = raw_exchange(s, b"GET https://127.0.0.1/healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert statuses(reply) == [200], reply[:300]
    finally:
        s.stop()


@test
def shutdown_does_not_wait_for_connections_that_never_asked():
    s = st.Server("--shutdown-delay", "500ms", "--shutdown-timeout", "20s")
    held = []
    try:
        held.append(socket.create_connection(("127.0.0.1", s.port)))  # no handshake
        half = socket.create_connection(("127.0.0.1", s.port))
        half.sendall(client_hello()[:60])  # half a handshake
        held.append(half)
        held.append(s.context().wrap_socket(socket.create_connection(("127.0.0.1", s.port)), server_hostname="127.0.0.1"))  # no request
        time.sleep(0.3)
        start = time.time()
        s.proc.send_signal(signal.SIGTERM)
        code = s.proc.wait(10)
        took = time.time() - start
        # Well inside --shutdown-timeout 20s: what a connection that never asked is not waited for
        # (the bound leaves a loaded machine room, not the 20 s).
        assert code == 0 and took < 5, "exit %s after %.2fs with silent connections open (delay 0.5s, timeout 20s)" % (code, took)
    finally:
        for h in held:
            h.close()
        s.stop()


@test
def a_new_connection_must_ask_within_the_header_deadline():
    s = st.Server("--header-timeout", "1s", "--idle-timeout", "60s")
    try:
        t = s.context().wrap_socket(socket.create_connection(("127.0.0.1", s.port)), server_hostname="127.0.0.1")
        t.settimeout(5)
        start = time.time()
        try:
            closed = t.recv(1) == b""
        except (ssl.SSLError, OSError):
            closed = True
        took = time.time() - start
        assert closed and 0.8 < took < 5, "a silent connection was closed after %.2fs (header deadline 1s, idle timeout 60s)" % took
        # a header trickled past the deadline is cut too
        t = s.context().wrap_socket(socket.create_connection(("127.0.0.1", s.port)), server_hostname="127.0.0.1")
        t.settimeout(5)
        t.sendall(b"POST /validate HTTP/1.1\r\n")
        start = time.time()
        try:
            t.recv(1)
        except (ssl.SSLError, OSError):
            pass
        assert time.time() - start < 5
        # kept-alive connections still wait for idle-timeout between requests
        conn = s.connection()
        st.Server.post(s, "/validate", st.example("artifact-pinned-create"), conn=conn)
        time.sleep(1.5)
        resp, _ = s.post("/validate", st.example("artifact-pinned-create"), conn=conn)
        assert resp.status == 200
        conn.close()
    finally:
        s.stop()


def client_hello():
    """The first flight of a real TLS client, as bytes."""
    ctx = ssl.create_default_context()
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    obj = ctx.wrap_bio(incoming, outgoing, server_hostname="localhost")
    try:
        obj.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return outgoing.read()


def hold_half_handshakes(port, count, hello):
    """count connections that each send half a ClientHello and stop."""
    held = []
    for _ in range(count):
        h = socket.create_connection(("127.0.0.1", port))
        h.sendall(hello[: len(hello) // 2])
        held.append(h)
    return held


@test
def half_open_handshakes_never_hold_up_a_client_that_completes_its_own():
    # Past --max-handshakes the oldest stalled handshake makes room; past --max-connections
    # the oldest connection that has not begun a request does: a real client is answered at once.
    s = st.Server("--max-handshakes", "20", "--max-connections", "64", "--handshake-timeout", "5s")
    held = []
    try:
        hello = client_hello()
        held = hold_half_handshakes(s.port, 200, hello)
        time.sleep(0.3)
        silent = [socket.create_connection(("127.0.0.1", s.port)) for _ in range(100)]  # connected, nothing sent
        held += silent
        time.sleep(0.3)
        for _ in range(5):
            start = time.time()
            resp, data = s.post("/validate", st.example("artifact-pinned-create"))
            took = time.time() - start
            assert resp.status == 200 and st.review_of(data)["allowed"] is True
            assert took < 1, "a real request waited %.2fs behind half-open handshakes" % took
        assert s.metric("miw_connections_evicted_total") > 0
        assert s.metric("miw_connections_open") <= 64 + 8, s.metric("miw_connections_open")
    finally:
        for h in held:
            h.close()
        s.stop()


@test
def request_bodies_in_flight_are_held_to_their_budget():
    s = st.Server("--max-body-bytes", "1048576", "--max-body-bytes-in-flight", "1048576", "--read-timeout", "10s")
    try:
        slow = s.context().wrap_socket(socket.create_connection(("127.0.0.1", s.port)), server_hostname="127.0.0.1")
        slow.sendall(b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1048576\r\n\r\n{")
        answers = []
        # Once the server has read the slow request's header, its body holds the whole budget.
        assert st.wait_for(lambda: answers.append(s.post("/validate", st.example("artifact-pinned-create"))) or answers[-1][0].status == 503), \
            [(r.status, d[:200]) for r, d in answers]
        resp, data = answers[-1]
        assert b"--max-body-bytes-in-flight" in data and resp.getheader("Connection") == "close", (resp.status, data)
        slow.close()  # the budget is given back when its connection ends
        answers.clear()
        assert st.wait_for(lambda: answers.append(s.post("/validate", st.example("artifact-pinned-create"))) or answers[-1][0].status == 200), \
            [(r.status, d[:200]) for r, d in answers]
        assert st.review_of(answers[-1][1])["allowed"] is True
        for _ in range(5):  # and after every answer
            assert s.post("/validate", st.example("artifact-pinned-create"))[0].status == 200
    finally:
        s.stop()


@test
def a_body_of_small_values_is_held_to_the_budget():
    # 8 MiB of "0," is four million values, which a DOM holds in 16 bytes each and its parse
    # stack in 16 more: read whole, one such body took the server to 147 MiB, past the
    # Deployment's 128 MiB limit. The JSON read from a body counts against the same budget
    # as the bodies (--max-body-bytes-in-flight, 24 MiB). One such body alone needs more than
    # the whole budget: 413, saying what was exceeded, never 503 and a retry that cannot succeed.
    s = st.Server()
    try:
        values = (8 * 1024 * 1024 - 4096) // 2
        review = json.loads(st.example("pod-already-rendered"))
        review["request"]["object"]["data"] = "values"
        body = json.dumps(review).encode().replace(b'"data": "values"', b'"data": [' + b",".join([b"0"] * values) + b"]")
        assert len(body) > 8 * 1024 * 1024 - 4096 and len(body) < 8 * 1024 * 1024
        statuses = []

        def post():
            resp, data = s.post("/mutate", body)
            statuses.append((resp.status, data[:300]))

        threads = [threading.Thread(target=post) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        # Each is refused: 413 where the budget's refusal came with nothing else held, 503 (to
        # retry, which then meets the 413) where the others' bodies held the rest at that moment.
        assert len(statuses) == 3 and all(status in (413, 503) and b"--max-body-bytes-in-flight" in data for status, data in statuses), statuses
        resp, data = s.post("/mutate", body)
        assert resp.status == 413 and b"even with no other request" in data, "alone, it is told it can never fit: %r" % data[:300]
        if not os.environ.get("MIW_SANITIZED"):  # the sanitizers' shadow memory and quarantine are no figure
            peak = harness.peak_rss_mib(s.proc.pid)
            assert peak < 64, "three 8 MiB bodies of small values took the server to %.0f MiB" % peak
        resp, data = s.post("/mutate", st.example("pod-already-rendered"))
        assert resp.status == 200 and st.review_of(data)["allowed"] is True, "it goes on answering"
    finally:
        s.stop()


@test
def one_object_of_many_keys_that_no_budget_could_hold_is_413_not_retry():
    # 8 MiB with 530,000 keys in one object: more values than the 24 MiB budget holds
    # even alone. Nothing else is in flight, so a retry could never succeed.
    s = st.Server()
    try:
        review = json.loads(st.example("pod-already-rendered"))
        review["request"]["object"]["metadata"]["annotations"] = {"k%d" % i: "" for i in range(530000)}
        body = json.dumps(review, separators=(",", ":")).encode()
        assert 6 * 1024 * 1024 < len(body) < 8 * 1024 * 1024, len(body)
        resp, data = s.post("/mutate", body)
        assert resp.status == 413 and b"--max-body-bytes-in-flight" in data and b"retry" not in data, (resp.status, data[:300])
        resp, data = s.post("/mutate", st.example("pod-already-rendered"))
        assert resp.status == 200 and st.review_of(data)["allowed"] is True, "it goes on answering"
    finally:
        s.stop()


@test
def a_huge_uid_is_echoed_whole_and_logged_cut():
    s = st.Server()
    try:
        review = json.loads(st.example("artifact-pinned-create"))
        uid = "u" * (1 << 20)
        review["request"]["uid"] = uid
        review["request"]["name"] = "n" * 4096
        resp, data = s.post("/validate", json.dumps(review).encode())
        assert resp.status == 200 and st.review_of(data)["uid"] == uid, "the uid is echoed whole: that is the wire contract"
        admission_lines = lambda: [line for line in s.output().splitlines() if '"admission"' in line]
        assert st.wait_for(admission_lines), "no admission line logged (the log is flushed each second)"
        lines = admission_lines()
        assert lines and max(len(line) for line in lines) < 4096, "an admission log line of %d bytes" % max(len(line) for line in lines)
        assert "(cut, 1048576 bytes)" in lines[-1]
    finally:
        s.stop()


def run():
    harness.run_tests(TESTS, "security tests", only=st.ONLY, cleanup=lambda: __import__("shutil").rmtree(st.WORK, ignore_errors=True))


if __name__ == "__main__":
    run()
