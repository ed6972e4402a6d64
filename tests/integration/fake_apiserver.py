"""A stand-in Kubernetes API on loopback for the server's tests: GET /version
and GET /api/v1/nodes/NAME over TLS, with a bearer token, and switches to make
it slow, failing, or hostile (huge answers)."""
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
        self.tokens = []  # every Authorization header received
        self.huge_bytes = 0  # when set, /version answers this many bytes of valid JSON
        self.huge_chunked = False  # ... sent chunked, without a Content-Length
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

            def do_GET(self):
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
