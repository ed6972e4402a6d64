#!/usr/bin/env bash
# Configures and builds into build/ (Release). CI=true adds -Werror.
set -euo pipefail
cd "$(dirname "$0")/.."
werror=OFF bench=ON
# CI: warnings are errors, and the measurement programs (bench/), which no test runs, are not built.
if [[ "${CI:-}" == "true" ]]; then werror=ON bench=OFF; fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMIW_WERROR="$werror" -DMIW_BUILD_BENCH="$bench" >/dev/null
cmake --build build -j2
