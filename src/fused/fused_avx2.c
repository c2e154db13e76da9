/* The fused kernels with 256-bit vectors (the library's x86-64-v3 baseline). */
#include <stdlib.h>
#include <string.h>
#define OZB_FZ_W 4
#include "fused/fused_kern.inc"

/* The widest set the CPU runs (OZBLAS_FUSED_AVX2 forces the 256-bit one: fused.c) */
const ozb_fused_kernels *ozb_fused_select(void)
{
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")) return &ozb_fused_avx512;
    return &ozb_fused_avx2;
}
