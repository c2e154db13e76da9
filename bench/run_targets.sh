#!/usr/bin/env bash
# Measures the issue targets on this machine and writes a results file:
#   bash bench/run_targets.sh [build-dir] [quick] > bench/results/<machine>-<date>.md
# (quick: the headline rows only, about five minutes on 2 cores)
# Every row is one ozblas-bench run: ozblas and OpenBLAS on the same inputs, same
# thread count, median of the timed repetitions, errors against exact MPFR references.
set -euo pipefail
B=${1:-build}/bench/ozblas-bench
echo "# ozblas-bench results"
echo
echo "- date: $(date -u +%Y-%m-%dT%H:%MZ)"
echo "- machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB"
feat=$(grep -o -w -E 'avx2|fma|avx512f|avx512bw|avx512_vnni|avx_vnni|amx_int8' /proc/cpuinfo | sort -u | tr '\n' ' ')
echo "- CPU features (of avx2 fma avx512f avx512bw avx512_vnni avx_vnni amx_int8): ${feat:-none}"
echo "- OpenBLAS: $(pkg-config --modversion openblas) (OpenMP build), ozblas $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo "- command: \`bash bench/run_targets.sh ${*}\` (each row: \`ozblas-bench\` with the options in the first column)"
echo
echo "| options | routine | size | input, mode/format | slices | pairs | err oz (ulp) | err OpenBLAS (ulp) | repro 1/2/4 | ozblas ms | OpenBLAS ms | ratio | split/mult/sum ms |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
run() {
  "$B" --csv "$@" | python3 -c '
import csv, sys
opts = sys.argv[1]
for r in csv.DictReader(sys.stdin):
    size = "x".join(v for v in (r["m"], r["n"], r["k"]) if v) if r["routine"] != "dot" else r["n"]
    tr = (r["transa"] + r["transb"]) if r["routine"] != "dot" else ""
    rep = "/".join("yes" if r[k] == "1" else ("-" if r[k] == "" else "NO") for k in ("repro_1", "repro_2", "repro_4"))
    ms = lambda k: float(r[k]) * 1e3 if r[k] else float("nan")
    eng = "" if r["engine"] == "fp64" else "/" + r["engine"]
    print("| `%s` | %s %s | %s | phi=%s %s%s | %s/%s | %s | %s | %s | %s | %.3f | %.3f | %.2f | %.1f/%.1f/%.1f |" % (
        opts, r["routine"], tr, size, r["phi"], r["mode"], eng, r["slices_a"], r["slices_b"], r["slice_products"],
        r["err_ozblas_ulps"] or "-", r["err_openblas_ulps"] or "-", rep, ms("t_ozblas_s"), ms("t_openblas_s"),
        float(r["ratio"]), ms("t_split_s"), ms("t_multiply_s"), ms("t_sum_s")))
' "$*"
}
if [ "${2:-}" = quick ]; then
  run --routine dot --n 2^24 --mode cr
  run --routine gemv --n 4096 --mode cr --trans n
  run --routine gemm --n 2048 --mode double --engine fp64,int8,crt --reps 3 --warmup 1
  run --routine gemm --n 1024 --mode cr --reps 3
  exit 0
fi
run --routine dot --n 2^24 --mode cr,double
run --routine gemv --n 4096 --mode cr,double --trans n
run --routine gemv --n 4096 --mode cr,double --trans t
run --routine gemm --n 1024 --mode cr --reps 3
run --routine gemm --n 2048 --mode double --reps 3
run --routine gemm --n 1024 --mode double,fixed --phi 0,4 --reps 3
# slice formats: FP16 is the tensor-core format emulated exactly (slow on a CPU)
run --routine gemm --n 2048 --mode double --engine int8 --reps 3
run --routine gemm --n 2048 --mode cr --engine fp64,int8 --reps 3 --warmup 1 --no-check
run --routine gemm --n 512 --mode double,cr --engine fp16 --reps 3
run --routine dot --n 2^24 --mode cr,double --engine int8
run --routine gemv --n 8192 --mode cr,double --trans n --reps 5
run --routine gemv --n 8192 --mode cr,double --trans t --reps 5
run --routine gemv --n 8192 --mode cr,double --engine int8 --reps 3
# Ozaki scheme II (CRT_INT8): moduli chosen by DOUBLE mode, phase breakdown
run --routine gemm --n 2048 --mode double --engine crt --phi 0.5,1,2 --reps 3 --warmup 1
run --routine gemm --n 4096 --mode double --engine crt --phi 0.5 --reps 3 --warmup 1 --no-check
# the GEMM-ized path alone (OZBLAS_NO_FUSED=1), for comparison with the fused kernels
OZBLAS_NO_FUSED=1 run --routine dot --n 2^24 --mode cr
OZBLAS_NO_FUSED=1 run --routine gemv --n 8192 --mode cr --trans n --reps 3
