"""A burst of Pods of one signed model image against a served webhook with
--signature-policy: how many times the signatures were fetched from the
registry (the goal: once), and how long the burst took. The image is signed
by sigstore-js against @sigstore/mock and held in Debian's docker-registry,
as tests/integration/signature_test.py sets them up (imported: it starts the
registry, pushes and signs).

Usage: python3 bench/signature_burst.py [BINARY] [PODS] [CONNECTIONS]
A measurement: it prints, it never fails."""
import concurrent.futures
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
BINARY = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "build", "model-image-webhook"))
PODS = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
CONNECTIONS = int(sys.argv[3]) if len(sys.argv) > 3 else 64

sys.argv = [sys.argv[0], BINARY, REPO]
sys.path.insert(0, os.path.join(REPO, "tests", "integration"))
import signature_test as t  # noqa: E402  (the registry, the signed images, the policy)
import registry_test as rt  # noqa: E402


def main():
    server = t.signature_server()
    try:
        reference = t.ref("models/signed", t.SIGNED)

        def one(i):
            conn = server.connection()
            body = json.dumps(rt.pod_review(reference, uid="burst-%d" % i)).encode()
            resp, data = server.post("/mutate", body, conn=conn)
            conn.close()
            return resp.status == 200 and json.loads(data)["response"]["allowed"]

        started = time.time()
        with concurrent.futures.ThreadPoolExecutor(CONNECTIONS) as pool:
            allowed = sum(pool.map(one, range(PODS)))
        seconds = time.time() - started
        print("%d Pods of one digest over %d connections: %d admitted in %.2f s; signature fetches: %d; verdicts: verified %d, unavailable %d"
              % (PODS, CONNECTIONS, allowed, seconds, server.metric("miw_signature_fetches_total"),
                 server.metric('miw_signature_verifications_total{result="verified"}'),
                 server.metric('miw_signature_verifications_total{result="unavailable"}')))
    finally:
        server.stop()
        rt.cleanup()


if __name__ == "__main__":
    main()
