"""--registry-check against real registries: Debian's docker-registry
(distribution 2.8) on loopback ports with TLS from a CA this test makes, one
instance with htpasswd Basic auth and one with token auth whose token
endpoint is this test's; images pushed over the distribution HTTP API. And a
hostile registry written here: huge, slow, redirecting, lying answers.

Usage: registry_test.py BINARY REPO [ONLY]. Exits 77 (skipped) when
docker-registry is not installed (scripts/setup-debian.sh installs it)."""
import base64
import contextlib
import hashlib
import http.server
import json
import os
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import server_test as st  # noqa: E402  (the real server on 127.0.0.1, and its CA)

warnings.filterwarnings("ignore", category=DeprecationWarning)
import crypt  # noqa: E402  (bcrypt for htpasswd; deprecated in 3.11, present in Debian 12's)

BINARY, REPO = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
ONLY = sys.argv[3] if len(sys.argv) > 3 else ""
REGISTRY = shutil.which("docker-registry")
if REGISTRY is None:
    print("docker-registry is not installed (apt-get install docker-registry, or bash scripts/setup-debian.sh): skipped")
    sys.exit(77)

WORK = tempfile.mkdtemp(prefix="miw-registry-test-")
CERTS = os.path.join(WORK, "certs")
subprocess.run(["bash", os.path.join(REPO, "certs", "gen-certs.sh"), "--out", CERTS], check=True, capture_output=True)
CA = os.path.join(CERTS, "ca.crt")
OTHER_CERTS = os.path.join(WORK, "other-ca")
subprocess.run(["bash", os.path.join(REPO, "certs", "gen-certs.sh"), "--out", OTHER_CERTS], check=True, capture_output=True)
USER, PASSWORD = "ci-bot", "s3cret-pull-pass"
ZERO_DIGEST = "sha256:" + "0" * 64


def tls_context():
    ctx = ssl.create_default_context(cafile=CA)
    return ctx


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


# ---------------------------------------------------------------- the token endpoint

SIGNING_KEY = os.path.join(WORK, "signing.key")
SIGNING_CERT = os.path.join(WORK, "signing.crt")
subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", SIGNING_KEY, "-out", SIGNING_CERT, "-days", "2",
                "-subj", "/CN=miw-test-token-issuer"], check=True, capture_output=True)
with open(SIGNING_CERT) as f:
    SIGNING_DER = ssl.PEM_cert_to_DER_cert(f.read())


def sign_token(service, access):
    """A JWT as distribution's token auth takes it: RS256, the signing
    certificate in x5c (trusted through rootcertbundle)."""
    now = int(time.time())
    header = {"typ": "JWT", "alg": "RS256", "x5c": [base64.b64encode(SIGNING_DER).decode()]}
    claims = {"iss": "miw-test-issuer", "sub": USER, "aud": service, "exp": now + 300, "nbf": now - 10, "iat": now,
              "jti": b64url(os.urandom(12)), "access": access}
    signing_input = b64url(json.dumps(header).encode()) + "." + b64url(json.dumps(claims).encode())
    signature = subprocess.run(["openssl", "dgst", "-sha256", "-sign", SIGNING_KEY], input=signing_input.encode(), check=True,
                               capture_output=True).stdout
    return signing_input + "." + b64url(signature)


class TokenHandler(http.server.BaseHTTPRequestHandler):
    """GET /token?service=S&scope=repository:NAME:ACTIONS: pull of public/*
    for anyone (as Docker Hub grants), anything for the test's user."""
    requests = []

    def log_message(self, *args):
        pass

    def do_GET(self):
        query = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query)
        auth = self.headers.get("Authorization", "")
        user_ok = auth == "Basic " + base64.b64encode(("%s:%s" % (USER, PASSWORD)).encode()).decode()
        TokenHandler.requests.append({"auth": auth, "scope": query.get("scope", [""])[0]})
        access = []
        for scope in query.get("scope", []):
            kind, name, actions = scope.split(":")
            granted = actions.split(",") if user_ok else (["pull"] if name.startswith("public/") else [])
            access.append({"type": kind, "name": name, "actions": granted})
        body = json.dumps({"token": sign_token(query.get("service", [""])[0], access), "expires_in": 300}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def serve_https(handler, certs=CERTS):
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(os.path.join(certs, "tls.crt"), os.path.join(certs, "tls.key"))
    httpd.socket = ctx.wrap_socket(httpd.socket, server_side=True)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


TOKEN_SERVER = serve_https(TokenHandler)
TOKEN_REALM = "https://127.0.0.1:%d/token" % TOKEN_SERVER.server_address[1]


# ---------------------------------------------------------------- real registries

class Registry:
    """One docker-registry process on a loopback port."""

    def __init__(self, name, auth, tls=True, certs=CERTS, http_extra=(), top_extra=(), env=None):
        """http_extra: more lines under http: (a prefix); top_extra: more top-level sections (proxy:)."""
        self.dir = os.path.join(WORK, name)
        os.makedirs(self.dir)
        self.port = st.free_ports(1)[0]
        self.authority = "127.0.0.1:%d" % self.port
        self.tls = tls
        self.ca = os.path.join(certs, "ca.crt")
        self.prefix = ""
        config = ["version: 0.1", "log:", "  level: warn", "  accesslog:", "    disabled: true", "storage:", "  filesystem:",
                  "    rootdirectory: " + os.path.join(self.dir, "data"), "http:", "  addr: " + self.authority, "  secret: miw-test"]
        if tls:
            config += ["  tls:", "    certificate: " + os.path.join(certs, "tls.crt"), "    key: " + os.path.join(certs, "tls.key")]
        config += list(http_extra)
        config += auth(self)
        config += list(top_extra)
        path = os.path.join(self.dir, "config.yml")
        with open(path, "w") as f:
            f.write("\n".join(config) + "\n")
        self.log = open(os.path.join(self.dir, "registry.log"), "w")
        self.proc = subprocess.Popen([REGISTRY, "serve", path], stdout=self.log, stderr=subprocess.STDOUT, env=env)
        deadline = time.time() + 15
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                if self.proc.poll() is not None:
                    raise AssertionError("docker-registry exited: " + open(self.log.name).read())
                time.sleep(0.05)
        raise AssertionError("docker-registry did not start")

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def htpasswd_auth(registry):
    path = os.path.join(registry.dir, "htpasswd")
    with open(path, "w") as f:
        f.write("%s:%s\n" % (USER, crypt.crypt(PASSWORD, crypt.mksalt(crypt.METHOD_BLOWFISH))))
    return ["auth:", "  htpasswd:", "    realm: miw-test", "    path: " + path]


def no_auth(registry):
    return []


def token_auth(registry):
    return ["auth:", "  token:", "    realm: " + TOKEN_REALM, "    service: miw-test-registry", "    issuer: miw-test-issuer",
            "    rootcertbundle: " + SIGNING_CERT]


class Client:
    """Pushes over the distribution HTTP API, as a CI job's push would."""

    def __init__(self, registry):
        self.registry = registry
        self.tokens = {}

    def request(self, method, path, body=None, headers=None, scope=None):
        import http.client
        headers = dict(headers or {})
        if scope:
            if scope not in self.tokens:
                creds = base64.b64encode(("%s:%s" % (USER, PASSWORD)).encode()).decode()
                conn = http.client.HTTPSConnection("127.0.0.1", TOKEN_SERVER.server_address[1], context=tls_context(), timeout=10)
                conn.request("GET", "/token?service=miw-test-registry&scope=" + scope, headers={"Authorization": "Basic " + creds})
                self.tokens[scope] = json.loads(conn.getresponse().read())["token"]
                conn.close()
            headers["Authorization"] = "Bearer " + self.tokens[scope]
        else:
            headers["Authorization"] = "Basic " + base64.b64encode(("%s:%s" % (USER, PASSWORD)).encode()).decode()
        if self.registry.tls:
            conn = http.client.HTTPSConnection("127.0.0.1", self.registry.port, context=ssl.create_default_context(cafile=self.registry.ca), timeout=10)
        else:
            conn = http.client.HTTPConnection("127.0.0.1", self.registry.port, timeout=10)
        conn.request(method, path, body=body, headers=headers)
        resp = conn.getresponse()
        data = resp.read()
        conn.close()
        return resp, data

    def push_blob(self, name, data, token):
        digest = "sha256:" + hashlib.sha256(data).hexdigest()
        scope = "repository:%s:pull,push" % name if token else None
        resp, _ = self.request("POST", "/v2/%s/blobs/uploads/" % name, scope=scope)
        assert resp.status == 202, resp.status
        location = resp.getheader("Location")
        location = urllib.parse.urlparse(location)
        target = location.path + "?" + (location.query + "&" if location.query else "") + "digest=" + digest
        resp, body = self.request("PUT", target, body=data, headers={"Content-Type": "application/octet-stream"}, scope=scope)
        assert resp.status == 201, (resp.status, body)
        return digest

    def push_manifest(self, name, manifest, media_type, token):
        data = json.dumps(manifest).encode()
        digest = "sha256:" + hashlib.sha256(data).hexdigest()
        scope = "repository:%s:pull,push" % name if token else None
        resp, body = self.request("PUT", "/v2/%s/manifests/%s" % (name, digest), body=data, headers={"Content-Type": media_type}, scope=scope)
        assert resp.status == 201, (resp.status, body)
        return digest, len(data)

    def push_image(self, name, layer_sizes, token=False):
        """An OCI image of weight layers; returns (digest, config + layers bytes)."""
        config = json.dumps({"architecture": "amd64", "os": "linux", "rootfs": {"type": "layers", "diff_ids": []}}).encode()
        config_digest = self.push_blob(name, config, token)
        layers = []
        for i, size in enumerate(layer_sizes):
            data = (b"weights-%d-%s-" % (i, name.encode())) * (size // 16 + 1)
            data = data[:size]
            layers.append({"mediaType": "application/vnd.oci.image.layer.v1.tar", "digest": self.push_blob(name, data, token), "size": len(data)})
        manifest = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
                    "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": config_digest, "size": len(config)},
                    "layers": layers}
        digest, size = self.push_manifest(name, manifest, "application/vnd.oci.image.manifest.v1+json", token)
        return digest, len(config) + sum(l["size"] for l in layers), size

    def push_layout(self, name, config_type, layers, manifest_type="application/vnd.oci.image.manifest.v1+json", artifact_type=None,
                    declared=None):
        """A manifest of any layout, as oras, ModelPack tools or docker push write them: layers is
        [(media type, bytes)]; declared, when given, the sizes the manifest states for them (the
        registry checks the blobs exist, not their size), so that sizes of gigabytes are told
        without pushing them. Returns (digest, manifest bytes)."""
        config = b"{}" if config_type == "application/vnd.oci.empty.v1+json" else json.dumps(
            {"architecture": "amd64", "os": "linux", "rootfs": {"type": "layers", "diff_ids": []}}).encode()
        descriptors = []
        for i, (media_type, data) in enumerate(layers):
            size = declared[i] if declared else len(data)
            descriptors.append({"mediaType": media_type, "digest": self.push_blob(name, data, False), "size": size})
        manifest = {"schemaVersion": 2, "mediaType": manifest_type,
                    "config": {"mediaType": config_type, "digest": self.push_blob(name, config, False), "size": len(config)},
                    "layers": descriptors}
        if artifact_type:
            manifest["artifactType"] = artifact_type
        return self.push_manifest(name, manifest, manifest_type, False)

    def push_index(self, name, entries, token=False):
        """entries: [(platform dict, manifest digest, manifest size)]."""
        index = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json",
                 "manifests": [{"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": d, "size": s, "platform": p}
                               for p, d, s in entries]}
        return self.push_manifest(name, index, "application/vnd.oci.image.index.v1+json", token)[0]


