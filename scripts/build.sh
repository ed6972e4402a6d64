#!/usr/bin/env bash
# Configures and builds into build/ (Release). CI=true adds -Werror.
set -euo pipefail
cd "$(dirname "$0")/.."
werror=OFF
if [[ "${CI:-}" == "true" ]]; then werror=ON; fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMIW_WERROR="$werror" >/dev/null
cmake --build build -j2
