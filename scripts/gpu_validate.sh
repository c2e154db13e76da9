#!/usr/bin/env bash
# On the lent GPU machine (no Debian packages there): unpacks gpu-bundle.tar.xz made by
# scripts/gpu_bundle.sh and validates the CUDA backend on GPU 0.
#   bash scripts/gpu_validate.sh [PHASE...]      PHASE: smoke tests staged sanitize profile bench
#                                                blas3 peer (default: these eight, in that order), or
#                                                peer-build peer-gemmul8 peer-ozblas peer-table
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
# blas3:    ozblas-blas3-cuda: dsyrk, dsyr2k, dsymm, dtrmm, dtrsm on a CUDA handle against cuBLAS
#           and ozblas_dgemm at the same flops (n = $BLAS3_SIZES, default 256 1024 4096; CRT_INT8
#           and FP64, DOUBLE and CR), each case at n <= 1024 bit for bit against a CPU handle and
#           none through the host; at most BLAS3_LIMIT s (240), table in $OUT/blas3-cuda.md
# peer:     GEMMul8 (Ozaki scheme II on INT8, the harness of shared/peers/gemmul8, bundled by
#           gpu_bundle.sh) beside ozblas-bench --backend cuda on the same sizes: peer-gemmul8,
#           then peer-ozblas, then peer-table.  Writes one three-way table (ozblas DOUBLE and
#           CORRECTLY_ROUNDED with CRT_INT8, GEMMul8 fast/accurate, cuBLAS DGEMM: ms, ratio to
#           the cuBLAS DGEMM of the same run, error) to $OUT/peer-table.md and into summary.txt
#   peer-build    builds the harness on this machine from the bundle's GEMMul8 source, where
#                 the bundle has no binary (gpu_bundle.sh without GPU_BUNDLE_GEMMUL8=1): about
#                 10 minutes of one core, so a command of its own (PEER_BUILD_LIMIT, default
#                 590 s); 'peer' does not build
#   peer-gemmul8  gemmul8_bench $GEMMUL8_ARGS $PEER_SIZES (default --fast=14,16 --accu=14,16;
#                 the harness's inputs are phi = 1 only), at most PEER_G8_LIMIT s (300)
#   peer-ozblas   one ozblas-bench run per (phi, n, mode), phi in $PEER_PHIS (default 1 0.5 2 4,
#                 phi = 1 first), n in $PEER_SIZES (4096 8192 16384), mode in $PEER_MODES
#                 (double cr), engine $PEER_ENGINE (crt), --warmup $PEER_WARMUP (1); each at most
#                 PEER_CASE_LIMIT s (180); a (n, mode) stopped at its limit is not tried again
#                 at a larger n or another phi; checked against the CPU handle and MPFR (error
#                 columns) up to n = PEER_CHECK_MAX (4096; OMP_WAIT_POLICY=passive then, so
#                 the check's idle threads do not spin beside the timed calls), --no-check above
#   peer-table    the table again from the logs there are
#   The peer phases start nothing after GPU_VALIDATE_DEADLINE s (default 560) from the
#   script's start and cut each run's limit to end by then, so that one command of 600 s keeps
#   its results.  Where the runs do not fit one command (a DOUBLE call staged through the host
#   took 10 s at 8192 on the H200 at e947acb), split them; logs on a machine kept warm between commands accumulate, e.g.
#     bash scripts/gpu_validate.sh peer                      (GEMMul8, then phi = 1 first)
#     PEER_PHIS="0.5 2 4" bash scripts/gpu_validate.sh peer-ozblas peer-table
# One device-tool command may run 10 minutes: run the phases in separate commands if needed
# (e.g. 'smoke tests', 'staged', 'sanitize', 'profile bench', 'peer'), each with the bundle
# carried (carry: gpu-bundle.tar.xz) and timeout_s 600.
# Results: ${OUT:-gpu-out}/summary.txt and logs.tgz (commit them under bench/results/), and
# peer-table.md from the peer phases; each phase appends its lines to summary.txt, printed last.
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
phases=${*:-smoke tests staged sanitize profile bench blas3 peer}
tlim=${GPU_VALIDATE_TEST_LIMIT:-420}
b=gpu-bundle/bin/ozblas-bench
log() { echo "$*" | tee -a "$summary"; }
pack() { (cd "$out" && tar -czf "$dest/logs.tgz.part" -- * 2>/dev/null && mv "$dest/logs.tgz.part" "$dest/logs.tgz"); cp "$summary" "$dest/"
        [ -f "$out/peer-table.md" ] && cp "$out/peer-table.md" "$dest/"; }

