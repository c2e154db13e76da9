#!/usr/bin/env bash
# preload_reference_blas: see reference_client.c.  run_reference.sh CLIENT PRELOAD
set -euo pipefail
prog=$1 pre=$2
tmp=$(mktemp -d /tmp/ozblas-ref.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
for mode in fixed correctly_rounded; do
  LD_PRELOAD=$pre OZBLAS_PRELOAD_MODE=$mode OZBLAS_PRELOAD_VERBOSE=1 OZBLAS_NO_CRT=1 OZBLAS_PRELOAD_THREADS=2 \
    "$prog" > "$tmp/out" 2> "$tmp/err"
  echo "== $mode =="; cat "$tmp/out" "$tmp/err"
  grep -q '^dgemm 1$' "$tmp/out" && grep -q '^ddot 1$' "$tmp/out" && grep -q '^big ok$' "$tmp/out" || {
    echo "FAIL: wrong results under the interposer ($mode)"; exit 1; }
  n=$(grep -c '^ozblas_preload: ' "$tmp/err" || true)
  s=$(grep -c -- '-> ozblas$' "$tmp/err" || true)
  [ "$n" = 3 ] && [ "$s" = 3 ] || { echo "FAIL: $n reported calls ($s by ozblas), want 3 by ozblas ($mode)"; exit 1; }
done
echo "ok: results exact, each call reported once, ozblas's own DGEMMs silent on the reference BLAS"
