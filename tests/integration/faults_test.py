#!/usr/bin/python3
"""Faults against the real server on loopback, each bounded in count and time:
slow and silent clients by the hundred while a well-behaved client keeps being
answered on time, broken bodies, 1,000 concurrent connections, answers read
slowly or never, a certificate rotation under load, SIGTERM under load, and a
stand-in apiserver that hangs.

  faults_test.py BINARY REPO_DIR
"""
import base64
import json
import os
import shutil
import http.client
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

TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


def timed_answers(s, count, path="/validate", body=None, limit=1.0):
    """Sends count requests one after another on a fresh connection each; returns the slowest."""
    body = body or st.example("artifact-pinned-create")
    slowest = 0.0
    for _ in range(count):
        start = time.time()
        resp, data = s.post(path, body)
        slowest = max(slowest, time.time() - start)
        assert resp.status == 200 and st.review_of(data)["allowed"] is True
    assert slowest < limit, "a well-behaved client waited %.2fs" % slowest
    return slowest


@test
def slowloris_and_silent_connections_do_not_stall_others():
    s = st.Server("--read-timeout", "3s", "--handshake-timeout", "3s", "--max-connections", "2000")
    held = []
    try:
        for i in range(150):
            held.append(socket.create_connection(("127.0.0.1", s.port)))  # never speak
        for i in range(150):
            t = s.context().wrap_socket(socket.create_connection(("127.0.0.1", s.port)), server_hostname="127.0.0.1")
            t.sendall(b"POST /validate HTTP/1.1\r\nHost: x\r\n")  # a header, trickled
            held.append(t)
        for i in range(100):
            t = s.context().wrap_socket(socket.create_connection(("127.0.0.1", s.port)), server_hostname="127.0.0.1")
            t.sendall(b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{")  # a body, trickled
            held.append(t)
        slowest = timed_answers(s, 30)
        for t in held[150:300]:
            t.sendall(b"X-Slow: 1\r\n")
        timed_answers(s, 10)
        time.sleep(3.5)
        closed = 0
        for t in held:
            t.settimeout(2)
            try:
                closed += t.recv(1) == b""
            except (OSError, ssl.SSLError):
                closed += 1
        assert closed == len(held), "%d of %d stalled connections were closed by the deadlines" % (closed, len(held))
        print("     (slowest answer beside 400 stalled connections: %.1f ms)" % (slowest * 1000))
    finally:
        for t in held:
            t.close()
        s.stop()


@test
def broken_bodies_get_answers_or_a_close():
    s = st.Server()
    try:
        def raw(payload, read=True):
            t = s.context().wrap_socket(socket.create_connection(("127.0.0.1", s.port), timeout=5), server_hostname="127.0.0.1")
            t.sendall(payload)
            data = b""
            if read:
                try:
                    while True:
                        chunk = t.recv(65536)
                        if not chunk:
                            break
                        data += chunk
                        if b"\r\n\r\n" in data and len(data) > 200:
                            break
                except (OSError, ssl.SSLError):
                    pass
            t.close()
            return data
        head = b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        # truncated: the connection closes before the announced body arrives
        raw(head + b"Content-Length: 5000\r\n\r\n{\"apiVersion\":", read=False)
        deep = b"[" * 100000 + b"]" * 100000
        assert b"400 Bad Request" in raw(head + b"Content-Length: %d\r\n\r\n" % len(deep) + deep)
        bad = b'{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"\xff\xfe"}}'
        reply = raw(head + b"Content-Length: %d\r\n\r\n" % len(bad) + bad)
        assert b"400 Bad Request" in reply and b"not valid JSON" in reply, reply[:300]
        assert b"400 Bad Request" in raw(head + b"Content-Length: nope\r\n\r\n{}")
        assert b"400 Bad Request" in raw(head + b"Transfer-Encoding: chunked\r\n\r\nzz\r\n")
        chunked = st.example("artifact-pinned-create")
        reply = raw(head + b"Transfer-Encoding: chunked\r\n\r\n" + b"%x\r\n" % len(chunked) + chunked + b"\r\n0\r\n\r\n")
        assert b"200 OK" in reply, "a chunked body is read"
        timed_answers(s, 5)
    finally:
        s.stop()


@test
def a_thousand_concurrent_connections():
    # The client opens the 1,000 connections one by one before it sends a
    # request on any; on a slow machine that takes longer than the default 5 s
    # a new connection has for its first request, which would close the first
    # ones (security_test.py holds the server to that deadline).
    s = st.Server("--max-connections", "4096", "--header-timeout", "120s")
    conns = []
    try:
        start = time.monotonic()
        for _ in range(1000):
            conns.append(s.context().wrap_socket(socket.create_connection(("127.0.0.1", s.port), timeout=20), server_hostname="127.0.0.1"))
        opened = time.monotonic() - start
        body = st.example("artifact-pinned-create")
        request = b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
        for c in conns:
            c.sendall(request)
        ok = 0
        for c in conns:
            data = b""
            while b'"allowed":true' not in data:
                chunk = c.recv(65536)
                if not chunk:
                    break
                data += chunk
            ok += b"200 OK" in data and b'"allowed":true' in data
        assert ok == 1000, "%d of 1000 answered (the connections took %.1f s to open)" % (ok, opened)
        assert s.metric("miw_connections_open") >= 1000
    finally:
        for c in conns:
            c.close()
        s.stop()


def pod_with_a_large_patch(env_vars=100000):
    """A Pod of the download era whose first container has thousands of HF_
    variables: each is removed, so the answer runs to megabytes, more than a
    socket's send buffer holds (4 MiB at most)."""
    review = json.loads(st.example("pod-vllm-download-era"))
    env = review["request"]["object"]["spec"]["containers"][0].setdefault("env", [])
    env.extend({"name": "HF_EXTRA_%d" % i, "value": "v"} for i in range(env_vars))
    return json.dumps(review).encode()


def raw_request(path, body):
    return b"POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (path.encode(), len(body), body)


def small_window_connection(s):
    """A TLS connection whose receive buffer is tiny, so the server's writes
    fill the socket and must wait for the reader."""
    raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    raw.settimeout(20)
    raw.connect(("127.0.0.1", s.port))
    return s.context().wrap_socket(raw, server_hostname="127.0.0.1")


def read_answer(t):
    """One HTTP answer from a socket: (head, body), or the bytes read so far
    when the server closes first."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = t.recv(65536)
        if not chunk:
            return data, None
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = int([line.split(b":", 1)[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")][0])
    while len(body) < length:
        chunk = t.recv(min(65536, length - len(body)))
        if not chunk:
            return head, None
        body += chunk
        time.sleep(0.001)  # a slow reader
    return head, body


@test
def a_slow_reader_gets_all_of_a_large_answer():
    s = st.Server()
    try:
        t = small_window_connection(s)
        body = pod_with_a_large_patch()
        t.sendall(raw_request("/mutate", body))
        time.sleep(1.0)  # the answer waits in a full socket meanwhile
        head, answer = read_answer(t)
        assert answer is not None and b"200 OK" in head, head[:200]
        review = st.review_of(answer)
        patch = json.loads(base64.b64decode(review["patch"]))
        removed = [op for op in patch if op["op"] == "remove" and "/env/" in op["path"]]
        assert len(removed) >= 100000 and len(answer) > 5000000, (len(removed), len(answer))
        # the same connection goes on to the next request
        t.sendall(raw_request("/validate", st.example("artifact-pinned-create")))
        head, answer = read_answer(t)
        assert answer is not None and st.review_of(answer)["allowed"] is True
        t.close()
        timed_answers(s, 3)
    finally:
        s.stop()


@test
def a_client_that_never_reads_its_answer_is_cut_off_by_the_write_timeout():
    s = st.Server("--write-timeout", "1s")
    try:
        t = small_window_connection(s)
        t.sendall(raw_request("/mutate", pod_with_a_large_patch()))
        time.sleep(2.5)  # past the write deadline, nothing read
        timed_answers(s, 3)  # others are served meanwhile
        try:
            _, answer = read_answer(t)
        except (OSError, ssl.SSLError):
            answer = None  # reset or cut short: closed either way
        assert answer is None, "the server waited past its write deadline for a reader that never came"
        t.close()
    finally:
        s.stop()


def load(s, stop, results, path="/validate", body=None, reuse=False):
    """Sends requests until stopped. A failure on a connection the server has
    already answered on is a lost request; a refused or reset new connection
    was never accepted by the server (the listener closed, or the connection
    was still in the kernel's backlog when it did)."""
    body = body or st.example("artifact-pinned-create")
    conn, fresh = None, True
    while not stop.is_set():
        if conn is None or not reuse:
            conn, fresh = s.connection(), True
        try:
            resp, data = s.post(path, body, conn=conn)
            results.append(resp.status == 200 and st.review_of(data)["allowed"] is True)
            fresh = False
            if not reuse or resp.getheader("Connection") == "close":
                conn.close()
                conn = None
        except (ConnectionRefusedError, ConnectionResetError, http.client.RemoteDisconnected, ssl.SSLError, BrokenPipeError) as e:
            results.append("not accepted" if fresh else repr(e))
            conn = None
            time.sleep(0.01)
        except Exception as e:  # noqa: BLE001 - every other failure is counted
            results.append(repr(e))
            conn = None


@test
def certificate_rotation_under_load_fails_no_request():
    certs = os.path.join(st.WORK, "rotation-under-load")
    shutil.copytree(st.CERTS, certs)
    s = st.Server("--tls-reload-interval", "50ms", certs=certs)
    stop, results = threading.Event(), []
    threads = [threading.Thread(target=load, args=(s, stop, results)) for _ in range(4)]
    try:
        for t in threads:
            t.start()
        for _ in range(3):
            time.sleep(0.5)
            subprocess.run(["bash", os.path.join(st.REPO, "certs", "gen-certs.sh"), "--out", certs], check=True, capture_output=True)
        time.sleep(0.5)
        stop.set()
        for t in threads:
            t.join(10)
        failures = [r for r in results if r is not True]
        assert not failures and len(results) > 100, "%d requests, failures: %s" % (len(results), failures[:5])
        assert s.metric("miw_certificate_reloads_total") >= 3
    finally:
        stop.set()
        s.stop()


@test
def sigterm_under_load_answers_every_accepted_request():
    s = st.Server("--shutdown-delay", "500ms")
    stop, results = threading.Event(), []
    threads = [threading.Thread(target=load, args=(s, stop, results), kwargs={"reuse": True}) for _ in range(6)]
    try:
        for t in threads:
            t.start()
        time.sleep(1.0)
        s.proc.send_signal(signal.SIGTERM)
        assert s.proc.wait(15) == 0
        stop.set()
        for t in threads:
            t.join(10)
        answered = [r for r in results if r is True]
        broken = [r for r in results if r is not True and r != "not accepted"]
        assert len(answered) > 100 and not broken, "%d answered; lost: %s" % (len(answered), broken[:5])
    finally:
        stop.set()
        s.stop()


@test
def a_hanging_apiserver_costs_no_more_than_the_request_timeout():
    api = FakeApiserver(os.path.join(st.CERTS, "tls.crt"), os.path.join(st.CERTS, "tls.key"), "test-token")
    api.node_delay = 30.0
    s = st.Server("--kube-api-url", api.url, "--kube-ca-file", os.path.join(st.CERTS, "ca.crt"), "--kube-token-file", st.TOKEN_FILE,
                  "--node-lookup-timeout", "10s")
    try:
        results = []

        def pinned():
            start = time.time()
            r = st.review_of(s.post("/validate?timeout=2s", st.pinned_pod("gpu-%d" % threading.get_ident()))[1])
            results.append((r["auditAnnotations"]["rule"], time.time() - start))

        threads = [threading.Thread(target=pinned) for _ in range(40)]
        for t in threads:
            t.start()
        timed_answers(s, 5, path="/mutate", body=st.example("pod-already-rendered"))  # mutations go on meanwhile
        for t in threads:
            t.join(10)
        assert len(results) == 40 and all(rule == "node-unavailable" and took < 2.5 for rule, took in results), results
    finally:
        s.stop()
        api.stop()


st.run(TESTS, "fault tests")
