"""A stand-in Kubernetes API on loopback for the server's tests: GET /version,
GET /api/v1/nodes/NAME, the Node list (paged) and watch (chunked events),
Secrets and ServiceAccounts by name (GET only, as RBAC's get allows; a list
or watch of them is 403), over TLS, with a bearer token, and switches to make it slow, failing, or
hostile (huge answers, dropped streams)."""
import http.server
import json
import queue
import select
import ssl
import threading
import time
import urllib.parse


def hostname_of(name, spec):
    """The Node's kubernetes.io/hostname label: spec's fourth member where
    given (clouds name Nodes otherwise), else its name (as kubeadm and kind)."""
    return spec[3] if len(spec) > 3 else name


def node_object(name, spec, resource_version="1"):
    """A Node as the apiserver writes it; spec is (kubelet, runtime),
    (kubelet, runtime, [image names]) or (kubelet, runtime, [image names], hostname label)."""
    kubelet, runtime = spec[0], spec[1]
    images = [{"names": [n, n.split("@")[0] + ":latest"], "sizeBytes": 16 << 30} for n in (spec[2] if len(spec) > 2 else [])]
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "resourceVersion": resource_version, "labels": {"kubernetes.io/hostname": hostname_of(name, spec)}},
            "status": {"nodeInfo": {"kubeletVersion": kubelet, "containerRuntimeVersion": runtime}, "images": images}}


ARTIFACTS = "/apis/worker.gpustack.ai/v1alpha1/modelartifacts"


def artifact_object(ns, name, source, resource_version="1"):
    """A ModelArtifact as the apiserver writes it; source is its spec.source."""
    return {"apiVersion": "worker.gpustack.ai/v1alpha1", "kind": "ModelArtifact",
            "metadata": {"namespace": ns, "name": name, "resourceVersion": resource_version}, "spec": {"source": source}}


