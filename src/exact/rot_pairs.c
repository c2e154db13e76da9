/* DROT's pairs (exact/rot_pairs.h).  Each new element is RN(c x + s y) for its row (c, s) of
 * H: x c = p + pe and y s = q + qe exactly (TwoProduct: exact where each product is 0 or at
 * least 2^-960 in magnitude, the low part's last bit >= 2^-1065; overflow makes p, q or a sum
 * Inf or NaN), p + q = t + e1 exactly (TwoSum), and e = e1 + (pe + qe) is rounded twice:
 *     |e - (e1 + pe + qe)| <= u |pe + qe| + u |e1 + RN(pe + qe)| <= 2u (|e1| + |pe| + |qe|)
 *                          <= 2u u (|t| + |p| + |q|) <= 4 u^2 (|p| + |q|) = 2^-104 (|p| + |q|)
 * (u = 2^-53; |e1| <= u |t|, |pe| <= u |p|, |qe| <= u |q|, |t| <= |p| + |q|; a subnormal sum is
 * exact, so underflow adds nothing).
 * The bound is B = RN(|x| w_c + RN(|y| w_s)) (one FMA), from the factors rather than the
 * products: w_c = 2^-100 2^(e+1) for 2^e <= |c| (w = 0 for c = 0; at least 2^-1022, a larger
 * bound only flags more; Inf for a c that is not finite).  Since |p| <= |c| |x| (1 + u) and
 * w_c >= 2^-100 |c|, B >= 2^-100 (|p| + |q|) (1 - 4u), which is more than 2^-103 (|p| + |q|),
 * twice e's error (a nonzero product in range is at least 2^-950, so B is then normal); where
 * both products are zero e is exactly 0 and any B >= 0 does.  So RN(t + RN(e - B)) and
 * RN(t + RN(e + B)) bracket RN of the exact value (RN is monotone, and RN(e -+ B) moves e -+ B
 * by at most u |e -+ B| < B / 2); where they are equal and finite (their difference exactly 0:
 * Inf - Inf is NaN) that is the result.  A zero is certified only where B = 0 (else lo and hi
 * straddle it), that is where both products are exactly zero: then lo = t + (e - 0) = +0 (the
 * TwoProduct and TwoSum errors of zeros are +0), ozb_two_term's value; any other exact zero
 * is flagged, and ozb_two_term with a = +0 gives it +0.
 * The range test is on the factors, once for both new elements: |x| >= tx, tx = 2^(-950 - e)
 * with 2^e <= a < 2^(e+1), a the smallest nonzero |c| of x's column of H, gives |x c| >= 2^-950
 * > 2^-960 for both (tx at least 2^-1022: above e = 72 a normal x suffices; a subnormal a
 * takes tx = Inf, so only x = 0 passes); x = 0 gives exact zero products.  (Powers of two
 * from the exponent's bits rather than divisions: LAPACK's DROTs are a few elements long, and
 * this runs once per call.) */
#include "exact/rot_pairs.h"
#include "exact/lane_flags.h"
#include "exact/stream.h"
#include "core/ozb_internal.h"
#include <math.h>
#include <string.h>

static int exponent_of(double a)
{
    uint64_t b;
    memcpy(&b, &a, sizeof b);
    return (int)(b >> 52) - 1023;
}

static double factor_floor(double c1, double c2)
{
    const double a1 = fabs(c1), a2 = fabs(c2);
    const double a = c1 == 0.0 ? a2 : c2 == 0.0 ? a1 : a2 < a1 ? a2 : a1;   /* (NaN: either; its products are NaN) */
    if (a == 0.0) return 0.0;                  /* both zero: every product is exactly zero */
    if (!(a >= 0x1p-1022)) return INFINITY;    /* subnormal (or NaN: its products are NaN anyway) */
    const int t = -950 - exponent_of(a);
    return ozb_pow2(t < -1022 ? -1022 : t);    /* t <= -950 + 1022 = 72: no overflow */
}

/* the bound's weight for the factor c: 0 for c = 0; 2^-100 2^(e+1) > 2^-100 |c| (2^e <= |c|),
 * at least 2^-1022; Inf where c is not finite (its bounds are then Inf or NaN: flagged) */
static double weight_of(double c)
{
    const double a = fabs(c);
    if (a == 0.0) return 0.0;
    if (!(a <= 0x1.fffffffffffffp1023)) return INFINITY;
    const int t = (a >= 0x1p-1022 ? exponent_of(a) : -1022) + 1 - 100;
    return ozb_pow2(t < -1022 ? -1022 : t);    /* t <= 1023 + 1 - 100 */
}

static inline int rot1(double x, double y, double c, double s, double wc, double ws, double *r)
{
    const double B = fma(fabs(x), wc, fabs(y) * ws);
    const double p = x * c, pe = fma(x, c, -p), q = y * s, qe = fma(y, s, -q);
    const double t = p + q, b = t - p, e1 = (p - (t - b)) + (q - b);
    const double e = e1 + (pe + qe);
    const double lo = t + (e - B), hi = t + (e + B);
    *r = lo;
    return hi - lo == 0.0;
}

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif

