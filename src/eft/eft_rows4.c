/* GEMV-T rows four at a time (eft_dot.c's short rows): each row of op(A) times x by the
 * running split (eft_kern.h), the four rows side by side (eight independent chains of sums),
 * sigma per row either from the rows' maxima (ozb_eft_split4_bounded: a pass over the rows
 * first) or guessed from their first elements and proved afterwards (ozb_eft_split4_guess).
 * Compiled with -ffp-contract=off: the FMAs are explicit. */
#include "eft/eft_rows4.h"
#include "eft/cpu_dq.h"
#include <math.h>

#ifdef EFT_AVX2
/* [max of m[0]'s lanes, ..., max of m[3]'s lanes] */
static inline __m256d lanes_max4(const __m256d m[4])
{
    const __m256d t01 = _mm256_max_pd(_mm256_unpacklo_pd(m[0], m[1]), _mm256_unpackhi_pd(m[0], m[1]));
    const __m256d t23 = _mm256_max_pd(_mm256_unpacklo_pd(m[2], m[3]), _mm256_unpackhi_pd(m[2], m[3]));
    return _mm256_max_pd(_mm256_permute2f128_pd(t01, t23, 0x20), _mm256_permute2f128_pd(t01, t23, 0x31));
}

/* max|a_q| of four rows of n elements (a + q lda), as one vector; a NaN may be dropped (the
 * split's sums turn NaN for such a row: see ozb_eft_split4_bounded) */
static inline __m256d absmax4(const double *a, int64_t lda, int64_t n)
{
    const int64_t n4 = n & ~(int64_t)3, r = n - n4;
    __m256d m[4];
    for (int q = 0; q < 4; q++) m[q] = _mm256_and_pd(ozb_first4(a + q * lda + n4, r), ABSMASK);
    for (int64_t l = 0; l < n4; l += 4)
        for (int q = 0; q < 4; q++) m[q] = _mm256_max_pd(m[q], _mm256_and_pd(_mm256_loadu_pd(a + q * lda + l), ABSMASK));
    return lanes_max4(m);
}

/* [sum of v0's lanes, ..., sum of v3's lanes] (any order of the adds: S is exact whatever it
 * is, R's bound holds for every order of its n terms) */
static inline __m256d hsum4(__m256d v0, __m256d v1, __m256d v2, __m256d v3)
{
    const __m256d h01 = _mm256_hadd_pd(v0, v1), h23 = _mm256_hadd_pd(v2, v3);
    return _mm256_add_pd(_mm256_permute2f128_pd(h01, h23, 0x20), _mm256_permute2f128_pd(h01, h23, 0x31));
}