BASIC = Registry("basic", htpasswd_auth)
TOKEN = Registry("token", token_auth)
PLAIN = Registry("plain", no_auth, tls=False)  # an air-gapped mirror without TLS

# The images: on the Basic registry, a model of three layers; on the token
# registry, a public one (anonymous pull, as Docker Hub grants) and a
# private one, and an index of two platforms.
MiB = 1024 * 1024
BASIC_IMAGE, BASIC_BYTES, _ = Client(BASIC).push_image("models/qwen", [3 * MiB, 2 * MiB, 1 * MiB])
PUBLIC_IMAGE, PUBLIC_BYTES, PUBLIC_MANIFEST_BYTES = Client(TOKEN).push_image("public/llama", [2 * MiB], token=True)
PRIVATE_IMAGE, PRIVATE_BYTES, _ = Client(TOKEN).push_image("private/mistral", [1 * MiB], token=True)
ARM_IMAGE, ARM_BYTES, ARM_MANIFEST_BYTES = Client(TOKEN).push_image("public/llama", [5 * MiB], token=True)
PLAIN_IMAGE, _, _ = Client(PLAIN).push_image("models/phi", [1 * MiB])
INDEX = Client(TOKEN).push_index("public/llama", [({"os": "linux", "architecture": "amd64"}, PUBLIC_IMAGE, PUBLIC_MANIFEST_BYTES),
                                                  ({"os": "linux", "architecture": "arm64", "variant": "v8"}, ARM_IMAGE, ARM_MANIFEST_BYTES)],
                                 token=True)


# What is pushed as weights in practice, on the Basic registry: an oras artifact, a CNCF
# ModelPack, a Docker schema 2 image and an OCI image with zstd layers (sizes declared as the
# product page's model), and an index whose linux/amd64 entry is an artifact.
LAYOUTS = Client(BASIC)
ORAS_ARTIFACT, _ = LAYOUTS.push_layout("models/oras", "application/vnd.oci.empty.v1+json",
                                       [("application/octet-stream", b"safetensors-weights")], artifact_type="application/vnd.gpustack.model.v1")
MODELPACK, _ = LAYOUTS.push_layout("models/modelpack", "application/vnd.cncf.model.config.v1+json",
                                   [("application/vnd.cncf.model.weight.v1.raw", b"model-00001-of-00002"),
                                    ("application/vnd.cncf.model.weight.v1.raw", b"model-00002-of-00002")],
                                   artifact_type="application/vnd.cncf.model.manifest.v1+json")
DOCKER_IMAGE, _ = LAYOUTS.push_layout("models/docker", "application/vnd.docker.container.image.v1+json",
                                      [("application/vnd.docker.image.rootfs.diff.tar.gzip", b"gzip-layer-%d" % i) for i in range(12)],
                                      manifest_type="application/vnd.docker.distribution.manifest.v2+json",
                                      declared=[12_070_000_000 // 12] * 12)
ZSTD_IMAGE, ZSTD_MANIFEST_BYTES = LAYOUTS.push_layout("models/zstd", "application/vnd.oci.image.config.v1+json",
                                                      [("application/vnd.oci.image.layer.v1.tar+zstd", b"zstd-layer"),
                                                       ("application/vnd.oci.image.layer.v1.tar", b"tar-layer")],
                                                      declared=[4 << 30, 1 << 30])
ARTIFACT_IN_INDEX, ARTIFACT_IN_INDEX_BYTES = LAYOUTS.push_layout("models/zstd", "application/vnd.cncf.model.config.v1+json",
                                                                 [("application/vnd.cncf.model.weight.v1.raw", b"arm-weights")])
MIXED_INDEX = LAYOUTS.push_index("models/zstd", [({"os": "linux", "architecture": "amd64"}, ARTIFACT_IN_INDEX, ARTIFACT_IN_INDEX_BYTES),
                                                  ({"os": "linux", "architecture": "arm64"}, ZSTD_IMAGE, ZSTD_MANIFEST_BYTES)])


def ref(registry, name, digest):
    return "%s/%s@%s" % (registry.authority, name, digest)


AUTH_FILE = os.path.join(WORK, "dockerconfig.json")
with open(AUTH_FILE, "w") as f:
    json.dump({"auths": {BASIC.authority: {"auth": base64.b64encode(("%s:%s" % (USER, PASSWORD)).encode()).decode()},
                         TOKEN.authority: {"username": USER, "password": PASSWORD}}}, f)


# ---------------------------------------------------------------- a hostile registry

class HostileHandler(http.server.BaseHTTPRequestHandler):
    """/v2/<behaviour>/manifests/<digest>: huge, slow, redirect, forged,
    down (503), limited (429)."""
    protocol_version = "HTTP/1.1"
    hits = {}

    def log_message(self, *args):
        pass

    def answer(self, status, body=b"", headers=()):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        parts = self.path.split("/")
        behaviour = parts[2] if len(parts) > 2 else ""
        HostileHandler.hits[behaviour] = HostileHandler.hits.get(behaviour, 0) + 1
        manifest_type = ("Content-Type", "application/vnd.oci.image.manifest.v1+json")
        if behaviour == "huge":
            if self.command == "HEAD":
                return self.answer(200, b"", [manifest_type])
            # Far past the 4 MiB cap, as a registry that streams garbage would.
            self.send_response(200)
            self.send_header("Content-Type", "application/vnd.oci.image.manifest.v1+json")
            self.send_header("Content-Length", str(64 * MiB))
            self.end_headers()
            try:
                chunk = b" " * 65536
                for _ in range(64 * MiB // 65536):
                    self.wfile.write(chunk)
            except OSError:
                pass
            return
        if behaviour == "endless":
            if self.command == "HEAD":
                return self.answer(200, b"", [manifest_type])
            # No length said: chunks until the reader stops reading.
            self.send_response(200)
            self.send_header("Content-Type", "application/vnd.oci.image.manifest.v1+json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            try:
                chunk = b"%x\r\n%s\r\n" % (65536, b" " * 65536)
                for _ in range(64 * MiB // 65536):
                    self.wfile.write(chunk)
            except OSError:
                pass
            self.close_connection = True
            return
        if behaviour == "slow":
            time.sleep(8)
            return self.answer(200, b"{}", [manifest_type])
        if behaviour == "redirect":
            # As an object store's presigned URL: its query carries a signature.
            return self.answer(307, b"", [("Location", "https://attacker.example/v2/x/manifests/" + parts[-1] +
                                           "?X-Amz-Credential=AKIAEXAMPLE&X-Amz-Signature=" + "5" * 64)])
        if behaviour == "forged":
            body = json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
                               "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": ZERO_DIGEST, "size": 2},
                               "layers": []}).encode()
            return self.answer(200, body, [manifest_type])
        if behaviour == "lagging":
            # A real manifest, later than a hurried review waits.
            time.sleep(1.5)
            return self.answer(200, LAGGING_MANIFEST, [manifest_type])
        if behaviour == "counted":
            # A real manifest, slow enough that reviews asking at once overlap.
            time.sleep(0.5)
            return self.answer(200, COUNTED_MANIFEST, [manifest_type, ("Docker-Content-Digest", COUNTED_DIGEST)])
        if behaviour == "hiding":
            # As Artifactory's "hide existence": a credential without access is told 404, not 403.
            sent = self.headers.get("Authorization", "")
            if not sent:
                return self.answer(401, b'{"errors":[{"code":"UNAUTHORIZED"}]}', [("WWW-Authenticate", 'Basic realm="hiding"')])
            if sent == "Basic " + base64.b64encode(("%s:%s" % (USER, PASSWORD)).encode()).decode():
                return self.answer(200, LAGGING_MANIFEST, [manifest_type])
            return self.answer(404, b'{"errors":[{"code":"MANIFEST_UNKNOWN"}]}')
        if behaviour == "down":
            return self.answer(503, b"maintenance")
        if behaviour == "limited":
            return self.answer(429, b'{"errors":[{"code":"TOOMANYREQUESTS"}]}', [("Retry-After", "60")])
        return self.answer(404, b'{"errors":[{"code":"NAME_UNKNOWN"}]}')


COUNTED_MANIFEST = json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
                               "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": ZERO_DIGEST, "size": 1024},
                               "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar+zstd", "digest": ZERO_DIGEST,
                                           "size": 7 * 1024 * MiB}]}).encode()
COUNTED_DIGEST = "sha256:" + hashlib.sha256(COUNTED_MANIFEST).hexdigest()
LAGGING_MANIFEST = COUNTED_MANIFEST.replace(b"tar+zstd", b"tar+gzip")
LAGGING_DIGEST = "sha256:" + hashlib.sha256(LAGGING_MANIFEST).hexdigest()
HOSTILE = serve_https(HostileHandler)
HOSTILE_AUTHORITY = "127.0.0.1:%d" % HOSTILE.server_address[1]
OTHER_CA_REGISTRY = serve_https(HostileHandler, certs=OTHER_CERTS)


# ---------------------------------------------------------------- the webhook, offline

def artifact_review(reference, uid="u-1"):
    obj = {"apiVersion": "worker.gpustack.ai/v1alpha1", "kind": "ModelArtifact", "metadata": {"name": "qwen", "namespace": "ml"},
           "spec": {"source": {"image": {"reference": reference}}}}
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
            "request": {"uid": uid, "kind": {"group": "worker.gpustack.ai", "version": "v1alpha1", "kind": "ModelArtifact"},
                        "resource": {"group": "worker.gpustack.ai", "version": "v1alpha1", "resource": "modelartifacts"},
                        "name": "qwen", "namespace": "ml", "operation": "CREATE", "userInfo": {"username": "alice"}, "object": obj}}


