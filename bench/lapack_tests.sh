#!/usr/bin/env bash
# LAPACK's own double-precision test programs (Debian liblapack-test 3.11) plain and under
# ozblas-run (the interposer and Debian's reference LAPACK, so that every BLAS call LAPACK makes
# reaches ozblas): total time and the tests passed/failed in each configuration, so a slowdown
# and any change in what passes show side by side.  A benchmark, not a unit test.
#   bash bench/lapack_tests.sh [build-dir] [modes] [timeout-s]   (modes: "double cr", default)
# prints a markdown table; each program run is time-boxed (default 900 s).
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}
modes=${2:-double cr}
tmo=${3:-900}
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
echo "- time: wall seconds of the program; pass/fail: its summary lines 'passed the threshold' / 'failed to pass the threshold'"
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
for r in "${runs[@]}"; do
  set -- $r
  read -r t0 p0 f0 <<< "$(one none "$1" "$2")"
  tot[none]=$(echo "${tot[none]:-0} + $t0" | bc)
  row="| $1 < $2 | $(printf '%.1f' "$t0"), $p0/$f0 |"
  for m in $modes; do
    read -r t p f <<< "$(one "$m" "$1" "$2")"
    tot[$m]=$(echo "${tot[$m]:-0} + $t" | bc)
    row="$row $(printf '%.1f' "$t"), $p/$f, $(echo "scale=1; $t / $t0" | bc)x |"
  done
  echo "$row"
done
row="| **total** | $(printf '%.1f' "${tot[none]}") |"
for m in $modes; do row="$row $(printf '%.1f' "${tot[$m]}"), $(echo "scale=1; ${tot[$m]} / ${tot[none]}" | bc)x |"; done
echo "$row"
rm -rf "$work"
