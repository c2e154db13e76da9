/* The loops of two_term.c with 512-bit vectors: the one-term loop (one1, the rank updates'
 * a + x (uh + ul)) and the two-term loop (one, DSYR2's a + x (uh + ul) + y (vh + vl)).  Built
 * with -mavx512f -mavx512dq and called only where the handle's kernel set is the 512-bit one.
 * Each element goes through one1's (one's) operations in their order (no contraction: the
 * FMAs are the explicit ones), so the decided elements and their flags are theirs, bit for
 * bit.  Why: GCC's 256-bit loops spend a third of their instructions moving the 64-bit
 * comparison masks between vector and integer form; here they stay in mask registers.
 * Compiled with -ffp-contract=off. */
#include "exact/two_term.h"
#include "exact/lane_flags.h"
#include "exact/stream.h"

#if defined(__AVX512F__) && defined(__AVX512DQ__)
#include <immintrin.h>

/* one1's constants for one column (alpha v_j = uh + ul) */
typedef struct {
    __m512d uh, ul, b102;     /* b102: 2^-102 where ul != 0 (the bound's product term), else 0 */
    int fma_only;
    __mmask8 keep_range;
} col512_t;

static inline col512_t col512(double uh, double ul, int safe)
{
    const col512_t c = { _mm512_set1_pd(uh), _mm512_set1_pd(ul), _mm512_set1_pd(ul != 0.0 ? 0x1p-102 : 0.0), ul == 0.0,
                         (__mmask8)((safe || uh == 0.0) ? 0xff : 0x00) };
    return c;
}

static inline __mmask8 live_of(int64_t i, int64_t m) { return m - i >= 8 ? 0xff : (__mmask8)((1u << (m - i)) - 1u); }

/* Rows i..i+7 of one column (live: those below m): one1's operations lane by lane on a + x (uh
 * + ul), the certified lanes stored into out; returns them */
static inline __mmask8 vec512(const col512_t *c, const double *a, const double *x, double *out, int64_t i, int64_t m)
{
    const __m512d zero = _mm512_setzero_pd(), big = _mm512_set1_pd(0x1.fffffffffffffp1023), tiny = _mm512_set1_pd(0x1p-960);
    const __m512d b50 = _mm512_set1_pd(0x1p-50), b103 = _mm512_set1_pd(0x1p-103);
    const __mmask8 live = live_of(i, m);
    const int whole = m - i >= 8;
    const __m512d va = whole ? _mm512_loadu_pd(a + i) : _mm512_maskz_loadu_pd(live, a + i);
    const __m512d vx = whole ? _mm512_loadu_pd(x + i) : _mm512_maskz_loadu_pd(live, x + i);
    __m512d r;
    __mmask8 ok;
    if (c->fma_only) {
        const __m512d f = _mm512_fmadd_pd(vx, c->uh, va);
        const __mmask8 range = c->keep_range | _mm512_cmp_pd_mask(_mm512_abs_pd(_mm512_mul_pd(vx, c->uh)), tiny, _CMP_GE_OQ) |
                               _mm512_cmp_pd_mask(vx, zero, _CMP_EQ_OQ);
        ok = (_mm512_cmp_pd_mask(f, zero, _CMP_NEQ_UQ) | range) & _mm512_cmp_pd_mask(_mm512_abs_pd(f), big, _CMP_LE_OQ);
        r = _mm512_add_pd(f, zero);
    } else {
        const __m512d p = _mm512_mul_pd(vx, c->uh), pe = _mm512_fmsub_pd(vx, c->uh, p);
        const __m512d s = _mm512_add_pd(va, p), b = _mm512_sub_pd(s, va);
        const __m512d e1 = _mm512_add_pd(_mm512_sub_pd(va, _mm512_sub_pd(s, b)), _mm512_sub_pd(p, b));
        const __m512d g = _mm512_fmadd_pd(vx, c->ul, pe);
        const __m512d B = _mm512_fmadd_pd(b103, _mm512_abs_pd(s),
                                          _mm512_fmadd_pd(b50, _mm512_abs_pd(pe), _mm512_mul_pd(c->b102, _mm512_abs_pd(p))));
        const __m512d lo = _mm512_add_pd(s, _mm512_add_pd(e1, _mm512_sub_pd(g, B)));
        const __m512d hi = _mm512_add_pd(s, _mm512_add_pd(e1, _mm512_add_pd(g, B)));
        const __mmask8 range = c->keep_range | _mm512_cmp_pd_mask(_mm512_abs_pd(p), tiny, _CMP_GE_OQ) |
                               _mm512_cmp_pd_mask(vx, zero, _CMP_EQ_OQ);
        ok = range & _mm512_cmp_pd_mask(lo, hi, _CMP_EQ_OQ) & _mm512_cmp_pd_mask(_mm512_abs_pd(lo), big, _CMP_LE_OQ);
        r = lo;
    }
    ok &= live;
    if (ok == 0xff) _mm512_storeu_pd(out + i, r);
    else _mm512_mask_storeu_pd(out + i, ok, r);
    return ok;
}

