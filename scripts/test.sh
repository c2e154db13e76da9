#!/usr/bin/env bash
# The full test suite: build with warnings as errors and run every test with ctest.
# OZBLAS_SANITIZE=1 builds with AddressSanitizer + UndefinedBehaviorSanitizer instead.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
dir=build; san=OFF
if [ "${OZBLAS_SANITIZE:-0}" = 1 ]; then dir=build-asan; san=ON; fi
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOZBLAS_WERROR=ON -DOZBLAS_SANITIZE=$san >/dev/null
cmake --build "$dir" -j"$(nproc)"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir "$dir" -j"$(nproc)" --output-on-failure
