#!/usr/bin/env bash
# Runs the real binary over examples/reviews/*.json and compares each answer,
# byte for byte, with NAME.response.json, and the exit status with cases.tsv.
#   golden_reviews.sh BINARY DIR            check
#   golden_reviews.sh BINARY DIR --update   rewrite the expected answers (review the diff!)
set -u
bin=$(realpath "$1") dir=$(realpath "$2") mode=${3:-check}
cd "$dir" || exit 1  # flags name files relative to the examples
failures=0 passed=0
declare -A listed=()
while IFS=$'\t' read -r name want flags; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  listed[$name]=1
  # shellcheck disable=SC2086 # flags are words
  got=$("$bin" review $flags "$dir/$name.json" 2>/dev/null)
  status=$?
  if [[ "$mode" == "--update" ]]; then
    printf '%s\n' "$got" >"$dir/$name.response.json"
  fi
  expected=$(cat "$dir/$name.response.json" 2>/dev/null)
  if [[ "$status" != "$want" ]]; then
    echo "FAIL $name: exit status $status, expected $want"
    failures=$((failures + 1))
  elif [[ "$got" != "$expected" ]]; then
    echo "FAIL $name: answer differs from $name.response.json"
    diff <(printf '%s\n' "$expected") <(printf '%s\n' "$got") | head -20
    failures=$((failures + 1))
  else
    passed=$((passed + 1))
  fi
done <"$dir/cases.tsv"
for request in "$dir"/*.json; do
  name=$(basename "$request" .json)
  [[ "$name" == *.response ]] && continue
  if [[ -z "${listed[$name]:-}" ]]; then
    echo "FAIL $name: not listed in cases.tsv"
    failures=$((failures + 1))
  fi
done
echo "golden reviews: $passed passed, $failures failed"
[[ $failures -eq 0 && $passed -gt 0 ]]
