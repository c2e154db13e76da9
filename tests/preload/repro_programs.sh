#!/usr/bin/env bash
# ozblas_run_repro: whole programs are reproducible under ozblas-run.  A C program calling
# LAPACK's drivers (lapack_drivers: dgesv, dposv, dsyev, dgeqrf+dormqr+dtrtrs, dgesvd) and
# NumPy's (np_drivers.py: A @ A.T, A @ B, solve, cholesky, eigh, svd, lstsq, qr, inv, det) run
# under every OpenBLAS kernel family (OPENBLAS_CORETYPE Haswell, SkylakeX, Zen) on 1 and 2
# threads; in CR and in DOUBLE every output must have one hash across the six.  The plain runs
# (no ozblas) are printed beside them, not asserted (their count is OpenBLAS's business).
#   repro_programs.sh OZBLAS_RUN LAPACK_DRIVERS [N]
set -euo pipefail
run=$1 cprog=$2 n=${3:-300}
py=/usr/bin/python3
here=$(cd "$(dirname "$0")" && pwd)
"$py" -c 'import numpy' 2>/dev/null || { echo "FAIL: $py has no numpy (scripts/deps.sh installs python3-numpy)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# distinct hashes per output over the six configurations of one runner
count() {
  local tag=$1; shift
  for core in Haswell SkylakeX Zen; do
    for t in 1 2; do
      OPENBLAS_CORETYPE=$core OPENBLAS_NUM_THREADS=$t OMP_NUM_THREADS=$t "$@" > "$tmp/$tag.$core.$t"
    done
  done
  cat "$tmp/$tag".* | sort -u | awk '{c[$1]++} END {for (k in c) print k, c[k]}' | sort
}
fails=0
for prog in c numpy; do
  if [ $prog = c ]; then cmd=("$cprog" "$n"); else cmd=("$py" "$here/np_drivers.py" "$n"); fi
  plain=$(count "$prog.plain" "${cmd[@]}")
  for mode in cr double; do
    got=$(count "$prog.$mode" "$run" --mode $mode "${cmd[@]}")
    echo "$prog n=$n, distinct results per output over 3 kernels x 2 thread counts: plain / ozblas-run --mode $mode"
    join <(echo "$plain") <(echo "$got") | awk '{printf "  %-12s %s / %s\n", $1, $2, $3}'
    bad=$(echo "$got" | awk '$2 != 1' | wc -l)
    [ "$(echo "$got" | wc -l)" -ge 5 ] || { echo "FAIL: $prog printed too few outputs"; fails=$((fails + 1)); }
    [ "$bad" -eq 0 ] || { echo "FAIL: $prog --mode $mode: $bad outputs differ across kernels or threads"; fails=$((fails + 1)); }
  done
done
[ $fails -eq 0 ] && echo "PASS: one result per output in CR and DOUBLE"
exit $((fails > 0))
