#!/usr/bin/env bash
# Assembles the runtime root filesystem of the container image: the binary, the shared
# libraries it links (and the dynamic loader), the system's CA bundle (registries are
# verified against it, as libcurl looks for it), and a passwd entry for the non-root
# user. Nothing else: no shell, no package manager.
#
#   scripts/collect-runtime.sh BINARY ROOTFS
set -euo pipefail
bin=$1 root=$2
mkdir -p "$root/etc" "$root/tmp"
chmod 0755 "$root"
cp "$bin" "$root/model-image-webhook"
strip "$root/model-image-webhook" 2>/dev/null || true
# ldd lists "name => /path (addr)" for libraries and "/path (addr)" for the loader.
ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' | while read -r lib; do
  cp --parents -L "$lib" "$root/"
done
if [[ -f /etc/ssl/certs/ca-certificates.crt ]]; then
  cp --parents -L /etc/ssl/certs/ca-certificates.crt "$root/"
fi
echo 'webhook:x:65532:65532:model-image-webhook:/nonexistent:/nonexistent' >"$root/etc/passwd"
echo 'webhook:x:65532:' >"$root/etc/group"
chmod 1777 "$root/tmp"
