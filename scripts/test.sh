#!/usr/bin/env bash
# The test suite: build with warnings as errors and run the tests with ctest.
#   bash scripts/test.sh             every test but the long emulated-device twins (ctest -LE emulated)
#   bash scripts/test.sh --emulated  only those twins (ctest -L emulated: the CUDA backend's code on
#                                    the emulated device, compared bit for bit with the CPU; CI runs them)
#   bash scripts/test.sh --all       both
#   bash scripts/test.sh --python    only the Python package's part (below)
# Without --emulated, and without OZBLAS_SANITIZE, the Python package follows the ctest run:
# `pip install .` of the repository into a fresh virtual environment of Debian's
# /usr/bin/python3 (build/python-venv; pip fetches scikit-build-core, NumPy, pytest and
# Hypothesis from PyPI), `import ozblas` there, and its pytest suite (python/tests).
# OZBLAS_SANITIZE=1 builds with AddressSanitizer + UndefinedBehaviorSanitizer instead.
# Labels (ctest -L): unit, routines, properties, backends, emulated, interposer, install, mpi.
set -euo pipefail
cd "$(dirname "$0")/.."
sel=(-LE emulated); python=1; ctests=1
case "${1:-}" in
  "") ;;
  --emulated) sel=(-L emulated); python=0 ;;
  --all) sel=() ;;
  --python) ctests=0 ;;
  *) echo "usage: bash scripts/test.sh [--emulated|--all|--python]" >&2; exit 2 ;;
esac
bash scripts/deps.sh
dir=build; san=OFF
if [ "${OZBLAS_SANITIZE:-0}" = 1 ]; then dir=build-asan; san=ON; python=0; fi
if [ "$ctests" = 1 ]; then
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOZBLAS_WERROR=ON -DOZBLAS_SANITIZE=$san >/dev/null
  cmake --build "$dir" -j"$(nproc)"
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
  ctest --test-dir "$dir" -j"$(nproc)" --output-on-failure "${sel[@]}"
fi
if [ "$python" = 1 ]; then
  echo "== Python package: pip install . into a fresh venv, then pytest python/tests =="
  venv=$PWD/$dir/python-venv
  rm -rf "$venv"
  /usr/bin/python3 -m venv "$venv"
  # the wheel's CMake build compiles the library once more (2 jobs unless told otherwise)
  CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2} "$venv/bin/pip" install -q --disable-pip-version-check .
  "$venv/bin/pip" install -q --disable-pip-version-check pytest hypothesis
  got=$(cd / && "$venv/bin/python" -c "import ozblas; print(ozblas.dot([1e16, 1, -1e16], [1 + 2**-52, 1, 1], mode='cr'))")
  [ "$got" = 3.220446049250313 ] || { echo "FAIL: import ozblas in the venv: ozblas.dot gave '$got'" >&2; exit 1; }
  echo "import ozblas in a fresh venv: ozblas.dot(...) = $got"
  rc=0
  HYPOTHESIS_STORAGE_DIRECTORY=$PWD/$dir/hypothesis "$venv/bin/python" -m pytest -q -rs -p no:cacheprovider python/tests || rc=$?
  if [ "$rc" = 5 ]; then echo "FAIL: pytest collected no tests" >&2; exit 1; fi
  exit "$rc"
fi
