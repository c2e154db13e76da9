/* The deep error-free sums' block passes (eft_deep_kern.c's deep_block) with 512-bit vectors:
 * built with -mavx512f -mavx512dq and called only where the handle's kernel set is the
 * 512-bit one (ozb_eft_wide).  The eight lanes are one vector, so both halves' sums run in one
 * pass (the 256-bit code takes one pass per half: the sums of both take more registers than
 * AVX2 has), and each lane takes DEEP4's operations on its products in the same order: the
 * same S1, S2 and R2, bit for bit (the maxima: below).  (DEEP4's additions written as FMAs by one are plain
 * additions here: fma(a, 1, b) = RN(a + b), the same values.)  Method and bit budget:
 * eft_deep_kern.h.  Compiled with -ffp-contract=off: the FMAs are explicit. */
#include "eft/eft_deep_kern.h"

#if defined(EFT_AVX2) && defined(__AVX512F__) && defined(__AVX512DQ__)
static inline __m512d join(__m256d lo, __m256d hi) { return _mm512_insertf64x4(_mm512_castpd256_pd512(lo), hi, 1); }

void ozb_deep_max512(const double *a, const double *x, int xstep, int64_t nb, const int32_t *la, const int32_t *lx,
                     __m256d M[2], __m256i *G)
{
    /* two maxima over alternate steps (a chain of one waits on each max's latency), then
     * their max: the 256-bit loop's value wherever no product is NaN.  With a NaN product (a
     * NaN operand, or 0 times Inf) either loop may keep or drop it (max_pd keeps its second
     * operand where either is NaN), so M may differ there; its lane's sums are NaN either way,
     * and every row that in_range or the rounding leaves goes on to RN(exact) by the later
     * stages. */
    __m512d m0 = _mm512_setzero_pd(), m1 = m0;
    __m256i g = _mm256_set1_epi32(2 * OZB_LSB_NONE);
    for (int64_t l = 0; l < nb; l++) {
        const __m512d xv = xstep == 1 ? _mm512_set1_pd(x[l]) : _mm512_loadu_pd(x + 8 * l);
        const __m512d p = _mm512_abs_pd(_mm512_mul_pd(_mm512_loadu_pd(a + 8 * l), xv));
        if (l & 1) m1 = _mm512_max_pd(m1, p);
        else m0 = _mm512_max_pd(m0, p);
        if (la) {
            const __m256i gx = xstep == 1 ? _mm256_set1_epi32(lx[l]) : _mm256_loadu_si256((const __m256i *)(lx + 8 * l));
            g = _mm256_min_epi32(g, _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(la + 8 * l)), gx));
        }
    }
    const __m512d m = _mm512_max_pd(m0, m1);
    M[0] = _mm512_castpd512_pd256(m);
    M[1] = _mm512_extractf64x4_pd(m, 1);
    *G = g;
}

void ozb_deep_sums512(const double *a, const double *x, int xstep, int64_t nb, const __m256d g[2], const __m256d h[2],
                      __m256d S1[2], __m256d S2[2], __m256d R2[2])
{
    const __m512d gg = join(g[0], g[1]), hh = join(h[0], h[1]), z = _mm512_setzero_pd();
    __m512d s1 = z, s2 = z, r2 = z;
    for (int64_t l = 0; l < nb; l++) {
        const __m512d xv = xstep == 1 ? _mm512_set1_pd(x[l]) : _mm512_loadu_pd(x + 8 * l);
        const __m512d av = _mm512_loadu_pd(a + 8 * l);
        const __m512d p = _mm512_mul_pd(av, xv), e = _mm512_fmsub_pd(av, xv, p);
        const __m512d q1 = _mm512_sub_pd(_mm512_add_pd(p, gg), gg), r1 = _mm512_sub_pd(p, q1);
        const __m512d qa = _mm512_sub_pd(_mm512_add_pd(r1, hh), hh), qb = _mm512_sub_pd(_mm512_add_pd(e, hh), hh);
        s1 = _mm512_add_pd(q1, s1);
        s2 = _mm512_add_pd(s2, _mm512_add_pd(qa, qb));
        r2 = _mm512_add_pd(r2, _mm512_add_pd(_mm512_sub_pd(r1, qa), _mm512_sub_pd(e, qb)));
    }
    S1[0] = _mm512_castpd512_pd256(s1); S1[1] = _mm512_extractf64x4_pd(s1, 1);
    S2[0] = _mm512_castpd512_pd256(s2); S2[1] = _mm512_extractf64x4_pd(s2, 1);
    R2[0] = _mm512_castpd512_pd256(r2); R2[1] = _mm512_extractf64x4_pd(r2, 1);
}
#endif
