/* The 256-bit error-free kernels with AVX-512 DQ and VL (eft_kern.h's OZB_MAXABS4_DQ: one
 * VRANGEPD for the largest |q| or |d| where AVX2 takes an and and a max): the target
 * attribute of such a function, and whether the CPU runs it. */
#ifndef OZB_CPU_DQ_H
#define OZB_CPU_DQ_H

#define OZB_DQ_TARGET __attribute__((target("avx512f,avx512dq,avx512vl")))

/* 1 where the CPU has AVX-512 DQ and VL and the OS saves the 512-bit state (libgcc's CPU
 * model, read at start-up, counts AVX-512 only then): a load and a test per call */
static inline int ozb_cpu_dq(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    return __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
#else
    return 0;
#endif
}
#endif