def pod_review(reference, uid="u-2"):
    obj = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "qwen-0", "namespace": "ml", "labels": {"gpustack.ai/model-delivery": "image"},
                        "annotations": {"gpustack.ai/model-image": reference}},
           "spec": {"containers": [{"name": "vllm", "image": "vllm/vllm-openai:v0.11.0", "args": ["--model", "Qwen/Qwen3-8B"]}]}}
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
            "request": {"uid": uid, "kind": {"group": "", "version": "v1", "kind": "Pod"},
                        "resource": {"group": "", "version": "v1", "resource": "pods"},
                        "namespace": "ml", "operation": "CREATE", "userInfo": {"username": "alice"}, "object": obj}}


def review(document, *flags, endpoint="validate", mode="deny", timeout=30):
    """Runs `review`; (exit code, response, stderr)."""
    args = [BINARY, "review", "--endpoint", endpoint, "--registry-check", mode, "--registry-ca", CA, *flags, "-"]
    started = time.time()
    done = subprocess.run(args, input=json.dumps(document).encode(), capture_output=True, timeout=timeout)
    response = json.loads(done.stdout)["response"] if done.stdout.strip() else None
    if response is not None:
        response["_seconds"] = time.time() - started
    return done.returncode, response, done.stderr.decode()


def warnings_of(response):
    return "\n".join(response.get("warnings", []))


TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


# ---------------------------------------------------------------- tests

@test
def a_pushed_digest_is_found_and_its_size_told():
    code, r, err = review(artifact_review(ref(BASIC, "models/qwen", BASIC_IMAGE)), "--registry-auth", AUTH_FILE)
    assert code == 0 and r["allowed"], (code, r, err)
    text = warnings_of(r)
    assert "the model image is 6.0 MiB compressed; about 12.0 MiB on the node's disk once pulled and unpacked (tar layers x2)" in text, text
    assert BASIC_BYTES == 6 * MiB + len(json.dumps({"architecture": "amd64", "os": "linux", "rootfs": {"type": "layers", "diff_ids": []}}))


@test
def an_unknown_digest_is_refused_under_deny_with_the_reason():
    reference = ref(BASIC, "models/qwen", ZERO_DIGEST)
    code, r, err = review(artifact_review(reference), "--registry-auth", AUTH_FILE)
    assert code == 1 and not r["allowed"], (code, r, err)
    assert r["status"]["code"] == 422, r
    message = r["status"]["message"]
    assert "registry has no manifest for this digest" in message and "answered 404 MANIFEST_UNKNOWN to GET /v2/models/qwen/manifests/" in message, message
    assert "check the digest" in message, message
    causes = r["status"]["details"]["causes"]
    assert causes[0]["field"] == "spec.source.image.reference", causes


@test
def a_digest_from_another_repository_is_unknown_there():
    # The digest exists, in models/qwen; a copy-paste into another repository is caught.
    code, r, _ = review(artifact_review(ref(BASIC, "models/other", BASIC_IMAGE)), "--registry-auth", AUTH_FILE)
    assert code == 1 and not r["allowed"], r
    assert "registry has no manifest for this digest" in r["status"]["message"], r


@test
def warn_admits_an_unknown_digest_and_says_what_deny_would_do():
    code, r, _ = review(artifact_review(ref(BASIC, "models/qwen", ZERO_DIGEST)), "--registry-auth", AUTH_FILE, mode="warn")
    assert code == 0 and r["allowed"], r
    assert "--registry-check deny would refuse this (registry-manifest-unknown)" in warnings_of(r), r


@test
def off_never_asks_the_registry():
    code, r, _ = review(artifact_review(ref(BASIC, "models/qwen", ZERO_DIGEST)), mode="off")
    assert code == 0 and r["allowed"] and "warnings" not in r, r


@test
def without_credentials_a_private_registry_admits_with_a_warning():
    code, r, _ = review(artifact_review(ref(BASIC, "models/qwen", ZERO_DIGEST)))
    assert code == 0 and r["allowed"], r
    text = warnings_of(r)
    assert "could not be asked whether the digest exists (unauthorized" in text and "admitted unchecked" in text, text
    assert PASSWORD not in json.dumps(r)


@test
def the_bearer_flow_gives_anonymous_pull_of_public_images():
    TokenHandler.requests.clear()
    code, r, _ = review(artifact_review(ref(TOKEN, "public/llama", PUBLIC_IMAGE)))
    assert code == 0 and r["allowed"], r
    assert "the model image is 2.0 MiB compressed" in warnings_of(r), r
    assert TokenHandler.requests and TokenHandler.requests[0]["auth"] == "", TokenHandler.requests
    assert TokenHandler.requests[0]["scope"] == "repository:public/llama:pull", TokenHandler.requests


@test
def the_bearer_flow_sends_the_auth_files_credentials_to_the_realm():
    TokenHandler.requests.clear()
    code, r, _ = review(artifact_review(ref(TOKEN, "private/mistral", ZERO_DIGEST)), "--registry-auth", AUTH_FILE)
    assert code == 1 and not r["allowed"], r
    assert TokenHandler.requests and TokenHandler.requests[0]["auth"].startswith("Basic "), TokenHandler.requests
    code, r, _ = review(artifact_review(ref(TOKEN, "private/mistral", PRIVATE_IMAGE)), "--registry-auth", AUTH_FILE)
    assert code == 0 and r["allowed"] and "1.0 MiB compressed" in warnings_of(r), r
    # Anonymous, the token grants nothing on a private repository: admitted, unchecked.
    code, r, _ = review(artifact_review(ref(TOKEN, "private/mistral", ZERO_DIGEST)))
    assert code == 0 and r["allowed"] and "(unauthorized" in warnings_of(r), r


@test
def an_index_is_sized_by_the_platform_asked_for():
    code, r, _ = review(artifact_review(ref(TOKEN, "public/llama", INDEX)))
    assert code == 0 and "the model image is 2.0 MiB compressed" in warnings_of(r), r
    code, r, _ = review(artifact_review(ref(TOKEN, "public/llama", INDEX)), "--registry-platform", "linux/arm64/v8")
    assert code == 0 and "the model image is 5.0 MiB compressed" in warnings_of(r), r
    code, r, _ = review(artifact_review(ref(TOKEN, "public/llama", INDEX)), "--registry-platform", "linux/s390x")
    text = warnings_of(r)
    assert code == 0 and r["allowed"] and "the image's size cannot be told (the index has no linux/s390x manifest" in text, r


@test
def an_opted_in_pod_naming_an_unknown_image_is_refused_at_mutation():
    code, r, _ = review(pod_review(ref(TOKEN, "public/llama", ZERO_DIGEST)), endpoint="mutate")
    assert code == 1 and not r["allowed"] and r["status"]["code"] == 403, r
    assert r["status"]["message"].startswith("metadata.annotations[gpustack.ai/model-image]"), r
    code, r, _ = review(pod_review(ref(TOKEN, "public/llama", PUBLIC_IMAGE)), endpoint="mutate")
    assert code == 0 and r["allowed"] and "patch" in r and "2.0 MiB compressed" in warnings_of(r), r


@test
def a_certificate_from_another_ca_admits_unchecked():
    reference = "127.0.0.1:%d/models/qwen@%s" % (OTHER_CA_REGISTRY.server_address[1], ZERO_DIGEST)
    code, r, err = review(artifact_review(reference))
    assert code == 0 and r["allowed"] and "(unreachable: the registry 127.0.0.1:%d could not be reached)" % OTHER_CA_REGISTRY.server_address[1] in warnings_of(r), r
    # The operator reads why, and what to do, in the log.
    assert "was refused" in err and "add its CA with --registry-ca" in err, err


@test
def a_refused_connection_a_timeout_and_a_tls_failure_read_alike_to_a_tenant():
    # The check is no port scanner: what a tenant reads of a port that refuses, one that never answers
    # and one that speaks TLS from another CA is the same but for the host; the log and the metric keep them apart.
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(1)  # accepts, never answers
    refused = st.free_ports(1)[0]
    hosts = {"refused": "127.0.0.1:%d" % refused, "silent": "127.0.0.1:%d" % silent.getsockname()[1],
             "tls": "127.0.0.1:%d" % OTHER_CA_REGISTRY.server_address[1]}
    try:
        s = registry_server("--registry-timeout", "1s")
        try:
            told = {}
            for kind, authority in hosts.items():
                r = post_review(s, artifact_review("%s/models/qwen@%s" % (authority, ZERO_DIGEST), uid="u-" + kind), "/validate?timeout=10s")
                told[kind] = "\n".join(r["warnings"]).replace(authority, "HOST")
            assert told["refused"] == told["silent"] == told["tls"], told
            assert "(unreachable: the registry HOST could not be reached)" in told["refused"], told
            for result in ("unreachable", "timeout", "tls"):
                assert s.metric('miw_registry_lookups_total{result="%s"}' % result) == 1, result
            output = s.output()
        finally:
            s.stop()
        assert "Connection refused" in output or "Couldn't connect" in output, output[-3000:]
        assert "within the time allowed" in output and "was refused" in output, output[-3000:]
    finally:
        silent.close()


@test
def plain_http_is_only_for_registries_named_insecure():
    # The registries serve TLS: a plain HTTP request to one named insecure fails to read, and one not named is never sent in the clear.
    code, r, _ = review(artifact_review(ref(BASIC, "models/qwen", BASIC_IMAGE)), "--registry-auth", AUTH_FILE)
    assert code == 0 and "compressed" in warnings_of(r), r
    code, r, _ = review(artifact_review(ref(BASIC, "models/qwen", BASIC_IMAGE)), "--registry-auth", AUTH_FILE, "--registry-insecure", BASIC.authority)
    assert code == 0 and r["allowed"] and "admitted unchecked" in warnings_of(r), r


@test
def a_plain_http_registry_is_asked_only_when_named_insecure():
    code, r, _ = review(artifact_review(ref(PLAIN, "models/phi", PLAIN_IMAGE)), "--registry-insecure", "other.example," + PLAIN.authority)
    assert code == 0 and "the model image is 1.0 MiB compressed" in warnings_of(r), r
    code, r, _ = review(artifact_review(ref(PLAIN, "models/phi", ZERO_DIGEST)), "--registry-insecure", PLAIN.authority)
    assert code == 1 and "registry has no manifest for this digest" in r["status"]["message"], r
    # Not named: TLS is asked of it, and it has none; nothing is sent in the clear.
    code, r, err = review(artifact_review(ref(PLAIN, "models/phi", ZERO_DIGEST)))
    assert code == 0 and r["allowed"] and "(unreachable: the registry %s could not be reached)" % PLAIN.authority in warnings_of(r), r
    assert "TLS with %s failed" % PLAIN.authority in err, err


