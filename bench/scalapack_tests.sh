#!/usr/bin/env bash
# ScaLAPACK's own Level 2 and Level 3 PBLAS testers (Debian scalapack-mpi-test, its OpenMPI
# build) run plainly and under the interposer: every test must pass as without it, and the log
# says how many of their pdgemv_ / pdgemm_ calls ozblas served (the error-exit tests' invalid
# calls go to ScaLAPACK, which reports them).  Installs the package (it brings MPICH's build beside it).
#   bash bench/scalapack_tests.sh [BUILD_DIR] [MODE]
set -euo pipefail
build=${1:-build} mode=${2:-correctly_rounded}
pre=$(readlink -f "$build/src/preload/libozblas_preload.so")
dir=/usr/lib/x86_64-linux-gnu/scalapack/openmpi-tests/PBLAS
[ -x "$dir/dpb3tst" ] || bash "$(dirname "$0")/../scripts/deps.sh" scalapack-mpi-test scalapack-test-common
tmp=$(mktemp -d /tmp/ozblas-pblas.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 OMP_NUM_THREADS=1
summary() { sed -n '/Testing Summary/,/End of Tests/p' "$1" | grep '|'; }
fail=0
for lv in 2 3; do
  cp "/usr/share/scalapack/PBLAS/PDBLAS${lv}TST.dat" .
  routine=$([ $lv = 2 ] && echo pdgemv_ || echo pdgemm_)
  mpirun -np 8 "$dir/dpb${lv}tst" > plain$lv.out 2>&1
  mpirun -np 8 -x LD_PRELOAD="$pre" -x OZBLAS_PRELOAD_MODE="$mode" -x OZBLAS_PRELOAD_VERBOSE=1 -x OZBLAS_PRELOAD_THREADS=1 \
    "$dir/dpb${lv}tst" > oz$lv.out 2> oz$lv.err
  echo "== dpb${lv}tst (8 processes), plain | under the interposer ($mode) =="
  paste -d'|' <(summary plain$lv.out) <(summary oz$lv.out)
  echo "$routine calls served by ozblas: $(grep -c "$routine.*-> ozblas" oz$lv.err || true); sent to ScaLAPACK (invalid arguments, the error-exit tests): $(grep -c "$routine.*-> ScaLAPACK" oz$lv.err || true)"
  if diff <(summary plain$lv.out) <(summary oz$lv.out) >/dev/null && [ -n "$(summary oz$lv.out)" ]; then echo "ok: the same tests pass"; else echo "FAIL: the summaries differ"; fail=1; fi
done
exit $fail
