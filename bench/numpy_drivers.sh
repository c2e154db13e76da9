#!/usr/bin/env bash
# NumPy's LAPACK drivers (solve, cholesky, eigh, svd, lstsq) at n = 300, 1000, 3000: plain
# (OpenBLAS with its own LAPACK) and under ozblas-run in CR and DOUBLE, interleaved (plain, cr,
# double, plain, ...), each time the best of the calls in one process, the median over the
# rounds.  Prints a markdown table of times and ratios; writes a CSV and a plot beside it.
#   bash bench/numpy_drivers.sh [build-dir] [rounds] [out-prefix]
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
B=${1:-build}
rounds=${2:-3}
out=${3:-bench/results/numpy-drivers-$(date -u +%Y-%m-%d)}
run="$PWD/$B/ozblas-run"
[ -x "$run" ] || { echo "no $run: build first" >&2; exit 2; }
bash scripts/deps.sh python3-matplotlib >&2 || exit 2   # the plot
PY=/usr/bin/python3
T="$PWD/bench/np_driver_time.py"
feat=$(grep -o -w -E 'avx2|fma|avx512f|avx512bw|avx512_vnni|avx_vnni|amx_int8' /proc/cpuinfo | sort -u | tr '\n' ' ')
echo "# NumPy's drivers: plain against ozblas-run"
echo
echo "- date: $(date -u +%Y-%m-%dT%H:%MZ); machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; ozblas $(git rev-parse --short HEAD)"
echo "- CPU features: ${feat:-none}; environment: ${OZB_ENV_NOTE:-default}"
echo "- each entry: median over $rounds interleaved rounds of the best of 3 calls (1 at n = 3000) in one process"
echo
echo "| driver | n | plain s | cr s | cr / plain | double s | double / plain |"
echo "|---|---|---|---|---|---|---|"
echo "driver,n,plain,cr,double" > "$out.csv"
med() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for n in ${SIZES:-300 1000 3000}; do
  reps=3; [ $n -ge 3000 ] && reps=1
  for d in solve cholesky eigh svd lstsq; do
    p=(); c=(); q=()
    for r in $(seq "$rounds"); do
      p+=("$($PY "$T" $d $n $reps)")
      c+=("$("$run" --mode cr $PY "$T" $d $n $reps)")
      q+=("$("$run" --mode double $PY "$T" $d $n $reps)")
    done
    mp=$(printf '%s\n' "${p[@]}" | med); mc=$(printf '%s\n' "${c[@]}" | med); mq=$(printf '%s\n' "${q[@]}" | med)
    printf '| %s | %d | %.4f | %.4f | %.2f | %.4f | %.2f |\n' $d $n "$mp" "$mc" "$(echo "$mc / $mp" | bc -l)" "$mq" "$(echo "$mq / $mp" | bc -l)"
    echo "$d,$n,$mp,$mc,$mq" >> "$out.csv"
  done
done
$PY - "$out.csv" "$out.png" <<'PYEOF' || echo "(no plot: matplotlib missing)"
import csv, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
rows = list(csv.DictReader(open(sys.argv[1])))
drivers = sorted({r["driver"] for r in rows}, key=["solve", "cholesky", "eigh", "svd", "lstsq"].index)
fig, axes = plt.subplots(1, len(drivers), figsize=(4 * len(drivers), 3.6))
for ax, d in zip(axes, drivers):
    rs = [r for r in rows if r["driver"] == d]
    ns = [int(r["n"]) for r in rs]
    for key, style in (("plain", "k-o"), ("cr", "r-s"), ("double", "b-^")):
        ax.loglog(ns, [float(r[key]) for r in rs], style, label=key if key == "plain" else "ozblas-run " + key)
    ax.set_title(d); ax.set_xlabel("n"); ax.grid(True, which="both", alpha=0.3)
axes[0].set_ylabel("seconds"); axes[0].legend(fontsize=8)
fig.tight_layout(); fig.savefig(sys.argv[2], dpi=90)
PYEOF
echo
echo "CSV: $out.csv; plot: $out.png"
