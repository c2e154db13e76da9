/* two_term.c's two-term loop (y given, unit strides) on whole vectors of four with 256-bit
 * vectors (two_term.h: ozb_two_term256).  Each lane takes two_term.c's one() operations in one's
 * order (the FMAs the explicit ones), so its decisions and values are one's bit for bit; lanes
 * out of TwoProduct's range are flagged whatever their value.  Compiled with -ffp-contract=off. */
#include "exact/two_term.h"
#include "exact/lane_flags.h"
#include "exact/stream.h"
#include <immintrin.h>

#if defined(__AVX2__) && defined(__FMA__)
/* The two-term update's constants for a column (two_term_body) */
typedef struct { __m256d vuh, vul, vvh, vvl, zero, tiny, b50, b103, bu, bv, absm, keep_x, keep_y; } two_term_k;

/* one's operations on four elements, in one's order (the FMAs the explicit ones): the values,
 * and in *ok the lanes decided; lanes out of TwoProduct's range flagged whatever their value
 * and carried on with x = y = 0 (a product below the range has a subnormal low part, whose
 * FMA is slow) */
static inline __attribute__((always_inline)) __m256d two_term4(const two_term_k *k, __m256d va, __m256d vx, __m256d vy,
                                                               const int safe, __m256d *ok)
{
    __m256d p = _mm256_mul_pd(vx, k->vuh), q = _mm256_mul_pd(vy, k->vvh);
    __m256d range = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
    if (!safe) {
        range = _mm256_and_pd(
            _mm256_or_pd(k->keep_x, _mm256_or_pd(_mm256_cmp_pd(_mm256_and_pd(p, k->absm), k->tiny, _CMP_GE_OQ),
                                                 _mm256_cmp_pd(vx, k->zero, _CMP_EQ_OQ))),
            _mm256_or_pd(k->keep_y, _mm256_or_pd(_mm256_cmp_pd(_mm256_and_pd(q, k->absm), k->tiny, _CMP_GE_OQ),
                                                 _mm256_cmp_pd(vy, k->zero, _CMP_EQ_OQ))));
        vx = _mm256_and_pd(vx, range);
        vy = _mm256_and_pd(vy, range);
        p = _mm256_and_pd(p, range);
        q = _mm256_and_pd(q, range);
    }
    const __m256d absm = k->absm;
    const __m256d pe = _mm256_fmsub_pd(vx, k->vuh, p), qe = _mm256_fmsub_pd(vy, k->vvh, q);
    const __m256d s1 = _mm256_add_pd(va, p), b1 = _mm256_sub_pd(s1, va);
    const __m256d e1 = _mm256_add_pd(_mm256_sub_pd(va, _mm256_sub_pd(s1, b1)), _mm256_sub_pd(p, b1));
    const __m256d s = _mm256_add_pd(s1, q), b2 = _mm256_sub_pd(s, s1);
    const __m256d e2 = _mm256_add_pd(_mm256_sub_pd(s1, _mm256_sub_pd(s, b2)), _mm256_sub_pd(q, b2));
    const __m256d B = _mm256_fmadd_pd(
        k->b50, _mm256_add_pd(_mm256_and_pd(e1, absm), _mm256_add_pd(_mm256_and_pd(pe, absm), _mm256_and_pd(qe, absm))),
        _mm256_fmadd_pd(k->b103, _mm256_and_pd(s, absm),
                        _mm256_fmadd_pd(k->bu, _mm256_and_pd(p, absm), _mm256_mul_pd(k->bv, _mm256_and_pd(q, absm)))));
    const __m256d g = _mm256_fmadd_pd(vx, k->vul, _mm256_fmadd_pd(vy, k->vvl, _mm256_add_pd(pe, qe))), f = _mm256_add_pd(e1, e2);
    const __m256d lo = _mm256_add_pd(s, _mm256_add_pd(f, _mm256_sub_pd(g, B)));
    const __m256d hi = _mm256_add_pd(s, _mm256_add_pd(f, _mm256_add_pd(g, B)));
    *ok = safe ? _mm256_cmp_pd(lo, hi, _CMP_EQ_OQ) : _mm256_and_pd(range, _mm256_cmp_pd(lo, hi, _CMP_EQ_OQ));
    return lo;
}

/* a vector's decided lanes into out (a masked store where some are not: rare) and its flags */
static inline int64_t two_term_put(double *out, uint8_t *fail, __m256d lo, __m256d ok)
{
    const int bits = _mm256_movemask_pd(ok);
    if (bits == 0xf) _mm256_storeu_pd(out, lo);
    else if (bits) _mm256_maskstore_pd(out, _mm256_castpd_si256(ok), lo);
    return ozb_put_flags(fail, (unsigned)bits, 0xf, 4);
}

/* The two-term loop on unit strides, eight elements an iteration as two vectors (two
 * independent chains side by side: one vector's chain of dependent operations is long), then
 * four */
static inline __attribute__((always_inline)) int64_t two_term_body(int64_t m, const double *a, const double *x, double uh,
                                                                   double ul, const double *y, double vh, double vl,
                                                                   double *out, const int safe, uint8_t *fail)
{
    const two_term_k k = { _mm256_set1_pd(uh), _mm256_set1_pd(ul), _mm256_set1_pd(vh), _mm256_set1_pd(vl),
                           _mm256_setzero_pd(), _mm256_set1_pd(0x1p-960), _mm256_set1_pd(0x1p-50), _mm256_set1_pd(0x1p-103),
                           _mm256_set1_pd(ul != 0.0 ? 0x1p-102 : 0.0), _mm256_set1_pd(vl != 0.0 ? 0x1p-102 : 0.0),
                           _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffll)),
                           _mm256_castsi256_pd(_mm256_set1_epi64x(uh == 0.0 ? -1 : 0)),
                           _mm256_castsi256_pd(_mm256_set1_epi64x(vh == 0.0 ? -1 : 0)) };
    int64_t nf = 0, i = 0;
    for (; i + 8 <= m; i += 8) {
        ozb_ahead(a + i);   /* (a line holds eight) */
        __m256d ok0, ok1;
        const __m256d r0 = two_term4(&k, _mm256_loadu_pd(a + i), _mm256_loadu_pd(x + i), _mm256_loadu_pd(y + i), safe, &ok0);
        const __m256d r1 = two_term4(&k, _mm256_loadu_pd(a + i + 4), _mm256_loadu_pd(x + i + 4), _mm256_loadu_pd(y + i + 4),
                                     safe, &ok1);
        nf += two_term_put(out + i, fail + i, r0, ok0);
        nf += two_term_put(out + i + 4, fail + i + 4, r1, ok1);
    }
    if (i + 4 <= m) {
        __m256d ok;
        const __m256d r = two_term4(&k, _mm256_loadu_pd(a + i), _mm256_loadu_pd(x + i), _mm256_loadu_pd(y + i), safe, &ok);
        nf += two_term_put(out + i, fail + i, r, ok);
    }
    return nf;
}

/* two_term_body with safe a constant in each: the range tests and their constants out of
 * the safe loop */
int64_t ozb_two_term256(int64_t m, const double *a, const double *x, double uh, double ul, const double *y, double vh,
                        double vl, double *out, int safe, uint8_t *fail)
{
    return safe ? two_term_body(m, a, x, uh, ul, y, vh, vl, out, 1, fail) : two_term_body(m, a, x, uh, ul, y, vh, vl, out, 0, fail);
}
#endif
