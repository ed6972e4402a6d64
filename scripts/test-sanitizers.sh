#!/usr/bin/env bash
# The whole test suite again, built with AddressSanitizer (leaks included) and
# UndefinedBehaviorSanitizer: any finding fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
# Warnings are the main build's business (-O1 with sanitizers makes GCC 12 warn falsely in libstdc++).
# -O1 -g1: Beast's templates compile several times faster without full debug information,
# and reports still name the functions.
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Sanitize -DMIW_WERROR=OFF -DMIW_BUILD_BENCH=OFF \
  -DCMAKE_CXX_FLAGS_SANITIZE="-O1 -g1 -fsanitize=address,undefined -fno-omit-frame-pointer" \
  -DCMAKE_EXE_LINKER_FLAGS_SANITIZE="-fsanitize=address,undefined" >/dev/null
cmake --build build-asan -j2
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1"
export MIW_SANITIZED=1  # memory figures are not asserted under the sanitizers' shadow memory
export UBSAN_OPTIONS="suppressions=$(pwd)/fuzz/ubsan.supp:halt_on_error=1:print_stacktrace=1"
ctest --test-dir build-asan --output-on-failure -j2
