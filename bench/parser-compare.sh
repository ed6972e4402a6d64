#!/usr/bin/env bash
# The review's parse beside simdjson's DOM parser (Debian's libsimdjson-dev,
# installed here for this measurement only), on the shared bench bodies,
# pinned to CPU 0: microseconds a parse, the best of 20 batches each.
#   bash bench/parser-compare.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-1000}
refs=${MIW_BENCH_REFERENCES:-../shared/bench}
sudo=""; [[ $(id -u) -eq 0 ]] || sudo=sudo
dpkg -s libsimdjson-dev >/dev/null 2>&1 || $sudo apt-get install -y -qq --no-install-recommends libsimdjson-dev >/dev/null
bash scripts/build.sh >/dev/null
out=build/bench/parser_compare
g++ -std=c++20 -O2 -DNDEBUG -Isrc/codec -Iinclude bench/parser_compare.cpp build/libmiw_codec.a build/libmiw_core.a -lsimdjson -o "$out"
bodies=()
for b in validate validate-kubectl mutate-small mutate-kubectl mutate-large; do bodies+=("$refs/bodies/$b.json"); done
taskset -c 0 "$out" "$rounds" "${bodies[@]}"
