#!/usr/bin/python3
"""The real server on 127.0.0.1 with certificates from certs/gen-certs.sh,
talked to by a real TLS client.

  server_test.py BINARY REPO_DIR [TEST_NAME_FRAGMENT]
"""
import base64
import http.client
import json
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_apiserver import FakeApiserver  # noqa: E402
import harness  # noqa: E402

BINARY, REPO = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
ONLY = sys.argv[3] if len(sys.argv) > 3 else ""
EXAMPLES = os.path.join(REPO, "examples", "reviews")
WORK = tempfile.mkdtemp(prefix="miw-server-test-")
CERTS = os.path.join(WORK, "certs")
subprocess.run(["bash", os.path.join(REPO, "certs", "gen-certs.sh"), "--out", CERTS, "--client", "kube-apiserver"], check=True, capture_output=True)
TOKEN_FILE = os.path.join(WORK, "token")
with open(TOKEN_FILE, "w") as f:
    f.write("test-token\n")


def free_ports(count):
    """Ports nobody listens on, distinct from each other (all are held until
    all are picked). Another process may still take one before the server
    binds it; Server retries then."""
    probes = [socket.socket() for _ in range(count)]
    try:
        for p in probes:
            p.bind(("127.0.0.1", 0))
        return [p.getsockname()[1] for p in probes]
    finally:
        for p in probes:
            p.close()


class Server:
    def __init__(self, *extra, certs=CERTS, metrics=True, env=None):
        for _ in range(3):
            ports = free_ports(2)
            self.port = ports[0]
            self.metrics_port = ports[1] if metrics else None
            if self._start(extra, certs, metrics, env):
                return
        raise AssertionError("the server's ports were taken before it could bind them, three times")

    def _start(self, extra, certs, metrics, env):
        """Starts the server; False when a port it was given was taken meanwhile."""
        args = [BINARY, "serve", "--listen", "127.0.0.1:%d" % self.port, "--tls-cert", os.path.join(certs, "tls.crt"),
                "--tls-key", os.path.join(certs, "tls.key"), "--shutdown-delay", "200ms"]
        if metrics:
            args += ["--metrics-listen", "127.0.0.1:%d" % self.metrics_port]
        if "--kube-version" not in extra:
            args += ["--kube-version", "v1.35.0"]
        self.log = open(os.path.join(WORK, "server-%d.log" % self.port), "w+")
        self.proc = subprocess.Popen(args + list(extra), stdout=self.log, stderr=subprocess.STDOUT, env=env)
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                # Both ports: another test may take the metrics port between
                # free_ports and the server's bind, which is then retried too.
                for port in (self.port, self.metrics_port):
                    if port is not None:
                        socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                return True
            except OSError:
                if self.proc.poll() is not None:
                    output = self.output()
                    if "Address already in use" in output:
                        self.log.close()
                        return False
                    raise AssertionError("server exited: %s" % output)
                time.sleep(0.05)
        raise AssertionError("server did not start")

    def output(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def context(self, client_cert=False):
        ctx = ssl.create_default_context(cafile=os.path.join(CERTS, "ca.crt"))
        if client_cert:
            ctx.load_cert_chain(os.path.join(CERTS, "client.crt"), os.path.join(CERTS, "client.key"))
        return ctx

    def connection(self, client_cert=False):
        return http.client.HTTPSConnection("127.0.0.1", self.port, context=self.context(client_cert), timeout=10)

    def post(self, path, body, content_type="application/json", conn=None):
        own = conn is None
        conn = conn or self.connection()
        conn.request("POST", path, body=body, headers={"Content-Type": content_type})
        resp = conn.getresponse()
        data = resp.read()
        if own:
            conn.close()
        return resp, data

    def get(self, path, plain=False):
        conn = http.client.HTTPConnection("127.0.0.1", self.metrics_port, timeout=5) if plain else self.connection()
        try:
            conn.request("GET", path)
        except ConnectionRefusedError:
            # Say whether the server is gone, and what it said last.
            raise AssertionError("GET %s refused; the server %s; its log ends: %s" % (
                path, "is running" if self.proc.poll() is None else "exited with %s" % self.proc.returncode, self.output()[-3000:]))
        resp = conn.getresponse()
        data = resp.read()
        conn.close()
        return resp.status, data.decode()

    def metric(self, name):
        _, text = self.get("/metrics", plain=self.metrics_port is not None)
        total = 0.0
        for line in text.splitlines():
            if line.startswith(name + " ") or line.startswith(name + "{"):
                total += float(line.rsplit(" ", 1)[1])
        return total

    def stop(self, sig=signal.SIGTERM, timeout=10):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                raise AssertionError("server did not exit after signal %d" % sig)
        self.log.close()
        return self.proc.returncode


def example(name):
    with open(os.path.join(EXAMPLES, name + ".json"), "rb") as f:
        return f.read()


def review_of(data):
    return json.loads(data)["response"]


TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn

# ---------------------------------------------------------------- tests


@test
def admission_answers_over_tls():
    s = Server()
    try:
        resp, data = s.post("/validate?timeout=10s", example("artifact-pinned-create"))
        assert resp.status == 200 and resp.getheader("Content-Type") == "application/json"
        r = review_of(data)
        assert r == {"uid": "6a1f0c2e-0001-4c3b-9d1e-000000000001", "allowed": True}, r
        resp, data = s.post("/validate?timeout=10s", example("artifact-tag-only"))
        r = review_of(data)
        assert r["allowed"] is False and r["status"]["code"] == 422 and r["status"]["reason"] == "Invalid"
        assert r["status"]["details"]["causes"][0]["field"] == "spec.source.image.reference"
        resp, data = s.post("/mutate?timeout=10s", example("pod-vllm-download-era"))
        r = review_of(data)
        assert r["allowed"] is True and r["patchType"] == "JSONPatch"
        ops = json.loads(base64.b64decode(r["patch"]))
        assert {"op": "add", "path": "/spec/containers/0/volumeMounts/-",
                "value": {"name": "gpustack-model", "mountPath": "/var/lib/gpustack/model", "readOnly": True}} in ops
        with open(os.path.join(EXAMPLES, "pod-vllm-download-era.response.json"), "rb") as f:
            assert data == f.read().rstrip(b"\n"), "the server answers what review answers"
    finally:
        s.stop()


@test
def uid_is_echoed_and_query_is_ignored_for_routing():
    s = Server()
    try:
        body = json.loads(example("artifact-pinned-create"))
        for uid in ["a", "uid-with-\"quotes\"-and-\u00e9", "x" * 300]:
            body["request"]["uid"] = uid
            for path in ["/validate", "/validate?timeout=10s", "/validate?timeout=30s&x=y", "/validate?"]:
                resp, data = s.post(path, json.dumps(body).encode())
                assert resp.status == 200 and review_of(data)["uid"] == uid, (path, data[:200])
    finally:
        s.stop()


@test
def plain_http_errors():
    s = Server("--max-body-bytes", "65536", "--max-header-bytes", "4096")
    try:
        assert s.get("/nope")[0] == 404
        conn = s.connection()
        conn.request("GET", "/validate")
        resp = conn.getresponse()
        resp.read()
        assert resp.status == 405 and resp.getheader("Allow") == "POST"
        resp, _ = s.post("/mutate", b"{}", content_type="text/plain")
        assert resp.status == 415
        resp, data = s.post("/validate", b"{not json")
        assert resp.status == 400 and b"not valid JSON" in data
        resp, data = s.post("/validate", b"x" * 100000)
        assert resp.status == 413 and resp.getheader("Connection") == "close", resp.status
        conn = s.connection()
        conn.putrequest("GET", "/healthz")
        conn.putheader("X-Big", "y" * 8000)
        conn.endheaders()
        resp = conn.getresponse()
        assert resp.status == 431, resp.status
        assert s.get("/healthz") == (200, "ok\n"), "the server keeps serving"
    finally:
        s.stop()


@test
def head_answers_carry_the_get_answers_length_and_no_body():
    s = Server()
    try:
        conn = s.connection()
        for path, body in (("/healthz", b"ok\n"), ("/readyz", b"ok\n")):
            conn.request("HEAD", path)
            resp = conn.getresponse()
            assert resp.status == 200 and resp.read() == b"", path
            assert resp.getheader("Content-Length") == str(len(body)), (path, resp.getheader("Content-Length"))
        # The same connection goes on: no body was left on it to be read as the next answer.
        conn.request("GET", "/healthz")
        resp = conn.getresponse()
        assert (resp.status, resp.read()) == (200, b"ok\n")
    finally:
        s.stop()


@test
def keep_alive_reuses_one_connection():
    s = Server()
    try:
        conn = s.connection()
        resp, _ = s.post("/validate", example("artifact-pinned-create"), conn=conn)
        sock = conn.sock
        for _ in range(25):
            resp, data = s.post("/validate?timeout=10s", example("artifact-tag-only"), conn=conn)
            assert resp.status == 200 and review_of(data)["allowed"] is False
            assert conn.sock is sock, "the connection was not reused"
        assert s.metric("miw_connections_open") >= 1
        conn.close()
    finally:
        s.stop()


def read_answers(tls, count):
    """count HTTP answers from the connection, in order, as (status, body)."""
    answers, received = [], b""
    while len(answers) < count:
        head_end = received.find(b"\r\n\r\n")
        if head_end >= 0:
            length = int(re.search(rb"Content-Length: (\d+)", received[:head_end], re.I).group(1))
            if len(received) >= head_end + 4 + length:
                answers.append((int(received.split(b" ", 2)[1]), received[head_end + 4:head_end + 4 + length]))
                received = received[head_end + 4 + length:]
                continue
        chunk = tls.recv(65536)
        assert chunk, "the connection closed after %d answers" % len(answers)
        received += chunk
    return answers


@test
def pipelined_requests_are_answered_in_order():
    s = Server()
    try:
        raw = socket.create_connection(("127.0.0.1", s.port))
        tls = s.context().wrap_socket(raw, server_hostname="127.0.0.1")
        bodies = [example("artifact-pinned-create"), example("artifact-tag-only"), example("artifact-glob")]
        requests = b"".join(b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(b), b) for b in bodies)
        tls.sendall(requests)
        uids = [review_of(body)["uid"] for _, body in read_answers(tls, len(bodies))]
        assert uids == [json.loads(b)["request"]["uid"] for b in bodies], uids
        tls.close()
    finally:
        s.stop()


