#!/usr/bin/env bash
# On the lent GPU machine (no Debian packages there): unpacks gpu-bundle.tar.xz made by
# scripts/gpu_bundle.sh and validates the CUDA backend on GPU 0.
#   bash scripts/gpu_validate.sh [PHASE...]      PHASE: smoke tests staged sanitize profile bench
#                                                (default: all five, in that order)
# smoke:    nvidia-smi and one small CUDA benchmark of each routine (does anything run at all)
# tests:    the test suite with every routine runner's call repeated on a CUDA handle and
#           compared bit for bit with the CPU handle (OZBLAS_TEST_CUDA=1), the white-box
#           product tests, test_device_faults (every n-th allocation, copy, launch and cuBLAS
#           call failing) and test_limits; the programs run side by side (the machine has
#           16 cores), each under its own time limit
# staged:   the staged path (operands through the host, products on the GPU) forced, and the
#           slice path of CORRECTLY_ROUNDED DOT/GEMV (OZBLAS_CUDA_NO_EFT=1): same bits
# sanitize: compute-sanitizer memcheck, racecheck and synccheck (run it in a command of its
#           own with GPU_VALIDATE_TEST_LIMIT=540: on the H100 the three tools on
#           test_device_engine did not finish in 200 s)
# bench:    ozblas-bench --backend cuda (CUDA-event medians against cuBLAS)
# One device-tool command may run 10 minutes: run the phases in separate commands if needed.
# Results: ${OUT:-gpu-out}/summary.txt and logs.tgz (commit them under bench/results/); each
# phase appends its lines to summary.txt, printed last.
set -uo pipefail
cd "$(dirname "$0")/.."
# Logs are written to $logs and packed into $dest/logs.tgz after every phase (the device tool
# brings back at most 8 files of $OUT, and nothing of a command killed at its time limit but
# what is already there)
dest=${OUT:-gpu-out}; mkdir -p "$dest"
out=${GPU_VALIDATE_LOGS:-/tmp/gpu-validate-logs}; mkdir -p "$out"
[ -d gpu-bundle ] || tar -xJf gpu-bundle.tar.xz
export LD_LIBRARY_PATH="$PWD/gpu-bundle/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
summary="$out/summary.txt"; touch "$summary"
phases=${*:-smoke tests staged sanitize profile bench}
tlim=${GPU_VALIDATE_TEST_LIMIT:-420}
b=gpu-bundle/bin/ozblas-bench
log() { echo "$*" | tee -a "$summary"; }
pack() { (cd "$out" && tar -czf "$dest/logs.tgz.part" -- * 2>/dev/null && mv "$dest/logs.tgz.part" "$dest/logs.tgz"); cp "$summary" "$dest/"; }

one_test() {   # NAME SUFFIX [ENV...]: runs gpu-bundle/bin/NAME with OZBLAS_TEST_CUDA=1
  local n=$1 sfx=$2; shift 2
  env OZBLAS_TEST_CUDA=1 "$@" timeout "$tlim" "gpu-bundle/bin/$n" > "$out/$n$sfx.log" 2>&1
  local rc=$?
  echo "$n$sfx${*:+ ($*)}: rc=$rc $(grep -E '^[0-9]+%: Checks' "$out/$n$sfx.log" | tail -1)"
}
export -f one_test; export out tlim

