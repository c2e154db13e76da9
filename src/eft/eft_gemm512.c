/* The error-free GEMM's block of one strip times two columns (eft_gemm.c's block_two) with
 * 512-bit vectors: built with -mavx512f -mavx512dq and called only where the handle's kernel
 * set is the 512-bit one (ozb_eft_wide).  A strip's eight rows are one vector, the two
 * 256-bit halves of block_two's side by side, and every lane goes through the running split
 * (CHAIN4, eft_kern.h) in its order: the same S and R, bit for bit, so the same results.
 * Why: two chains of four operations per eight-row step where the 256-bit code runs four;
 * on cores with two 512-bit FMA units (Sapphire Rapids) that is the GEMM's speed (at 256
 * bits its adds wait for ports), and elsewhere fewer instructions for the same work.
 * Bit budget: eft_kern.h.  Compiled with -ffp-contract=off: the FMAs are explicit. */
#include "eft/eft_kern.h"

#if defined(EFT_AVX2) && defined(__AVX512F__) && defined(__AVX512DQ__)
static inline __m512d join(__m256d lo, __m256d hi) { return _mm512_insertf64x4(_mm512_castpd256_pd512(lo), hi, 1); }

void ozb_eft_block_two512(const double *ab, const double *x0, const double *x1, int64_t nb, const __m256d gs[4],
                          __m256d S[4], __m256d R[4])
{
    const __m512d g0 = join(gs[0], gs[1]), g1 = join(gs[2], gs[3]);
    __m512d T0 = g0, T1 = g1, R0 = _mm512_setzero_pd(), R1 = R0;
    for (int64_t l = 0; l < nb; l++) {
        const __m512d a = _mm512_loadu_pd(ab + 8 * l);
        const __m512d xv = _mm512_set1_pd(x0[l]), xw = _mm512_set1_pd(x1[l]);
        const __m512d t0 = _mm512_fmadd_pd(a, xv, T0), t1 = _mm512_fmadd_pd(a, xw, T1);
        R0 = _mm512_add_pd(R0, _mm512_fmsub_pd(a, xv, _mm512_sub_pd(t0, T0)));
        R1 = _mm512_add_pd(R1, _mm512_fmsub_pd(a, xw, _mm512_sub_pd(t1, T1)));
        T0 = t0;
        T1 = t1;
    }
    /* S = tau - sigma, exact (Sterbenz, as block_two) */
    const __m512d S0 = _mm512_sub_pd(T0, g0), S1 = _mm512_sub_pd(T1, g1);
    S[0] = _mm512_castpd512_pd256(S0); S[1] = _mm512_extractf64x4_pd(S0, 1);
    S[2] = _mm512_castpd512_pd256(S1); S[3] = _mm512_extractf64x4_pd(S1, 1);
    R[0] = _mm512_castpd512_pd256(R0); R[1] = _mm512_extractf64x4_pd(R0, 1);
    R[2] = _mm512_castpd512_pd256(R1); R[3] = _mm512_extractf64x4_pd(R1, 1);
}
#endif
