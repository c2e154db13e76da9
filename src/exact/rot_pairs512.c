/* rot_pairs.c's loop with 512-bit vectors: built with -mavx512f -mavx512dq and called only
 * where the handle's kernel set is the 512-bit one.  Each lane goes through rot1's operations in
 * rot1's order with the same bound B (no contraction: the FMAs are the explicit ones; tau is
 * added where the bits of |x| | |y| are not all zero), so it flags what rot1 flags, and every
 * value it writes is RN of the exact sum, as there.  Compiled with -ffp-contract=off. */
#include "exact/rot_pairs.h"
#include "exact/lane_flags.h"
#include "exact/stream.h"

#if defined(__AVX512F__) && defined(__AVX512DQ__)
#include <immintrin.h>

typedef struct {
    __m512d w[4], c1, s1, c2, s2, tau;
} consts512;

/* One new element of eight pairs: rot1's operations lane by lane; ok narrowed to the lanes it
 * certifies */
static inline __m512d rot8(const __m512d vx, const __m512d vy, const __m512d c, const __m512d s, const __m512d B,
                           __mmask8 *ok)
{
    const __m512d p = _mm512_mul_pd(vx, c), pe = _mm512_fmsub_pd(vx, c, p);
    const __m512d q = _mm512_mul_pd(vy, s), qe = _mm512_fmsub_pd(vy, s, q);
    const __m512d t = _mm512_add_pd(p, q), b = _mm512_sub_pd(t, p);
    const __m512d e1 = _mm512_add_pd(_mm512_sub_pd(p, _mm512_sub_pd(t, b)), _mm512_sub_pd(q, b));
    const __m512d d = _mm512_add_pd(pe, qe);
    const __m512d lo = _mm512_add_pd(t, _mm512_add_pd(e1, _mm512_sub_pd(d, B)));
    const __m512d hi = _mm512_add_pd(t, _mm512_add_pd(e1, _mm512_add_pd(d, B)));
    *ok = _mm512_mask_cmp_pd_mask(*ok, lo, hi, _CMP_EQ_OQ);
    return lo;
}

/* One step of eight pairs, loaded (live: those below m): both new elements into rx, ry;
 * returns the lanes certified */
static inline __mmask8 pair8(const consts512 *k, const __m512d vx, const __m512d vy, __mmask8 live, __m512d *rx,
                             __m512d *ry)
{
    const __m512d ax = _mm512_abs_pd(vx), ay = _mm512_abs_pd(vy);
    const __m512i bits = _mm512_castpd_si512(_mm512_or_pd(ax, ay));
    const __m512d tm = _mm512_maskz_mov_pd(_mm512_test_epi64_mask(bits, bits), k->tau);
    const __m512d B1 = _mm512_fmadd_pd(ax, k->w[0], _mm512_fmadd_pd(ay, k->w[1], tm));
    const __m512d B2 = _mm512_fmadd_pd(ax, k->w[2], _mm512_fmadd_pd(ay, k->w[3], tm));
    __mmask8 okx = live, oky = live;
    *rx = rot8(vx, vy, k->c1, k->s1, B1, &okx);
    *ry = rot8(vx, vy, k->c2, k->s2, B2, &oky);
    return okx & oky;
}

/* Pairs i..i+7 (live: those below m): both new elements into rx, ry; returns the lanes
 * certified */
static inline __mmask8 pairs8(const consts512 *k, const double *x, const double *y, int64_t i, __mmask8 live, int whole,
                              __m512d *rx, __m512d *ry)
{
    const __m512d vx = whole ? _mm512_loadu_pd(x + i) : _mm512_maskz_loadu_pd(live, x + i);
    const __m512d vy = whole ? _mm512_loadu_pd(y + i) : _mm512_maskz_loadu_pd(live, y + i);
    return pair8(k, vx, vy, live, rx, ry);
}

/* Sixteen pairs at i (all below m): x's two vectors loaded, then y's, the new x stored, then
 * the new y, so that the loop moves between x's lines and y's four times a step rather than at
 * every access (where x_i's and y_i's lines share the L1's set and way tag, as vectors 2^27 +
 * 2^12 bytes apart do, each access to one evicts the other); returns the pairs certified (bit
 * r: pair i + r) */
static inline unsigned pairs16(const consts512 *k, const double *x, const double *y, int64_t i, double *nx, double *ny)
{
    const __m512d x0 = _mm512_loadu_pd(x + i), x1 = _mm512_loadu_pd(x + i + 8);
    const __m512d y0 = _mm512_loadu_pd(y + i), y1 = _mm512_loadu_pd(y + i + 8);
    __m512d rx0, ry0, rx1, ry1;
    const __mmask8 ok0 = pair8(k, x0, y0, 0xff, &rx0, &ry0), ok1 = pair8(k, x1, y1, 0xff, &rx1, &ry1);
    if ((ok0 & ok1) == 0xff) {
        _mm512_storeu_pd(nx + i, rx0);
        _mm512_storeu_pd(nx + i + 8, rx1);
        _mm512_storeu_pd(ny + i, ry0);
        _mm512_storeu_pd(ny + i + 8, ry1);
    } else {
        _mm512_mask_storeu_pd(nx + i, ok0, rx0);
        _mm512_mask_storeu_pd(nx + i + 8, ok1, rx1);
        _mm512_mask_storeu_pd(ny + i, ok0, ry0);
        _mm512_mask_storeu_pd(ny + i + 8, ok1, ry1);
    }
    return (unsigned)ok0 | (unsigned)ok1 << 8;
}

/* the certified lanes of a pair written (after both were loaded: nx may be x) */
static inline void put8(double *nx, double *ny, __mmask8 ok, __m512d rx, __m512d ry)
{
    if (ok == 0xff) {
        _mm512_storeu_pd(nx, rx);
        _mm512_storeu_pd(ny, ry);
    } else if (ok) {
        _mm512_mask_storeu_pd(nx, ok, rx);
        _mm512_mask_storeu_pd(ny, ok, ry);
    }
}

int64_t ozb_rot_pairs512(int64_t m, const double *x, const double *y, const ozb_rot_consts *kc, double *nx, double *ny,
                         uint8_t *fail)
{
    const consts512 k = { { _mm512_set1_pd(kc->w[0]), _mm512_set1_pd(kc->w[1]), _mm512_set1_pd(kc->w[2]), _mm512_set1_pd(kc->w[3]) },
                          _mm512_set1_pd(kc->h[0]), _mm512_set1_pd(kc->h[1]),
                          _mm512_set1_pd(kc->h[2]), _mm512_set1_pd(kc->h[3]), _mm512_set1_pd(OZB_ROT_TAU) };
    int64_t nf = 0, i = 0;
    for (; i + 16 <= m; i += 16) {
        ozb_ahead(x + i);
        ozb_ahead(x + i + 8);
        ozb_ahead(y + i);
        ozb_ahead(y + i + 8);
        nf += ozb_put_flags(fail + i, pairs16(&k, x, y, i, nx, ny), 0xffff, 16);
    }
    for (; i < m; i += 8) {
        const int64_t len = m - i >= 8 ? 8 : m - i;
        const __mmask8 live = len == 8 ? (__mmask8)0xff : (__mmask8)((1u << len) - 1u);
        ozb_ahead(x + i);
        ozb_ahead(y + i);
        __m512d rx, ry;
        const __mmask8 ok = pairs8(&k, x, y, i, live, len == 8, &rx, &ry);
        put8(nx + i, ny + i, ok, rx, ry);
        nf += ozb_put_flags(fail + i, ok, live, len);
    }
    return nf;
}
#endif