@test
def content_that_does_not_hash_to_the_digest_is_refused():
    code, r, _ = review(artifact_review("%s/forged/m@%s" % (HOSTILE_AUTHORITY, ZERO_DIGEST)))
    assert code == 1 and not r["allowed"], r
    assert "hashes to another digest" in r["status"]["message"] and "hashes to sha256:" in r["status"]["message"], r


@test
def a_huge_answer_is_cut_at_the_cap_and_admits_unchecked():
    for behaviour in ("huge", "endless"):
        code, r, _ = review(artifact_review("%s/%s/m@%s" % (HOSTILE_AUTHORITY, behaviour, ZERO_DIGEST)))
        assert code == 0 and r["allowed"] and "(too-large" in warnings_of(r), (behaviour, r)


@test
def a_slow_registry_is_given_up_on_at_the_timeout():
    code, r, err = review(artifact_review("%s/slow/m@%s" % (HOSTILE_AUTHORITY, ZERO_DIGEST)), "--registry-timeout", "1s")
    assert code == 0 and r["allowed"] and "(unreachable: the registry %s could not be reached)" % HOSTILE_AUTHORITY in warnings_of(r), r
    assert "no answer from %s within the time allowed" % HOSTILE_AUTHORITY in err, err
    assert r["_seconds"] < 5, r["_seconds"]


@test
def a_redirect_to_another_host_is_not_followed():
    code, r, _ = review(artifact_review("%s/redirect/m@%s" % (HOSTILE_AUTHORITY, ZERO_DIGEST)))
    assert code == 0 and r["allowed"] and "(redirect" in warnings_of(r), r
    # Where it pointed is told, never the signature in its query.
    assert "https://attacker.example/" in warnings_of(r) and "Signature" not in warnings_of(r) and "AKIA" not in warnings_of(r), r


@test
def outages_and_rate_limits_never_refuse():
    for behaviour, kind in (("down", "server-error"), ("limited", "rate-limited")):
        code, r, _ = review(artifact_review("%s/%s/m@%s" % (HOSTILE_AUTHORITY, behaviour, ZERO_DIGEST)))
        assert code == 0 and r["allowed"] and "(" + kind in warnings_of(r), (behaviour, r)
    port = st.free_ports(1)[0]
    code, r, _ = review(artifact_review("127.0.0.1:%d/gone/m@%s" % (port, ZERO_DIGEST)))
    assert code == 0 and r["allowed"] and "(unreachable" in warnings_of(r), r


@test
def bad_registry_flags_are_usage_errors():
    for flags, says in ((["--registry-check", "strict"], "--registry-check"), (["--registry-platform", "amd64"], "--registry-platform"),
                        (["--registry-timeout", "soon"], "--registry-timeout"), (["--registry-auth", "/nonexistent"], "--registry-auth")):
        args = [BINARY, "review", "--registry-check", "warn", *flags, "-"]
        done = subprocess.run(args, input=json.dumps(artifact_review(ref(BASIC, "models/qwen", BASIC_IMAGE))).encode(), capture_output=True)
        assert done.returncode == 2 and says in done.stderr.decode(), (flags, done.returncode, done.stderr)


@test
def test_mode_fails_ci_on_a_wrong_digest():
    manifests = os.path.join(WORK, "manifests")
    os.makedirs(manifests, exist_ok=True)
    with open(os.path.join(manifests, "artifacts.yaml"), "w") as f:
        f.write("apiVersion: worker.gpustack.ai/v1alpha1\nkind: ModelArtifact\nmetadata:\n  name: qwen\n  namespace: ml\nspec:\n"
                "  source:\n    image:\n      reference: %s\n---\n" % ref(BASIC, "models/qwen", BASIC_IMAGE))
        f.write("apiVersion: worker.gpustack.ai/v1alpha1\nkind: ModelArtifact\nmetadata:\n  name: typo\n  namespace: ml\nspec:\n"
                "  source:\n    image:\n      reference: %s\n" % ref(BASIC, "models/qwen", BASIC_IMAGE[:-4] + "beef"))
    args = [BINARY, "test", "--kube-version", "v1.35.0", "--registry-ca", CA, "--registry-auth", AUTH_FILE, manifests]
    done = subprocess.run(args + ["--registry-check", "deny"], capture_output=True)
    out = done.stdout.decode()
    assert done.returncode == 1, (done.returncode, out, done.stderr)
    assert "registry-manifest-unknown" in out and "typo" in out, out
    done = subprocess.run(args + ["--registry-check", "warn", "-o", "json"], capture_output=True)
    assert done.returncode == 0, (done.returncode, done.stdout, done.stderr)
    assert "would refuse this (registry-manifest-unknown)" in done.stdout.decode()


@test
def artifacts_are_refused_as_images_and_images_of_every_layout_are_sized():
    for name, reference, says in (
            ("oras", ref(BASIC, "models/oras", ORAS_ARTIFACT),
             "(artifactType application/vnd.gpustack.model.v1, config application/vnd.oci.empty.v1+json, layer application/octet-stream)"),
            ("modelpack", ref(BASIC, "models/modelpack", MODELPACK),
             "(artifactType application/vnd.cncf.model.manifest.v1+json, config application/vnd.cncf.model.config.v1+json, "
             "layer application/vnd.cncf.model.weight.v1.raw)"),
            ("an index whose platform entry is an artifact", ref(BASIC, "models/zstd", MIXED_INDEX), "config application/vnd.cncf.model.config.v1+json")):
        code, r, err = review(artifact_review(reference), "--registry-auth", AUTH_FILE)
        assert code == 1 and not r["allowed"], (name, code, r, err)
        assert r["auditAnnotations"]["rule"] == "registry-not-an-image", (name, r)
        message = r["status"]["message"]
        assert "the registry holds an OCI artifact, not an image " in message and says in message, (name, message)
        assert "containerd mounts only images" in message and "FROM scratch image with COPY" in message, message
        code, r, _ = review(artifact_review(reference), "--registry-auth", AUTH_FILE, mode="warn")
        assert code == 0 and r["allowed"], (name, r)
        assert "would refuse this (registry-not-an-image): an OCI artifact (config " in warnings_of(r), (name, r)
    # The index's arm64 entry is an image: judged by the platform asked for.
    code, r, _ = review(artifact_review(ref(BASIC, "models/zstd", MIXED_INDEX)), "--registry-auth", AUTH_FILE, "--registry-platform", "linux/arm64")
    assert code == 0 and r["allowed"], r
    # A Docker schema 2 image of the product page's size: 12.07 GB of gzip layers, about 27.3 GB (25.4 GiB) on disk.
    code, r, _ = review(artifact_review(ref(BASIC, "models/docker", DOCKER_IMAGE)), "--registry-auth", AUTH_FILE)
    assert code == 0 and r["allowed"], r
    assert "the model image is 11.2 GiB compressed; about 25.4 GiB on the node's disk once pulled and unpacked (gzip/zstd layers x2.26)" in warnings_of(r), r
    # zstd and tar layers: 4 GiB x 2.26 + 1 GiB x 2.
    code, r, _ = review(artifact_review(ref(BASIC, "models/zstd", ZSTD_IMAGE)), "--registry-auth", AUTH_FILE)
    assert code == 0 and r["allowed"], r
    assert "the model image is 5.0 GiB compressed; about 11.0 GiB on the node's disk once pulled and unpacked (gzip/zstd layers x2.26, tar layers x2)" \
        in warnings_of(r), r


@test
def an_opted_in_pod_naming_a_modelpack_is_refused_at_mutation_and_test_mode_fails():
    s = registry_server("--registry-auth", AUTH_FILE)
    try:
        r = post_review(s, pod_review(ref(BASIC, "models/modelpack", MODELPACK)), "/mutate")
        assert not r["allowed"] and r["status"]["code"] == 403 and r["auditAnnotations"]["rule"] == "registry-not-an-image", r
        assert r["status"]["message"].startswith('metadata.annotations[gpustack.ai/model-image]: "%s": the registry holds an OCI artifact' %
                                                 ref(BASIC, "models/modelpack", MODELPACK)), r
    finally:
        s.stop()
    manifests = os.path.join(WORK, "manifests-artifact")
    os.makedirs(manifests, exist_ok=True)
    with open(os.path.join(manifests, "qwen.yaml"), "w") as f:
        f.write("apiVersion: worker.gpustack.ai/v1alpha1\nkind: ModelArtifact\nmetadata:\n  name: qwen\n  namespace: ml\nspec:\n"
                "  source:\n    image:\n      reference: %s\n" % ref(BASIC, "models/oras", ORAS_ARTIFACT))
    args = [BINARY, "test", "--kube-version", "v1.35.0", "--registry-ca", CA, "--registry-auth", AUTH_FILE, manifests]
    done = subprocess.run(args + ["--registry-check", "deny"], capture_output=True)
    assert done.returncode == 1 and "registry-not-an-image" in done.stdout.decode(), (done.returncode, done.stdout, done.stderr)


# ---------------------------------------------------------------- the webhook, served

def registry_server(*flags):
    return st.Server("--registry-check", "deny", "--registry-ca", CA, *flags)


def post_review(server, document, path="/validate"):
    resp, data = server.post(path, json.dumps(document).encode())
    assert resp.status == 200, (resp.status, data)
    return json.loads(data)["response"]