def padded_pod(name, bytes_of_padding):
    """The download-era Pod under another uid, grown with an annotation that
    no rule reads, so that its body spans several TLS records."""
    body = json.loads(example("pod-vllm-download-era"))
    body["request"]["uid"] = name
    body["request"]["object"]["metadata"].setdefault("annotations", {})["example.com/padding"] = "p" * bytes_of_padding
    return json.dumps(body).encode()


@test
def request_bodies_are_read_whole_however_they_arrive():
    s = Server()
    try:
        large, small, mid = padded_pod("large", 40000), example("artifact-pinned-create"), padded_pod("mid", 9000)
        expected = {}
        for name, body in (("large", large), ("mid", mid)):
            expected[name] = review_of(s.post("/mutate", body)[1])
            assert expected[name]["uid"] == name and expected[name]["allowed"] and expected[name]["patch"], expected[name]

        def request(body, path=b"/mutate"):
            return b"POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % (path, len(body)) + body

        tls = s.context().wrap_socket(socket.create_connection(("127.0.0.1", s.port), timeout=10), server_hostname="127.0.0.1")
        # In seven pieces with pauses between them, the header and the body's
        # first bytes in the first: the rest of the body is waited for.
        wire = request(large)
        cut = [0, len(wire) - len(large) + 10] + [len(wire) * i // 6 for i in range(2, 6)] + [len(wire)]
        for a, b in zip(cut, cut[1:]):
            tls.sendall(wire[a:b])
            time.sleep(0.05)
        [(status, data)] = read_answers(tls, 1)
        assert status == 200 and review_of(data) == expected["large"], data[:300]
        # Then, on the same connection, a smaller body after the larger one
        # (in the string the larger one was read into), and a body whose last
        # byte and the next request's head come in one write.
        tls.sendall(request(small, b"/validate"))
        [(status, data)] = read_answers(tls, 1)
        assert status == 200 and review_of(data)["uid"] == json.loads(small)["request"]["uid"] and review_of(data)["allowed"], data[:300]
        tls.sendall(request(mid)[:-1])
        time.sleep(0.05)
        tls.sendall(request(mid)[-1:] + request(large))
        answers = read_answers(tls, 2)
        assert [a[0] for a in answers] == [200, 200]
        assert review_of(answers[0][1]) == expected["mid"] and review_of(answers[1][1]) == expected["large"]
        # Pipelined in one write: a body of several records, then a small one.
        tls.sendall(request(large) + request(small, b"/validate"))
        answers = read_answers(tls, 2)
        assert review_of(answers[0][1]) == expected["large"] and review_of(answers[1][1])["uid"] == json.loads(small)["request"]["uid"]
        tls.close()

        # The plain-HTTP metrics port reads a body the same way.
        plain = socket.create_connection(("127.0.0.1", s.metrics_port), timeout=10)
        plain.sendall(b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 20000\r\n\r\n" + b"x" * 10000)
        time.sleep(0.05)
        plain.sendall(b"x" * 10000 + b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        answers = read_answers(plain, 2)
        assert answers[0][0] == 405 and answers[1] == (200, b"ok\n"), answers
        plain.close()
    finally:
        s.stop()


@test
def mutual_tls_accepts_and_refuses():
    s = Server("--client-ca", os.path.join(CERTS, "ca.crt"))
    try:
        conn = s.connection(client_cert=True)
        conn.request("GET", "/healthz")
        assert conn.getresponse().status == 200
        try:
            conn = s.connection(client_cert=False)
            conn.request("GET", "/healthz")
            conn.getresponse()
            raise AssertionError("a client without a certificate was served")
        except (ssl.SSLError, ConnectionResetError, BrokenPipeError, http.client.RemoteDisconnected):
            pass
        assert s.metric("miw_tls_handshake_failures_total") >= 1
    finally:
        s.stop()


def served_certificate(s):
    raw = socket.create_connection(("127.0.0.1", s.port))
    tls = s.context().wrap_socket(raw, server_hostname="127.0.0.1")
    der = tls.getpeercert(binary_form=True)
    tls.close()
    return der


def wait_for(condition, timeout=5.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


@test
def certificate_rotation_without_restart():
    certs = os.path.join(WORK, "rotating")
    shutil.copytree(CERTS, certs)
    s = Server("--tls-reload-interval", "100ms", certs=certs)
    try:
        first = served_certificate(s)
        kept = s.connection()
        kept.request("GET", "/healthz")
        kept.getresponse().read()
        subprocess.run(["bash", os.path.join(REPO, "certs", "gen-certs.sh"), "--out", certs], check=True, capture_output=True)
        assert wait_for(lambda: served_certificate(s) != first), "a new connection still gets the old certificate"
        kept.request("GET", "/healthz")
        assert kept.getresponse().status == 200, "an open connection goes on"
        assert s.metric("miw_certificate_reloads_total") == 2
        # a broken pair keeps the previous one serving, and is reported
        second = served_certificate(s)
        with open(os.path.join(certs, "tls.crt"), "w") as f:
            f.write("-----BEGIN CERTIFICATE-----\ngarbage\n-----END CERTIFICATE-----\n")
        assert wait_for(lambda: s.metric("miw_certificate_reload_errors_total") == 1), "the broken pair was not reported"
        assert served_certificate(s) == second
        assert "serving certificate not reloaded" in s.output()
        # kubelet's ..data symlink swap of a mounted Secret
        os.makedirs(os.path.join(certs, "..2026_11_30"))
        subprocess.run(["bash", os.path.join(REPO, "certs", "gen-certs.sh"), "--out", certs], check=True, capture_output=True)
        for name in ("tls.crt", "tls.key"):
            os.replace(os.path.join(certs, name), os.path.join(certs, "..2026_11_30", name))
        os.symlink("..2026_11_30", os.path.join(certs, "..data_tmp"))
        os.replace(os.path.join(certs, "..data_tmp"), os.path.join(certs, "..data"))
        for name in ("tls.crt", "tls.key"):
            os.symlink(os.path.join("..data", name), os.path.join(certs, name))
        assert wait_for(lambda: served_certificate(s) not in (first, second)), "the symlink swap was not seen"
    finally:
        s.stop()


@test
def readiness_waits_for_the_apiserver_version():
    api = FakeApiserver(os.path.join(CERTS, "tls.crt"), os.path.join(CERTS, "tls.key"), "test-token", version="v1.36.1-gke.1200")
    api.version_delay = 1.0
    s = Server("--kube-version", "auto", "--kube-api-url", api.url, "--kube-ca-file", os.path.join(CERTS, "ca.crt"), "--kube-token-file", TOKEN_FILE)
    try:
        status, text = s.get("/readyz")
        assert status == 503 and "version is not known" in text, (status, text)
        resp, data = s.post("/validate", example("artifact-pinned-create"))
        assert review_of(data)["allowed"] is False and "apiserver-floor" in data.decode(), "unknown version fails closed"
        assert wait_for(lambda: s.get("/readyz")[0] == 200, 5), "never ready"
        assert s.metric('miw_apiserver_version_info{version="v1.36.1-gke.1200"}') == 1
        resp, data = s.post("/validate", example("artifact-pinned-create"))
        assert review_of(data)["allowed"] is True
    finally:
        s.stop()
        api.stop()


@test
def an_old_apiserver_is_refused_by_version():
    api = FakeApiserver(os.path.join(CERTS, "tls.crt"), os.path.join(CERTS, "tls.key"), "test-token", version="v1.34.3")
    s = Server("--kube-version", "auto", "--kube-api-url", api.url, "--kube-ca-file", os.path.join(CERTS, "ca.crt"), "--kube-token-file", TOKEN_FILE)
    try:
        assert wait_for(lambda: s.get("/readyz")[0] == 200, 5)
        resp, data = s.post("/validate", example("artifact-pinned-create"))
        r = review_of(data)
        assert r["allowed"] is False and "the apiserver is v1.34.3" in r["status"]["message"]
    finally:
        s.stop()
        api.stop()


def pinned_pod(node):
    body = json.loads(example("pod-pinned-supported-node"))
    body["request"]["object"]["spec"]["nodeName"] = node
    return json.dumps(body).encode()


@test
def pinned_pods_are_checked_against_the_api():
    api = FakeApiserver(os.path.join(CERTS, "tls.crt"), os.path.join(CERTS, "tls.key"), "test-token")
    api.nodes = {"gpu-new": ("v1.35.1", "containerd://2.1.3"), "gpu-old": ("v1.34.2", "containerd://2.0.5")}
    # One Node at a time from the API (the watch has a test of its own).
    s = Server("--kube-api-url", api.url, "--kube-ca-file", os.path.join(CERTS, "ca.crt"), "--kube-token-file", TOKEN_FILE,
               "--node-cache-ttl", "100ms", "--node-lookup-timeout", "3s", "--watch-nodes=false")
    try:
        assert review_of(s.post("/validate?timeout=10s", pinned_pod("gpu-new"))[1])["allowed"] is True
        r = review_of(s.post("/validate?timeout=10s", pinned_pod("gpu-old"))[1])
        assert r["allowed"] is False and r["auditAnnotations"]["rule"] == "node-floor" and r["status"]["code"] == 403
        r = review_of(s.post("/validate?timeout=10s", pinned_pod("gpu-gone"))[1])
        assert r["auditAnnotations"]["rule"] == "node-not-found" and "the Kubernetes API" in r["status"]["message"]
        r = review_of(s.post("/validate?timeout=10s", pinned_pod("../../namespaces"))[1])
        assert r["auditAnnotations"]["rule"] == "node-not-found"
        assert not any("namespaces" in p for p in api.requests), "a bad node name reached the API path"
        # a slow API: the answer comes within the request's own timeout
        api.node_delay = 5.0
        start = time.time()
        r = review_of(s.post("/validate?timeout=1s", pinned_pod("gpu-slow"))[1])
        took = time.time() - start
        assert r["auditAnnotations"]["rule"] == "node-unavailable" and took < 1.5, (r, took)
        api.node_delay = 0
        api.fail = True
        time.sleep(0.2)
        r = review_of(s.post("/validate?timeout=10s", pinned_pod("gpu-new"))[1])
        assert r["auditAnnotations"]["rule"] == "node-unavailable" and "answered 500" in r["status"]["message"], r
        assert s.metric('miw_node_lookups_total{result="unavailable"}') >= 2
    finally:
        s.stop()
        api.stop()


def opted_in_pod(name="qwen-0", node=None):
    """An already rendered Pod, as a rendered template makes them."""
    body = json.loads(example("pod-already-rendered"))
    obj = body["request"]["object"]
    obj["metadata"]["name"] = name
    if node:
        obj["spec"]["nodeName"] = node
    return json.dumps(body).encode()


def preferred_nodes(s, body=None):
    """The nodes the mutating answer prefers for an opted-in Pod ([] for none)."""
    r = review_of(s.post("/mutate?timeout=10s", body or opted_in_pod())[1])
    assert r["allowed"] is True, r
    if "patch" not in r:
        return []
    ops = json.loads(base64.b64decode(r["patch"]))
    terms = [op for op in ops if "affinity" in op["path"]]
    assert len(terms) == 1, ops
    value = terms[0]["value"]
    term = value["nodeAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"][0]
    assert term["weight"] == 100
    expression = term["preference"]["matchExpressions"][0]
    assert (expression["key"], expression["operator"]) == ("kubernetes.io/hostname", "In")
    return expression["values"]


@test
def the_node_watch_keeps_placement_and_the_node_check_current():
    ref = json.loads(example("pod-already-rendered"))["request"]["object"]["metadata"]["annotations"]["gpustack.ai/model-image"]
    api = FakeApiserver(os.path.join(CERTS, "tls.crt"), os.path.join(CERTS, "tls.key"), "test-token")
    new, old = ("v1.35.1", "containerd://2.1.3"), ("v1.34.2", "containerd://2.0.5")
    api.nodes = {"gpu-b": new + ([ref],), "gpu-a": new + ([],), "gpu-old": old + ([ref],)}
    api.list_status = 503  # the first lists fail: nothing is preferred, the node check asks the API
    s = Server("--kube-api-url", api.url, "--kube-ca-file", os.path.join(CERTS, "ca.crt"), "--kube-token-file", TOKEN_FILE)
    try:
        assert wait_for(lambda: s.metric("miw_node_watch_failures_total") >= 1)
        assert preferred_nodes(s) == [], "nothing is preferred before the first list"
        r = review_of(s.post("/validate?timeout=10s", pinned_pod("gpu-old"))[1])
        assert r["auditAnnotations"]["rule"] == "node-floor" and "/api/v1/nodes/gpu-old" in api.requests
        api.list_status = 200
        assert wait_for(lambda: s.metric("miw_node_cache_nodes") == 3, 10), "the initial list"
        assert s.metric("miw_node_cache_last_sync_timestamp_seconds") > time.time() - 60
        assert wait_for(lambda: api.open_watches() == 1)
        assert api.watch_queries[-1]["resourceVersion"] == [str(api.resource_version)], api.watch_queries
        assert api.watch_queries[-1]["allowWatchBookmarks"] == ["true"]
        assert preferred_nodes(s) == ["gpu-b", "gpu-old"]
        assert preferred_nodes(s, opted_in_pod(node="gpu-a")) == [], "a Pod pinned to a node gets no preference"

        # the node check reads the cache: no GET for a Node the watch holds
        before = len(api.requests)
        r = review_of(s.post("/validate?timeout=10s", pinned_pod("gpu-old"))[1])
        assert r["auditAnnotations"]["rule"] == "node-floor"
        assert review_of(s.post("/validate?timeout=10s", pinned_pod("gpu-a"))[1])["allowed"] is True
        assert not any(p.startswith("/api/v1/nodes/") for p in api.requests[before:]), api.requests[before:]

        api.push("MODIFIED", "gpu-a", new + ([ref],))  # the image appears on gpu-a
        assert wait_for(lambda: preferred_nodes(s) == ["gpu-a", "gpu-b", "gpu-old"])
        api.push("MODIFIED", "gpu-old", new + ([ref],))  # its kubelet is upgraded
        assert wait_for(lambda: review_of(s.post("/validate", pinned_pod("gpu-old"))[1])["allowed"] is True)
        api.push("ADDED", "gpu-c", new + ([ref],))
        assert wait_for(lambda: preferred_nodes(s) == ["gpu-a", "gpu-b", "gpu-c", "gpu-old"])
        api.push("DELETED", "gpu-b")
        assert wait_for(lambda: preferred_nodes(s) == ["gpu-a", "gpu-c", "gpu-old"])
        r = review_of(s.post("/validate?timeout=10s", pinned_pod("gpu-b"))[1])
        assert r["auditAnnotations"]["rule"] == "node-not-found", "a Node the cache lacks is asked of the API, which has none"
        assert s.metric("miw_node_cache_nodes") == 3

        bookmark = api.push("BOOKMARK")
        api.push("ERROR")  # 410: relist, from the bookmark's resource version on
        assert wait_for(lambda: s.metric("miw_node_cache_relists_total") == 1, 10)
        assert wait_for(lambda: api.open_watches() == 1 and int(api.watch_queries[-1]["resourceVersion"][0]) >= int(bookmark))
        with api.lock:
            api.nodes["gpu-d"] = new + ([ref],)  # appears in the next list, without an event
        api.drop_watches()  # a broken stream: relist
        assert wait_for(lambda: s.metric("miw_node_cache_relists_total") == 2, 10)
        assert wait_for(lambda: preferred_nodes(s) == ["gpu-a", "gpu-c", "gpu-d", "gpu-old"])
        assert wait_for(lambda: api.open_watches() == 1)
        assert s.metric("miw_node_watch_failures_total") >= 2
    finally:
        s.stop()
        api.stop()


def pinned_by_hostname(hostname):
    """A Pod pinned by a nodeSelector on kubernetes.io/hostname, as people pin them."""
    body = json.loads(example("pod-pinned-supported-node"))
    spec = body["request"]["object"]["spec"]
    spec.pop("nodeName", None)
    spec["nodeSelector"] = {"kubernetes.io/hostname": hostname}
    return json.dumps(body).encode()


@test
def nodes_named_as_clouds_name_them_are_found_by_their_hostname_label():
    # ip-10-0-2-9.ec2.internal carries kubernetes.io/hostname=ip-10-0-2-9: a nodeSelector names the label.
    ref = json.loads(example("pod-already-rendered"))["request"]["object"]["metadata"]["annotations"]["gpustack.ai/model-image"]
    api = FakeApiserver(os.path.join(CERTS, "tls.crt"), os.path.join(CERTS, "tls.key"), "test-token")
    api.nodes = {"ip-10-0-2-9.ec2.internal": ("v1.34.2", "containerd://2.0.5", [ref], "ip-10-0-2-9"),
                 "ip-10-0-3-1.ec2.internal": ("v1.35.1", "containerd://2.1.3", [ref], "ip-10-0-3-1")}
    flags = ["--kube-api-url", api.url, "--kube-ca-file", os.path.join(CERTS, "ca.crt"), "--kube-token-file", TOKEN_FILE]
    for watch in ("false", "true"):
        s = Server(*flags, "--watch-nodes=" + watch)
        try:
            if watch == "true":
                assert wait_for(lambda: s.metric("miw_node_cache_nodes") == 2, 10)
                assert preferred_nodes(s) == ["ip-10-0-2-9", "ip-10-0-3-1"], "placement names the label values"
            before = len(api.requests)
            r = review_of(s.post("/validate?timeout=10s", pinned_by_hostname("ip-10-0-2-9"))[1])
            assert r["allowed"] is False and r["auditAnnotations"]["rule"] == "node-floor", r
            assert 'kubernetes.io/hostname=\"ip-10-0-2-9\"' in r["status"]["message"], r["status"]["message"]
            assert review_of(s.post("/validate?timeout=10s", pinned_by_hostname("ip-10-0-3-1"))[1])["allowed"] is True
            r = review_of(s.post("/validate?timeout=10s", pinned_by_hostname("ip-10-0-3-1.ec2.internal"))[1])
            assert r["auditAnnotations"]["rule"] == "node-not-found", "a Node's name is not its label"
            asked = api.requests[before:]
            if watch == "false":
                assert "/api/v1/nodes?limit=2&labelSelector=kubernetes.io%2Fhostname%3Dip-10-0-2-9" in asked, asked
            else:
                assert not any("labelSelector=kubernetes.io%2Fhostname%3Dip-10-0-2-9" in p for p in asked), "the watch's index answers"
            assert review_of(s.post("/validate?timeout=10s", pinned_pod("ip-10-0-3-1.ec2.internal"))[1])["allowed"] is True, \
                "nodeName is the Node's name"
        finally:
            s.stop()
    api.stop()


def naming_artifact(name, namespace="ml"):
    """An opted-in Deployment that names its model by a ModelArtifact."""
    body = json.loads(example("deployment-vllm"))
    req = body["request"]
    req["namespace"] = namespace
    meta = req["object"]["metadata"]
    meta["namespace"] = namespace
    meta.setdefault("labels", {})["gpustack.ai/model-delivery"] = "image"
    annotations = meta.setdefault("annotations", {})
    annotations.pop("gpustack.ai/model-image", None)
    annotations["gpustack.ai/model-artifact"] = name
    return json.dumps(body).encode()


def delivered_reference(answer):
    """The image reference the mutating answer's patch mounts, or None."""
    r = review_of(answer)
    if "patch" not in r:
        return None
    for op in json.loads(base64.b64decode(r["patch"])):
        value = op.get("value")
        if isinstance(value, dict) and value.get("name") == "gpustack-model" and "image" in value:
            return value["image"]["reference"]
    return None


@test
def workloads_that_name_a_model_artifact_are_resolved_from_the_watch():
    ref = json.loads(example("pod-already-rendered"))["request"]["object"]["metadata"]["annotations"]["gpustack.ai/model-image"]
    api = FakeApiserver(os.path.join(CERTS, "tls.crt"), os.path.join(CERTS, "tls.key"), "test-token")
    api.artifacts = {("ml", "qwen"): {"image": {"reference": ref}}, ("ml", "hub"): {"huggingFace": {"repo": "Qwen/Qwen2.5-7B-Instruct"}}}
    api.list_status = 503  # until the first list: fail closed, saying why
    s = Server("--kube-api-url", api.url, "--kube-ca-file", os.path.join(CERTS, "ca.crt"), "--kube-token-file", TOKEN_FILE)
    try:
        assert wait_for(lambda: s.metric("miw_artifact_watch_failures_total") >= 1)
        r = review_of(s.post("/mutate?timeout=10s", naming_artifact("qwen"))[1])
        assert r["allowed"] is False and r["auditAnnotations"]["rule"] == "artifact-unavailable" and "not been listed yet" in r["status"]["message"], r
        api.list_status = 200
        assert wait_for(lambda: s.metric("miw_artifact_cache_artifacts") == 2, 10), "the first list"
        assert wait_for(lambda: api.open_artifact_watches() == 1)
        assert delivered_reference(s.post("/mutate?timeout=10s", naming_artifact("qwen"))[1]) == ref
        r = review_of(s.post("/mutate?timeout=10s", naming_artifact("hub"))[1])
        assert r["auditAnnotations"]["rule"] == "artifact-not-image", r
        r = review_of(s.post("/mutate?timeout=10s", naming_artifact("llama"))[1])
        assert r["auditAnnotations"]["rule"] == "artifact-not-found" and "a moment ago" in r["status"]["message"], r
        api.push_artifact("ADDED", "ml", "llama", {"image": {"reference": ref.replace("qwen", "llama")}})
        assert wait_for(lambda: delivered_reference(s.post("/mutate?timeout=10s", naming_artifact("llama"))[1]) == ref.replace("qwen", "llama"))
        api.push_artifact("DELETED", "ml", "qwen")
        # Until the watch delivers the deletion, the review is allowed and carries no audit annotations.
        assert wait_for(lambda: review_of(s.post("/mutate", naming_artifact("qwen"))[1]).get("auditAnnotations", {}).get("rule") == "artifact-not-found")
        assert s.metric("miw_artifact_cache_artifacts") == 2
    finally:
        s.stop()
        api.stop()


@test
def a_hanging_node_list_does_not_hold_up_shutdown():
    api = FakeApiserver(os.path.join(CERTS, "tls.crt"), os.path.join(CERTS, "tls.key"), "test-token")
    api.list_delay = 60
    s = Server("--kube-api-url", api.url, "--kube-ca-file", os.path.join(CERTS, "ca.crt"), "--kube-token-file", TOKEN_FILE)
    try:
        assert wait_for(lambda: any(p.startswith("/api/v1/nodes?") for p in api.requests))
        start = time.time()
        s.proc.send_signal(signal.SIGTERM)
        assert s.proc.wait(10) == 0
        took = time.time() - start
        assert took < 2.0, "exit took %.1f s with a list in flight" % took
    finally:
        s.stop()
        api.stop()


@test
def placement_can_be_turned_off_and_the_watch_too():
    ref = json.loads(example("pod-already-rendered"))["request"]["object"]["metadata"]["annotations"]["gpustack.ai/model-image"]
    api = FakeApiserver(os.path.join(CERTS, "tls.crt"), os.path.join(CERTS, "tls.key"), "test-token")
    api.nodes = {"gpu-a": ("v1.35.1", "containerd://2.1.3", [ref])}
    flags = ["--kube-api-url", api.url, "--kube-ca-file", os.path.join(CERTS, "ca.crt"), "--kube-token-file", TOKEN_FILE]
    s = Server(*flags, "--prefer-nodes-with-image=false")
    try:
        assert wait_for(lambda: s.metric("miw_node_cache_nodes") == 1)
        assert preferred_nodes(s) == []
    finally:
        s.stop()
    start = len(api.requests)
    s = Server(*flags, "--watch-nodes=false")
    try:
        time.sleep(0.5)
        assert not any(p.startswith("/api/v1/nodes?") for p in api.requests[start:]), "no list, no watch"
        assert preferred_nodes(s) == [], "without the watch no Node is known for placement"
        assert review_of(s.post("/validate?timeout=10s", pinned_pod("gpu-a"))[1])["allowed"] is True, "the node check still asks the API"
    finally:
        s.stop()
        api.stop()


@test
def metrics_count_what_was_sent():
    s = Server()
    try:
        for _ in range(3):
            s.post("/validate", example("artifact-pinned-create"))
        for _ in range(2):
            s.post("/validate", example("artifact-tag-only"))
        s.post("/mutate", example("deployment-vllm"))
        s.post("/validate", b"garbage")
        assert s.metric('miw_admission_requests_total{endpoint="validate",kind="ModelArtifact",operation="CREATE",verdict="allowed"}') == 3
        assert s.metric('miw_admission_requests_total{endpoint="validate",kind="ModelArtifact",operation="CREATE",verdict="denied"}') == 2
        assert s.metric('miw_admission_requests_total{endpoint="mutate",kind="Deployment",operation="CREATE",verdict="allowed"}') == 1
        assert s.metric('miw_admission_requests_total{endpoint="validate",kind="",operation="",verdict="unreadable"}') == 1
        assert s.metric('miw_admission_request_duration_seconds_count{endpoint="validate"}') == 6
        assert s.metric("miw_certificate_not_after_timestamp_seconds") > time.time() + 300 * 86400
        status, text = s.get("/metrics", plain=True)
        assert status == 200 and "# TYPE miw_admission_requests_total counter" in text
        assert s.get("/metrics")[0] == 200, "also on the TLS port"
        conn = http.client.HTTPConnection("127.0.0.1", s.metrics_port, timeout=5)
        conn.request("POST", "/validate", body=example("artifact-pinned-create"), headers={"Content-Type": "application/json"})
        assert conn.getresponse().status == 404, "no admission over plain HTTP"
    finally:
        s.stop()


@test
def enforcement_modes_by_path_and_flag():
    s = Server()
    try:
        tag_only = example("artifact-tag-only")
        denied = review_of(s.post("/validate?timeout=10s", tag_only)[1])
        warned = review_of(s.post("/warn/validate?timeout=10s", tag_only)[1])
        audited = review_of(s.post("/audit/validate?timeout=10s", tag_only)[1])
        assert denied["allowed"] is False and denied["status"]["code"] == 422
        assert denied["auditAnnotations"] == {"rule": "digest-required"}
        assert warned["allowed"] is True and "status" not in warned and "patch" not in warned
        assert warned["auditAnnotations"] == {"rule": "digest-required", "enforcement": "warn"}
        assert len(warned["warnings"]) == 1 and warned["warnings"][0].startswith("would be denied: spec.source.image.reference: Invalid value:")
        assert len(warned["warnings"][0]) <= 256 and warned["warnings"][0].endswith("..."), "a long finding is cut, not dropped"
        assert audited == {"uid": denied["uid"], "allowed": True, "auditAnnotations": {"rule": "digest-required", "enforcement": "audit"}}, audited

        # A mutation that would be denied is admitted unchanged.
        two_sources = example("pod-two-weight-sources")
        assert review_of(s.post("/mutate", two_sources)[1])["status"]["code"] == 403
        r = review_of(s.post("/warn/mutate", two_sources)[1])
        assert r["allowed"] is True and "patch" not in r and "patchType" not in r
        assert r["warnings"] and r["warnings"][-1].startswith("would be denied: container \"vllm\"")
        # The webhook's own failures are never softened.
        for path in ("/warn/validate", "/audit/validate"):
            r = review_of(s.post(path, example("malformed-operation"))[1])
            assert r["allowed"] is False and r["status"]["code"] == 400, r
            assert s.post(path, b"garbage")[0].status == 400
        assert s.post("/warn/validate", tag_only, content_type="text/plain")[0].status == 415

        metric = 'miw_admission_requests_total{endpoint="validate",kind="ModelArtifact",operation="CREATE",verdict="%s"}'
        assert s.metric(metric % "denied") == 1 and s.metric(metric % "would-deny") == 2
        assert s.metric('miw_admission_rule_findings_total{rule="digest-required",verdict="denied"}') == 1
        assert s.metric('miw_admission_rule_findings_total{rule="digest-required",verdict="would-deny"}') == 2
        assert s.metric('miw_admission_rule_findings_total{rule="two-weight-sources",verdict="would-deny"}') == 1
        assert s.metric('miw_admission_rule_findings_total{rule="malformed-request"') == 0, "a malformed request is not a finding"
        assert wait_for(lambda: '"verdict":"would-deny"' in s.output() and '"enforcement":"audit"' in s.output()), "the log says which mode admitted what"
    finally:
        s.stop()
    # The flag sets the mode of /validate and /mutate; the mode paths still force theirs.
    s = Server(env=dict(os.environ, MIW_ENFORCEMENT="warn"))
    try:
        r = review_of(s.post("/validate", example("artifact-tag-only"))[1])
        assert r["allowed"] is True and r["auditAnnotations"]["enforcement"] == "warn"
        r = review_of(s.post("/audit/validate", example("artifact-tag-only"))[1])
        assert r["allowed"] is True and r["auditAnnotations"]["enforcement"] == "audit" and "warnings" not in r
    finally:
        s.stop()
    s = Server("--enforcement", "deny")
    try:
        assert review_of(s.post("/validate", example("artifact-tag-only"))[1])["allowed"] is False
    finally:
        s.stop()


@test
def logs_name_requests_and_never_env_values():
    s = Server()
    try:
        body = json.loads(example("pod-vllm-download-era"))
        body["request"]["object"]["spec"]["containers"][0]["env"].append({"name": "HF_TOKEN", "value": "hf_SECRET_VALUE_123"})
        s.post("/mutate", json.dumps(body).encode())
        s.post("/validate", example("artifact-tag-only"))
    finally:
        s.stop()
    with open(s.log.name) as f:
        log = f.read()
    assert "hf_SECRET_VALUE_123" not in log
    lines = [json.loads(l) for l in log.splitlines() if '"msg":"admission"' in l]
    assert len(lines) == 2, log
    assert lines[0]["kind"] == "Pod" and lines[0]["verdict"] == "allowed" and lines[0]["patched"] is True
    assert lines[1]["rule"] == "digest-required" and lines[1]["name"] == "qwen2-5-7b"
    for line in lines:
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", line["time"]), line
        assert isinstance(line["latencyMs"], float) and 0 <= line["latencyMs"] < 10000, line


@test
def garbage_and_http2_do_not_stop_the_server():
    s = Server()
    try:
        for payload in [b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", b"\x16\x03\x01\x00\x05hello", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", os.urandom(4096)]:
            raw = socket.create_connection(("127.0.0.1", s.port), timeout=5)
            raw.sendall(payload)
            try:
                raw.recv(1024)
            except OSError:
                pass
            raw.close()
        tls = s.context().wrap_socket(socket.create_connection(("127.0.0.1", s.port), timeout=5), server_hostname="127.0.0.1")
        tls.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
        reply = tls.recv(4096)
        assert reply == b"" or reply.startswith(b"HTTP/1.1 400"), reply[:100]
        tls.close()
        ctx = s.context()
        ctx.set_alpn_protocols(["h2"])
        tls = ctx.wrap_socket(socket.create_connection(("127.0.0.1", s.port), timeout=5), server_hostname="127.0.0.1")
        assert tls.selected_alpn_protocol() is None, "h2 must not be agreed"
        tls.close()
        assert s.get("/healthz") == (200, "ok\n")
        assert s.metric("miw_tls_handshake_failures_total") >= 3
    finally:
        s.stop()


@test
def sigterm_answers_every_request_in_flight():
    api = FakeApiserver(os.path.join(CERTS, "tls.crt"), os.path.join(CERTS, "tls.key"), "test-token")
    api.nodes = {"gpu-new": ("v1.35.1", "containerd://2.1.3")}
    api.node_delay = 1.0
    s = Server("--kube-api-url", api.url, "--kube-ca-file", os.path.join(CERTS, "ca.crt"), "--kube-token-file", TOKEN_FILE,
               "--node-cache-ttl", "0ms", "--node-lookup-timeout", "5s", "--watch-nodes=false")  # every lookup a slow GET
    results = []

    def one():
        try:
            resp, data = s.post("/validate?timeout=10s", pinned_pod("gpu-new"))
            results.append((resp.status, review_of(data)["allowed"], resp.getheader("Connection")))
        except Exception as e:  # noqa: BLE001 - recorded and asserted below
            results.append(("error", repr(e), None))

    try:
        threads = [threading.Thread(target=one) for _ in range(8)]
        for t in threads:
            t.start()
        time.sleep(0.3)
        s.proc.send_signal(signal.SIGTERM)
        time.sleep(0.05)
        status, _ = s.get("/readyz")
        assert status == 503, "readyz must fail at once"
        for t in threads:
            t.join(10)
        assert len(results) == 8 and all(r[0] == 200 and r[1] is True for r in results), results
        assert all(r[2] == "close" for r in results), "answers during the drain close their connection"
        assert s.proc.wait(10) == 0
    finally:
        s.stop()
        api.stop()


@test
def rsa_certificates_are_served():
    rsa = os.path.join(WORK, "rsa")
    os.makedirs(rsa, exist_ok=True)
    shutil.copy(os.path.join(CERTS, "ca.crt"), rsa)
    ext = os.path.join(rsa, "ext")
    with open(ext, "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n")
    subprocess.run(["openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", os.path.join(rsa, "tls.key"), "-subj", "/CN=localhost",
                    "-out", os.path.join(rsa, "tls.csr")], check=True, capture_output=True)
    subprocess.run(["openssl", "x509", "-req", "-in", os.path.join(rsa, "tls.csr"), "-CA", os.path.join(CERTS, "ca.crt"), "-CAkey",
                    os.path.join(CERTS, "ca.key"), "-CAcreateserial", "-CAserial", os.path.join(rsa, "ca.srl"), "-days", "30", "-extfile", ext,
                    "-out", os.path.join(rsa, "tls.crt")], check=True, capture_output=True)
    s = Server(certs=rsa)
    try:
        assert review_of(s.post("/validate", example("artifact-pinned-create"))[1])["allowed"] is True
        ctx = s.context()
        ctx.maximum_version = ssl.TLSVersion.TLSv1_2
        tls = ctx.wrap_socket(socket.create_connection(("127.0.0.1", s.port)), server_hostname="127.0.0.1")
        cipher = tls.cipher()[0]
        assert tls.version() == "TLSv1.2" and cipher.startswith("ECDHE-") and ("GCM" in cipher or "CHACHA20" in cipher), tls.cipher()
        tls.close()
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        ctx.minimum_version = ssl.TLSVersion.TLSv1
        ctx.maximum_version = ssl.TLSVersion.TLSv1_1
        ctx.set_ciphers("ALL:@SECLEVEL=0")
        try:
            ctx.wrap_socket(socket.create_connection(("127.0.0.1", s.port)), server_hostname="127.0.0.1")
            raise AssertionError("TLS 1.1 was accepted")
        except (ssl.SSLError, ConnectionResetError):
            pass
    finally:
        s.stop()


@test
def slow_and_idle_clients_are_cut_off_while_others_are_served():
    s = Server("--read-timeout", "500ms", "--idle-timeout", "500ms", "--handshake-timeout", "500ms")
    try:
        silent = socket.create_connection(("127.0.0.1", s.port))  # never speaks TLS
        slow = s.context().wrap_socket(socket.create_connection(("127.0.0.1", s.port)), server_hostname="127.0.0.1")
        slow.sendall(b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: appl")  # and stalls
        idle = s.connection()
        idle.request("GET", "/healthz")
        idle.getresponse().read()
        start = time.time()
        for _ in range(10):
            assert review_of(s.post("/validate", example("artifact-pinned-create"))[1])["allowed"] is True
        assert time.time() - start < 2
        time.sleep(1.0)
        silent.settimeout(2)
        assert silent.recv(1) == b"", "a client that never handshakes is closed"
        slow.settimeout(2)
        assert slow.recv(1) == b"", "a client that stalls mid-request is closed"
        try:
            idle.request("GET", "/healthz")
            idle.getresponse()
            raise AssertionError("an idle connection outlived --idle-timeout")
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError, ssl.SSLError):
            pass
    finally:
        s.stop()


@test
def connections_past_the_cap_are_closed():
    s = Server("--max-connections", "3", metrics=True)
    try:
        # Three connections that have each been served and are kept alive: a fourth is closed.
        held = [s.context().wrap_socket(socket.create_connection(("127.0.0.1", s.port)), server_hostname="127.0.0.1") for _ in range(3)]
        for h in held:
            h.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            assert b"200 OK" in h.recv(1000)
        try:
            extra = s.context().wrap_socket(socket.create_connection(("127.0.0.1", s.port), timeout=2), server_hostname="127.0.0.1")
            extra.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            assert extra.recv(100) == b"", "a connection past the cap was served"
        except (ssl.SSLError, ConnectionResetError, BrokenPipeError, OSError):
            pass
        assert s.metric("miw_connections_rejected_total") >= 1
        for h in held:
            h.close()
        assert wait_for(lambda: s.metric("miw_connections_open") <= 1)
        assert s.get("/healthz")[0] == 200, "served again once connections close"
        # Three that connected and never asked anything: the oldest makes room for a new client.
        waiting = [socket.create_connection(("127.0.0.1", s.port)) for _ in range(3)]
        time.sleep(0.2)
        resp = s.get("/healthz")
        assert resp[0] == 200, "a client past the cap is served when the oldest waiting connection makes room"
        waiting[0].settimeout(2)
        assert waiting[0].recv(1) == b"", "the oldest waiting connection was closed to make room"
        assert s.metric("miw_connections_evicted_total") >= 1
        for w in waiting:
            w.close()
    finally:
        s.stop()


@test
def start_up_errors_are_clear():
    for args, says in [
        (["--tls-cert", "/nonexistent.crt", "--tls-key", "/nonexistent.key", "--kube-version", "v1.35.0"], "cannot read /nonexistent.crt"),
        (["--tls-cert", os.path.join(CERTS, "tls.crt"), "--tls-key", os.path.join(CERTS, "client.key"), "--kube-version", "v1.35.0"], "does not match"),
        (["--tls-cert", os.path.join(CERTS, "tls.crt"), "--tls-key", os.path.join(CERTS, "tls.key")], "--kube-version auto"),
        (["--tls-cert", os.path.join(CERTS, "tls.crt"), "--tls-key", os.path.join(CERTS, "tls.key"), "--kube-version", "banana"], "cannot be read"),
        (["--tls-cert", os.path.join(CERTS, "tls.crt"), "--tls-key", os.path.join(CERTS, "tls.key"), "--kube-version", "v1.35.0", "--read-timeout", "ten"],
         "not a duration"),
        (["--kube-version", "v1.35.0"], "--tls-cert and --tls-key are required"),
        (["--tls-cert", os.path.join(CERTS, "tls.crt"), "--tls-key", os.path.join(CERTS, "tls.key"), "--kube-version", "v1.35.0", "--enforcement", "dryrun"],
         "--enforcement \"dryrun\" is not one of deny, warn, audit"),
    ]:
        env = dict(os.environ)
        env.pop("KUBERNETES_SERVICE_HOST", None)
        run = subprocess.run([BINARY, "serve", "--listen", "127.0.0.1:0"] + args, capture_output=True, text=True, timeout=10, env=env)
        assert run.returncode == 2 and says in run.stderr, (args, run.returncode, run.stderr)


@test
def flags_come_from_the_environment():
    env = dict(os.environ, MIW_TLS_CERT=os.path.join(CERTS, "tls.crt"), MIW_TLS_KEY=os.path.join(CERTS, "tls.key"), MIW_KUBE_VERSION="v1.34.0")
    s = Server(env=env)
    try:
        r = review_of(s.post("/validate", example("artifact-pinned-create"))[1])
        assert r["allowed"] is True, "the command line wins over MIW_KUBE_VERSION"
    finally:
        s.stop()


def run(tests, title):
    harness.run_tests(tests, title, only=ONLY, cleanup=lambda: shutil.rmtree(WORK, ignore_errors=True))


if __name__ == "__main__":
    run(TESTS, "server tests")
