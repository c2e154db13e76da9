#!/usr/bin/env bash
# The test suite: build with warnings as errors and run the tests with ctest.
#   bash scripts/test.sh             every test but the long emulated-device twins (ctest -LE emulated)
#   bash scripts/test.sh --emulated  only those twins (ctest -L emulated: the CUDA backend's code on
#                                    the emulated device, compared bit for bit with the CPU; CI runs them)
#   bash scripts/test.sh --all       both
# OZBLAS_SANITIZE=1 builds with AddressSanitizer + UndefinedBehaviorSanitizer instead.
# Labels (ctest -L): unit, routines, properties, backends, emulated, interposer, install, mpi.
set -euo pipefail
cd "$(dirname "$0")/.."
sel=(-LE emulated)
case "${1:-}" in
  "") ;;
  --emulated) sel=(-L emulated) ;;
  --all) sel=() ;;
  *) echo "usage: bash scripts/test.sh [--emulated|--all]" >&2; exit 2 ;;
esac
bash scripts/deps.sh
dir=build; san=OFF
if [ "${OZBLAS_SANITIZE:-0}" = 1 ]; then dir=build-asan; san=ON; fi
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOZBLAS_WERROR=ON -DOZBLAS_SANITIZE=$san >/dev/null
cmake --build "$dir" -j"$(nproc)"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir "$dir" -j"$(nproc)" --output-on-failure "${sel[@]}"