int64_t ozb_one_term512(int64_t m, const double *a, const double *x, double uh, double ul, double *out, int safe,
                        uint8_t *fail)
{
    const col512_t c = col512(uh, ul, safe);
    int64_t nf = 0;
    for (int64_t i = 0; i < m; i += 8) {
        ozb_ahead(a + i);
        nf += ozb_put_flags(fail + i, vec512(&c, a, x, out, i, m), live_of(i, m), m - i >= 8 ? 8 : m - i);
    }
    return nf;
}

void ozb_one_term512_pair(int64_t m, double *a0, double *a1, const double *x, const double u[4], const int safe[2],
                          uint8_t *f0, uint8_t *f1, int64_t nf[2])
{
    const col512_t c0 = col512(u[0], u[1], safe[0]), c1 = col512(u[2], u[3], safe[1]);
    nf[0] = nf[1] = 0;
    for (int64_t i = 0; i < m; i += 8) {
        ozb_ahead(a0 + i);
        ozb_ahead(a1 + i);
        const __mmask8 ok0 = vec512(&c0, a0, x, a0, i, m), ok1 = vec512(&c1, a1, x, a1, i, m), live = live_of(i, m);
        const int64_t len = m - i >= 8 ? 8 : m - i;
        nf[0] += ozb_put_flags(f0 + i, ok0, live, len);
        nf[1] += ozb_put_flags(f1 + i, ok1, live, len);
    }
}

/* Rows i..i+7 (live: those below m) of one's a + x (uh + ul) + y (vh + vl), lane by lane in
 * its order; the certified lanes stored into out; returns them.  Lanes out of TwoProduct's
 * range are flagged whatever their value, so they go on with x = y = 0 (a product below the
 * range has a subnormal low part, whose FMA is slow); the others compute one's values. */
