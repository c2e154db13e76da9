/* ozb_eft_strip_block (eft_gemv_n.c) with 512-bit vectors: built with -mavx512f -mavx512dq
 * and called only where the handle's kernel set is the 512-bit one (ozb_eft_wide).  A strip's
 * eight rows are one vector, and the block's columns go alternately to two running splits
 * (CHAIN4_MAX, eft_kern.h), each with its own tau, R and largest |d|: one chain waits four
 * cycles a column on its FMA, two keep both FMA units of a core busy.  Five operations per
 * eight products where the 256-bit split (SPLIT4) takes fourteen.
 * Bit budget, as CHAIN4_MAX's for each chain (u = 2^-53, sigma = 2^k, nb <= BLN columns, as
 * its callers' blocks are, so each chain takes k0, k1 <= BLN / 2 of them):
 *   - each chain's largest |d| <= 2^-7 sigma (fits, on the maximum of both) proves by the
 *     same induction that its taus stay within BLN / 2 2^-7 sigma = sigma/8 of sigma and all
 *     its d are exact; S_c = tau_c - sigma exactly (Sterbenz), a multiple of u sigma with
 *     |S_c| <= sigma/8, so S = S_0 + S_1 (|S| <= sigma/4, the same grid) is exact too;
 *   - R = R_0 + R_1 is a summation tree over the nb terms r, each RN(e) with |e| <= u sigma:
 *     the r's own roundings nb u^2 sigma, the tree's errs by at most (nb - 1) u sum |r|
 *     <= (nb - 1) nb (1 + u) u^2 sigma, and |S + R - sum x y| <= nb^2 u^2 sigma (1 + 2^-40) +
 *     nb 2^-1075: CHAIN4_MAX's bound, which the totals take.
 * Compiled with -ffp-contract=off: the FMAs are explicit. */
#include "eft/eft_kern.h"

#if defined(EFT_AVX2) && defined(__AVX512F__) && defined(__AVX512DQ__)
static inline __m512d join(__m256d lo, __m256d hi) { return _mm512_insertf64x4(_mm512_castpd256_pd512(lo), hi, 1); }
static inline __m256d lo4(__m512d v) { return _mm512_castpd512_pd256(v); }
static inline __m256d hi4(__m512d v) { return _mm512_extractf64x4_pd(v, 1); }

/* One chain's step on column c (x its element): tau T, R, largest |d| M (VRANGEPD: the larger
 * magnitude with its sign cleared; a NaN d is kept, which fits and in_range refuse) */
#define CHAIN8_MAX(T, R, M, c, x) do {                                                  \
        const __m512d a_ = _mm512_loadu_pd(c), x_ = _mm512_set1_pd(x);                  \
        const __m512d t_ = _mm512_fmadd_pd(a_, x_, T), d_ = _mm512_sub_pd(t_, T);       \
        R = _mm512_add_pd(R, _mm512_fmsub_pd(a_, x_, d_));                              \
        M = _mm512_range_pd(M, d_, 0xb);                                                \
        T = t_;                                                                         \
    } while (0)

int ozb_eft_strip_block512(const double *a, int64_t lda, const double *const *cols, const double *xs, int64_t nb,
                           row4_t st[2], int first)
{
#define COL(j) (cols ? cols[j] : a + (j) * lda)
    if (first) {
        __m512d m = _mm512_setzero_pd();
        for (int64_t j = 0; j < nb && j < FIRST_PEEK; j++)
            m = _mm512_range_pd(m, _mm512_mul_pd(_mm512_loadu_pd(COL(j)), _mm512_set1_pd(xs[j])), 0xb);
        if (!in_range(lo4(m)) || !in_range(hi4(m))) return 0;
        st[0].g = first_sigma(lo4(m)); st[1].g = first_sigma(hi4(m));
    }
    for (;;) {
        const __m512d g = join(st[0].g, st[1].g), z = _mm512_setzero_pd();
        __m512d T0 = g, T1 = g, R0 = z, R1 = z, M0 = z, M1 = z;
        int64_t j = 0;
        for (; j + 2 <= nb; j += 2) {
            CHAIN8_MAX(T0, R0, M0, COL(j), xs[j]);
            CHAIN8_MAX(T1, R1, M1, COL(j + 1), xs[j + 1]);
        }
        if (j < nb) CHAIN8_MAX(T0, R0, M0, COL(j), xs[j]);
        const __m512d M = _mm512_range_pd(M0, M1, 0xb);
        const __m256d g0 = st[0].g, g1 = st[1].g, m0 = lo4(M), m1 = hi4(M);
        if (!in_range(m0) || !in_range(m1)) return 0;
        const int ok = fits(m0, g0) && fits(m1, g1);
        if (ok) {
            const __m512d S = _mm512_add_pd(_mm512_sub_pd(T0, g), _mm512_sub_pd(T1, g)), R = _mm512_add_pd(R0, R1);
            tot_add(&st[0].t, lo4(S), lo4(R), g0);
            tot_add(&st[1].t, hi4(S), hi4(R), g1);
        }
        st[0].g = next_sigma(m0); st[1].g = next_sigma(m1);
        if (!ok) { st[0].g = _mm256_max_pd(st[0].g, g0); st[1].g = _mm256_max_pd(st[1].g, g1); continue; }
        return 1;
    }
#undef COL
}
#endif
