/* Element operations of the CUDA kernels, written once for the device and the host: the
 * kernels in ozb_kernels.cu apply them per element, and the emulated device (src/cuda,
 * OZBLAS_CUDA_EMULATE=1) applies the same functions on the CPU, so the host tests run the
 * very arithmetic the GPU runs.  Integer and exact operations only: no rounding anywhere. */
#ifndef OZB_KERNEL_OPS_H
#define OZB_KERNEL_OPS_H
#include <stdint.h>

#ifdef __CUDACC__
#define OZB_HD __host__ __device__ static inline
#else
#define OZB_HD static inline
#endif

/* A uint8 residue r in [0, m) of the CRT format as an int8 of the same class modulo m
 * (cuBLAS's integer GEMM multiplies s8 x s8; the CPU's oneDNN takes u8 x s8).
 * Budget: m <= 256, so r - m >= -128 whenever r > 127; the result is in [-128, 127], and a
 * product with an s8 residue is at most 128 * 128 = 2^14 in magnitude, so 2^16 terms stay
 * below 2^30 < 2^31 (tighter than the CPU's 255 * 128 budget).  The GEMM's sum is then
 * congruent to the CPU's modulo m, which is all the reconstruction reads (it reduces every
 * product modulo m first). */
OZB_HD int8_t ozb_op_u8_to_s8_mod(uint8_t r, int32_t m)
{
    return (int8_t)(r > 127 ? (int32_t)r - m : (int32_t)r);
}

/* Exact u8 x s8 products where the exact integer is needed (the ACCURATE scaling's bound,
 * values up to 128): r = 16 hi + lo with hi, lo in [0, 15], two s8 GEMMs, hi's result
 * times 16 plus lo's.  Budget: |hi * s8| <= 15 * 128 < 2^11, so 2^16 terms < 2^27. */
OZB_HD int8_t ozb_op_u8_hi(uint8_t r) { return (int8_t)(r >> 4); }
OZB_HD int8_t ozb_op_u8_lo(uint8_t r) { return (int8_t)(r & 15); }
OZB_HD int32_t ozb_op_hi_lo(int32_t hi, int32_t lo) { return hi * 16 + lo; }

/* INT32-packed slices (seed 001 §4.5): an FP64-format digit |d| <= 2^26 - 1 stored as int32
 * (half the bytes of a double), widened in registers.  Skinny products (DOT: 1 x 1 rows,
 * GEMV: one column) accumulate d_a * d_x in binary64: every product and every partial sum is
 * an integer of at most 2b + ceil(log2 kb) <= 53 bits (the format's budget, core/format.c),
 * so each is exact and the sum is the same in any order, on any thread layout. */
OZB_HD double ozb_op_i32_times(int32_t a, double x) { return (double)a * x; }

/* C := beta C for one element, BLAS style: beta == 0 writes +0 without reading C. */
OZB_HD double ozb_op_scale(double c, double beta) { return beta == 0.0 ? 0.0 : beta * c; }

/* binary16 bits of an integer-valued double d with |d| <= 2047 (the FP16 format's digits,
 * at most 11 bits): exact, built from the integer's bits (no conversion rounding). */
OZB_HD uint16_t ozb_op_f16_of_int(double d)
{
    int32_t v = (int32_t)d;
    uint16_t s = v < 0 ? 0x8000u : 0u;
    uint32_t a = (uint32_t)(v < 0 ? -v : v);
    if (a == 0) return s;
    int e = 0;                                           /* floor(log2 a), 0 <= e <= 10 */
    while ((a >> (e + 1)) != 0) e++;
    uint32_t frac = (a << (10 - e)) & 0x3ffu;            /* the bits below the leading one */
    return (uint16_t)(s | (uint16_t)((e + 15) << 10) | (uint16_t)frac);
}
#endif