for ph in $phases; do
  case $ph in
  smoke)
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/gpu.txt" 2>&1
    log "GPU: $(tail -1 "$out/gpu.txt")  date: $(date -u +%F)  cores: $(nproc)"
    { "$b" --backend cuda --routine dot --n 2^20 --mode all --engine fp64,crt --reps 3
      "$b" --backend cuda --routine gemv --n 1024 --mode all --engine fp64,crt --reps 3
      "$b" --backend cuda --routine gemm --n 512 --mode all --engine all --reps 3
    } > "$out/smoke.txt" 2>&1
    log "smoke bench: rc=$? ($out/smoke.txt)" ;;
  tests)
    export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}   # eight programs side by side on 16 cores
    ls gpu-bundle/bin | grep '^test_' | xargs -P "${GPU_VALIDATE_JOBS:-8}" -I{} bash -c 'one_test {} ""' \
      | sort | tee -a "$summary"
    # the pinned bits (tests/golden) on the GPU: every golden case through a CUDA handle
    OZBLAS_GOLDEN=tests/golden/golden_bits.txt timeout "$tlim" gpu-bundle/bin/test_golden cuda > "$out/test_golden.cuda.log" 2>&1
    log "test_golden cuda: rc=$? $(grep -E 'cases' "$out/test_golden.cuda.log" | tail -1)" ;;
  staged)
    for n in test_formats test_device_engine; do
      one_test "$n" .staged OZBLAS_CUDA_STAGED=1 &
    done | tee -a "$summary"; wait
    # CORRECTLY_ROUNDED DOT/GEMV on the slice path (the certified kernels off): same bits
    for n in test_ddot test_dgemv; do
      one_test "$n" .noeft OZBLAS_CUDA_NO_EFT=1 &
    done | tee -a "$summary"; wait ;;
  sanitize)
    # memcheck of the device code paths; racecheck (shared-memory hazards: the skinny
    # product's and the wide exact sum's reductions, the lane sums of k_crt_rows, k_crt_dots,
    # k_colsums and k_crit) and synccheck (barriers) of the engine
    # test, which runs every kernel.  No fork (CK_FORK=no) so the tool sees the calls.
    san() {  # TOOL NAME
      CK_FORK=no OZBLAS_TEST_CUDA=1 timeout "$tlim" compute-sanitizer --tool "$1" --error-exitcode 9 \
        "gpu-bundle/bin/$2" > "$out/$2.$1.log" 2>&1
      echo "$2 under compute-sanitizer $1: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/$2.$1.log" | tail -1)"
    }
    export -f san
    printf '%s\n' "memcheck test_int8_products" "memcheck test_dgemm" "memcheck test_device_engine" \
      "racecheck test_device_engine" "racecheck test_ddot" "synccheck test_device_engine" "synccheck test_ddot" \
      "racecheck test_lane_sums" "synccheck test_lane_sums" "memcheck test_lane_sums" \
      | xargs -P 7 -L 1 bash -c 'san "$0" "$1"' | sort | tee -a "$summary" ;;
  profile)
    # per-kernel GPU time (Nsight Compute) of one call each: where the time goes
    for args in "--routine dot --n 2^24 --mode cr --engine fp64" "--routine gemv --n 8192 --mode cr --engine fp64" \
                "--routine gemm --n 4096 --mode double --engine crt" "--routine gemm --n 2048 --mode cr --engine fp64"; do
      f="$out/profile-$(echo "$args" | awk '{print $2"-"$4"-"$6"-"$8}' | tr -c 'A-Za-z0-9.\n-' _).txt"
      timeout "$tlim" ncu --launch-count 400 --print-summary per-kernel --metrics gpu__time_duration.sum \
        "$b" --backend cuda $args --reps 1 --warmup 0 --no-check > "$f" 2>&1
      log "profile $args: rc=$? ($f)"
    done ;;
  bench)   # one line at a time, packed after each (a command stopped at its limit keeps the rest)
    for args in "--routine dot --n 2^24 --mode all --engine fp64" "--routine dot --n 2^24 --mode cr --engine int8,crt" \
                "--routine gemv --n 8192 --mode all --engine fp64,crt" \
                "--routine gemm --n 1024 --mode double,cr --engine fp64,crt --no-check" \
                "--routine gemm --n 4096 --mode double,cr --engine fp64,crt --no-check" \
                "--routine gemm --n 2048 --mode all --engine all" \
                "--routine dot --n 2^27 --mode double,cr --engine fp64,crt --no-check" \
                "--routine gemv --n 16384 --mode double,cr --engine fp64,crt --no-check" \
                "--routine gemm --n 16384 --mode double --engine fp64,crt --no-check --reps 1 --warmup 1"; do
      "$b" --backend cuda $args >> "$out/bench-cuda.txt" 2>&1
      log "bench $args: rc=$?"
      pack
    done ;;
  *) echo "gpu_validate: unknown phase $ph (smoke tests staged sanitize profile bench)"; exit 2 ;;
  esac
  pack
done
echo "---- summary"; cat "$summary"
