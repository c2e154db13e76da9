#!/usr/bin/env bash
# NumPy's own test suite (Debian's python3-numpy, `-m "not slow"`, numpy/typing left out: it
# fails to collect without mypy) with and without the interposer: wall time and the
# pytest summary in each configuration, and the tests whose outcome differs from the plain
# run, so a slowdown and any change in what passes show side by side.  A benchmark, not a
# unit test.
#   bash bench/numpy_tests.sh [build-dir] [modes] [timeout-s]   (modes: "double cr", default)
# prints a markdown table; each run is time-boxed (default 900 s; about 2.5 min each on 2 cores).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
B=${1:-build}
modes=${2:-double cr}
tmo=${3:-900}
pre="$PWD/$B/src/preload/libozblas_preload.so"
[ -f "$pre" ] || { echo "no $pre: build first" >&2; exit 2; }
dpkg -s python3-numpy python3-pytest python3-hypothesis bc >/dev/null 2>&1 ||
  bash scripts/deps.sh python3-numpy python3-pytest python3-hypothesis bc >&2
PY=/usr/bin/python3          # Debian's interpreter, whose numpy is the one under test
NP=$($PY -c 'import numpy, os; print(os.path.dirname(numpy.__file__))')
rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
work=$(mktemp -d)
cd "$work" || exit 2
feat=$(grep -o -w -E 'avx2|fma|avx512f|avx512bw|avx512_vnni|avx_vnni|amx_int8' /proc/cpuinfo | sort -u | tr '\n' ' ')
echo "# NumPy's test suite under the ozblas interposer"
echo
echo "- date: $(date -u +%Y-%m-%dT%H:%MZ); machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores"
echo "- CPU features (of avx2 fma avx512f avx512bw avx512_vnni avx_vnni amx_int8): ${feat:-none}"
echo "- python3-numpy $(dpkg-query -W -f='${Version}' python3-numpy), pytest $(dpkg-query -W -f='${Version}' python3-pytest), ozblas $rev"
echo "- command: \`$PY -m pytest -q -p no:cacheprovider -rs -m 'not slow' --ignore=$NP/typing $NP\`, plain and with LD_PRELOAD=libozblas_preload.so OZBLAS_PRELOAD_MODE=<mode>"
echo
echo "| run | wall s | passed | skipped | failed | xfailed | xpassed | ratio |"
echo "|---|---|---|---|---|---|---|---|"
one() {   # mode -> table row; log in out.<mode>
  local mode=$1 out="out.$1"
  local t0=$(date +%s.%N)
  if [ "$mode" = none ]; then timeout "$tmo" $PY -m pytest -q -p no:cacheprovider -rs -m 'not slow' --ignore="$NP/typing" "$NP" > "$out" 2>&1
  else LD_PRELOAD="$pre" OZBLAS_PRELOAD_MODE=$([ "$mode" = cr ] && echo correctly_rounded || echo "$mode") \
         timeout "$tmo" $PY -m pytest -q -p no:cacheprovider -rs -m 'not slow' --ignore="$NP/typing" "$NP" > "$out" 2>&1; fi
  local rc=$? t1=$(date +%s.%N)
  local s=$(grep -a -E '[0-9]+ passed' "$out" | tail -1)
  num() { echo "$s" | grep -o -E "[0-9]+ $1" | grep -o -E '^[0-9]+' || echo 0; }
  local secs; secs=$(printf "%.1f" "$(echo "$t1 - $t0" | bc)")
  [ $rc = 124 ] && s="timeout"
  echo "$secs $(num passed) $(num skipped) $(num failed) $(num xfailed) $(num xpassed)"
}
read -r t0 p0 s0 f0 x0 xp0 <<< "$(one none)"
echo "| none | $t0 | $p0 | $s0 | $f0 | $x0 | $xp0 | 1.00x |"
for m in $modes; do
  read -r t p s f x xp <<< "$(one "$m")"
  echo "| $m | $t | $p | $s | $f | $x | $xp | $(echo "scale=2; $t / $t0" | bc)x |"
done
echo
for m in $modes; do
  d=$(diff <(grep -a -E '^(SKIPPED|FAILED)' out.none | sed 's/\[[0-9]*\] //' | sort) \
           <(grep -a -E '^(SKIPPED|FAILED)' "out.$m" | sed 's/\[[0-9]*\] //' | sort) | grep -E '^[<>]' || true)
  echo "- $m, outcomes that differ from the plain run (< plain only, > $m only): ${d:-none}"
done
rm -rf "$work"