int64_t ozb_rot_pairs(int64_t m, const double *x, const double *y, const double h[4], double *nx, double *ny,
                      uint8_t *fail, int wide)
{
    const ozb_rot_consts k = { { h[0], h[1], h[2], h[3] }, factor_floor(h[0], h[2]), factor_floor(h[1], h[3]),
                               { weight_of(h[0]), weight_of(h[1]), weight_of(h[2]), weight_of(h[3]) } };
    if (wide) return ozb_rot_pairs512(m, x, y, &k, nx, ny, fail);
    int64_t nf = 0, i = 0;
#if defined(__AVX2__) && defined(__FMA__)
    const __m256d zero = _mm256_setzero_pd();
    const __m256d w1 = _mm256_set1_pd(k.w[0]), w2 = _mm256_set1_pd(k.w[1]), w3 = _mm256_set1_pd(k.w[2]), w4 = _mm256_set1_pd(k.w[3]);
    const __m256d absm = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffll));
    const __m256d vtx = _mm256_set1_pd(k.tx), vty = _mm256_set1_pd(k.ty);
    const __m256d c1 = _mm256_set1_pd(h[0]), s1 = _mm256_set1_pd(h[1]), c2 = _mm256_set1_pd(h[2]), s2 = _mm256_set1_pd(h[3]);
    /* rot1 four elements a vector, its operations in its order; the range test once for both
     * new elements */
#define ROT4(C, S, WC, WS, R) do {                                                                 \
        const __m256d B = _mm256_fmadd_pd(ax, WC, _mm256_mul_pd(ay, WS));                          \
        const __m256d p = _mm256_mul_pd(vx, C), pe = _mm256_fmsub_pd(vx, C, p);                   \
        const __m256d q = _mm256_mul_pd(vy, S), qe = _mm256_fmsub_pd(vy, S, q);                   \
        const __m256d t = _mm256_add_pd(p, q), b = _mm256_sub_pd(t, p);                           \
        const __m256d e1 = _mm256_add_pd(_mm256_sub_pd(p, _mm256_sub_pd(t, b)), _mm256_sub_pd(q, b)); \
        const __m256d e = _mm256_add_pd(e1, _mm256_add_pd(pe, qe));                               \
        const __m256d lo = _mm256_add_pd(t, _mm256_sub_pd(e, B)), hi = _mm256_add_pd(t, _mm256_add_pd(e, B)); \
        ok = _mm256_and_pd(ok, _mm256_cmp_pd(_mm256_sub_pd(hi, lo), zero, _CMP_EQ_OQ));          \
        R = lo;                                                                                    \
    } while (0)
#define PAIR4() do {                                                                               \
        const __m256d ax = _mm256_and_pd(vx, absm), ay = _mm256_and_pd(vy, absm);                 \
        ok = _mm256_and_pd(                                                                        \
            _mm256_or_pd(_mm256_cmp_pd(ax, vtx, _CMP_GE_OQ), _mm256_cmp_pd(vx, zero, _CMP_EQ_OQ)), \
            _mm256_or_pd(_mm256_cmp_pd(ay, vty, _CMP_GE_OQ), _mm256_cmp_pd(vy, zero, _CMP_EQ_OQ))); \
        ROT4(c1, s1, w1, w2, rx);                                                                  \
        ROT4(c2, s2, w3, w4, ry);                                                                  \
    } while (0)
    for (; i + 4 <= m; i += 4) {
        if (!(i & 4)) {         /* (a line holds eight) */
            ozb_ahead(x + i);
            ozb_ahead(y + i);
        }
        const __m256d vx = _mm256_loadu_pd(x + i), vy = _mm256_loadu_pd(y + i);
        __m256d ok, rx, ry;
        PAIR4();
        const int bits = _mm256_movemask_pd(ok);
        if (bits == 0xf) {
            _mm256_storeu_pd(nx + i, rx);
            _mm256_storeu_pd(ny + i, ry);
        } else if (bits) {                       /* (both loaded first: nx may be x) */
            _mm256_maskstore_pd(nx + i, _mm256_castpd_si256(ok), rx);
            _mm256_maskstore_pd(ny + i, _mm256_castpd_si256(ok), ry);
        }
        nf += ozb_put_flags(fail + i, (unsigned)bits, 0xf, 4);
    }
    if (i < m) {   /* the last m - i (1 to 3) as lanes of one vector (LAPACK's DROTs are often this short) */
        const int64_t r = m - i;
        const __m256i want = _mm256_cmpgt_epi64(_mm256_set1_epi64x(r), _mm256_set_epi64x(3, 2, 1, 0));
        const __m256d vx = _mm256_maskload_pd(x + i, want), vy = _mm256_maskload_pd(y + i, want);
        __m256d ok, rx, ry;
        PAIR4();
        const __m256i put = _mm256_and_si256(want, _mm256_castpd_si256(ok));
        _mm256_maskstore_pd(nx + i, put, rx);
        _mm256_maskstore_pd(ny + i, put, ry);
        nf += ozb_put_flags(fail + i, (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(put)), (1u << r) - 1u, r);
        i = m;
    }
#undef PAIR4
#undef ROT4
#endif
    for (; i < m; i++) {
        double rx, ry;
        const int ok = (fabs(x[i]) >= k.tx || x[i] == 0.0) & (fabs(y[i]) >= k.ty || y[i] == 0.0) &
                       rot1(x[i], y[i], h[0], h[1], k.w[0], k.w[1], &rx) & rot1(x[i], y[i], h[2], h[3], k.w[2], k.w[3], &ry);
        if (ok) {
            nx[i] = rx;
            ny[i] = ry;
        }
        fail[i] = (uint8_t)!ok;
        nf += !ok;
    }
    return nf;
}
