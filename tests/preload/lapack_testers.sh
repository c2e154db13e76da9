#!/usr/bin/env bash
# ozblas_run_lapack_testers: LAPACK's own double-precision test programs (Debian's
# liblapack-test: the linear solvers, SVD, eigenproblems, Sylvester and generalized problems)
# under ozblas-run in CORRECTLY_ROUNDED and DOUBLE, every BLAS call LAPACK makes going to
# ozblas: each program must end, report no test failing its threshold, and report as many
# groups passed as it does on plain OpenBLAS.  They exercise what unit tests rarely reach
# (matrices scaled toward underflow and overflow, residuals that cancel, every routine's
# arguments), as the wall-clock benchmark bench/lapack_tests.sh does.
#   lapack_testers.sh OZBLAS_RUN
set -uo pipefail
run=$(readlink -f "$1")
L=/usr/lib/x86_64-linux-gnu/lapack
[ -x "$L/xlintstd" ] && [ -x "$L/xeigtstd" ] || { echo "FAIL: no LAPACK test programs (install liblapack-test: scripts/deps.sh)"; exit 1; }
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
cp "$L"/*.in "$work"/
cd "$work"
# the programs' BLAS calls reach ozblas (else this would compare OpenBLAS with itself)
n=$("$run" --verbose "$L/xeigtstd" < nep.in 2>&1 >/dev/null | grep -c -- '-> ozblas')
[ "$n" -gt 0 ] || { echo "FAIL: xeigtstd < nep.in made no call through ozblas under ozblas-run"; exit 1; }
echo "xeigtstd < nep.in: $n BLAS calls computed by ozblas"
runs=("xlintstd dtest.in" "xeigtstd svd.in" "xeigtstd nep.in" "xeigtstd sep.in" "xeigtstd dec.in" "xeigtstd ded.in" "xeigtstd dgd.in")
fails=0 passes=0
for r in "${runs[@]}"; do
  set -- $r
  "$L/$1" < "$2" > "plain.$2" 2>&1 && grep -q 'End of tests' "plain.$2" || { echo "FAIL: $1 < $2 on plain OpenBLAS did not end"; exit 1; }
  want=$(grep -c 'passed the threshold' "plain.$2")
  for mode in cr double; do
    out="$mode.$2"
    "$run" --mode "$mode" "$L/$1" < "$2" > "$out" 2>&1
    rc=$?
    got=$(grep -c 'passed the threshold' "$out")
    bad=$(grep -E 'failed to pass|failed the threshold' "$out")
    if [ $rc -ne 0 ] || ! grep -q 'End of tests' "$out" || [ -n "$bad" ] || [ "$got" -ne "$want" ]; then
      echo "FAIL: $1 < $2 under ozblas-run --mode $mode: rc $rc, $got groups passed (plain OpenBLAS: $want)"
      [ -n "$bad" ] && echo "$bad" | head -10
      fails=$((fails + 1))
    else
      echo "ok: $1 < $2, $mode: $got groups passed, none failed"
      passes=$((passes + 1))
    fi
  done
done
echo "$passes passed, $fails failed"
exit $((fails > 0))
