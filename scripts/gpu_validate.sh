#!/usr/bin/env bash
# On the lent GPU machine (no Debian packages there): unpacks gpu-bundle.tar.xz made by
# scripts/gpu_bundle.sh, runs the test suite with every routine runner's call repeated on a
# CUDA handle and compared bit for bit with the CPU handle (OZBLAS_TEST_CUDA=1), the
# white-box product tests, compute-sanitizer (memcheck, racecheck, synccheck), and
# ozblas-bench --backend cuda.
# Among the tests: test_device_faults on the GPU (every n-th allocation, copy, launch and
# cuBLAS call failing) and test_limits.  Logs go to ${OUT:-gpu-out} (the device tool brings
# them back; commit them under bench/results/); the summary is printed last.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}; mkdir -p "$out"
[ -d gpu-bundle ] || tar -xJf gpu-bundle.tar.xz
export LD_LIBRARY_PATH="$PWD/gpu-bundle/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/gpu.txt" 2>&1
summary="$out/summary.txt"; : > "$summary"
echo "GPU: $(tail -1 "$out/gpu.txt")  date: $(date -u +%F)" | tee -a "$summary"
for t in gpu-bundle/bin/test_*; do
  n=$(basename "$t")
  OZBLAS_TEST_CUDA=1 timeout 1200 "$t" > "$out/$n.log" 2>&1; rc=$?
  echo "$n (OZBLAS_TEST_CUDA=1): rc=$rc $(grep -E '^[0-9]+%: Checks' "$out/$n.log" | tail -1)" | tee -a "$summary"
done
# the staged path (operands through the host, products on the GPU), forced: the same bits
for n in test_formats test_device_engine; do
  OZBLAS_CUDA_STAGED=1 OZBLAS_TEST_CUDA=1 timeout 1200 "gpu-bundle/bin/$n" > "$out/$n.staged.log" 2>&1; rc=$?
  echo "$n (OZBLAS_TEST_CUDA=1, OZBLAS_CUDA_STAGED=1): rc=$rc $(grep -E '^[0-9]+%: Checks' "$out/$n.staged.log" | tail -1)" | tee -a "$summary"
done
# compute-sanitizer (no fork: CK_FORK=no): memcheck of the device code paths; racecheck
# (shared-memory hazards: the skinny product's and the wide exact sum's reductions) and
# synccheck (barriers) of the engine test, which runs every kernel
for n in test_int8_products test_dgemm test_device_engine; do
  CK_FORK=no OZBLAS_TEST_CUDA=1 timeout 1800 compute-sanitizer --tool memcheck --error-exitcode 9 \
    "gpu-bundle/bin/$n" > "$out/$n.memcheck.log" 2>&1; rc=$?
  echo "$n under compute-sanitizer memcheck: rc=$rc $(grep -E 'ERROR SUMMARY' "$out/$n.memcheck.log" | tail -1)" | tee -a "$summary"
done
for tool in racecheck synccheck; do
  for n in test_device_engine test_ddot; do
    CK_FORK=no OZBLAS_TEST_CUDA=1 timeout 1800 compute-sanitizer --tool $tool --error-exitcode 9 \
      "gpu-bundle/bin/$n" > "$out/$n.$tool.log" 2>&1; rc=$?
    echo "$n under compute-sanitizer $tool: rc=$rc $(grep -E 'ERROR SUMMARY|HAZARD' "$out/$n.$tool.log" | tail -1)" | tee -a "$summary"
  done
done
b=gpu-bundle/bin/ozblas-bench
{
  "$b" --backend cuda --routine dot --n 2^24 --mode all --engine all
  "$b" --backend cuda --routine gemv --n 8192 --mode all --engine all
  for n in 1024 4096 16384; do "$b" --backend cuda --routine gemm --n $n --mode double,cr --engine fp64,crt --no-check; done
  "$b" --backend cuda --routine gemm --n 2048 --mode all --engine all
} > "$out/bench-cuda.txt" 2>&1
echo "bench: rc=$? (table in $out/bench-cuda.txt)" | tee -a "$summary"