one_test() {   # NAME SUFFIX [ENV...]: runs gpu-bundle/bin/NAME with OZBLAS_TEST_CUDA=1
  local n=$1 sfx=$2; shift 2
  env OZBLAS_TEST_CUDA=1 "$@" timeout "$tlim" "gpu-bundle/bin/$n" > "$out/$n$sfx.log" 2>&1
  local rc=$?
  echo "$n$sfx${*:+ ($*)}: rc=$rc $(grep -E '^[0-9]+%: Checks' "$out/$n$sfx.log" | tail -1)"
}
export -f one_test; export out tlim

# ---- the peer phases (GEMMul8 beside ozblas) ----
g8=gpu-bundle/peer/gemmul8
deadline=${GPU_VALIDATE_DEADLINE:-560}
export PEER_SIZES=${PEER_SIZES:-4096 8192 16384} PEER_PHIS=${PEER_PHIS:-1 0.5 2 4} PEER_MODES=${PEER_MODES:-double cr}
export GEMMUL8_ARGS=${GEMMUL8_ARGS:---fast=14,16 --accu=14,16} PEER_WARMUP=${PEER_WARMUP:-1} PEER_CHECK_MAX=${PEER_CHECK_MAX:-4096}
left() { echo $((deadline - SECONDS)); }
limit_to_deadline() { local l; l=$(left); [ "$1" -lt "$l" ] && l=$1; echo "$l"; }   # CAP: CAP or what is left

peer_gemmul8() {
  local st="$out/peer-gemmul8.status" lim rc
  if [ ! -d "$g8" ]; then echo "not in the bundle (GPU_BUNDLE_PEER=0)" > "$st"; log "peer gemmul8: not in the bundle"; return; fi
  if [ ! -x "$g8/bin/gemmul8_bench" ]; then
    echo "not built: run the peer-build phase in a command of its own" > "$st"
    log "peer gemmul8: the harness is not built (bundle without GPU_BUNDLE_GEMMUL8=1): run 'bash scripts/gpu_validate.sh peer-build' in a command of its own first"
    return
  fi
  lim=$(limit_to_deadline "${PEER_G8_LIMIT:-300}")
  if [ "$(left)" -lt 30 ]; then echo "not run: past the deadline" > "$st"; log "peer gemmul8: not run (past GPU_VALIDATE_DEADLINE)"; return; fi
  timeout "$lim" "$g8/bin/run.sh" $GEMMUL8_ARGS $PEER_SIZES > "$out/peer-gemmul8.txt" 2>&1
  rc=$?
  if [ $rc = 124 ]; then echo "stopped at its time limit ($lim s)" > "$st"; else echo "rc=$rc" > "$st"; fi
  log "peer gemmul8 ($GEMMUL8_ARGS $PEER_SIZES): rc=$rc $(grep -c '^gemmul8_' "$out/peer-gemmul8.txt") GEMMul8 lines"
}

