/* Bit-level helpers of the element operations (ozb_kernel_ops.h, ozb_sum_ops.h), written once
 * for the host and the device.  Integer and exact operations only. */
#ifndef OZB_BITS_OPS_H
#define OZB_BITS_OPS_H
#include <math.h>
#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define OZB_HD __host__ __device__ static inline
#else
#define OZB_HD static inline
#endif

#define OZB_OP_ABS 0x7fffffffffffffffull
#define OZB_OP_INF_BITS 0x7ff0000000000000ull

OZB_HD uint64_t ozb_op_bits(double x)
{
#ifdef __CUDA_ARCH__
    return (uint64_t)__double_as_longlong(x);
#else
    uint64_t b; memcpy(&b, &x, sizeof b); return b;
#endif
}

OZB_HD double ozb_op_from_bits(uint64_t b)
{
#ifdef __CUDA_ARCH__
    return __longlong_as_double((long long)b);
#else
    double d; memcpy(&d, &b, sizeof d); return d;
#endif
}

OZB_HD int ozb_op_clz32(uint32_t x)     /* x != 0 */
{
#ifdef __CUDA_ARCH__
    return __clz((int)x);
#else
    return __builtin_clz(x);
#endif
}

OZB_HD int ozb_op_clz64(uint64_t x)     /* x != 0 */
{
#ifdef __CUDA_ARCH__
    return __clzll((long long)x);
#else
    return __builtin_clzll(x);
#endif
}

OZB_HD int ozb_op_ctz64(uint64_t x)     /* x != 0 */
{
#ifdef __CUDA_ARCH__
    return __ffsll((long long)x) - 1;
#else
    return __builtin_ctzll(x);
#endif
}

/* 2^e for -1022 <= e <= 1023, from its bits (exact) */
OZB_HD double ozb_op_pow2(int e) { return ozb_op_from_bits((uint64_t)(e + 1023) << 52); }

/* floor(log2|x|) for finite nonzero x, subnormals included (= ozb_ilogb) */
OZB_HD int ozb_op_ilogb(double x)
{
    const uint64_t b = ozb_op_bits(x) & OZB_OP_ABS;
    const int ef = (int)(b >> 52);
    if (ef) return ef - 1023;
    return 63 - ozb_op_clz64(b) - 1074;
}

/* |x| = M 2^e with M an integer < 2^53; *neg the sign bit */
OZB_HD uint64_t ozb_op_mant_exp(double x, int *e, int *neg)
{
    const uint64_t b = ozb_op_bits(x);
    *neg = (int)(b >> 63);
    const int ef = (int)((b >> 52) & 0x7ff);
    uint64_t m = b & 0xfffffffffffffull;
    if (ef) { m |= 1ull << 52; *e = ef - 1075; } else *e = -1074;
    return m;
}

/* x 2^e, exact where the result is normal (ldexp elsewhere, which rounds once) */
OZB_HD double ozb_op_scale_pow2(double x, int e)
{
    return (e >= -1022 && e <= 1023) ? x * ozb_op_pow2(e) : ldexp(x, e);
}

/* frexp for finite x, the common (normal) case from the bits */
OZB_HD double ozb_op_split_pow2(double x, int *e)
{
    uint64_t b = ozb_op_bits(x);
    const int ef = (int)((b >> 52) & 0x7ff);
    if (ef == 0 || ef == 0x7ff) return frexp(x, e);
    *e = ef - 1022;
    b = (b & 0x800fffffffffffffull) | (1022ull << 52);   /* mantissa in [0.5, 1) */
    return ozb_op_from_bits(b);
}
#endif
