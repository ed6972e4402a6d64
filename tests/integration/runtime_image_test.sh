#!/usr/bin/env bash
# The container image's root filesystem (scripts/collect-runtime.sh, as the Dockerfile
# runs it) holds everything the binary needs: in a chroot with nothing else, as the
# image's non-root user, it answers a review and serves over TLS. Needs root for chroot.
set -u
bin=$1 repo=$2
[[ $(id -u) -eq 0 ]] || { echo "not root: chroot is not available, skipped"; exit 77; }
# A sanitizer build needs /proc and its runtime's environment, which the image has not.
if ldd "$bin" | grep -q -E 'libasan|libubsan'; then echo "a sanitizer build: the runtime image holds release builds, skipped"; exit 77; fi
root=$(mktemp -d)
trap 'kill "$server" 2>/dev/null; rm -rf "$root"' EXIT
server=""
bash "$repo/scripts/collect-runtime.sh" "$bin" "$root"
passed=0 failed=0
check() { local name=$1; shift; if "$@"; then passed=$((passed + 1)); else echo "FAIL $name"; failed=$((failed + 1)); fi; }

check "no shell in the image" test ! -e "$root/bin/sh"
check "the CA bundle registries are verified against" test -s "$root/etc/ssl/certs/ca-certificates.crt"
check "the version runs" bash -c "chroot --userspec=65532:65532 '$root' /model-image-webhook version | grep -q '^model-image-webhook '"
cp "$repo/examples/reviews/artifact-tag-only.json" "$root/tmp/review.json"
chroot --userspec=65532:65532 "$root" /model-image-webhook review /tmp/review.json >"$root/tmp/out.json" 2>/dev/null
check "a review is answered" test $? -eq 1
check "the answer is the golden one" cmp -s "$root/tmp/out.json" "$repo/examples/reviews/artifact-tag-only.response.json"

bash "$repo/certs/gen-certs.sh" --out "$root/tmp/certs" >/dev/null
chmod 0644 "$root/tmp/certs/tls.key"
# A port nobody holds now (a random one collided with other tests' servers now and then).
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
chroot --userspec=65532:65532 "$root" /model-image-webhook serve --listen "127.0.0.1:$port" --tls-cert /tmp/certs/tls.crt \
  --tls-key /tmp/certs/tls.key --kube-version v1.35.0 --shutdown-delay 0ms >/dev/null 2>&1 &
server=$!
for _ in $(seq 50); do curl -s --cacert "$root/tmp/certs/ca.crt" "https://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
check "it serves over TLS as a non-root user" bash -c "curl -s --cacert '$root/tmp/certs/ca.crt' -H 'Content-Type: application/json' \
  --data-binary @'$repo/examples/reviews/artifact-pinned-create.json' 'https://127.0.0.1:$port/validate' | grep -q '\"allowed\":true'"
kill -TERM "$server"; wait "$server"
check "it stops cleanly on SIGTERM" test $? -eq 0
echo "runtime image: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
