#!/usr/bin/env bash
# Sets up, builds, makes development certificates in ./dev-certs, and serves
# the webhook on https://localhost:8443 until Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-debian.sh
bash scripts/build.sh >/dev/null
[[ -s dev-certs/tls.crt ]] || bash certs/gen-certs.sh --out dev-certs
cat <<'HOW'

Serving on https://localhost:8443 (Ctrl-C stops it). In another terminal:

  curl -s --cacert dev-certs/ca.crt -H 'Content-Type: application/json' \
       --data-binary @examples/reviews/artifact-tag-only.json https://localhost:8443/validate
  curl -s --cacert dev-certs/ca.crt -H 'Content-Type: application/json' \
       --data-binary @examples/reviews/deployment-vllm.json https://localhost:8443/mutate
  curl -s --cacert dev-certs/ca.crt https://localhost:8443/metrics

HOW
exec ./build/model-image-webhook serve --listen 127.0.0.1:8443 --tls-cert dev-certs/tls.crt --tls-key dev-certs/tls.key \
  --kube-version "${KUBE_VERSION:-v1.35.0}"
