"""A stand-in Kubernetes API on loopback for the server's tests: GET /version
and GET /api/v1/nodes/NAME over TLS, with a bearer token, and switches to make
it slow or failing."""
import http.server
import json
import ssl
import threading
import time


class FakeApiserver:
    def __init__(self, cert, key, token, version="v1.35.2"):
        self.token = token
        self.version = version
        self.version_delay = 0.0
        self.node_delay = 0.0
        self.fail = False
        self.nodes = {}
        self.requests = []
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

            def do_GET(self):
                outer.requests.append(self.path)
                if self.headers.get("Authorization") != "Bearer " + outer.token:
                    return self.answer(401, {"kind": "Status", "code": 401})
                if outer.fail:
                    return self.answer(500, {"kind": "Status", "code": 500})
                if self.path == "/version":
                    time.sleep(outer.version_delay)
                    return self.answer(200, {"major": "1", "minor": "35", "gitVersion": outer.version})
                if self.path.startswith("/api/v1/nodes/"):
                    time.sleep(outer.node_delay)
                    name = self.path[len("/api/v1/nodes/"):]
                    if name in outer.nodes:
                        kubelet, runtime = outer.nodes[name]
                        return self.answer(200, {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
                                                 "status": {"nodeInfo": {"kubeletVersion": kubelet, "containerRuntimeVersion": runtime}}})
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

    @property
    def url(self):
        return "https://127.0.0.1:%d" % self.port

    def stop(self):
        self.httpd.shutdown()
