#!/usr/bin/env bash
# preload_numpy: Debian's NumPy (/usr/bin/python3, system BLAS) under libozblas_preload.so.
#   run_numpy.sh PRELOAD_SO SANITIZED
# 1. without the interposer the ill-conditioned dot and matmul give the naive answer;
# 2. with it (default mode CORRECTLY_ROUNDED) A @ B, A @ v, np.dot are correctly rounded
#    (exact Fraction references) and the calls were intercepted (verbose lines);
# 3. the same results, bit for bit, under OPENBLAS_NUM_THREADS=1 and =2;
# 4. 8 Python threads calling NumPy at once on mixed data get the bits of each call alone.
set -euo pipefail
so=$1 san=${2:-0}
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3        # Debian's python: the one with Debian's numpy on the system BLAS
# sanitized build: PRELOAD is "libasan.so:libozblas_preload.so"; leaks of the uninstrumented
# client are not ours (the C tests check the interposer's)
if [ "$san" = 1 ]; then export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"; fi
"$py" -c 'import numpy' 2>/dev/null || { echo "FAIL: $py has no numpy (install python3-numpy: scripts/deps.sh)"; exit 1; }
tmp=$(mktemp -d /tmp/ozblas-numpy.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
unset OZBLAS_PRELOAD_MODE OZBLAS_PRELOAD_MIN_SIZE OZBLAS_PRELOAD_FORMAT OZBLAS_PRELOAD_SPLIT OZBLAS_PRELOAD_FAST

echo "== NumPy without the interposer =="
env -u LD_PRELOAD "$py" "$here/numpy_client.py" naive

for t in 1 2; do
  echo "== NumPy with LD_PRELOAD=libozblas_preload.so, OPENBLAS_NUM_THREADS=$t =="
  LD_PRELOAD=$so OZBLAS_PRELOAD_VERBOSE=1 OPENBLAS_NUM_THREADS=$t OMP_NUM_THREADS=$t \
    "$py" "$here/numpy_client.py" compute >"$tmp/out$t" 2>"$tmp/err$t"
  cat "$tmp/out$t"
  for call in "cblas_dgemm RowMajor NN m=23 n=19 k=17" "cblas_dgemm RowMajor NN m=300 n=280 k=256" \
              "cblas_dgemv" "cblas_ddot n=3 " "cblas_ddot n=100000"; do
    grep -q "ozblas_preload: $call.*-> ozblas$" "$tmp/err$t" || {
      echo "FAIL: no verbose line '$call ... -> ozblas'"; cat "$tmp/err$t"; exit 1; }
  done
  if grep -q -- "-> real BLAS" "$tmp/err$t"; then echo "FAIL: a call went to the real BLAS"; cat "$tmp/err$t"; exit 1; fi
  echo "intercepted: $(grep -c '^ozblas_preload: ' "$tmp/err$t") calls"
done
if ! cmp -s "$tmp/out1" "$tmp/out2"; then
  echo "FAIL: results differ between OPENBLAS_NUM_THREADS=1 and 2"; diff "$tmp/out1" "$tmp/out2"; exit 1
fi
for mode in correctly_rounded double fixed; do
  echo "== NumPy, 8 Python threads at once, OZBLAS_PRELOAD_MODE=$mode =="
  LD_PRELOAD=$so OZBLAS_PRELOAD_MODE=$mode "$py" "$here/numpy_client.py" threads || {
    echo "FAIL: concurrent NumPy calls gave other bits than the same calls alone ($mode)"; exit 1; }
done
echo "preload_numpy: correctly rounded, intercepted, bitwise identical for 1 and 2 threads"
