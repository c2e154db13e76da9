/* The error-free DOT's lane loop (eft_dot.c's ozb_eft_dot_run256) with 512-bit vectors: built with
 * -mavx512f -mavx512dq and called only where the CPU has them and the handle's kernel set is
 * the 512-bit one (ozb_eft_wide).  A DOT's eight lanes are the two 256-bit vectors of that loop
 * side by side (lanes 0-3: t[0], g[0]; lanes 4-7: t[1], g[1]), and every lane goes through
 * its operations in its order, the cross-lane maximum of the first block included
 * (on the same 256-bit halves): the same totals and sigmas, bit for bit, so the same results.
 * Why: the two-stream loop (seven operations per product, two loads) runs 0.150 ns per
 * product on one Zen 4 core with 512-bit vectors, 0.224 ns with 256-bit ones (half the
 * instructions for the same work).
 * Bit budget: eft_kern.h.  Compiled with -ffp-contract=off: the FMAs are explicit. */
#include "eft/eft_kern.h"

#if defined(EFT_AVX2) && defined(__AVX512F__) && defined(__AVX512DQ__)
#define ABSMASK8 _mm512_castsi512_pd(_mm512_set1_epi64(0x7fffffffffffffffll))

static inline __m512d join(__m256d lo, __m256d hi) { return _mm512_insertf64x4(_mm512_castpd256_pd512(lo), hi, 1); }
static inline __m256d lo4(__m512d v) { return _mm512_castpd512_pd256(v); }
static inline __m256d hi4(__m512d v) { return _mm512_extractf64x4_pd(v, 1); }

/* Only the product loop is 512-bit: each block's checks, totals and next sigma are the 256-bit
 * loop's own helpers (eft_kern.h) on the two halves, in its order. */
int ozb_eft_dot_run512(const double *x, const double *y, int64_t n8, tot4 t[2], __m256d g[2], int *have_g)
{
    for (int64_t j0 = 0; j0 < n8; j0 += BL) {
        const int64_t nb = n8 - j0 < BL ? n8 - j0 : BL;
        const double *xb = x + 8 * j0, *yb = y + 8 * j0;
        if (!*have_g) {           /* the 256-bit loop's first sigma, on its 256-bit halves */
            __m512d m = _mm512_setzero_pd();
            for (int64_t j = 0; j < nb && j < FIRST_PEEK; j++)
                m = _mm512_max_pd(m, _mm512_and_pd(_mm512_mul_pd(_mm512_loadu_pd(xb + 8 * j), _mm512_loadu_pd(yb + 8 * j)), ABSMASK8));
            __m256d m0 = _mm256_max_pd(lo4(m), hi4(m));
            m0 = _mm256_max_pd(m0, _mm256_permute4x64_pd(m0, 0x4e));
            m0 = _mm256_max_pd(m0, _mm256_permute_pd(m0, 0x5));
            if (!in_range(m0)) return 0;
            g[0] = g[1] = first_sigma(m0);
            *have_g = 1;
        }
        for (;;) {
            __m512d S = _mm512_setzero_pd(), R = S, M = S;
            const __m256d g0 = g[0], g1 = g[1];
            const __m512d G = join(g0, g1);
            for (int64_t j = 0; j < nb; j++) {
                const __m512d xv = _mm512_loadu_pd(xb + 8 * j), yv = _mm512_loadu_pd(yb + 8 * j);
                const __m512d q = _mm512_sub_pd(_mm512_fmadd_pd(xv, yv, G), G);
                R = _mm512_add_pd(R, _mm512_fmsub_pd(xv, yv, q));
                S = _mm512_add_pd(S, q);
                M = _mm512_max_pd(M, _mm512_and_pd(q, ABSMASK8));
            }
            const __m256d M0 = lo4(M), M1 = hi4(M);
            if (!in_range(M0) || !in_range(M1)) return 0;
            const int ok = fits(M0, g0) && fits(M1, g1);
            if (ok) {
                tot_add(&t[0], lo4(S), lo4(R), g0);
                tot_add(&t[1], hi4(S), hi4(R), g1);
            }
            g[0] = next_sigma(M0); g[1] = next_sigma(M1);
            if (!ok) { g[0] = _mm256_max_pd(g[0], g0); g[1] = _mm256_max_pd(g[1], g1); continue; }
            break;
        }
    }
    return 1;
}
#endif
