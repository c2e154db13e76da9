#!/usr/bin/env bash
# Size sweep: ozblas against OpenBLAS at the sizes real programs call, on 1 and 2
# threads, DOUBLE and CORRECTLY_ROUNDED, for DDOT, DGEMV (N and T) and DGEMM; one CSV row
# per case (ozblas-bench --csv, medians of interleaved timed runs) and a plot of the ratio
# against the size for each routine and mode.
#   bash bench/sweep.sh [build-dir] [out-prefix] [processes]   (about 2-3 minutes per round on 2 cores)
# processes (default 1): every case measured in that many separate processes, each cell the
# median of their ratios (the table also gives their range).  The processes of a case run in
# separate rounds over the whole list, minutes apart: the VMs this project is measured on have
# slow phases lasting seconds that cost ozblas ~60 % and OpenBLAS ~20 %
# (bench/results/phases-avx512-2026-11-26.md), and a case's processes run back to back would
# all land in the same phase (as whole runs of neighbouring cases do: sweep-avx512-2026-11-26c)
# writes <out-prefix>.csv, <out-prefix>.png and <out-prefix>.md (default
# bench/results/sweep-<cpu>-<date>).  Timing: never run two measurements at once.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}/bench/ozblas-bench
feat=$(grep -o -w -E 'avx2|fma|avx512f|avx512bw|avx512_vnni|avx_vnni|amx_int8' /proc/cpuinfo | sort -u | tr '\n' ' ')
tag=$(echo "$feat" | grep -q avx512f && echo avx512 || echo avx2)
out=${2:-bench/results/sweep-$tag-$(date -u +%Y-%m-%d)}
procs=${3:-1}
[ -x "$B" ] || { echo "no $B: build first (bash scripts/demo.sh --help)" >&2; exit 2; }
dpkg -s python3-matplotlib >/dev/null 2>&1 || bash scripts/deps.sh python3-matplotlib
csv="$out.csv"
cases() {
  for t in 1 2; do
    for n in 100 316 1000 3162 10000 31623 100000; do echo "--routine dot --n $n --mode double,cr --threads $t"; done
    for tr in n t; do
      for n in 64 128 256 512 1024 2048; do echo "--routine gemv --n $n --trans $tr --mode double,cr --threads $t"; done
    done
    for n in 16 32 64 128 256 512; do echo "--routine gemm --n $n --mode double,cr --threads $t --reps 5"; done
    for n in 1024 2048; do echo "--routine gemm --n $n --mode double,cr --threads $t --reps 3 --warmup 1"; done
  done
}
first=1
{
  for _ in $(seq "$procs"); do
    while read -r -a args; do
      if [ $first = 1 ]; then "$B" --csv --no-check "${args[@]}"; first=0; else "$B" --csv --no-check "${args[@]}" | tail -n +2; fi
    done < <(cases)
  done
} > "$csv"
/usr/bin/python3 bench/plot_sweep.py "$csv" "$out.png" > "$out.md"
{
  echo
  echo "- date: $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "- machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB"
  echo "- CPU features (of avx2 fma avx512f avx512bw avx512_vnni avx_vnni amx_int8): ${feat:-none}"
  echo "- OpenBLAS: $(pkg-config --modversion openblas), ozblas $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "- command: \`bash bench/sweep.sh $*\`; data: \`$(basename "$csv")\`, plot: \`$(basename "$out.png")\`"
  echo "- every case in $procs process(es), one per round over the whole list; a cell is the median of their ratios"
} >> "$out.md"
echo "wrote $csv, $out.png, $out.md"
