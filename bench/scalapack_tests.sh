#!/usr/bin/env bash
# ScaLAPACK's own Level 3 PBLAS tester (Debian scalapack-mpi-test, its OpenMPI build) run
# plainly and under the interposer: every test must pass as without it, and the log says how
# many of its pdgemm_ calls ozblas served (the error-exit tests' invalid calls go to
# ScaLAPACK, which reports them).  Installs the package (it brings MPICH's build beside it).
#   bash bench/scalapack_tests.sh [BUILD_DIR] [MODE]
set -euo pipefail
build=${1:-build} mode=${2:-correctly_rounded}
pre=$(readlink -f "$build/src/preload/libozblas_preload.so")
tester=/usr/lib/x86_64-linux-gnu/scalapack/openmpi-tests/PBLAS/dpb3tst
[ -x "$tester" ] || bash "$(dirname "$0")/../scripts/deps.sh" scalapack-mpi-test scalapack-test-common
tmp=$(mktemp -d /tmp/ozblas-pblas.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cp /usr/share/scalapack/PBLAS/PDBLAS3TST.dat "$tmp/"
cd "$tmp"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 OMP_NUM_THREADS=1
mpirun -np 8 "$tester" > plain.out 2>&1
mpirun -np 8 -x LD_PRELOAD="$pre" -x OZBLAS_PRELOAD_MODE="$mode" -x OZBLAS_PRELOAD_VERBOSE=1 -x OZBLAS_PRELOAD_THREADS=1 \
  "$tester" > oz.out 2> oz.err
summary() { sed -n '/Testing Summary/,/End of Tests/p' "$1" | grep '|'; }
echo "== dpb3tst (8 processes), plain | under the interposer ($mode) =="
paste -d'|' <(summary plain.out) <(summary oz.out)
echo "pdgemm_ calls served by ozblas: $(grep -c 'pdgemm_.*-> ozblas' oz.err || true); sent to ScaLAPACK (invalid arguments, the error-exit tests): $(grep -c 'pdgemm_.*-> ScaLAPACK' oz.err || true)"
if diff <(summary plain.out) <(summary oz.out) >/dev/null; then echo "ok: the same tests pass"; else echo "FAIL: the summaries differ"; exit 1; fi