static inline __mmask8 two512(const __m512d k[6], __mmask8 keep_x, __mmask8 keep_y, int safe, const double *a,
                              const double *x, const double *y, double *out, int64_t i, int64_t m)
{
    const __m512d zero = _mm512_setzero_pd(), tiny = _mm512_set1_pd(0x1p-960);
    const __m512d b50 = _mm512_set1_pd(0x1p-50), b103 = _mm512_set1_pd(0x1p-103);
    const __mmask8 live = live_of(i, m);
    const int whole = m - i >= 8;
    const __m512d va = whole ? _mm512_loadu_pd(a + i) : _mm512_maskz_loadu_pd(live, a + i);
    __m512d vx = whole ? _mm512_loadu_pd(x + i) : _mm512_maskz_loadu_pd(live, x + i);
    __m512d vy = whole ? _mm512_loadu_pd(y + i) : _mm512_maskz_loadu_pd(live, y + i);
    __m512d p = _mm512_mul_pd(vx, k[0]), q = _mm512_mul_pd(vy, k[2]);
    __mmask8 ok = live;
    if (!safe) {
        ok &= (keep_x | _mm512_cmp_pd_mask(_mm512_abs_pd(p), tiny, _CMP_GE_OQ) | _mm512_cmp_pd_mask(vx, zero, _CMP_EQ_OQ)) &
              (keep_y | _mm512_cmp_pd_mask(_mm512_abs_pd(q), tiny, _CMP_GE_OQ) | _mm512_cmp_pd_mask(vy, zero, _CMP_EQ_OQ));
        vx = _mm512_maskz_mov_pd(ok, vx);
        vy = _mm512_maskz_mov_pd(ok, vy);
        p = _mm512_maskz_mov_pd(ok, p);
        q = _mm512_maskz_mov_pd(ok, q);
    }
    const __m512d pe = _mm512_fmsub_pd(vx, k[0], p), qe = _mm512_fmsub_pd(vy, k[2], q);
    const __m512d s1 = _mm512_add_pd(va, p), b1 = _mm512_sub_pd(s1, va);
    const __m512d e1 = _mm512_add_pd(_mm512_sub_pd(va, _mm512_sub_pd(s1, b1)), _mm512_sub_pd(p, b1));
    const __m512d s = _mm512_add_pd(s1, q), b2 = _mm512_sub_pd(s, s1);
    const __m512d e2 = _mm512_add_pd(_mm512_sub_pd(s1, _mm512_sub_pd(s, b2)), _mm512_sub_pd(q, b2));
    const __m512d B = _mm512_fmadd_pd(
        b50, _mm512_add_pd(_mm512_abs_pd(e1), _mm512_add_pd(_mm512_abs_pd(pe), _mm512_abs_pd(qe))),
        _mm512_fmadd_pd(b103, _mm512_abs_pd(s), _mm512_fmadd_pd(k[4], _mm512_abs_pd(p), _mm512_mul_pd(k[5], _mm512_abs_pd(q)))));
    const __m512d g = _mm512_fmadd_pd(vx, k[1], _mm512_fmadd_pd(vy, k[3], _mm512_add_pd(pe, qe))), f = _mm512_add_pd(e1, e2);
    const __m512d lo = _mm512_add_pd(s, _mm512_add_pd(f, _mm512_sub_pd(g, B)));
    const __m512d hi = _mm512_add_pd(s, _mm512_add_pd(f, _mm512_add_pd(g, B)));
    ok = _mm512_mask_cmp_pd_mask(ok, lo, hi, _CMP_EQ_OQ);
    if (ok == 0xff) _mm512_storeu_pd(out + i, lo);
    else _mm512_mask_storeu_pd(out + i, ok, lo);
    return ok;
}

int64_t ozb_two_term512(int64_t m, const double *a, const double *x, double uh, double ul, const double *y, double vh,
                        double vl, double *out, int safe, uint8_t *fail)
{
    /* uh, ul, vh, vl, and the bound's product terms: 2^-102 where ul (vl) != 0, else 0 */
    const __m512d k[6] = { _mm512_set1_pd(uh), _mm512_set1_pd(ul), _mm512_set1_pd(vh), _mm512_set1_pd(vl),
                           _mm512_set1_pd(ul != 0.0 ? 0x1p-102 : 0.0), _mm512_set1_pd(vl != 0.0 ? 0x1p-102 : 0.0) };
    const __mmask8 keep_x = uh == 0.0 ? 0xff : 0x00, keep_y = vh == 0.0 ? 0xff : 0x00;
    int64_t nf = 0;
    for (int64_t i = 0; i < m; i += 8) {
        ozb_ahead(a + i);
        nf += ozb_put_flags(fail + i, two512(k, keep_x, keep_y, safe, a, x, y, out, i, m), live_of(i, m),
                            m - i >= 8 ? 8 : m - i);
    }
    return nf;
}
#endif
