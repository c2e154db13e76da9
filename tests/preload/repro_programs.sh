#!/usr/bin/env bash
# ozblas_run_repro: whole programs are reproducible under ozblas-run.  A C program calling
# LAPACK's drivers (lapack_drivers: dgesv, dposv, dsyev, dgeqrf+dormqr+dtrtrs, dgesvd) and
# NumPy's (np_drivers.py: A @ A.T, A @ B, solve, cholesky, eigh, svd, lstsq, qr, inv, det) run
# under every OpenBLAS kernel family this CPU runs (OPENBLAS_CORETYPE Haswell, Zen and, with
# AVX-512, SkylakeX: cores.sh) on 1 and 2 threads; every run must exit 0 and print every
# output, and in CR and in DOUBLE every output must have one hash across the runs.  The plain runs
# (no ozblas) are printed beside them, not asserted (their count is OpenBLAS's business).
#   repro_programs.sh OZBLAS_RUN LAPACK_DRIVERS [N]
set -euo pipefail
run=$1 cprog=$2 n=${3:-300}
py=/usr/bin/python3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cores.sh"
"$py" -c 'import numpy' 2>/dev/null || { echo "FAIL: $py has no numpy (scripts/deps.sh installs python3-numpy)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# distinct hashes per output over the configurations of one runner; a run that fails or
# prints fewer outputs than the first is a failure (a lost configuration would otherwise pass)
count() {
  local tag=$1; shift
  local lines=""
  for core in "${CORES[@]}"; do
    for t in 1 2; do
      OPENBLAS_CORETYPE=$core OPENBLAS_NUM_THREADS=$t OMP_NUM_THREADS=$t "$@" > "$tmp/$tag.$core.$t" ||
        echo "RUNFAIL $tag $core $t"
      local got; got=$(wc -l < "$tmp/$tag.$core.$t")
      [ -z "$lines" ] && lines=$got
      [ "$got" -eq "$lines" ] || echo "RUNFAIL $tag $core $t printed $got outputs, not $lines"
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
    echo "$prog n=$n, distinct results per output over kernels ${CORES[*]} x threads 1, 2: plain / ozblas-run --mode $mode"
    join <(grep -v '^RUNFAIL' <<< "$plain" || true) <(grep -v '^RUNFAIL' <<< "$got" || true) | awk '{printf "  %-12s %s / %s\n", $1, $2, $3}'
    grep '^RUNFAIL' <<< "$plain" | sed 's/^/  (plain, not asserted) /' || true
    if grep -q '^RUNFAIL' <<< "$got"; then
      grep '^RUNFAIL' <<< "$got" | sed 's/^/FAIL: /'
      fails=$((fails + 1))
      got=$(grep -v '^RUNFAIL' <<< "$got" || true)
    fi
    bad=$(echo "$got" | awk '$2 != 1' | wc -l)
    [ "$(echo "$got" | wc -l)" -ge 5 ] || { echo "FAIL: $prog printed too few outputs"; fails=$((fails + 1)); }
    [ "$bad" -eq 0 ] || { echo "FAIL: $prog --mode $mode: $bad outputs differ across kernels or threads"; fails=$((fails + 1)); }
  done
done
[ $fails -eq 0 ] && echo "PASS: one result per output in CR and DOUBLE"
exit $((fails > 0))
