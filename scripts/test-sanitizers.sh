#!/usr/bin/env bash
# The whole test suite again, built with AddressSanitizer (leaks included) and
# UndefinedBehaviorSanitizer: any finding fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMIW_WERROR=ON -DMIW_BUILD_BENCH=OFF \
  -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
cmake --build build-asan -j2
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1"
export UBSAN_OPTIONS="suppressions=$(pwd)/fuzz/ubsan.supp:halt_on_error=1:print_stacktrace=1"
ctest --test-dir build-asan --output-on-failure -j2
