#!/usr/bin/env bash
# NumPy's and SciPy's linalg test suites (Debian's python3-numpy, python3-scipy) plain and under
# ozblas-run (cr, double): wall time, the pytest summary, and every test whose outcome differs
# from the plain run.  A benchmark, not a unit test.
#   bash bench/linalg_suites.sh [build-dir] [modes] [timeout-s]
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
B=${1:-build}
modes=${2:-cr double}
tmo=${3:-1800}
run="$PWD/$B/ozblas-run"
[ -x "$run" ] || { echo "no $run: build first" >&2; exit 2; }
dpkg -s python3-numpy python3-scipy python3-pytest python3-hypothesis >/dev/null 2>&1 ||
  bash scripts/deps.sh python3-numpy python3-scipy python3-pytest python3-hypothesis >&2
PY=/usr/bin/python3
NP=$($PY -c 'import numpy, os; print(os.path.dirname(numpy.__file__))')
SP=$($PY -c 'import scipy, os; print(os.path.dirname(scipy.__file__))')
work=$(mktemp -d)
cd "$work" || exit 2
echo "# NumPy's and SciPy's linalg test suites under ozblas-run"
echo
echo "- date: $(date -u +%Y-%m-%dT%H:%MZ); machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores"
echo "- numpy $($PY -c 'import numpy; print(numpy.__version__)'), scipy $($PY -c 'import scipy; print(scipy.__version__)'), ozblas $(cd - >/dev/null && git rev-parse --short HEAD)"
echo "- command: \`$PY -m pytest -q -p no:cacheprovider -rN --junitxml=... SUITE\`"
echo
echo "| suite | config | seconds | summary | outcomes differing from plain |"
echo "|---|---|---|---|---|"
outcomes() {   # junit xml -> "test outcome" lines
  $PY - "$1" <<'PYEOF'
import sys, xml.etree.ElementTree as ET
for tc in ET.parse(sys.argv[1]).iter("testcase"):
    o = "passed"
    for c in tc:
        if c.tag in ("failure", "error", "skipped"): o = c.tag
    print(f'{tc.get("classname")}::{tc.get("name")} {o}')
PYEOF
}
for suite in "$NP/linalg/tests" "$SP/linalg/tests"; do
  name=$(basename "$(dirname "$(dirname "$suite")")")/linalg
  for cfg in plain $modes; do
    t0=$(date +%s.%N)
    if [ "$cfg" = plain ]; then timeout "$tmo" $PY -m pytest -q -p no:cacheprovider --junitxml=$cfg.xml "$suite" > $cfg.log 2>&1
    else timeout "$tmo" "$run" --mode "$cfg" $PY -m pytest -q -p no:cacheprovider --junitxml=$cfg.xml "$suite" > $cfg.log 2>&1; fi
    t1=$(date +%s.%N)
    outcomes $cfg.xml | sort > $cfg.out 2>/dev/null
    diffs=$( [ "$cfg" = plain ] && echo "-" || (diff <(cat plain.out) <(cat $cfg.out) | grep '^>' | sed 's/^> //' | head -20 | tr '\n' ';'))
    printf '| %s | %s | %.0f | %s | %s |\n' "$name" "$cfg" "$(echo "$t1 - $t0" | bc)" "$(tail -1 $cfg.log)" "${diffs:-none}"
  done
done
rm -rf "$work"
