#!/usr/bin/python3
"""Opens N keep-alive TLS connections to a server, sends one request on each,
leaves them idle, and prints the server's resident memory before and after.

  idle_connections.py PORT PID CA BODY N
"""
import http.client
import ssl
import sys
import time


def rss_mib(pid):
    with open("/proc/%s/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return 0.0


port, pid, ca, body_path, n = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
with open(body_path, "rb") as f:
    body = f.read()
ctx = ssl.create_default_context(cafile=ca)
before = rss_mib(pid)
connections = []
for _ in range(n):
    c = http.client.HTTPSConnection("localhost", port, context=ctx, timeout=30)
    c.request("POST", "/validate", body=body, headers={"Content-Type": "application/json"})
    r = c.getresponse()
    r.read()
    assert r.status == 200
    connections.append(c)
time.sleep(1)
after = rss_mib(pid)
print("IDLE connections=%d rss_before=%.1fMiB rss_after=%.1fMiB per_connection=%.1fKiB" % (n, before, after, (after - before) * 1024 / n))
for c in connections:
    c.close()
