#!/usr/bin/env bash
# preload_fortran: a gfortran program linked against the system BLAS (-lblas) calling dgemm_,
# dgemv_, ddot_, run under libozblas_preload.so.
#   run_fortran.sh PRELOAD_SO SANITIZED
# Without the interposer the ill-conditioned case is wrong; with it every result is the
# correctly rounded one, the calls were intercepted, and the bits are the same under
# OPENBLAS_NUM_THREADS=1 and =2.
set -euo pipefail
so=$1 san=${2:-0}
here=$(cd "$(dirname "$0")" && pwd)
# sanitized build: PRELOAD is "libasan.so:libozblas_preload.so"; leaks of the uninstrumented
# client are not ours (the C tests check the interposer's)
if [ "$san" = 1 ]; then export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"; fi
command -v gfortran >/dev/null || { echo "FAIL: gfortran not installed (scripts/deps.sh)"; exit 1; }
tmp=$(mktemp -d /tmp/ozblas-fortran.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
unset OZBLAS_PRELOAD_MODE OZBLAS_PRELOAD_MIN_SIZE OZBLAS_PRELOAD_FORMAT OZBLAS_PRELOAD_SPLIT OZBLAS_PRELOAD_FAST
gfortran -O2 -o "$tmp/client" "$here/fortran_client.f90" -lblas

echo "== without the interposer =="
if env -u LD_PRELOAD "$tmp/client"; then echo "FAIL: the plain BLAS was exact: the demonstration case is wrong"; exit 1; fi
for t in 1 2; do
  echo "== LD_PRELOAD=libozblas_preload.so, OPENBLAS_NUM_THREADS=$t =="
  LD_PRELOAD=$so OZBLAS_PRELOAD_VERBOSE=1 OPENBLAS_NUM_THREADS=$t OMP_NUM_THREADS=$t "$tmp/client" >"$tmp/out$t" 2>"$tmp/err$t" \
    || { cat "$tmp/out$t" "$tmp/err$t"; exit 1; }
  cat "$tmp/out$t"
  for call in "ddot_ n=3 " "dgemv_ N m=2 n=3" "dgemm_ NN m=2 n=2 k=3" "dgemm_ TT m=2 n=2 k=3" \
              "dgemm_ NT m=200 n=200 k=200" "dgemv_ T m=200 n=200" "ddot_ n=200"; do
    grep -q "ozblas_preload: $call.*-> ozblas$" "$tmp/err$t" || { echo "FAIL: no line '$call ... -> ozblas'"; cat "$tmp/err$t"; exit 1; }
  done
  echo "intercepted: $(grep -c '^ozblas_preload: ' "$tmp/err$t") calls"
done
cmp -s "$tmp/out1" "$tmp/out2" || { echo "FAIL: results differ between 1 and 2 threads"; diff "$tmp/out1" "$tmp/out2"; exit 1; }
echo "preload_fortran: correctly rounded, intercepted, bitwise identical for 1 and 2 threads"
