#!/usr/bin/env bash
# ozblas_blas_testers: the Reference-BLAS testers (Debian's libblas-test: xblat1d, xblat2d,
# xblat3d and the CBLAS ones xdcblat1/2/3) under the interposer, in CR and DOUBLE: every test
# must pass (computational tests and error exits), and every double routine they call that
# ozblas serves must have been computed by ozblas (OZBLAS_PRELOAD_VERBOSE).  The CBLAS testers
# need the reference CBLAS (RowMajorStrg), so they run on Debian's reference libblas.so.3;
# ozblas's exact products run on whatever BLAS the process has.
#   blas_testers.sh LIBOZBLAS_PRELOAD
set -euo pipefail
pre=$1
B=/usr/lib/x86_64-linux-gnu/blas
[ -x $B/xblat2d ] || { echo "FAIL: no BLAS testers in $B (apt-get install libblas-test: scripts/deps.sh)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fails=0
served="ddot_ daxpy_ dcopy_ dswap_ dscal_ drot_ drotm_ drotg_ drotmg_ dasum_ dnrm2_ idamax_ dgemv_ dsymv_ dtrmv_ dtrsv_ dger_ dsyr_ dsyr2_ dspmv_ dtpmv_ dtpsv_ dspr_ dspr2_ dgbmv_ dsbmv_ dtbmv_ dtbsv_ dgemm_ dsymm_ dsyrk_ dsyr2k_ dtrmm_ dtrsm_"
for mode in correctly_rounded double; do
  export OZBLAS_PRELOAD_MODE=$mode OZBLAS_PRELOAD_VERBOSE=1
  LD_PRELOAD=$pre $B/xblat1d > b1.out 2> v.err
  LD_PRELOAD=$pre $B/xblat2d < $B/dblat2.in > /dev/null 2>> v.err
  LD_PRELOAD=$pre $B/xblat3d < $B/dblat3.in > /dev/null 2>> v.err
  LD_LIBRARY_PATH=$B LD_PRELOAD=$pre $B/xdcblat1 > c1.out 2>> v.err
  LD_LIBRARY_PATH=$B LD_PRELOAD=$pre $B/xdcblat2 < $B/din2 > c2.out 2>> v.err
  LD_LIBRARY_PATH=$B LD_PRELOAD=$pre $B/xdcblat3 < $B/din3 > c3.out 2>> v.err
  p1=$(grep -c -- "----- PASS -----" b1.out || true); f1=$(grep -c -- "FAIL" b1.out || true)
  p2=$(grep -c "PASSED" dblat2.out || true); p3=$(grep -c "PASSED" dblat3.out || true)
  pc1=$(grep -c -- "----- PASS -----" c1.out || true); pc2=$(grep -c "PASSED" c2.out || true); pc3=$(grep -c "PASSED" c3.out || true)
  bad=$(cat b1.out dblat2.out dblat3.out c1.out c2.out c3.out | grep -ciE "FAIL|SUSPECT|ABNORMAL" || true)
  echo "$mode: xblat1d $p1 passed, xblat2d $p2, xblat3d $p3, xdcblat1 $pc1, xdcblat2 $pc2, xdcblat3 $pc3; failures $bad"
  # 16 level-2 and 6 level-3 routines: error exits + computational (+ row-major for CBLAS)
  [ "$p1" -ge 10 ] && [ "$f1" -eq 0 ] && [ "$p2" -ge 32 ] && [ "$p3" -ge 12 ] && [ "$pc1" -ge 10 ] && [ "$pc2" -ge 48 ] &&
    [ "$pc3" -ge 18 ] && [ "$bad" -eq 0 ] || { echo "FAIL: a tester failed in $mode"; fails=$((fails + 1)); }
  for r in $served; do
    c=$(grep -c "ozblas_preload: $r .*-> ozblas" v.err || true)
    [ "$c" -gt 0 ] || { echo "FAIL: $mode: no $r call computed by ozblas"; fails=$((fails + 1)); }
  done
done
[ $fails -eq 0 ] && echo "PASS: the Reference-BLAS testers, every served routine through ozblas"
exit $((fails > 0))
