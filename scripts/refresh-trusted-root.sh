#!/usr/bin/env bash
# Renews sigstore/trusted_root.public-good.json, the Sigstore public-good
# instance's trusted root the binary builds in, from the seeds the npm package
# @sigstore/tuf ships (its TUF repository's trusted_root.json target, as the
# Sigstore clients bootstrap from). Review the diff before committing it: a
# new key or authority there is a new party the cluster trusts.
#   bash scripts/refresh-trusted-root.sh [VERSION]   (default: the latest)
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:-latest}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "@sigstore/tuf@$version" >/dev/null && tar xzf sigstore-tuf-*.tgz)
python3 - "$work/package/seeds.json" sigstore/trusted_root.public-good.json <<'PY'
import base64, json, sys
seeds = json.load(open(sys.argv[1]))
target = seeds["https://tuf-repo-cdn.sigstore.dev"]["targets"]["trusted_root.json"]
root = json.loads(base64.b64decode(target))
assert root.get("mediaType", "").startswith("application/vnd.dev.sigstore.trustedroot"), root.get("mediaType")
open(sys.argv[2], "wb").write(base64.b64decode(target))
print("sigstore/trusted_root.public-good.json: %d tlogs, %d certificate authorities, %d CT logs, %d timestamp authorities"
      % tuple(len(root.get(k, [])) for k in ("tlogs", "certificateAuthorities", "ctlogs", "timestampAuthorities")))
PY
