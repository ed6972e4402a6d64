#!/usr/bin/env bash
# Sets up, builds, and answers an example AdmissionReview as the webhook would:
# a ModelArtifact whose image is pinned by tag, which is refused.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-debian.sh
bash scripts/build.sh >/dev/null
set +e
./build/model-image-webhook review examples/reviews/artifact-tag-only.json
status=$?
set -e
echo "exit status $status (0 allowed, 1 denied, 2 input error)" >&2
