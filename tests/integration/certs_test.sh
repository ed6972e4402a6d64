#!/usr/bin/env bash
# certs/gen-certs.sh makes what the webhook needs: a CA, and an ECDSA P-256 serving
# certificate for the Service names with the right key usage, chained to it; a second run
# rotates the serving certificate under the same CA. Checked with openssl.
set -u
repo=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
check() {  # check NAME COMMAND...
  local name=$1; shift
  if "$@" >/dev/null 2>&1; then passed=$((passed + 1)); else echo "FAIL $name"; failed=$((failed + 1)); fi
}
text() { openssl x509 -in "$1" -noout -text; }

bash "$repo/certs/gen-certs.sh" --out "$work/c" --service hook --namespace infra --client kube-apiserver \
  --overlay "$work/overlay" --secret "$work/secret.yaml" >/dev/null || { echo "FAIL gen-certs.sh"; exit 1; }
leaf="$work/leaf.crt"
openssl x509 -in "$work/c/tls.crt" -out "$leaf"   # the first certificate of the chain

check "the chain verifies against the CA" openssl verify -CAfile "$work/c/ca.crt" "$leaf"
check "the CA is a CA" bash -c "openssl x509 -in '$work/c/ca.crt' -noout -text | grep -q 'CA:TRUE'"
check "the CA signs certificates" bash -c "openssl x509 -in '$work/c/ca.crt' -noout -text | grep -A1 'Key Usage' | grep -q 'Certificate Sign'"
for san in DNS:hook.infra.svc DNS:hook.infra.svc.cluster.local DNS:hook.infra DNS:hook DNS:localhost "IP Address:127.0.0.1" "IP Address:0:0:0:0:0:0:0:1"; do
  check "SAN $san" bash -c "openssl x509 -in '$leaf' -noout -ext subjectAltName | grep -q '$san'"
done
check "the leaf is no CA" bash -c "openssl x509 -in '$leaf' -noout -text | grep -q 'CA:FALSE'"
check "digitalSignature key usage" bash -c "openssl x509 -in '$leaf' -noout -ext keyUsage | grep -q 'Digital Signature'"
check "serverAuth extended key usage" bash -c "openssl x509 -in '$leaf' -noout -ext extendedKeyUsage | grep -q 'TLS Web Server Authentication'"
check "ECDSA P-256" bash -c "openssl x509 -in '$leaf' -noout -text | grep -q 'ASN1 OID: prime256v1'"
check "the key matches the certificate" bash -c "[ \"\$(openssl pkey -in '$work/c/tls.key' -pubout)\" = \"\$(openssl x509 -in '$leaf' -noout -pubkey)\" ]"
check "the key is private to its owner" bash -c "[ \"\$(stat -c %a '$work/c/tls.key')\" = 600 ]"
check "tls.crt holds the chain" bash -c "[ \"\$(grep -c 'BEGIN CERTIFICATE' '$work/c/tls.crt')\" = 2 ]"
check "the client certificate is for clients" bash -c "openssl x509 -in '$work/c/client.crt' -noout -ext extendedKeyUsage | grep -q 'TLS Web Client Authentication'"
check "the client certificate verifies" openssl verify -CAfile "$work/c/ca.crt" "$work/c/client.crt"
check "the overlay has the pair" cmp "$work/c/tls.crt" "$work/overlay/tls.crt"
check "the caBundle patches carry the CA" bash -c "grep -q \"\$(base64 -w0 < '$work/c/ca.crt')\" '$work/overlay/cabundle-validating.yaml' '$work/overlay/cabundle-mutating.yaml'"
check "the Secret carries the pair" bash -c "/usr/bin/python3 -c \"
import base64, yaml, sys
s = yaml.safe_load(open('$work/secret.yaml'))
assert s['type'] == 'kubernetes.io/tls' and s['metadata'] == {'name': 'hook-tls', 'namespace': 'infra'}
assert base64.b64decode(s['data']['tls.crt']) == open('$work/c/tls.crt', 'rb').read()
assert base64.b64decode(s['data']['tls.key']) == open('$work/c/tls.key', 'rb').read()
\""

# rotation: a new serving certificate under the same CA
cp "$work/c/ca.crt" "$work/ca.before"; cp "$leaf" "$work/leaf.before"
bash "$repo/certs/gen-certs.sh" --out "$work/c" --service hook --namespace infra >/dev/null
openssl x509 -in "$work/c/tls.crt" -out "$leaf"
check "rotation keeps the CA" cmp "$work/c/ca.crt" "$work/ca.before"
check "rotation changes the serving certificate" bash -c "! cmp -s '$leaf' '$work/leaf.before'"
check "the rotated chain verifies" openssl verify -CAfile "$work/c/ca.crt" "$leaf"

echo "certificate script: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
