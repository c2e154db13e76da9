#!/usr/bin/env bash
# preload_scalapack: an unchanged ScaLAPACK program (scalapack_client: MPI and ScaLAPACK only)
# under LD_PRELOAD=libozblas_preload.so on 1 to 4 processes, grids 1x1 2x1 1x3 2x2 and blocks
# 1, 7, 64: its C must be, bit for bit, ozblas_dgemm's on one process (pblas_single), in each
# mode, and every process must report its pdgemm_ and pdgemv_ (N and T) served by ozblas.
#   run_scalapack.sh MPIEXEC CLIENT SINGLE PRELOAD
set -euo pipefail
mpiexec=$1 client=$2 single=$3 pre=$4
tmp=$(mktemp -d /tmp/ozblas-scalapack.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 OMP_NUM_THREADS=1
for mode in correctly_rounded double fixed; do
  "$single" "$mode" "$tmp/ref"
  for run in "1 1 1 7" "2 2 1 1" "3 1 3 64" "4 2 2 7"; do
    set -- $run
    np=$1 pr=$2 pc=$3 nb=$4
    "$mpiexec" -np "$np" -x LD_PRELOAD="$pre" -x OZBLAS_PRELOAD_MODE="$mode" -x OZBLAS_PRELOAD_VERBOSE=1 \
      -x OZBLAS_PRELOAD_THREADS=1 -x ASAN_OPTIONS=detect_leaks=0 \
      "$client" "$pr" "$pc" "$nb" "$tmp/out" 2> "$tmp/err" || { cat "$tmp/err"; echo "FAIL: the client failed"; exit 1; }
    served=$(grep -c 'pdgemm_ NN m=53 n=41 k=67 -> ozblas' "$tmp/err" || true)
    [ "$served" = "$np" ] || { cat "$tmp/err"; echo "FAIL: $served of $np processes report pdgemm_ served by ozblas ($mode, grid ${pr}x$pc)"; exit 1; }
    gemv=$(grep -c 'pdgemv_ [NT] m=53 n=67 -> ozblas' "$tmp/err" || true)
    [ "$gemv" = "$((2 * np))" ] || { cat "$tmp/err"; echo "FAIL: $gemv of $((2 * np)) pdgemv_ calls served by ozblas ($mode, grid ${pr}x$pc)"; exit 1; }
    cmp -s "$tmp/out" "$tmp/ref" || { echo "FAIL: $mode, grid ${pr}x$pc, nb $nb: C, y or w differs from the single-node bits"; exit 1; }
    echo "ok: $mode, $np processes, grid ${pr}x$pc, nb $nb: the single-node bits"
  done
done
