#!/usr/bin/env bash
# ozblas_blas_alternative: the libblas.so.3 ozblas installs as an alternative
# (build/blas-alternative/libblas.so.3) serves a program linked against libblas.so.3 and
# liblapack.so.3 with no preload: found first on LD_LIBRARY_PATH beside the reference LAPACK
# (what scripts/blas-alternative.sh selects system-wide), LAPACK's drivers from C and NumPy give
# one result per output across OpenBLAS's kernel families this CPU runs (cores.sh) and 1/2
# threads, every run exiting 0 with every output, and ozblas computed
# the BLAS calls.  The system's alternatives are not touched.
#   blas_alternative.sh BLAS_ALT_DIR LAPACK_DRIVERS
set -euo pipefail
alt=$1 cprog=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cores.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ln -s "$alt/libblas.so.3" "$tmp/libblas.so.3"
ln -s /usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3 "$tmp/liblapack.so.3"
export LD_LIBRARY_PATH="$tmp${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fails=0
# (ldd's output captured first: with pipefail, grep -q closing the pipe early can fail ldd)
deps=$(ldd "$cprog")
grep -q "libblas.so.3 => $tmp" <<< "$deps" || { echo "FAIL: $cprog does not load the alternative"; echo "$deps"; fails=$((fails + 1)); }
for core in "${CORES[@]}"; do
  for t in 1 2; do
    OPENBLAS_CORETYPE=$core OPENBLAS_NUM_THREADS=$t OMP_NUM_THREADS=$t "$cprog" > "$tmp/out.$core.$t" ||
      { echo "FAIL: the C drivers under $core on $t thread(s) exited $?"; fails=$((fails + 1)); }
    OPENBLAS_CORETYPE=$core OPENBLAS_NUM_THREADS=$t OMP_NUM_THREADS=$t /usr/bin/python3 "$here/np_drivers.py" >> "$tmp/out.$core.$t" ||
      { echo "FAIL: NumPy's drivers under $core on $t thread(s) exited $?"; fails=$((fails + 1)); }
  done
done
bad=$(cat "$tmp"/out.* | sort -u | awk '{c[$1]++} END {for (k in c) if (c[k] != 1) print k}')
n=$(cat "$tmp"/out.Zen.1 | wc -l)
for f in "$tmp"/out.*; do
  [ "$(wc -l < "$f")" -eq "$n" ] || { echo "FAIL: ${f##*/out.} printed $(wc -l < "$f") outputs, not $n"; fails=$((fails + 1)); }
done
echo "outputs: $n, differing across kernels and threads: ${bad:-none}"
[ -z "$bad" ] && [ "$n" -ge 15 ] || { echo "FAIL: not one result per output"; fails=$((fails + 1)); }
served=$(OZBLAS_PRELOAD_VERBOSE=1 "$cprog" 2>&1 >/dev/null | grep -c -- "-> ozblas$" || true)
echo "BLAS calls ozblas computed in the C drivers: $served"
[ "$served" -gt 100 ] || { echo "FAIL: ozblas served too few calls"; fails=$((fails + 1)); }
[ $fails -eq 0 ] && echo "PASS"
exit $((fails > 0))
