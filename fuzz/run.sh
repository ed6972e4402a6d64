#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan and UBSan on) and runs each for
# SECONDS on a corpus seeded from the tests and examples. A crash stops the run;
# its input is kept in fuzz/regressions/<target>/, which the test suite replays.
#
#   bash fuzz/run.sh [SECONDS]     (default 60)
#   FUZZ_TARGETS="review mutation" bash fuzz/run.sh 30   (some targets only)
#   FUZZ_SEED=1 FUZZ_RUNS="review=50000 yaml=100000" bash fuzz/run.sh 120
#     (a fixed seed, and at most that many inputs for the targets named: the
#     same inputs on every machine, or a prefix of them where SECONDS runs out)
#   FUZZ_STAGE=build|run bash fuzz/run.sh   (only build, or only run what was built)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
sudo=""; [[ $(id -u) -eq 0 ]] || sudo=sudo
command -v clang++-14 >/dev/null || $sudo apt-get install -y -qq --no-install-recommends clang-14 libclang-rt-14-dev >/dev/null
build=build-fuzz
stage=${FUZZ_STAGE:-all}
if [[ $stage != run ]]; then
  cmake -S fuzz -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 >/dev/null
  # Quiet unless it fails: ninja writes a compiler's errors to stdout.
  if ! cmake --build "$build" -j2 >"$build.log" 2>&1; then
    grep -E "error|FAILED" "$build.log" | head -40
    echo "fuzz: the targets do not build with clang (the whole log: $build.log)" >&2
    exit 1
  fi
fi
[[ $stage == build ]] && exit 0
corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
bash fuzz/seed.sh "$corpus"
export UBSAN_OPTIONS="suppressions=$(pwd)/fuzz/ubsan.supp:halt_on_error=1:print_stacktrace=1"
# Two targets at a time (this machine has two cores): each run is its own
# process with its own seed and corpus, so the runs are the same as one by one.
run_target() {
  local target=$1
  mkdir -p "fuzz/regressions/$target"
  cp -r "fuzz/regressions/$target/." "$corpus/$target/" 2>/dev/null || true
  local log="$corpus/$target.log"
  local bounds=(-max_total_time="$seconds" -reload=0)
  # A seeded run leaves out the operands of comparisons as mutation hints: some
  # are addresses, which ASLR moves, and the same seed would then make other inputs.
  [[ -n ${FUZZ_SEED:-} ]] && bounds+=(-seed="$FUZZ_SEED" -use_cmp=0)
  for cap in ${FUZZ_RUNS:-}; do
    [[ ${cap%%=*} == "$target" ]] && bounds+=(-runs="${cap#*=}")
  done
  if "$build/fuzz_$target" "$corpus/$target" "${bounds[@]}" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
       -artifact_prefix="fuzz/regressions/$target/" -print_final_stats=1 >"$log" 2>&1; then
    echo "fuzz $target: $(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$') runs${FUZZ_SEED:+ from seed $FUZZ_SEED}, no crash" >"$log.verdict"
  else
    { echo "fuzz $target: FAILED; the input is in fuzz/regressions/$target/"
      grep -m5 -E "ERROR|SUMMARY|runtime error" "$log" || tail -20 "$log"; } >"$log.verdict"
    return 1
  fi
}
status=0
targets=(${FUZZ_TARGETS:-reference version review mutation yaml api_answers registry})
for ((i = 0; i < ${#targets[@]}; i += 2)); do
  pids=()
  for target in "${targets[@]:i:2}"; do
    run_target "$target" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || status=1; done
  for target in "${targets[@]:i:2}"; do cat "$corpus/$target.log.verdict"; done
done
exit $status
