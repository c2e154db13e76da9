/* The environment knob list (knobs.h).  Reading them once per handle keeps calls free of
 * getenv, and a handle's paths fixed for its life; a test picks a path by setting a knob
 * before it creates the handle.  No knob changes a bit of any result. */
#include "core/knobs.h"
#include <stdlib.h>

#define K(field) offsetof(ozb_knobs, field)
static const ozb_knob_def ozb_knob_table[] = {
    {"OZBLAS_CUDA_EMULATE", OZB_KNOB_ONE, 0, 0,
     "=1: CUDA handles get an emulated device (host memory, cuBLAS's documented rules enforced, the real kernels compiled for the host)", K(cuda_emulate)},
    {"OZBLAS_NO_DNNL", OZB_KNOB_SET, 0, 0,
     "INT8 and CRT products by OpenBLAS DGEMM on the same integers instead of oneDNN", K(no_dnnl)},
    {"OZBLAS_NO_FUSED", OZB_KNOB_SET, 0, 1,
     "CORRECTLY_ROUNDED DOT/GEMV and FIXED DOT without the fused kernels (the GEMM-ized pipeline with stored slices)", K(no_fused)},
    {"OZBLAS_FUSED_FAIL", OZB_KNOB_INT, 0, 1,
     "1: the fused kernels' first pass certifies nothing (every row to the second pass); 2: nor the second", K(fused_fail)},
    {"OZBLAS_FUSED_AVX2", OZB_KNOB_SET, 0, 1, "the fused kernels' 256-bit set (and the error-free DOT's 256-bit lane loop, and the short DOT, GEMV-T and GEMV-N splits without AVX-512 DQ/VL's VRANGEPD) even where AVX-512 is present", K(fused_avx2)},
    {"OZBLAS_NO_LAZY", OZB_KNOB_SET, 0, 1,
     "CORRECTLY_ROUNDED GEMM on FP64 slices multiplies every slice pair before rounding", K(no_lazy)},
    {"OZBLAS_LAZY_LEVELS", OZB_KNOB_INT, -1, 1,
     "slice levels the lazy CORRECTLY_ROUNDED GEMM multiplies first (1: only the leading pair)", K(lazy_levels)},
    {"OZBLAS_NO_CRT", OZB_KNOB_SET, 0, 1, "CORRECTLY_ROUNDED GEMM that the error-free sums do not take never through the CRT (FP64 slices)", K(no_crt)},
    {"OZBLAS_NO_DOT2", OZB_KNOB_SET, 0, 1,
     "CORRECTLY_ROUNDED (and DOUBLE DOT/GEMV) without the error-free dot products: GEMM with a small inner dimension on the slices, DOT and GEMV on the fused kernels", K(no_dot2)},
    {"OZBLAS_NO_DEEP", OZB_KNOB_SET, 0, 1,
     "CORRECTLY_ROUNDED results the error-free sums cannot certify go straight to the fused kernels and the slices, without the two-level error-free sums", K(no_deep)},
    {"OZBLAS_CUDA_STAGED", OZB_KNOB_SET, 0, 1,
     "CUDA handles take the staged path (host split and sums, device products) for every call", K(cuda_staged)},
    {"OZBLAS_CUDA_NO_FUSED", OZB_KNOB_SET, 0, 1, "CUDA handles: DOT/GEMV without the fused device kernel", K(cuda_no_fused)},
    {"OZBLAS_CUDA_NO_EFT", OZB_KNOB_SET, 0, 1,
     "CUDA handles: CORRECTLY_ROUNDED (and FP64 DOUBLE) DOT/GEMV without the certified error-free kernels (the slice path)", K(cuda_no_eft)},
    {"OZBLAS_CUDA_EMU_ORDER", OZB_KNOB_INT, 1, 1,
     "the emulated device's kernels: seed of the shuffled order of blocks and threads (0: in order)", K(cuda_emu_order)},
    {"OZBLAS_FAIL_ALLOC", OZB_KNOB_INT, 0, 1, "n > 0: the handle's n-th growth of a host workspace buffer fails (fault injection)", K(fail_alloc)},
    {"OZBLAS_CUDA_FAIL_ALLOC", OZB_KNOB_INT, 0, 1, "n > 0: a CUDA handle's n-th device allocation fails (fault injection)", K(cuda_fail[0])},
    {"OZBLAS_CUDA_FAIL_COPY", OZB_KNOB_INT, 0, 1, "n > 0: a CUDA handle's n-th copy between host and device fails", K(cuda_fail[1])},
    {"OZBLAS_CUDA_FAIL_LAUNCH", OZB_KNOB_INT, 0, 1, "n > 0: a CUDA handle's n-th kernel launch fails", K(cuda_fail[2])},
    {"OZBLAS_CUDA_FAIL_BLAS", OZB_KNOB_INT, 0, 1, "n > 0: a CUDA handle's n-th cuBLAS call fails", K(cuda_fail[3])},
};
enum { OZB_KNOB_COUNT = (int)(sizeof ozb_knob_table / sizeof ozb_knob_table[0]) };

const ozb_knob_def *ozb_knob_list(int *count)
{
    *count = OZB_KNOB_COUNT;
    return ozb_knob_table;
}

void ozb_knobs_read(ozb_knobs *k)
{
    for (int i = 0; i < OZB_KNOB_COUNT; i++) {
        const ozb_knob_def *d = &ozb_knob_table[i];
        const char *v = getenv(d->name);
        int x = d->dflt;
        if (v) x = d->kind == OZB_KNOB_SET ? 1 : d->kind == OZB_KNOB_ONE ? v[0] == '1' : atoi(v);
        *(int *)((char *)k + d->offset) = x;
    }
}
