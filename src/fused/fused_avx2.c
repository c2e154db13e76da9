/* The fused kernels with 256-bit vectors (the library's x86-64-v3 baseline). */
#include <string.h>
#define OZB_FZ_W 4
#include "fused/fused_kern.inc"

const ozb_fz_kernels *ozb_fz_select(void)
{
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")) return &ozb_fz_avx512;
    return &ozb_fz_avx2;
}
