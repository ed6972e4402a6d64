#!/usr/bin/env bash
# The `review` command's contract: exit 0 allowed, 1 denied, 2 input or usage
# error with a one-line reason on stderr; the answer alone on stdout.
set -u
bin=$1 fixtures=$2
examples=$(cd "$(dirname "$0")/../../examples/reviews" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0

# expect NAME WANT_EXIT STDOUT_MATCH STDERR_MATCH -- ARGS... (stdin from $stdin_file when set)
expect() {
  local name=$1 want=$2 out_re=$3 err_re=$4
  shift 5
  local status
  "$bin" "$@" <"${stdin_file:-/dev/null}" >"$work/out" 2>"$work/err"
  status=$?
  local why=""
  [[ $status == "$want" ]] || why="exit $status, expected $want"
  [[ -z "$why" && -n "$out_re" ]] && ! grep -qE -- "$out_re" "$work/out" && why="stdout does not match /$out_re/"
  [[ -z "$why" && -z "$out_re" && -s "$work/out" ]] && why="stdout should be empty"
  [[ -z "$why" && -n "$err_re" ]] && ! grep -qE -- "$err_re" "$work/err" && why="stderr does not match /$err_re/"
  [[ -z "$why" && -n "$err_re" && $(wc -l <"$work/err") -ne 1 ]] && why="stderr should be one line"
  [[ -z "$why" && -z "$err_re" && -s "$work/err" ]] && why="stderr should be empty"
  if [[ -n "$why" ]]; then
    echo "FAIL $name: $why"; sed 's/^/  out: /' "$work/out" | head -5; sed 's/^/  err: /' "$work/err" | head -5
    failed=$((failed + 1))
  else
    passed=$((passed + 1))
  fi
}

expect "allowed from a file" 0 '"allowed":true' '' -- review "$examples/artifact-pinned-create.json"
expect "denied from a file" 1 '"allowed":false' '' -- review "$examples/artifact-tag-only.json"
stdin_file="$examples/artifact-tag-only.json" expect "denied from stdin with -" 1 '"code":422' '' -- review -
stdin_file="$examples/artifact-pinned-create.json" expect "stdin when no file is named" 0 '"allowed":true' '' -- review
expect "kube version below the floor" 1 'apiserver-floor' '' -- review --kube-version v1.33.0 "$examples/artifact-pinned-create.json"
expect "mutate endpoint leaves an artifact alone" 0 '"allowed":true' '' -- review --endpoint mutate "$examples/artifact-tag-only.json"
expect "review-shaped 400 for the upstream fixture" 2 '"code":400' 'operationValue' -- review "$fixtures/admission.k8s.io.v1.AdmissionReview.json"
expect "missing file" 2 '' 'cannot read .*/no-such-file.json' -- review "$work/no-such-file.json"
expect "directory instead of a file" 2 '' 'cannot read' -- review "$work"
printf '{"apiVersion":' >"$work/truncated.json"
expect "truncated JSON" 2 '' 'not valid JSON' -- review "$work/truncated.json"
python3 -c "import sys; sys.stdout.write('['*100000 + ']'*100000)" >"$work/deep.json"
expect "100,000 nested arrays" 2 '' 'deeper than 1000 levels' -- review "$work/deep.json"
printf '\xff\xfe' >"$work/binary.json"
expect "binary garbage" 2 '' 'not valid JSON' -- review "$work/binary.json"
expect "unreadable kube version" 2 '' 'kube-version "banana" cannot be read' -- review --kube-version banana "$examples/artifact-pinned-create.json"
expect "unknown digest algorithm" 2 '' 'digest-algorithms "md5"' -- review --digest-algorithms md5 "$examples/artifact-pinned-create.json"
expect "unknown endpoint" 2 '' 'endpoint must be validate or mutate' -- review --endpoint /validate "$examples/artifact-pinned-create.json"
expect "unknown flag" 2 '' 'no-such-flag' -- review --no-such-flag "$examples/artifact-pinned-create.json"
expect "two files" 2 '' 'one input file' -- review "$examples/artifact-pinned-create.json" "$examples/artifact-tag-only.json"
expect "help" 0 'Exit status: 0 allowed, 1 denied, 2' '' -- review --help
expect "version" 0 '^model-image-webhook [0-9]+\.[0-9]+\.[0-9]+' '' -- version
expect "unknown command" 2 '' 'unknown command "frobnicate"' -- frobnicate

echo "review command: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
