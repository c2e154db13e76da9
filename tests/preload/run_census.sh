#!/usr/bin/env bash
# preload_census: the interposer changes nothing about the process's BLAS.
#   run_census.sh TEST_PROGRAM CLIENT_SO PRELOAD
# Without and with LD_PRELOAD: the loaded objects that define dgemm_/xerbla_/openblas_* and
# the global binding of xerbla_ must be the same; with it the client's DGEMM must have been
# served by ozblas (correctly rounded: 1, not the naive 0).
set -euo pipefail
prog=$1 client=$2 pre=$3
tmp=$(mktemp -d /tmp/ozblas-census.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
env -u LD_PRELOAD "$prog" "$client" > "$tmp/plain"
LD_PRELOAD=$pre OZBLAS_PRELOAD_VERBOSE=1 "$prog" "$client" > "$tmp/pre" 2> "$tmp/err"
echo "== without the interposer =="; cat "$tmp/plain"
echo "== with it =="; cat "$tmp/pre"; cat "$tmp/err"
fail=0
grep -q '^result 0$' "$tmp/plain" || { echo "FAIL: the system BLAS was expected to give the naive 0"; fail=1; }
grep -q '^result 1$' "$tmp/pre" || { echo "FAIL: under the interposer the product must be the exact 1"; fail=1; }
grep -q 'dgemm_ NN m=1 n=1 k=3.*-> ozblas$' "$tmp/err" || { echo "FAIL: the call was not served by ozblas"; fail=1; }
if ! diff <(grep -v '^result' "$tmp/plain") <(grep -v '^result' "$tmp/pre"); then
  echo "FAIL: preloading the interposer changed the process's BLAS (lines above)"; fail=1
fi
[ $fail = 0 ] && echo "ok: same BLAS objects and bindings with and without the interposer; the call was served"
exit $fail