void ozb_eft_split4_bounded(const double *a, int64_t lda, const double *x, int64_t n, double xmax, tot4 *t)
{
    const __m256d amv = absmax4(a, lda, n), lim = _mm256_set1_pd(0x1p490);
    /* rows whose products may pass 2^980 (or hold Inf or NaN) take sigma 1 here and NaN at the
     * end; a NaN that absmax4 dropped makes the row's sums NaN itself (NaN products) */
    const __m256d ok = _mm256_and_pd(_mm256_cmp_pd(amv, lim, _CMP_LE_OQ), _mm256_cmp_pd(_mm256_set1_pd(xmax), lim, _CMP_LE_OQ));
    __m256d g = sigma_for(_mm256_mul_pd(_mm256_set1_pd(4.0), _mm256_mul_pd(_mm256_set1_pd(xmax), amv)));
    if (n > 256) g = _mm256_mul_pd(g, _mm256_set1_pd(4.0));
    g = _mm256_blendv_pd(_mm256_set1_pd(1.0), g, ok);
    const __m256d g0 = _mm256_permute4x64_pd(g, 0x00), g1 = _mm256_permute4x64_pd(g, 0x55);
    const __m256d g2 = _mm256_permute4x64_pd(g, 0xaa), g3 = _mm256_permute4x64_pd(g, 0xff);
    const double *a0 = a, *a1 = a + lda, *a2 = a + 2 * lda, *a3 = a + 3 * lda;
    const int64_t n4 = n & ~(int64_t)3, r = n - n4;
    /* the running split (CHAIN4, eft_kern.h): each lane sums at most n / 4 <= 256 products
     * below 2^-10 sigma (2^-12 sigma beyond 256 products), so its tau stays within sigma / 16
     * of sigma; S = tau - sigma exactly per lane, and the r are the terms whose sum's bound
     * the G below covers, as SPLIT4_NOMAX's (four chains of four operations per four products
     * against five: GEMV-T 64, 128, 1024 6, 3, 5 % faster, AVX512 EPYC, interleaved A/B) */
    const __m256d z = _mm256_setzero_pd();
    __m256d T0 = g0, T1 = g1, T2 = g2, T3 = g3, R0 = z, R1 = z, R2 = z, R3 = z;
    if (r) {                      /* the tail (none where r = 0: zero products change nothing) */
        const __m256d xt = ozb_first4(x + n4, r);
        CHAIN4(T0, R0, ozb_first4(a0 + n4, r), xt);
        CHAIN4(T1, R1, ozb_first4(a1 + n4, r), xt);
        CHAIN4(T2, R2, ozb_first4(a2 + n4, r), xt);
        CHAIN4(T3, R3, ozb_first4(a3 + n4, r), xt);
    }
    for (int64_t l = 0; l < n4; l += 4) {
        const __m256d xv = _mm256_loadu_pd(x + l);
        CHAIN4(T0, R0, _mm256_loadu_pd(a0 + l), xv);
        CHAIN4(T1, R1, _mm256_loadu_pd(a1 + l), xv);
        CHAIN4(T2, R2, _mm256_loadu_pd(a2 + l), xv);
        CHAIN4(T3, R3, _mm256_loadu_pd(a3 + l), xv);
    }
    const __m256d S0 = _mm256_sub_pd(T0, g0), S1 = _mm256_sub_pd(T1, g1), S2 = _mm256_sub_pd(T2, g2), S3 = _mm256_sub_pd(T3, g3);
    const double nn = (double)n;
    t->s = _mm256_blendv_pd(_mm256_set1_pd(NAN), hsum4(S0, S1, S2, S3), ok);
    t->c = hsum4(R0, R1, R2, R3);
    t->a = _mm256_setzero_pd();
    t->g = _mm256_mul_pd(_mm256_mul_pd(g, _mm256_set1_pd(nn * nn + nn)), _mm256_set1_pd(0x1p-14));   /* as ozb_eft_split1's */
}

/* Budget (CHAIN4_MAX, eft_kern.h: at most 32 products per lane and block).  A row of n <=
 * OZB_ROWS4_GUESS = 96 products is summed in four lanes of at most 24 products plus the tail's
 * (the first n mod 4 elements of a vector, zeros beyond: zero products, d = 0); sigma is a power
 * of two, sigma_for(xmax max|a| of the row's first four elements) times 2^6, at most 2^997
 * (both maxima at most 2^490) and at least 2^-960.  Every |d| <= 2^-7 sigma, checked after the
 * pass lane by lane (fits), proves CHAIN4_MAX's conditions: every tau within 25 2^-7 sigma of
 * sigma, every d exact, S = tau - sigma exact per lane; the four lanes' S, multiples of u sigma
 * whose sum is at most 100 2^-7 sigma < sigma, add exactly in any order (hsum4); R's terms, n of
 * them below (1 + u) u sigma, err by at most gamma_(n-1) n (1 + u) u sigma in any order.  So
 * |S + R - sum a x| <= (n^2 + n) u^2 sigma (1 + 2^-40) + n 2^-1075, which G = (n^2 + n) sigma
 * 2^-14 covers as ozb_eft_split4_bounded's does (EBC G, with its 2^-1000 floor).  A guess can
 * only fail the check (then 0), never give a wrong sum.  Why: no pass over the rows for their
 * maxima and no reduction of them before the first product (CR GEMV-T 64 5 % and 96 9 % less
 * time than with the pass, 128 the same, so the limit; interleaved A/B, 1 thread, AVX512
 * EPYC). */
#define GUESS guess_avx2
#define GUESS_TARGET __attribute__((noinline))
#define GUESS_MAXABS OZB_MAXABS4
#include "eft/eft_rows4_guess.inc"
/* the same with AVX-512 DQ and VL: one operation fewer per four products (five) */
#define GUESS guess_dq
#define GUESS_TARGET __attribute__((noinline)) OZB_DQ_TARGET
#define GUESS_MAXABS OZB_MAXABS4_DQ
#include "eft/eft_rows4_guess.inc"

int ozb_eft_split4_guess(const double *a, int64_t lda, const double *x, int64_t n, double xmax, int wide, tot4 *t)
{
    if (wide && ozb_cpu_dq()) return guess_dq(a, lda, x, n, xmax, t);
    return guess_avx2(a, lda, x, n, xmax, t);
}
#endif
