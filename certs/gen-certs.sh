#!/usr/bin/env bash
# Makes a CA and an ECDSA P-256 serving certificate for the webhook with openssl.
#
#   certs/gen-certs.sh [--out DIR] [--service NAME] [--namespace NS] [--days N] [--client NAME]
#                      [--overlay DIR] [--secret FILE]
#
#   --out DIR        where to write (default: ./dev-certs)
#   --service NAME   the webhook's Service (default: model-image-webhook)
#   --namespace NS   its namespace (default: model-image-webhook)
#   --days N         serving certificate lifetime (default: 365; the CA gets 10 years)
#   --client NAME    also make a client certificate (client.crt, client.key) with that CN, for mTLS
#   --overlay DIR    also write tls.crt, tls.key and the caBundle patches of the webhook
#                    configurations into DIR (manifests/overlays/self-signed)
#   --secret FILE    also write the kubernetes.io/tls Secret as a manifest to FILE
#
# Writes DIR/ca.crt, DIR/ca.key, DIR/tls.crt (leaf then CA), DIR/tls.key. An existing CA in DIR is
# kept, so running it again rotates the serving certificate under the same CA (the caBundle the
# webhook configurations carry stays valid). Delete DIR/ca.* to start a new CA.
# SANs: localhost, 127.0.0.1, ::1, NAME, NAME.NS, NAME.NS.svc, NAME.NS.svc.cluster.local.
set -euo pipefail

out=./dev-certs service=model-image-webhook namespace=model-image-webhook days=365 client="" overlay="" secret=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --service) service=$2; shift 2 ;;
    --namespace) namespace=$2; shift 2 ;;
    --days) days=$2; shift 2 ;;
    --client) client=$2; shift 2 ;;
    --overlay) overlay=$2; shift 2 ;;
    --secret) secret=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "gen-certs.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

mkdir -p "$out"
umask 077
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [[ ! -s "$out/ca.key" || ! -s "$out/ca.crt" ]]; then
  openssl ecparam -name prime256v1 -genkey -noout -out "$out/ca.key" 2>/dev/null
  openssl req -x509 -new -key "$out/ca.key" -sha256 -days 3650 -subj "/CN=model-image-webhook CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -out "$out/ca.crt" 2>/dev/null
fi

sign() {  # sign NAME CN EXTFILE
  openssl ecparam -name prime256v1 -genkey -noout -out "$work/$1.key" 2>/dev/null
  openssl req -new -key "$work/$1.key" -subj "/CN=$2" -out "$work/$1.csr" 2>/dev/null
  openssl x509 -req -in "$work/$1.csr" -CA "$out/ca.crt" -CAkey "$out/ca.key" -CAcreateserial -CAserial "$work/ca.srl" \
    -days "$days" -sha256 -extfile "$3" -out "$work/$1.crt" 2>/dev/null
}

cat >"$work/server.ext" <<EXT
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth
subjectAltName=DNS:$service.$namespace.svc,DNS:$service.$namespace.svc.cluster.local,DNS:$service.$namespace,DNS:$service,DNS:localhost,IP:127.0.0.1,IP:::1
EXT
sign server "$service.$namespace.svc" "$work/server.ext"
# Write the key before the chain: a server that reloads on a change of either
# never sees a new chain beside the old key for long.
cp "$work/server.key" "$out/tls.key.new"
cat "$work/server.crt" "$out/ca.crt" >"$out/tls.crt.new"
mv -f "$out/tls.key.new" "$out/tls.key"
mv -f "$out/tls.crt.new" "$out/tls.crt"

if [[ -n "$client" ]]; then
  cat >"$work/client.ext" <<EXT
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=clientAuth
EXT
  sign client "$client" "$work/client.ext"
  cp "$work/client.key" "$out/client.key"
  cp "$work/client.crt" "$out/client.crt"
fi
chmod 0644 "$out/ca.crt" "$out/tls.crt"

ca_bundle=$(base64 -w0 <"$out/ca.crt")
if [[ -n "$overlay" ]]; then
  mkdir -p "$overlay"
  cp "$out/tls.crt" "$overlay/tls.crt"
  cp "$out/tls.key" "$overlay/tls.key"
  { echo "# The CA of the serving certificate, written by certs/gen-certs.sh."
    for i in 0 1 2 3 4 5; do echo "- {op: add, path: /webhooks/$i/clientConfig/caBundle, value: $ca_bundle}"; done; } >"$overlay/cabundle-validating.yaml"
  { echo "# The CA of the serving certificate, written by certs/gen-certs.sh."
    for i in 0 1 2; do echo "- {op: add, path: /webhooks/$i/clientConfig/caBundle, value: $ca_bundle}"; done; } >"$overlay/cabundle-mutating.yaml"
fi
if [[ -n "$secret" ]]; then
  cat >"$secret" <<SECRET
apiVersion: v1
kind: Secret
metadata:
  name: $service-tls
  namespace: $namespace
type: kubernetes.io/tls
data:
  tls.crt: $(base64 -w0 <"$out/tls.crt")
  tls.key: $(base64 -w0 <"$out/tls.key")
SECRET
fi
echo "wrote $out: ca.crt, tls.crt, tls.key${client:+, client.crt, client.key} (serving certificate for $service.$namespace.svc, localhost, 127.0.0.1, ::1)${overlay:+; the overlay files in $overlay}${secret:+; the Secret in $secret}"