@test
def reviews_asking_for_one_digest_at_once_share_one_lookup_and_the_cache_keeps_it():
    s = registry_server()
    try:
        HostileHandler.hits["counted"] = 0
        reference = "%s/counted/m@%s" % (HOSTILE_AUTHORITY, COUNTED_DIGEST)
        answers = [None] * 8

        def ask(i):
            answers[i] = post_review(s, artifact_review(reference, uid="u-%d" % i))

        threads = [threading.Thread(target=ask, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for r in answers:
            assert r["allowed"] and "the model image is 7.0 GiB compressed; about 15.8 GiB on the node's disk once pulled and unpacked (gzip/zstd layers x2.26)" in "\n".join(r["warnings"]), r
        assert HostileHandler.hits["counted"] == 1, HostileHandler.hits  # one GET, no HEAD before it
        # A mutation of a Pod naming it is answered from the cache, on the I/O thread.
        r = post_review(s, pod_review(reference), "/mutate")
        assert r["allowed"] and "patch" in r, r
        assert HostileHandler.hits["counted"] == 1, HostileHandler.hits
        assert s.metric("miw_registry_cache_hits_total") >= 1
        assert s.metric('miw_registry_lookups_total{result="found"}') == 9
        assert s.metric("miw_registry_lookup_duration_seconds_count") == 8
    finally:
        s.stop()


@test
def a_mutation_that_must_ask_the_registry_is_answered_and_refused_when_certain():
    s = registry_server()
    try:
        r = post_review(s, pod_review(ref(TOKEN, "public/llama", ZERO_DIGEST)), "/mutate")
        assert not r["allowed"] and r["status"]["code"] == 403, r
        assert "registry has no manifest for this digest" in r["status"]["message"], r
        r = post_review(s, pod_review(ref(TOKEN, "public/llama", PUBLIC_IMAGE)), "/mutate")
        assert r["allowed"] and "patch" in r and "2.0 MiB compressed" in "\n".join(r["warnings"]), r
        # Answered again from the cache: the miss is kept for --registry-negative-ttl too.
        r = post_review(s, pod_review(ref(TOKEN, "public/llama", ZERO_DIGEST)), "/mutate")
        assert not r["allowed"], r
        assert s.metric('miw_registry_lookups_total{result="not-found"}') == 2
        assert s.metric("miw_registry_cache_hits_total") == 1
    finally:
        s.stop()


@test
def a_slow_registry_is_bounded_by_the_apiservers_timeout():
    s = registry_server("--registry-timeout", "10s")
    try:
        started = time.time()
        r = post_review(s, artifact_review("%s/slow/m@%s" % (HOSTILE_AUTHORITY, ZERO_DIGEST)), "/validate?timeout=2s")
        took = time.time() - started
        assert r["allowed"] and "(unreachable: the registry %s could not be reached)" % HOSTILE_AUTHORITY in "\n".join(r["warnings"]), r
        assert took < 2.0, took
        # Meanwhile and after, others are served at once.
        r = post_review(s, artifact_review("r.example/m@" + ZERO_DIGEST.replace("sha256:", "sha256:")[:-1] + "1", uid="other"), "/validate?timeout=1s")
        assert "uid" in r
        assert s.metric('miw_registry_lookups_total{result="timeout"}') >= 1
    finally:
        s.stop()


def credential_provider(name, body, match):
    """A plugin written to the kubelet's public API, and the config naming it."""
    bindir = os.path.join(WORK, "plugins")
    os.makedirs(bindir, exist_ok=True)
    path = os.path.join(bindir, name)
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body)
    os.chmod(path, 0o755)
    config = os.path.join(WORK, name + ".yaml")
    with open(config, "w") as f:
        f.write("apiVersion: kubelet.config.k8s.io/v1\nkind: CredentialProviderConfig\nproviders:\n- name: %s\n  matchImages: [\"%s\"]\n"
                "  defaultCacheDuration: 10m\n  apiVersion: credentialprovider.kubelet.k8s.io/v1\n" % (name, match))
    return ["--image-credential-provider-config", config, "--image-credential-provider-bin-dir", bindir]


@test
def a_credential_provider_plugin_opens_a_private_registry_as_on_the_nodes():
    requests = os.path.join(WORK, "plugin-requests")
    answer = json.dumps({"apiVersion": "credentialprovider.kubelet.k8s.io/v1", "kind": "CredentialProviderResponse", "cacheKeyType": "Registry",
                         "auth": {BASIC.authority: {"username": USER, "password": PASSWORD}}})
    flags = credential_provider("test-credential-provider", "cat >> %s\necho >> %s\necho '%s'\n" % (requests, requests, answer), BASIC.authority)
    code, r, err = review(artifact_review(ref(BASIC, "models/qwen", BASIC_IMAGE)), *flags)
    assert code == 0 and "6.0 MiB compressed" in warnings_of(r), (code, r, err)
    code, r, _ = review(artifact_review(ref(BASIC, "models/qwen", ZERO_DIGEST)), *flags)
    assert code == 1 and "registry has no manifest" in r["status"]["message"], r
    with open(requests) as f:
        sent = [json.loads(line) for line in f if line.strip()]
    assert sent[0] == {"apiVersion": "credentialprovider.kubelet.k8s.io/v1", "kind": "CredentialProviderRequest",
                       "image": "%s/models/qwen" % BASIC.authority}, sent
    # A registry it does not match: not run, and anonymous there.
    code, r, _ = review(artifact_review(ref(TOKEN, "public/llama", PUBLIC_IMAGE)), *flags)
    assert code == 0 and "2.0 MiB compressed" in warnings_of(r), r
    assert len(sent) == 2
    # A plugin that fails: admitted unchecked, and the warning says why.
    flags = credential_provider("failing-credential-provider", "echo 'no instance role for this node' >&2\nexit 3\n", BASIC.authority)
    code, r, err = review(artifact_review(ref(BASIC, "models/qwen", ZERO_DIGEST)), *flags)
    text = warnings_of(r)
    assert code == 0 and "(unauthorized: the credential provider failing-credential-provider gave no credentials" in text, r
    # Its own words are the operator's: in the log, never in what a tenant reads.
    assert "no instance role" not in text, r
    assert "credential provider failing-credential-provider: it exited with 3: no instance role" in err, err
    # One that is not there stops the command, naming it.
    flags[-1] = os.path.join(WORK, "no-plugins-here")
    code, r, err = review(artifact_review(ref(BASIC, "models/qwen", BASIC_IMAGE)), *flags)
    assert code == 2 and "is not an executable file" in err, (code, err)


@test
def a_hurried_review_never_switches_the_check_off_for_the_reviews_after_it():
    s = registry_server("--registry-timeout", "5s")
    try:
        HostileHandler.hits["lagging"] = 0
        reference = "%s/lagging/m@%s" % (HOSTILE_AUTHORITY, LAGGING_DIGEST)
        r = post_review(s, artifact_review(reference), "/validate?timeout=1s")
        assert r["allowed"] and "(unreachable: the registry %s could not be reached)" % HOSTILE_AUTHORITY in "\n".join(r["warnings"]), r
        # The lookup went on to --registry-timeout; its answer serves the next review.
        time.sleep(1.2)
        r = post_review(s, artifact_review(reference, uid="u-next"), "/validate?timeout=10s")
        assert r["allowed"] and "7.0 GiB compressed" in "\n".join(r["warnings"]), r
        assert HostileHandler.hits["lagging"] == 1, HostileHandler.hits
        assert s.metric("miw_registry_cache_hits_total") == 1
    finally:
        s.stop()


class ConnectProxy(threading.Thread):
    """An HTTP CONNECT proxy, as a cluster's egress proxy: it logs the
    authorities it was asked to reach and pipes the bytes."""

    def __init__(self):
        super().__init__(daemon=True)
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.asked = []
        self.start()

    def run(self):
        while True:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self.tunnel, args=(client,), daemon=True).start()

    def tunnel(self, client):
        head = b""
        while b"\r\n\r\n" not in head:
            data = client.recv(4096)
            if not data:
                return
            head += data
        method, target = head.split(b" ")[:2]
        self.asked.append((method.decode(), target.decode()))
        host, port = target.decode().rsplit(":", 1)
        upstream = socket.create_connection((host, int(port)), timeout=10)
        client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")

        def pipe(a, b):
            try:
                while True:
                    data = a.recv(65536)
                    if not data:
                        break
                    b.sendall(data)
            except OSError:
                pass
            for x in (a, b):
                try:
                    x.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

        threading.Thread(target=pipe, args=(upstream, client), daemon=True).start()
        pipe(client, upstream)


@test
def registries_are_reached_through_the_https_proxy_unless_no_proxy_names_them():
    proxy = ConnectProxy()
    document = json.dumps(artifact_review(ref(TOKEN, "public/llama", PUBLIC_IMAGE))).encode()
    args = [BINARY, "review", "--registry-check", "deny", "--registry-ca", CA, "-"]
    env = dict(os.environ, HTTPS_PROXY="http://127.0.0.1:%d" % proxy.port)
    env.pop("NO_PROXY", None)
    env.pop("no_proxy", None)
    done = subprocess.run(args, input=document, capture_output=True, timeout=30, env=env)
    r = json.loads(done.stdout)["response"]
    assert done.returncode == 0 and "2.0 MiB compressed" in warnings_of(r), (done.returncode, r, done.stderr)
    tunnels = [target for method, target in proxy.asked if method == "CONNECT"]
    # The registry and its token realm, both through the proxy.
    assert TOKEN.authority in tunnels and "127.0.0.1:%d" % TOKEN_SERVER.server_address[1] in tunnels, proxy.asked
    proxy.asked.clear()
    env["NO_PROXY"] = "127.0.0.1"
    done = subprocess.run(args, input=document, capture_output=True, timeout=30, env=env)
    r = json.loads(done.stdout)["response"]
    assert done.returncode == 0 and "2.0 MiB compressed" in warnings_of(r), (done.returncode, r, done.stderr)
    assert proxy.asked == [], proxy.asked


