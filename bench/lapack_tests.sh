#!/usr/bin/env bash
# LAPACK's own double-precision test programs (Debian liblapack-test 3.11) plain and under
# ozblas-run (the interposer and Debian's reference LAPACK, so that every BLAS call LAPACK makes
# reaches ozblas): time and the tests passed/failed in each configuration, so a slowdown and any
# change in what passes show side by side.  A benchmark, not a unit test.
#   bash bench/lapack_tests.sh [build-dir] [modes] [timeout-s] [rounds]
# (modes: "double cr", default; rounds: 3).  Each round runs every program plain and then in
# each mode, so the configurations of one program are interleaved and a slow phase of the
# machine falls on all of them; a program's time is the median over the rounds (its range
# beside it), and the total the sum of the medians.  Prints a markdown table; each program run
# is time-boxed (default 900 s).
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}
modes=${2:-double cr}
tmo=${3:-900}
rounds=${4:-3}
run="$PWD/$B/ozblas-run"
[ -x "$run" ] || { echo "no $run: build first" >&2; exit 2; }
dpkg -s liblapack-test bc >/dev/null 2>&1 || bash scripts/deps.sh liblapack-test bc
L=/usr/lib/x86_64-linux-gnu/lapack
work=$(mktemp -d)
cp "$L"/*.in "$work"/
cd "$work"
runs=("xlintstd dtest.in" "xeigtstd svd.in" "xeigtstd nep.in" "xeigtstd sep.in" "xeigtstd dec.in" "xeigtstd ded.in" "xeigtstd dgd.in")
feat=$(grep -o -w -E 'avx2|fma|avx512f|avx512bw|avx512_vnni|avx_vnni|amx_int8' /proc/cpuinfo | sort -u | tr '\n' ' ')
echo "# LAPACK test programs under ozblas-run"
echo
echo "- date: $(date -u +%Y-%m-%dT%H:%MZ); machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores"
echo "- CPU features (of avx2 fma avx512f avx512bw avx512_vnni avx_vnni amx_int8): ${feat:-none}"
echo "- liblapack-test $(dpkg-query -W -f='${Version}' liblapack-test), ozblas $(cd - >/dev/null && git rev-parse --short HEAD 2>/dev/null)"
echo "- time: wall seconds of the program, median (min-max) over $rounds interleaved rounds; pass/fail: its summary lines 'passed the threshold' / 'failed to pass the threshold'"
echo
echo "| program, input | none: s, pass/fail | $(for m in $modes; do printf '%s: s, pass/fail, ratio | ' "$m"; done)"
echo "|---|---|$(for m in $modes; do printf -- '---|'; done)"
declare -A tot
one() {   # mode prog input -> "seconds pass fail"
  local mode=$1 prog=$2 in=$3 out="out.$1.$2.$3"
  local t0=$(date +%s.%N)
  if [ "$mode" = none ]; then timeout "$tmo" "$L/$prog" < "$in" > "$out" 2>&1
  else "$run" --mode "$mode" timeout "$tmo" "$L/$prog" < "$in" > "$out" 2>&1; fi
  local rc=$? t1=$(date +%s.%N)
  local p=$(grep -c 'passed the threshold' "$out") f=$(grep -c -E 'failed to pass|failed the threshold' "$out")
  [ $rc = 124 ] && f="timeout"
  echo "$(echo "$t1 - $t0" | bc) $p $f"
}
med() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END{printf "%.2f %.2f %.2f", v[int((NR+1)/2)], v[1], v[NR]}'; }
declare -A T PF
for ((q = 0; q < rounds; q++)); do
  for r in "${runs[@]}"; do
    set -- $r
    for m in none $modes; do
      read -r t p f <<< "$(one "$m" "$1" "$2")"
      T[$m,$1,$2]="${T[$m,$1,$2]:-} $t"
      # the pass/fail counts of every round must agree; a differing one is shown
      [ -n "${PF[$m,$1,$2]:-}" ] && [ "${PF[$m,$1,$2]}" != "$p/$f" ] && f="$f(differs)"
      PF[$m,$1,$2]="$p/$f"
    done
  done
done
for r in "${runs[@]}"; do
  set -- $r
  read -r t0 lo0 hi0 <<< "$(med ${T[none,$1,$2]})"
  tot[none]=$(echo "${tot[none]:-0} + $t0" | bc)
  row="| $1 < $2 | $t0 ($lo0-$hi0), ${PF[none,$1,$2]} |"
  for m in $modes; do
    read -r t lo hi <<< "$(med ${T[$m,$1,$2]})"
    tot[$m]=$(echo "${tot[$m]:-0} + $t" | bc)
    row="$row $t ($lo-$hi), ${PF[$m,$1,$2]}, $(echo "scale=2; $t / $t0" | bc)x |"
  done
  echo "$row"
done
row="| **total** (sum of medians) | $(printf '%.2f' "${tot[none]}") |"
for m in $modes; do row="$row $(printf '%.2f' "${tot[$m]}"), $(echo "scale=2; ${tot[$m]} / ${tot[none]}" | bc)x |"; done
echo "$row"
rm -rf "$work"
