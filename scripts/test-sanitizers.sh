#!/usr/bin/env bash
# The whole test suite again, built with AddressSanitizer (leaks included) and
# UndefinedBehaviorSanitizer: any finding fails the run.
#   scripts/test-sanitizers.sh [build|run]   (only build, or only run what was built)
set -euo pipefail
cd "$(dirname "$0")/.."
stage=${1:-all}
# Warnings are the main build's business (with sanitizers GCC 12 warns falsely in libstdc++).
# -O0 -g1: Beast's templates compile several times faster without full debug information,
# and reports still name the functions. Unoptimised, the instrumented build took 4.4 minutes
# on a slow machine against 13 at -O1 (the kube client's file alone 55 s against 150), and
# the suite 3.4 against 2.9: 8 minutes less in all, nothing less checked (docs/reliability.md).
if [[ $stage != run ]]; then
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Sanitize -DMIW_WERROR=OFF -DMIW_BUILD_BENCH=OFF \
  -DCMAKE_CXX_FLAGS_SANITIZE="-O0 -g1 -fsanitize=address,undefined -fno-omit-frame-pointer" \
  -DCMAKE_EXE_LINKER_FLAGS_SANITIZE="-fsanitize=address,undefined" >/dev/null
cmake --build build-asan -j2
fi
[[ $stage == build ]] && exit 0
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1"
export MIW_SANITIZED=1  # memory figures are not asserted under the sanitizers' shadow memory
export UBSAN_OPTIONS="suppressions=$(pwd)/fuzz/ubsan.supp:halt_on_error=1:print_stacktrace=1"
# The unit test binaries run once each (their test cases in one process) and
# the rest through ctest: a sanitized process takes half a second to start,
# which once a test case was two minutes of the suite.
status=0
build-asan/tests/unit_tests >build-asan/unit_tests.log 2>&1 & unit=$!
build-asan/tests/server_unit_tests >build-asan/server_unit_tests.log 2>&1 & server_unit=$!
wait "$unit" || { status=1; tail -60 build-asan/unit_tests.log; }
wait "$server_unit" || { status=1; tail -60 build-asan/server_unit_tests.log; }
tail -n 2 build-asan/unit_tests.log build-asan/server_unit_tests.log
ctest --test-dir build-asan --output-on-failure -j2 -LE unit || status=1
exit $status
