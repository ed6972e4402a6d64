#!/usr/bin/env bash
# Instructions per review, by callgrind: a 300-round run less a 100-round run,
# over 200, so start-up and the first round's allocations cancel out. Only
# what runs inside review() is counted: review_cost copies the body before each
# round (review() parses in place), and valgrind counts glibc's `rep movsb`
# copy a byte at a time, 20,000 "instructions" for a 20 KB body that the
# server never pays (its body is read from the socket into place). Counts are
# repeatable where timings drift.
#   bench/instructions.sh validate|mutate BODY.json [--rapidjson-only]
set -euo pipefail
cd "$(dirname "$0")/.."
endpoint=$1 body=$2
shift 2
options=("$@")
count() {
  local out
  out=$(mktemp)
  valgrind --tool=callgrind --toggle-collect='miw::review(*' --callgrind-out-file="$out" build/bench/review_cost "$endpoint" "$body" --rounds "$1" "${options[@]}" >/dev/null 2>&1
  callgrind_annotate "$out" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}'
  rm -f "$out"
}
small=$(count 100)
large=$(count 300)
bytes=$(stat -c %s "$body")
per=$(( (large - small) / 200 ))
echo "$(basename "$body") $bytes bytes: $per instructions per review, $(( per / bytes )) per byte"
