#!/usr/bin/env bash
# Differential fuzzing of ozblas (tests/fuzz/fuzz_ozblas.c) with libFuzzer for a bounded time.
#   bash scripts/fuzz.sh [seconds]      (default 180)
# Installs clang and its fuzzer runtime if missing (Debian 12: clang 14), builds the library
# with clang, coverage instrumentation, ASan and UBSan into build-fuzz/ (OZBLAS_FUZZ_DIR),
# and runs the fuzzer on a temporary copy of the committed seed corpus tests/fuzz/corpus
# (plus tests/fuzz/regressions), so the committed files never change.  A failed check or a
# sanitizer report stops the run with a nonzero status; the input is left in
# $OZBLAS_FUZZ_ARTIFACTS (default build-fuzz/artifacts/): add it to tests/fuzz/regressions/.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-180}
bash scripts/deps.sh clang libclang-rt-14-dev libomp-dev libopenblas-pthread-dev
dir=${OZBLAS_FUZZ_DIR:-build-fuzz}
CC=clang CXX=clang++ cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOZBLAS_WERROR=ON -DOZBLAS_FUZZ=ON \
  -DOZBLAS_BUILD_TESTS=OFF -DOZBLAS_BUILD_BENCH=OFF >/dev/null
cmake --build "$dir" -j"$(nproc)" --target fuzz_ozblas
art=${OZBLAS_FUZZ_ARTIFACTS:-$dir/artifacts}
mkdir -p "$art"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp tests/fuzz/corpus/* "$work"/
find tests/fuzz/regressions -maxdepth 1 -type f ! -name 'README*' -exec cp {} "$work"/ \;
echo "== fuzzing for ${secs}s ($(ls "$work" | wc -l) seed inputs) =="
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
set +e
# -timeout: a unit longer than this is reported as a failure.  Units run 10-25x slower under
# ASan/UBSan with coverage than in a plain build.  The slowest known: a DOUBLE GEMM 39x40x119
# on INT8 slices with entries over ~2000 binades (regressions/double-int8-extreme-exponents-slow:
# 9 s plain, 112 s here with the emulated device's GEMM; the largest shapes the
# fuzzer makes are ~1.5x its work); 600 s leaves the margin.
"$dir/tests/fuzz/fuzz_ozblas" "$work" -max_total_time="$secs" -timeout=600 -rss_limit_mb=4096 \
  -max_len=4096 -print_final_stats=1 -artifact_prefix="$art/" 2>&1 | tee "$dir/fuzz.log" \
  | grep -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)|NEW_FUNC'
rc=${PIPESTATUS[0]}
set -e
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/fuzz.log" | tail -1)
if [ "$rc" -eq 0 ]; then
  echo "ozblas fuzz: ${execs:-?} executions in ${secs}s, no failure (log: $dir/fuzz.log)"
else
  echo "ozblas fuzz: FAILED after ${execs:-?} executions, exit status $rc; input in $art/ (log: $dir/fuzz.log)"
fi
exit "$rc"