peer_ozblas() {
  local stopped=" " phi n mode f lim rc chk ompw
  mkdir -p "$out/peer"
  for phi in $PEER_PHIS; do for n in $PEER_SIZES; do for mode in $PEER_MODES; do
    f="$out/peer/oz-$n-$phi-$mode"
    # a (size, mode) stopped at its limit: every larger size of that mode would be too
    if echo "$stopped" | tr ' ' '\n' | awk -F: -v n="$n" -v m="$mode" '$2 == m && n + 0 >= $1 + 0 {f = 1} END {exit !f}'; then
      echo "not run: a smaller or equal n of this mode hit its time limit" > "$f.status"; rm -f "$f.txt"; continue
    fi
    lim=$(limit_to_deadline "${PEER_CASE_LIMIT:-180}")
    if [ "$(left)" -lt 20 ]; then echo "not run: past the deadline" > "$f.status"; rm -f "$f.txt"; continue; fi
    chk=--no-check; ompw=
    [ "$n" -le "$PEER_CHECK_MAX" ] && { chk=; ompw=OMP_WAIT_POLICY=passive; }
    env $ompw timeout "$lim" "$b" --backend cuda --routine gemm --n "$n" --phi "$phi" --mode "$mode" \
      --engine "${PEER_ENGINE:-crt}" --warmup "$PEER_WARMUP" $chk > "$f.txt" 2>&1
    rc=$?
    if [ $rc = 124 ]; then echo "stopped at its time limit ($lim s)" > "$f.status"; stopped="$stopped$n:$mode "
    else echo "rc=$rc" > "$f.status"; fi
    log "peer ozblas gemm n=$n phi=$phi $mode: $(cat "$f.status") $(awk '$1 == "gemm" {print $(NF-2) " ms, " $NF "x cuBLAS"}' "$f.txt" | head -1)"
    pack
  done; done; done
}

peer_table() {
  [ -s "$out/gpu.txt" ] || nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/gpu.txt" 2>&1
  bash scripts/gpu_peer.sh table "$out" "$out/peer-table.md" "$out/peer-table.txt" || { log "peer table: failed"; return; }
  sed -i '/^==== peer table/,/^==== end of peer table/d' "$summary"
  { echo "==== peer table (also $dest/peer-table.md)"; cat "$out/peer-table.txt"; echo "==== end of peer table"; } >> "$summary"
}

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
    # GPU_SANITIZE_CASES: "TOOL PROGRAM" pairs, comma-separated, instead of the list below
    cases=${GPU_SANITIZE_CASES:-memcheck test_int8_products,memcheck test_dgemm,memcheck test_device_engine,racecheck test_device_engine,racecheck test_ddot,synccheck test_device_engine,synccheck test_ddot,racecheck test_lane_sums,synccheck test_lane_sums,memcheck test_lane_sums,memcheck test_blas3_device}
    echo "$cases" | tr ',' '\n' | xargs -P 7 -L 1 bash -c 'san "$0" "$1"' | sort | tee -a "$summary" ;;
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
  blas3)
    timeout "${BLAS3_LIMIT:-240}" gpu-bundle/bin/ozblas-blas3-cuda ${BLAS3_SIZES:-256 1024 4096} > "$out/blas3-cuda.md" 2>&1
    log "blas3 (ozblas-blas3-cuda ${BLAS3_SIZES:-256 1024 4096}): rc=$? $(tail -1 "$out/blas3-cuda.md")"
    cp "$out/blas3-cuda.md" "$dest/" ;;
  peer)          peer_gemmul8; peer_ozblas; peer_table ;;
  peer-gemmul8)  peer_gemmul8; peer_table ;;
  peer-ozblas)   peer_ozblas; peer_table ;;
  peer-table)    peer_table ;;
  peer-build)
    if [ ! -d "$g8/src" ]; then log "peer-build: no GEMMul8 source in the bundle (GPU_BUNDLE_PEER=0)"
    elif [ -x "$g8/bin/gemmul8_bench" ] && [ -z "${PEER_REBUILD:-}" ]; then log "peer-build: the bundle's harness is built already (PEER_REBUILD=1 builds it again)"
    else
      JOBS=$(nproc) timeout "${PEER_BUILD_LIMIT:-590}" bash scripts/gpu_peer.sh build "$g8" > "$out/peer-build.log" 2>&1
      log "peer-build: rc=$? $(tail -1 "$out/peer-build.log")"
    fi ;;
  *) echo "gpu_validate: unknown phase $ph (smoke tests staged sanitize profile bench blas3 peer peer-build peer-gemmul8 peer-ozblas peer-table)"; exit 2 ;;
  esac
  pack
done
echo "---- summary"; cat "$summary"