class FakeApiserver:
    def __init__(self, cert, key, token, version="v1.35.2"):
        self.token = token
        self.version = version
        self.version_delay = 0.0
        self.node_delay = 0.0
        self.fail = False
        self.nodes = {}
        self.requests = []
        self.timed_requests = []  # (time.monotonic(), path) of each request, one append each
        self.tokens = []  # every Authorization header received
        self.huge_bytes = 0  # when set, /version answers this many bytes of valid JSON
        self.huge_chunked = False  # ... sent chunked, without a Content-Length
        self.resource_version = 100
        self.list_status = 200  # another status fails every Node list
        self.list_delay = 0.0  # seconds before a Node list page is answered
        self.watch_queries = []  # the query of every watch opened
        self.watchers = []  # one queue of events per open watch of Nodes
        self.artifacts = {}  # (namespace, name) -> spec.source
        self.artifact_watchers = []  # ... and of ModelArtifacts
        self.secrets = {}  # (namespace, name) -> the Secret object
        self.service_accounts = {}  # (namespace, name) -> the ServiceAccount object
        self.forbidden_namespaces = set()  # where get on secrets and serviceaccounts is not granted
        self.capacity = {}  # node name -> its status.capacity["ephemeral-storage"]
        self.secret_delay = 0.0  # seconds before a Secret or ServiceAccount is answered
        self.lock = threading.Lock()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def answer(self, status, body):
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def huge(self):
                """A valid /version answer padded to outer.huge_bytes, written
                until the client stops reading."""
                head = b'{"major":"1","minor":"35","gitVersion":"v1.35.0","pad":"'
                tail = b'"}'
                pad = outer.huge_bytes - len(head) - len(tail)
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                if outer.huge_chunked:
                    self.send_header("Transfer-Encoding", "chunked")
                else:
                    self.send_header("Content-Length", str(outer.huge_bytes))
                self.end_headers()
                piece = b"x" * (1 << 20)

                def send(data):
                    if outer.huge_chunked:
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                    else:
                        self.wfile.write(data)
                try:
                    send(head)
                    while pad > 0:
                        send(piece[:min(pad, len(piece))])
                        pad -= len(piece)
                    send(tail)
                    if outer.huge_chunked:
                        self.wfile.write(b"0\r\n\r\n")
                except OSError:
                    pass  # the client stopped reading: what a capped client does

            def watch(self, query, watchers=None):
                """Events from the test (push, drop) as chunks, one JSON line each."""
                watchers = outer.watchers if watchers is None else watchers
                events = queue.Queue()
                with outer.lock:
                    if watchers is outer.watchers:
                        outer.watch_queries.append(query)  # of the Node watch
                    watchers.append(events)
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                try:
                    while True:
                        try:
                            event = events.get(timeout=0.1)
                        except queue.Empty:
                            # A watch client sends nothing: anything readable is its close.
                            if select.select([self.connection], [], [], 0)[0]:
                                return
                            continue
                        if event == "drop":
                            self.close_connection = True
                            self.connection.shutdown(2)  # mid-stream, no last chunk: a broken watch
                            return
                        data = json.dumps(event).encode() + b"\n"
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                        self.wfile.flush()
                except OSError:
                    pass
                finally:
                    with outer.lock:
                        watchers.remove(events)

            def do_GET(self):
                outer.timed_requests.append((time.monotonic(), self.path))
                outer.requests.append(self.path)
                outer.tokens.append(self.headers.get("Authorization"))
                if self.headers.get("Authorization") != "Bearer " + outer.token:
                    return self.answer(401, {"kind": "Status", "code": 401})
                if outer.fail:
                    return self.answer(500, {"kind": "Status", "code": 500})
                if self.path == "/version" and outer.huge_bytes:
                    return self.huge()
                if self.path == "/version":
                    time.sleep(outer.version_delay)
                    return self.answer(200, {"major": "1", "minor": "35", "gitVersion": outer.version})
                if self.path.startswith(ARTIFACTS + "?"):
                    query = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query)
                    if query.get("watch") == ["1"]:
                        return self.watch(query, outer.artifact_watchers)
                    if outer.list_status != 200:
                        return self.answer(outer.list_status, {"kind": "Status", "code": outer.list_status})
                    with outer.lock:
                        items = [artifact_object(ns, name, source) for (ns, name), source in sorted(outer.artifacts.items())]
                    return self.answer(200, {"kind": "ModelArtifactList", "apiVersion": "worker.gpustack.ai/v1alpha1",
                                             "metadata": {"resourceVersion": str(outer.resource_version)}, "items": items})
                if self.path.startswith("/api/v1/nodes?"):
                    query = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query)
                    if query.get("watch") == ["1"]:
                        return self.watch(query)
                    time.sleep(outer.list_delay)
                    if outer.list_status != 200:
                        return self.answer(outer.list_status, {"kind": "Status", "code": outer.list_status})
                    names = sorted(outer.nodes)
                    selector = query.get("labelSelector", [""])[0]
                    if selector:  # only kubernetes.io/hostname=VALUE is asked for
                        key, _, value = selector.partition("=")
                        assert key == "kubernetes.io/hostname", selector
                        names = [n for n in names if hostname_of(n, outer.nodes[n]) == value]
                    limit = int(query.get("limit", ["500"])[0])
                    start = int(query.get("continue", ["0"])[0])
                    page = names[start:start + limit]
                    meta = {"resourceVersion": str(outer.resource_version)}
                    if start + limit < len(names):
                        meta["continue"] = str(start + limit)
                    return self.answer(200, {"kind": "NodeList", "apiVersion": "v1", "metadata": meta,
                                             "items": [node_object(n, outer.nodes[n]) for n in page]})
                parts = self.path.split("?")[0].split("/")
                if len(parts) >= 6 and parts[1:4] == ["api", "v1", "namespaces"] and parts[5] in ("secrets", "serviceaccounts"):
                    # Only get by name is granted: a list or a watch is 403, as RBAC answers it.
                    if len(parts) != 7 or "?" in self.path or parts[3] in outer.forbidden_namespaces or parts[4] in outer.forbidden_namespaces:
                        return self.answer(403, {"kind": "Status", "code": 403, "reason": "Forbidden"})
                    time.sleep(outer.secret_delay)
                    store = outer.secrets if parts[5] == "secrets" else outer.service_accounts
                    found = store.get((parts[4], parts[6]))
                    if found is None:
                        return self.answer(404, {"kind": "Status", "code": 404, "reason": "NotFound"})
                    return self.answer(200, found)
                if self.path.startswith("/api/v1/nodes/"):
                    time.sleep(outer.node_delay)
                    name = self.path[len("/api/v1/nodes/"):]
                    if name in outer.nodes:
                        node = node_object(name, outer.nodes[name])
                        if name in outer.capacity:
                            node["status"]["capacity"] = {"cpu": "96", "ephemeral-storage": outer.capacity[name]}
                        return self.answer(200, node)
                    return self.answer(404, {"kind": "Status", "code": 404, "reason": "NotFound"})
                return self.answer(404, {"kind": "Status", "code": 404})

        class QuietServer(http.server.ThreadingHTTPServer):
            def handle_error(self, request, client_address):
                pass  # clients that give up early (the deadline tests) are expected

        self.httpd = QuietServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def put_pull_secret(self, ns, name, auths, secret_type="kubernetes.io/dockerconfigjson"):
        """A registry Secret, as kubectl create secret docker-registry makes it: auths is
        {registry: (user, password)}."""
        import base64
        entries = {r: {"username": u, "password": p, "auth": base64.b64encode(f"{u}:{p}".encode()).decode()} for r, (u, p) in auths.items()}
        config = json.dumps({"auths": entries} if secret_type == "kubernetes.io/dockerconfigjson" else entries)
        key = ".dockerconfigjson" if secret_type == "kubernetes.io/dockerconfigjson" else ".dockercfg"
        with self.lock:
            self.secrets[(ns, name)] = {"apiVersion": "v1", "kind": "Secret", "type": secret_type,
                                        "metadata": {"namespace": ns, "name": name},
                                        "data": {key: base64.b64encode(config.encode()).decode()}}

    def put_secret(self, ns, name, secret_type, data):
        """Any other Secret: data as it is stored (base64 values)."""
        with self.lock:
            self.secrets[(ns, name)] = {"apiVersion": "v1", "kind": "Secret", "type": secret_type, "metadata": {"namespace": ns, "name": name}, "data": data}

    def put_service_account(self, ns, name, pull_secrets):
        with self.lock:
            self.service_accounts[(ns, name)] = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"namespace": ns, "name": name},
                                                 "imagePullSecrets": [{"name": n} for n in pull_secrets]}

    def push(self, event_type, name=None, spec=None):
        """Changes a Node (ADDED or MODIFIED with spec, DELETED) and tells every
        open watch; BOOKMARK moves the resource version only; ERROR sends 410."""
        with self.lock:
            self.resource_version += 1
            rv = str(self.resource_version)
            if event_type in ("ADDED", "MODIFIED"):
                self.nodes[name] = spec
                event = {"type": event_type, "object": node_object(name, spec, rv)}
            elif event_type == "DELETED":
                event = {"type": event_type, "object": node_object(name, self.nodes.pop(name), rv)}
            elif event_type == "BOOKMARK":
                event = {"type": "BOOKMARK", "object": {"kind": "Node", "apiVersion": "v1", "metadata": {"resourceVersion": rv}}}
            else:
                event = {"type": "ERROR", "object": {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Expired", "code": 410,
                                                     "message": "too old resource version"}}
            for w in self.watchers:
                w.put(event)
            return rv

    def push_artifact(self, event_type, ns, name, source=None):
        """Changes a ModelArtifact (ADDED or MODIFIED with source, DELETED) and tells every open watch of them."""
        with self.lock:
            self.resource_version += 1
            rv = str(self.resource_version)
            if event_type == "DELETED":
                source = self.artifacts.pop((ns, name))
            else:
                self.artifacts[(ns, name)] = source
            event = {"type": event_type, "object": artifact_object(ns, name, source, rv)}
            for w in self.artifact_watchers:
                w.put(event)
            return rv

    def open_artifact_watches(self):
        with self.lock:
            return len(self.artifact_watchers)

    def drop_watches(self):
        with self.lock:
            for w in self.watchers:
                w.put("drop")

    def open_watches(self):
        with self.lock:
            return len(self.watchers)

    @property
    def url(self):
        return "https://127.0.0.1:%d" % self.port

    def stop(self):
        self.httpd.shutdown()
