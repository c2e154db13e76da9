#!/usr/bin/env bash
# ozblas_run_lapack: the launcher ozblas-run puts Debian's reference LAPACK in front of
# OpenBLAS's own, so that a LAPACK driver's BLAS calls reach the interposer: NumPy's
# linalg.solve at n = 200 (LAPACK's dgesv: a blocked LU whose updates are dgemm_ calls) makes
# dgemm_ calls ozblas computes under ozblas-run, and none with --no-lapack (OpenBLAS's dgesv
# runs its kernels internally).
#   run_launcher.sh OZBLAS_RUN [ASAN_RUNTIME]   (a sanitized build: its runtime preloaded first)
set -euo pipefail
run=$1
if [ -n "${2:-}" ]; then export LD_PRELOAD=$2 ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"; fi
py=/usr/bin/python3
"$py" -c 'import numpy' 2>/dev/null || { echo "FAIL: $py has no numpy (install python3-numpy: scripts/deps.sh)"; exit 1; }
[ -f /usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3 ] || { echo "FAIL: no reference LAPACK (liblapack3)"; exit 1; }
prog='import numpy as np
rng = np.random.default_rng(1)
A = rng.standard_normal((200, 200)); b = rng.standard_normal(200)
x = np.linalg.solve(A, b)
print("residual", float(np.max(np.abs(A @ x - b))))'
with=$("$run" --verbose "$py" -c "$prog" 2>&1 | grep -c "dgemm_ .*-> ozblas" || true)
without=$("$run" --verbose --no-lapack "$py" -c "$prog" 2>&1 | grep -c "dgemm_ .*-> ozblas" || true)
echo "dgemm_ calls ozblas computed in linalg.solve(200): with the reference LAPACK $with, without $without"
fails=0
[ "$with" -gt 0 ] || { echo "FAIL: ozblas-run's LAPACK made no dgemm_ call through the interposer"; fails=$((fails + 1)); }
[ "$without" -eq 0 ] || { echo "FAIL: OpenBLAS's own LAPACK reached the interposer ($without calls): the test no longer shows the difference"; fails=$((fails + 1)); }
"$run" --mode double "$py" -c "$prog" >/dev/null || { echo "FAIL: ozblas-run --mode double"; fails=$((fails + 1)); }
"$run" --mode nonsense true 2>/dev/null && { echo "FAIL: an unknown mode was accepted"; fails=$((fails + 1)); }
echo "$((4 - fails)) passed, $fails failed"
exit $((fails > 0))
