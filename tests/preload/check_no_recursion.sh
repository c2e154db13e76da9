#!/usr/bin/env bash
# No code inside libozblas_preload.so can call the interposer's own exports through the dynamic
# linker: the library has no relocation (PLT slot or GOT entry) for any name it exports —
# ozblas's BLAS calls are renamed to ozb_preload_inner_* and bound inside the library, and the
# CBLAS entry points reach the Fortran ones directly (-Bsymbolic-functions) — and it exports
# exactly the double BLAS it serves (exports.map) and ScaLAPACK's pdgemm_ and pdgemv_
# (preload_pdgemm.c), and it links no BLAS, MPI or ScaLAPACK of its own.
set -euo pipefail
so=$1
blas="dasum daxpy dcopy ddot dgbmv dgemm dgemv dger dnrm2 drot drotg drotm drotmg dsbmv dscal dspmv dspr dspr2 dswap dsymm dsymv dsyr dsyr2 dsyr2k dsyrk dtbmv dtbsv dtpmv dtpsv dtrmm dtrmv dtrsm dtrsv idamax"
want=$( (for r in $blas; do echo "cblas_$r"; echo "${r}_"; done; echo pdgemm_; echo pdgemv_) | sort | tr '\n' ' ')
names=$(echo "$want" | sed 's/ $//; s/ /|/g')
fail=0
relocs=$(readelf -rW "$so" | awk '{print $5}' | sed 's/@.*//' | grep -E "^($names)$" || true)
if [ -n "$relocs" ]; then echo "FAIL: relocations against interposed names: $relocs"; fail=1; fi
exports=$(nm -D --defined-only "$so" | awk '$2 ~ /^[TWi]$/ {print $3}' | sed 's/@.*//' | sort | tr '\n' ' ')
if [ "$exports" != "$want" ]; then echo "FAIL: exported functions: '$exports', want '$want'"; fail=1; fi
inner=$(nm "$so" 2>/dev/null | grep -c 'ozb_preload_inner_cblas_dgemm' || true)
if [ "$inner" -lt 1 ] && nm "$so" >/dev/null 2>&1 && [ -n "$(nm "$so" 2>/dev/null)" ]; then
  echo "FAIL: ozb_preload_inner_cblas_dgemm not in the library (objcopy rename missing?)"; fail=1
fi
# It links no BLAS: preloading it must not bring a second BLAS into the process.
blas_needed=$(readelf -dW "$so" | grep NEEDED | grep -Ei 'blas|lapack|mkl|mpi|scalapack' || true)
if [ -n "$blas_needed" ]; then echo "FAIL: the interposer links a BLAS: $blas_needed"; fail=1; fi
[ $fail = 0 ] && echo "ok: no relocation against the interposed names; exports: $exports"
exit $fail