@test
def a_registry_answering_every_digest_with_megabytes_stays_inside_the_memory_limit():
    # 48 reviews at once, each naming another digest the hostile registry
    # answers with 64 MiB (said in Content-Length, or chunked without end): each
    # look is cut at 4 MiB, and a few look at once.
    s = registry_server("--registry-timeout", "4s")
    try:
        errors = []

        def ask(i):
            try:
                digest = "sha256:%064x" % (i + 1)
                behaviour = "huge" if i % 2 else "endless"
                r = post_review(s, artifact_review("%s/%s/m@%s" % (HOSTILE_AUTHORITY, behaviour, digest), uid="h-%d" % i), "/validate?timeout=5s")
                if not r["allowed"]:
                    errors.append(r)
            except Exception as e:  # noqa: BLE001
                errors.append(e)

        threads = [threading.Thread(target=ask, args=(i,)) for i in range(48)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors[:3]
        peak = harness.peak_rss_mib(s.proc.pid)
        print("  peak RSS with 48 lookups of 64 MiB answers: %.1f MiB" % peak)
        if not os.environ.get("MIW_SANITIZED"):
            assert peak < 96, peak  # the shipped limit is 160 MiB (manifests/base/deployment.yaml); the budget gives lookups 20 MiB
        assert sum(s.metric('miw_registry_lookups_total{result="%s"}' % kind) for kind in ("too-large", "timeout", "busy")) == 48
    finally:
        s.stop()


@test
def the_server_never_logs_registry_credentials():
    s = registry_server("--registry-auth", AUTH_FILE)
    try:
        r = post_review(s, artifact_review(ref(BASIC, "models/qwen", BASIC_IMAGE)))
        assert r["allowed"] and "6.0 MiB compressed" in "\n".join(r["warnings"]), r
        TokenHandler.requests.clear()
        r = post_review(s, artifact_review(ref(TOKEN, "private/mistral", PRIVATE_IMAGE)))
        assert r["allowed"] and "1.0 MiB compressed" in "\n".join(r["warnings"]), r
        # Another digest of the same repository: the token is kept for its lifetime, not fetched again.
        r = post_review(s, artifact_review(ref(TOKEN, "private/mistral", ZERO_DIGEST)))
        assert not r["allowed"] and "registry has no manifest" in r["status"]["message"], r
        assert len(TokenHandler.requests) == 1, TokenHandler.requests
        output = s.output()
    finally:
        s.stop()
    assert '"registryCheck":"deny"' in output, output
    for secret in (PASSWORD, base64.b64encode(("%s:%s" % (USER, PASSWORD)).encode()).decode()):
        assert secret not in output, output


@test
def serve_refuses_an_unreadable_registry_ca_at_start_up():
    done = subprocess.run([BINARY, "serve", "--tls-cert", os.path.join(st.CERTS, "tls.crt"), "--tls-key", os.path.join(st.CERTS, "tls.key"),
                           "--kube-version", "v1.35.0", "--listen", "127.0.0.1:0", "--registry-check", "warn", "--registry-ca", "/nonexistent.pem"],
                          capture_output=True, timeout=10)
    assert done.returncode == 2 and "--registry-ca /nonexistent.pem cannot be read" in done.stderr.decode(), (done.returncode, done.stderr)
    with open(os.path.join(WORK, "not-a-ca.pem"), "w") as f:
        f.write("not a certificate\n")
    done = subprocess.run([BINARY, "review", "--registry-check", "warn", "--registry-ca", os.path.join(WORK, "not-a-ca.pem"), "-"],
                          input=json.dumps(artifact_review(ref(BASIC, "models/qwen", BASIC_IMAGE))).encode(), capture_output=True, timeout=10)
    assert done.returncode == 2 and "holds no PEM certificate" in done.stderr.decode(), (done.returncode, done.stderr)


# ---------------------------------------------------------------- pull secrets from the API

from fake_apiserver import FakeApiserver  # noqa: E402


def namespaced_pod_review(reference, ns, pull_secrets=None, service_account=None, uid="u-ps"):
    document = pod_review(reference, uid=uid)
    request = document["request"]
    request["namespace"] = request["object"]["metadata"]["namespace"] = ns
    spec = request["object"]["spec"]
    if pull_secrets is not None:
        spec["imagePullSecrets"] = [{"name": n} for n in pull_secrets]
    if service_account is not None:
        spec["serviceAccountName"] = service_account
    return document


def deployment_review(reference, ns, service_account):
    """A Deployment as kubectl apply sends it: the ServiceAccount admission plugin copies no secrets into templates."""
    template = {"metadata": {"labels": {"app": "qwen"}},
                "spec": {"serviceAccountName": service_account,
                         "containers": [{"name": "vllm", "image": "vllm/vllm-openai:v0.11.0", "args": ["--model", "Qwen/Qwen3-8B"]}]}}
    obj = {"apiVersion": "apps/v1", "kind": "Deployment",
           "metadata": {"name": "qwen", "namespace": ns, "labels": {"gpustack.ai/model-delivery": "image"},
                        "annotations": {"gpustack.ai/model-image": reference}},
           "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "qwen"}}, "template": template}}
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
            "request": {"uid": "u-deploy", "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
                        "resource": {"group": "apps", "version": "v1", "resource": "deployments"},
                        "namespace": ns, "operation": "CREATE", "userInfo": {"username": "alice"}, "object": obj}}


def pull_secret_api():
    """The stand-in API, with team-a's secrets: the right one, a wrong one, and a service account naming the right one."""
    api = FakeApiserver(os.path.join(st.CERTS, "tls.crt"), os.path.join(st.CERTS, "tls.key"), "test-token")
    api.put_pull_secret("team-a", "regcred", {BASIC.authority: (USER, PASSWORD)})
    api.put_pull_secret("team-a", "stale", {BASIC.authority: (USER, "an-old-password")})
    api.put_pull_secret("team-a", "legacy", {"https://" + BASIC.authority: (USER, PASSWORD)}, secret_type="kubernetes.io/dockercfg")
    api.put_pull_secret("team-b", "team-b-cred", {BASIC.authority: (USER, PASSWORD)})
    api.put_service_account("team-a", "puller", ["regcred"])
    api.put_service_account("team-a", "default", [])
    api.put_service_account("team-b", "default", [])
    api.put_service_account("models", "default", ["regcred"])
    api.put_pull_secret("models", "regcred", {BASIC.authority: (USER, PASSWORD)})
    return api


def pull_secret_server(api, *flags):
    """Pull secrets on (they are off by default), unless the flags say otherwise."""
    chosen = [] if any(f.startswith("--registry-pull-secrets") for f in flags) else ["--registry-pull-secrets=true"]
    return registry_server("--kube-api-url", api.url, "--kube-ca-file", os.path.join(st.CERTS, "ca.crt"), "--kube-token-file", st.TOKEN_FILE,
                           "--watch-nodes=false", "--watch-artifacts=false", *chosen, *flags)


@contextlib.contextmanager
def pull_secret_serving(api, *flags):
    """The webhook served in front of the stand-in API; both stopped at the end."""
    try:
        s = pull_secret_server(api, *flags)
    except BaseException:
        api.stop()
        raise
    try:
        yield s
    finally:
        s.stop()
        api.stop()


def secret_reads(api):
    return [p for p in api.requests if "/secrets" in p or "/serviceaccounts" in p]


@test
def a_pods_pull_secret_opens_its_registry_and_an_unknown_digest_is_then_refused():
    api = pull_secret_api()
    with pull_secret_serving(api) as s:
        r = post_review(s, namespaced_pod_review(ref(BASIC, "models/qwen", BASIC_IMAGE), "team-a", ["regcred"]), "/mutate")
        assert r["allowed"] and "patch" in r and "6.0 MiB compressed" in warnings_of(r), r
        r = post_review(s, namespaced_pod_review(ref(BASIC, "models/qwen", ZERO_DIGEST), "team-a", ["regcred"]), "/mutate")
        assert not r["allowed"] and r["status"]["code"] == 403 and "registry has no manifest for this digest" in r["status"]["message"], r
        # The found answer is team-a's secret's: a Pod of another namespace without one meets the registry's refusal, as its kubelet will.
        r = post_review(s, namespaced_pod_review(ref(BASIC, "models/qwen", BASIC_IMAGE), "team-b"), "/mutate")
        assert r["allowed"] and "could not be asked whether the digest exists (unauthorized" in warnings_of(r), r
        # A secret of team-b's with the same credentials may see it.
        r = post_review(s, namespaced_pod_review(ref(BASIC, "models/qwen", BASIC_IMAGE), "team-b", ["team-b-cred"]), "/mutate")
        assert r["allowed"] and "6.0 MiB compressed" in warnings_of(r), r
        assert "/api/v1/namespaces/team-a/secrets/regcred" in api.requests
        assert "/api/v1/namespaces/team-b/serviceaccounts/default" in api.requests
        output = s.output()
    assert '"registryPullSecrets":true' in output, output
    for secret in (PASSWORD, base64.b64encode(("%s:%s" % (USER, PASSWORD)).encode()).decode(), "an-old-password"):
        assert secret not in output, output


@test
def pull_secrets_are_tried_in_order_until_one_is_not_refused():
    api = pull_secret_api()
    with pull_secret_serving(api) as s:
        reference = ref(BASIC, "models/qwen", BASIC_IMAGE)
        r = post_review(s, namespaced_pod_review(reference, "team-a", ["stale"]), "/mutate")
        assert r["allowed"] and "unauthorized" in warnings_of(r) and "refused the credentials" in warnings_of(r), r
        assert "an-old-password" not in json.dumps(r)
        r = post_review(s, namespaced_pod_review(reference, "team-a", ["stale", "regcred"]), "/mutate")
        assert r["allowed"] and "6.0 MiB compressed" in warnings_of(r), r
        # A legacy kubernetes.io/dockercfg secret is read too.
        r = post_review(s, namespaced_pod_review(reference, "team-a", ["legacy"]), "/mutate")
        assert r["allowed"] and "6.0 MiB compressed" in warnings_of(r), r


@test
def the_service_accounts_secrets_serve_pods_templates_and_model_artifacts():
    api = pull_secret_api()
    with pull_secret_serving(api) as s:
        reference = ref(BASIC, "models/qwen", BASIC_IMAGE)
        r = post_review(s, namespaced_pod_review(reference, "team-a", service_account="puller"), "/mutate")
        assert r["allowed"] and "6.0 MiB compressed" in warnings_of(r), r
        r = post_review(s, deployment_review(reference, "team-a", "puller"), "/mutate")
        assert r["allowed"] and "patch" in r and "6.0 MiB compressed" in warnings_of(r), r
        r = post_review(s, deployment_review(ref(BASIC, "models/qwen", ZERO_DIGEST), "team-a", "puller"), "/mutate")
        assert not r["allowed"] and "registry has no manifest" in r["status"]["message"], r
        # A ModelArtifact: its namespace's default service account's.
        document = artifact_review(reference)
        document["request"]["namespace"] = document["request"]["object"]["metadata"]["namespace"] = "models"
        r = post_review(s, document)
        assert r["allowed"] and "6.0 MiB compressed" in warnings_of(r), r
        assert "/api/v1/namespaces/models/serviceaccounts/default" in api.requests
        # The service account was read once for the Pod and the Deployment (kept for seconds).
        assert api.requests.count("/api/v1/namespaces/team-a/serviceaccounts/puller") == 1, secret_reads(api)


def unusable(name, namespace):
    return 'the Secret "%s" of namespace %s could not be used as a pull secret' % (name, namespace)


@test
def a_secret_that_cannot_be_used_is_named_and_secrets_are_only_ever_got_by_name():
    api = pull_secret_api()
    api.forbidden_namespaces.add("locked")
    api.put_secret("team-a", "opaque-token", "Opaque", {"token": "aHVudGVyMg=="})
    with pull_secret_serving(api) as s:
        reference = ref(BASIC, "models/qwen", BASIC_IMAGE)
        r = post_review(s, namespaced_pod_review(reference, "team-a", ["typo-cred", "regcred"]), "/mutate")
        assert r["allowed"] and unusable("typo-cred", "team-a") in warnings_of(r), r
        assert "6.0 MiB compressed" in warnings_of(r), r
        # team-b's secret is not team-a's: not found in team-a.
        r = post_review(s, namespaced_pod_review(reference, "team-a", ["team-b-cred"]), "/mutate")
        assert r["allowed"] and unusable("team-b-cred", "team-a") in warnings_of(r), r
        assert "unauthorized" in warnings_of(r), r
        assert "/api/v1/namespaces/team-b/secrets/team-b-cred" not in api.requests
        # Missing, forbidden, of another type, or a name that cannot be one: one and the same words, so
        # a tenant without get on secrets learns nothing of a namespace's Secrets. The operator's log says why.
        told = {}
        for namespace, name in (("team-a", "typo-cred"), ("locked", "regcred"), ("team-a", "opaque-token"), ("team-a", "../../nodes")):
            r = post_review(s, namespaced_pod_review(reference, namespace, [name]), "/mutate")
            told[(namespace, name)] = [w.replace('"%s" of namespace %s' % (name, namespace), "X") for w in r["warnings"] if "pull secret" in w]
        assert len({tuple(t) for t in told.values()}) == 1 and len(told[("team-a", "typo-cred")]) == 1, told
        output = s.output()
        assert "403 Forbidden: the webhook's role lacks get on secrets" in output and "its type is Opaque" in output, output[-3000:]
        assert "not a valid object name" in output, output[-3000:]
        reads = secret_reads(api)
        assert reads and all("?" not in p and len(p.split("/")) == 7 for p in reads), reads
        assert not any("nodes" in p for p in reads), reads
        assert s.metric('miw_pull_secret_reads_total{kind="secret",result="forbidden"}') == 1
        assert s.metric('miw_pull_secret_reads_total{kind="secret",result="not-found"}') == 2
        assert s.metric('miw_pull_secret_reads_total{kind="secret",result="invalid"}') == 1
        assert s.metric('miw_pull_secret_reads_total{kind="secret",result="read"}') == 1


@test
def a_slow_or_huge_api_answer_never_holds_a_review():
    api = pull_secret_api()
    # A secret of a megabyte (a Secret's most): past what the webhook reads of one.
    api.put_pull_secret("team-a", "huge", {BASIC.authority: (USER, PASSWORD), **{"pad-%d.example" % i: ("u", "p" * 1000) for i in range(1000)}})
    with pull_secret_serving(api, "--registry-auth", AUTH_FILE) as s:
        reference = ref(BASIC, "models/qwen", BASIC_IMAGE)
        r = post_review(s, namespaced_pod_review(reference, "team-a", ["huge"]), "/mutate")
        assert r["allowed"] and unusable("huge", "team-a") in warnings_of(r), r
        assert "6.0 MiB compressed" in warnings_of(r), r  # the cluster's credentials still serve
        # An API that answers after the apiserver's timeout: the review is answered within it, the secret named,
        # and the lookup still made with what the cluster holds (half the time is left to it).
        api.secret_delay = 3.0
        started = time.time()
        resp, data = s.post("/mutate?timeout=2s", json.dumps(namespaced_pod_review(reference, "team-a", ["regcred"])).encode())
        assert resp.status == 200 and time.time() - started < 2.5, (resp.status, time.time() - started)
        r = json.loads(data)["response"]
        assert r["allowed"], r
        assert unusable("regcred", "team-a") in warnings_of(r), r
        assert s.get("/healthz")[0] == 200
        assert "secret team-a/regcred" in s.output() and "no answer within the deadline" in s.output()


@test
def without_pull_secrets_the_api_is_never_asked_for_them():
    # Off by default (reading Secrets is the operator's grant), and off when said so.
    api = pull_secret_api()
    try:
        s = registry_server("--kube-api-url", api.url, "--kube-ca-file", os.path.join(st.CERTS, "ca.crt"), "--kube-token-file", st.TOKEN_FILE,
                            "--watch-nodes=false", "--watch-artifacts=false", "--registry-auth", AUTH_FILE)
        try:
            r = post_review(s, namespaced_pod_review(ref(BASIC, "models/qwen", BASIC_IMAGE), "team-a", ["regcred"]), "/mutate")
            assert r["allowed"] and "6.0 MiB compressed" in warnings_of(r), r
            assert secret_reads(api) == [], api.requests
            assert '"registryPullSecrets":false' in s.output()
        finally:
            s.stop()
    finally:
        api.stop()
    api = pull_secret_api()
    with pull_secret_serving(api, "--registry-pull-secrets=false", "--registry-auth", AUTH_FILE) as s:
        r = post_review(s, namespaced_pod_review(ref(BASIC, "models/qwen", BASIC_IMAGE), "team-a", ["regcred"]), "/mutate")
        assert r["allowed"] and "6.0 MiB compressed" in warnings_of(r), r
        assert secret_reads(api) == [], api.requests
        assert '"registryPullSecrets":false' in s.output()
    done = subprocess.run([BINARY, "serve", "--tls-cert", os.path.join(st.CERTS, "tls.crt"), "--tls-key", os.path.join(st.CERTS, "tls.key"),
                           "--kube-version", "v1.35.0", "--listen", "127.0.0.1:0", "--registry-check", "warn", "--registry-pull-secrets=true"],
                          capture_output=True, timeout=10)
    assert done.returncode == 2 and "--registry-pull-secrets reads Pods' pull secrets from the Kubernetes API" in done.stderr.decode(), done.stderr


def pinned_pod_review(reference, node):
    """A Pod as /validate sees it after the delivery: its model volume rendered, pinned to `node`."""
    document = namespaced_pod_review(reference, "team-a", uid="u-pinned")
    spec = document["request"]["object"]["spec"]
    spec["nodeName"] = node
    spec["volumes"] = [{"name": "gpustack-model", "image": {"reference": reference, "pullPolicy": "IfNotPresent"}}]
    spec["containers"][0]["volumeMounts"] = [{"name": "gpustack-model", "mountPath": "/var/lib/gpustack/model", "readOnly": True}]
    return document


@test
def a_pinned_pods_node_is_warned_when_its_disk_cannot_hold_the_model():
    api = pull_secret_api()
    for name, capacity in (("gpu-small", "20Gi"), ("gpu-tight", "29360128Ki"), ("gpu-roomy", "1844284980Ki")):
        api.nodes[name] = ("v1.35.1", "containerd://2.1.4")
        api.capacity[name] = capacity
    with pull_secret_serving(api, "--registry-auth", AUTH_FILE) as s:
        reference = ref(BASIC, "models/docker", DOCKER_IMAGE)  # 25.4 GiB on disk
        r = post_review(s, pinned_pod_review(reference, "gpu-small"))
        assert r["allowed"], r
        assert ('spec.volumes[gpustack-model]: the model image needs about 25.4 GiB on disk, more than the 20.0 GiB of ephemeral storage on '
                'node "gpu-small": its pull would fail unless imagefs is another disk') in warnings_of(r), r
        r = post_review(s, pinned_pod_review(reference, "gpu-tight"))  # 28 GiB: 91% of it
        assert r["allowed"] and "over 85% of the 28.0 GiB on node \"gpu-tight\": past the kubelet's imageGCHighThresholdPercent" in warnings_of(r), r
        r = post_review(s, pinned_pod_review(reference, "gpu-roomy"))
        assert r["allowed"] and "on disk" not in warnings_of(r), r
    # Offline, the Nodes from a file.
    nodes = os.path.join(WORK, "nodes-disk.json")
    with open(nodes, "w") as f:
        json.dump({"kind": "NodeList", "items": [{"kind": "Node", "metadata": {"name": "gpu-small"},
                                                   "status": {"capacity": {"ephemeral-storage": "20Gi"},
                                                              "nodeInfo": {"kubeletVersion": "v1.35.1", "containerRuntimeVersion": "containerd://2.1.4"}}}]}, f)
    code, r, err = review(pinned_pod_review(ref(BASIC, "models/docker", DOCKER_IMAGE), "gpu-small"), "--registry-auth", AUTH_FILE, "--nodes", nodes)
    assert code == 0 and r["allowed"] and "more than the 20.0 GiB of ephemeral storage" in warnings_of(r), (code, r, err)


# ---------------------------------------------------------------- mirrors (--registry-hosts-dir)

def hosts_dir(name, files):
    """A containerd config_path: {directory: hosts.toml text}."""
    root = os.path.join(WORK, name)
    for directory, text in files.items():
        os.makedirs(os.path.join(root, directory), exist_ok=True)
        with open(os.path.join(root, directory, "hosts.toml"), "w") as f:
            f.write(text)
    return root


def auth_file(name, entries):
    path = os.path.join(WORK, name)
    with open(path, "w") as f:
        json.dump({"auths": {k: {"auth": base64.b64encode(("%s:%s" % v).encode()).decode()} for k, v in entries.items()}}, f)
    return path


@test
def a_registry_that_hides_a_repository_from_one_credential_is_opened_by_the_next():
    # Two keys match the image, the more specific first: its credential is told 404, the next one pulls.
    both = auth_file("auth-hiding.json", {HOSTILE_AUTHORITY + "/hiding": ("team-a-robot", "no-access-here"), HOSTILE_AUTHORITY: (USER, PASSWORD)})
    reference = "%s/hiding/m@%s" % (HOSTILE_AUTHORITY, LAGGING_DIGEST)
    code, r, err = review(artifact_review(reference), "--registry-auth", both)
    assert code == 0 and r["allowed"] and "7.0 GiB compressed" in warnings_of(r), (code, r, err)
    # The hiding credential alone: every credential said 404, so unknown, as the node would meet it.
    alone = auth_file("auth-hiding-alone.json", {HOSTILE_AUTHORITY: ("team-a-robot", "no-access-here")})
    code, r, _ = review(artifact_review(reference), "--registry-auth", alone)
    assert code == 1 and "registry has no manifest for this digest" in r["status"]["message"], r


@test
def a_registry_outside_the_allowed_ones_is_never_asked():
    HostileHandler.hits["counted"] = 0
    reference = "%s/counted/m@%s" % (HOSTILE_AUTHORITY, COUNTED_DIGEST)
    code, r, err = review(artifact_review(reference), "--registry-allow", "registry.example.com,*.internal.example")
    assert code == 0 and r["allowed"], r
    assert ("(not-allowed: the registry %s is not in the allowed registries (--registry-allow))" % HOSTILE_AUTHORITY) in warnings_of(r), r
    assert HostileHandler.hits["counted"] == 0, HostileHandler.hits
    code, r, _ = review(artifact_review(reference), "--registry-allow", "127.0.0.1:*")
    assert code == 0 and "7.0 GiB compressed" in warnings_of(r), r
    assert HostileHandler.hits["counted"] == 1, HostileHandler.hits
    code, _, err = review(artifact_review(reference), "--registry-allow", "https://registry.example.com/team")
    assert code == 2 and "--registry-allow" in err and "host[:port]" in err, err


class SecretVolume:
    """A directory as the kubelet lays out a Secret volume: a new version is a new ..VERSION
    directory and an atomic swap of the ..data link; FILE -> ..data/FILE stays."""

    def __init__(self, name, file_name):
        self.dir = os.path.join(WORK, name)
        self.file_name = file_name
        self.versions = 0
        os.makedirs(self.dir)

    def publish(self, text):
        self.versions += 1
        version = "..%d_%d" % (int(time.time()), self.versions)
        os.makedirs(os.path.join(self.dir, version))
        with open(os.path.join(self.dir, version, self.file_name), "w") as f:
            f.write(text)
        staged = os.path.join(self.dir, "..data_tmp")
        os.symlink(version, staged)
        os.rename(staged, os.path.join(self.dir, "..data"))
        path = os.path.join(self.dir, self.file_name)
        if not os.path.islink(path):
            os.symlink(os.path.join("..data", self.file_name), path)
        return path


def docker_config(entries):
    return json.dumps({"auths": {k: {"auth": base64.b64encode(("%s:%s" % v).encode()).decode()} for k, v in entries.items()}})


@test
def a_rotated_pull_credential_is_used_without_a_restart_and_a_broken_one_keeps_the_last_good():
    # As a CronJob refreshing an ECR dockerconfigjson Secret every 12 h: the Secret volume's ..data swapped under the webhook.
    volume = SecretVolume("rotated-auth", ".dockerconfigjson")
    auth = volume.publish(docker_config({BASIC.authority: (USER, "expired-token")}))
    s = registry_server("--registry-auth", auth, "--registry-reload-interval", "200ms")
    try:
        reference = ref(BASIC, "models/qwen", BASIC_IMAGE)
        r = post_review(s, artifact_review(reference))
        assert r["allowed"] and "unauthorized" in "\n".join(r["warnings"]), r
        volume.publish(docker_config({BASIC.authority: (USER, PASSWORD)}))
        deadline = time.time() + 10
        while True:
            r = post_review(s, artifact_review(reference, uid="u-%d" % int(time.time() * 1000)))
            if "6.0 MiB compressed" in "\n".join(r["warnings"]):
                break
            assert time.time() < deadline, ("the rotated credential was not used", r, s.output()[-2000:])
            time.sleep(0.2)
        assert s.metric('miw_registry_config_reloads_total{result="applied"}') >= 1
        # A version that does not read: said once, the last good credential still serves, the webhook still ready.
        volume.publish("{half a file")
        deadline = time.time() + 10
        while s.metric('miw_registry_config_reloads_total{result="failed"}') < 1:
            assert time.time() < deadline, s.output()[-2000:]
            time.sleep(0.1)
        r = post_review(s, artifact_review(ref(BASIC, "models/qwen", ZERO_DIGEST), uid="u-missing"))
        assert not r["allowed"] and "registry has no manifest for this digest" in r["status"]["message"], r
        assert s.get("/readyz")[0] == 200
        time.sleep(0.6)
        output = s.output()
        assert output.count("registry file not re-read") == 1, output[-3000:]
        assert "--registry-auth " + auth in output and PASSWORD not in output and "expired-token" not in output
    finally:
        s.stop()


@test
def mirrors_are_asked_in_order_and_unknown_only_where_every_host_said_so():
    mirror = Registry("mirror", no_auth)
    try:
        digest, _, _ = Client(mirror).push_image("models/qwen", [3 * MiB, 2 * MiB, 1 * MiB])
        assert digest == BASIC_IMAGE, "the same weights make the same digest on the mirror"
        dead = st.free_ports(1)[0]
        root = hosts_dir("certs.d-order", {
            # An air-gapped name the webhook cannot reach, served by the mirror.
            "airgap.example_5000_": 'server = "https://127.0.0.1:%d"\n[host."https://%s"]\n  capabilities = ["pull", "resolve"]\n' % (dead, mirror.authority),
            # A mirror without the image in front of the Basic registry (no server: the registry itself).
            "127.0.0.1_%d_" % BASIC.port: '[host."http://%s"]\n  capabilities = ["pull", "resolve"]\n' % PLAIN.authority,
            # A host that may not pull is not asked.
            "nopull.example": 'server = "https://127.0.0.1:%d"\n[host."https://%s"]\n  capabilities = ["resolve"]\n' % (dead, mirror.authority),
        })
        flags = ("--registry-hosts-dir", root, "--registry-auth", AUTH_FILE)
        code, r, err = review(artifact_review("airgap.example:5000/models/qwen@" + BASIC_IMAGE), *flags)
        assert code == 0 and r["allowed"] and "6.0 MiB compressed" in warnings_of(r), (code, r, err)
        # The mirror says 404, the server cannot be reached: a failure to look, never "unknown".
        code, r, _ = review(artifact_review("airgap.example:5000/models/qwen@" + ZERO_DIGEST), *flags)
        assert code == 0 and r["allowed"] and "could not be asked whether the digest exists (unreachable" in warnings_of(r), r
        # Past the mirror's 404, the registry has it.
        code, r, _ = review(artifact_review(ref(BASIC, "models/qwen", BASIC_IMAGE)), *flags)
        assert code == 0 and r["allowed"] and "6.0 MiB compressed" in warnings_of(r), r
        # Every host said 404: unknown, refused.
        code, r, _ = review(artifact_review(ref(BASIC, "models/qwen", ZERO_DIGEST)), *flags)
        assert code == 1 and r["auditAnnotations"]["rule"] == "registry-manifest-unknown", r
        code, r, _ = review(artifact_review("nopull.example/models/qwen@" + BASIC_IMAGE), *flags)
        assert code == 0 and "could not be asked" in warnings_of(r) and mirror.authority not in warnings_of(r), r
    finally:
        mirror.stop()


@test
def each_mirror_has_its_own_ca_and_takes_the_credentials_the_images_name_selects():
    other = Registry("mirror-other-ca", htpasswd_auth, certs=OTHER_CERTS)
    try:
        Client(other).push_image("models/qwen", [3 * MiB, 2 * MiB, 1 * MiB])
        dead = st.free_ports(1)[0]
        server = 'server = "https://127.0.0.1:%d"\n' % dead
        # As the kubelet selects them (by the image's name) and containerd's CRI sends them (to every
        # host of that image): the registry's key opens its mirror; a key of the mirror's own name does not.
        registry_only = auth_file("auth-registry-only.json", {"airgap.example": (USER, PASSWORD)})
        mirror_named = auth_file("auth-mirror-named.json", {"airgap.example": ("someone", "else"), other.authority: (USER, PASSWORD)})
        reference = "airgap.example/models/qwen@" + BASIC_IMAGE
        with_ca = hosts_dir("certs.d-ca", {"airgap.example": server + '[host."https://%s"]\n  ca = "%s"\n' % (other.authority, other.ca)})
        code, r, err = review(artifact_review(reference), "--registry-hosts-dir", with_ca, "--registry-auth", registry_only)
        assert code == 0 and "6.0 MiB compressed" in warnings_of(r), (r, err)
        code, r, _ = review(artifact_review(reference), "--registry-hosts-dir", with_ca, "--registry-auth", mirror_named)
        assert code == 0 and "unauthorized" in warnings_of(r) and "6.0 MiB" not in warnings_of(r), r
        mirror_too = registry_only
        # Without its ca, the mirror's certificate is refused; with skip_verify, it is not checked, and said so at start.
        without_ca = hosts_dir("certs.d-noca", {"airgap.example": server + '[host."https://%s"]\n' % other.authority})
        code, r, err = review(artifact_review(reference), "--registry-hosts-dir", without_ca, "--registry-auth", mirror_too)
        assert code == 0 and "the registry %s could not be reached" % other.authority in warnings_of(r), r
        assert "the certificate of %s was refused" % other.authority in err, err
        skipping = hosts_dir("certs.d-skip", {"airgap.example": server + '[host."https://%s"]\n  skip_verify = true\n' % other.authority})
        code, r, err = review(artifact_review(reference), "--registry-hosts-dir", skipping, "--registry-auth", mirror_too)
        assert code == 0 and "6.0 MiB compressed" in warnings_of(r), r
        assert "skip_verify: its certificate is not verified" in err, err
        s = registry_server("--registry-hosts-dir", skipping, "--registry-auth", mirror_too)
        try:
            r = post_review(s, artifact_review(reference))
            assert r["allowed"] and "6.0 MiB compressed" in "\n".join(r["warnings"]), r
            output = s.output()
        finally:
            s.stop()
        assert "registry host without certificate verification (skip_verify)" in output and other.authority in output, output
        assert PASSWORD not in output
    finally:
        other.stop()


@test
def a_pull_through_cache_under_a_path_prefix_is_reached_with_override_path():
    # A pull-through cache of the token registry (its public repositories: anonymous pull, as Docker Hub's).
    cache = Registry("pull-through", no_auth, http_extra=["  prefix: /cache/"], top_extra=["proxy:", "  remoteurl: https://" + TOKEN.authority],
                     env=dict(os.environ, SSL_CERT_FILE=CA))
    try:
        dead = st.free_ports(1)[0]
        root = hosts_dir("certs.d-cache", {"upstream.example": 'server = "https://127.0.0.1:%d"\n[host."https://%s/cache/v2"]\n'
                                                             '  capabilities = ["pull", "resolve"]\n  override_path = true\n' % (dead, cache.authority)})
        code, r, err = review(artifact_review("upstream.example/public/llama@" + PUBLIC_IMAGE), "--registry-hosts-dir", root)
        assert code == 0 and r["allowed"] and "2.0 MiB compressed" in warnings_of(r), (code, r, err, open(cache.log.name).read()[-2000:])
        # An index through the cache: its platform's entry fetched through it too.
        code, r, _ = review(artifact_review("upstream.example/public/llama@" + INDEX), "--registry-hosts-dir", root, "--registry-platform", "linux/arm64")
        assert code == 0 and r["allowed"] and "5.0 MiB compressed" in warnings_of(r), r
        # The cache answers 404 for what its upstream lacks, and the server behind it is down: never "unknown".
        code, r, _ = review(artifact_review("upstream.example/public/llama@" + ZERO_DIGEST), "--registry-hosts-dir", root)
        assert code == 0 and "could not be asked" in warnings_of(r), r  # the server behind is down: never "unknown"
        # A hosts.toml the webhook cannot read stops it, naming the file.
        broken = hosts_dir("certs.d-broken", {"upstream.example": '[host."https://%s"\n' % cache.authority})
        code, r, err = review(artifact_review("upstream.example/public/llama@" + PUBLIC_IMAGE), "--registry-hosts-dir", broken)
        assert code == 2 and "upstream.example/hosts.toml: not TOML" in err, (code, err)
    finally:
        cache.stop()


def cleanup():
    for r in (BASIC, TOKEN, PLAIN):
        r.stop()
    shutil.rmtree(WORK, ignore_errors=True)
    shutil.rmtree(st.WORK, ignore_errors=True)


if __name__ == "__main__":
    harness.run_tests(TESTS, "registry checks", ONLY, cleanup)
