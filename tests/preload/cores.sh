# Sourced by the whole-program tests: CORES, the OpenBLAS kernel families (OPENBLAS_CORETYPE)
# this CPU can run.  Haswell and Zen need AVX2 and FMA; SkylakeX needs AVX-512 F, DQ, BW and
# VL, and where they are missing OpenBLAS still takes it when told to and dies of an illegal
# instruction, so it is left out there (and the tests say so), never run and lost.
flags=$(grep -m1 '^flags' /proc/cpuinfo || true)
has() { for f in "$@"; do grep -qw "$f" <<< "$flags" || return 1; done; }
CORES=()
has avx2 fma && CORES+=(Haswell Zen)
if has avx512f avx512dq avx512bw avx512vl; then CORES+=(SkylakeX)
else echo "note: this CPU has no AVX-512: OpenBLAS's SkylakeX kernels cannot run here, so only ${CORES[*]:-no family} is compared"; fi
[ ${#CORES[@]} -ge 1 ] || { echo "FAIL: this CPU runs none of OpenBLAS's kernel families (no AVX2/FMA)"; exit 1; }
