/* DROT's pairs (exact/rot_pairs.h).  Each new element is RN(c x + s y) for its row (c, s) of
 * H, V = x c + y s.  x c = p + pe' exactly (p = RN(x c), pe' = x c - p), and pe = RN(pe') is
 * pe' itself wherever its last bit 2^(e_x + e_c - 104) is at least 2^-1074; elsewhere
 * |p| < 2^-968, |pe'| <= 2^-1021 and |pe - pe'| <= 2^-1074 (a normal pe' there has an ulp of
 * at most 2^-1073, a subnormal one 2^-1074).  The same for y s = q + qe'.  p + q = t + e1
 * exactly (TwoSum), d = RN(pe + qe), and
 *     lo = RN(t + RN(e1 + RN(d - B))),   hi = RN(t + RN(e1 + RN(d + B))).
 * Before lo's last rounding, t + RN(e1 + RN(d - B)) = V - B + delta + eps with
 *     |delta| <= 2^-1073 + u |pe + qe|                (pe and qe against pe', qe'; d)
 *     |eps|   <= u |d - B| + u |e1 + RN(d - B)|        (the two inner roundings)
 * (u = 2^-53; a sum of doubles below 2^-1022 is exact, so every rounding of a sum is relative).
 * With S = |p| + |q|: |pe|, |qe| <= u S, |e1| <= u |t| <= u S, |d| <= 2 u S, so |delta| + |eps|
 * <= 2^-1073 + u^2 S + u (2 u S + B) + u (3 u S + 2 B) < 2^-1073 + 2^-103 S + 2^-51 B.  The
 * bound is B = RN(|x| w_c + RN(|y| w_s + tau)) (two FMAs) with tau = 2^-1022 where x or y is
 * nonzero, else 0, and the weights from the factors rather than the products: w_c = 2^-100
 * 2^(e+1) for 2^e <= |c| (w = 0 for c = 0; at least 2^-1022, a larger bound only flags more;
 * Inf for a c that is not finite).  tau is the smallest normal number, not the 2^-1072 that
 * would do, because an FMA whose addend is subnormal takes a microcode assist on Intel cores
 * (about 150 cycles, which every pair would pay); the larger bound flags only results below
 * about 2^-968, which the slower methods take.  Since |p| <= |c| |x| (1 + u) and w_c >= 2^-100
 * |c|, and both of B's roundings are of normal numbers (at least tau) and lose at most u of
 * them, B >= (1 - 2u) (2^-100 S (1 - u) + 2^-1022), so B (1 - 2^-51) > 2^-1073 + 2^-103 S
 * wherever x or y is nonzero; where both are zero every step is exact (delta = eps = 0, B =
 * 0).  So t + RN(e1 + RN(d - B)) <= V <= t + RN(e1 + RN(d + B)), and RN being
 * monotone, lo <= RN(V) <= hi; where lo = hi (a NaN anywhere fails the comparison) that is the
 * result.  An infinite lo = hi is RN(V) as well: a product or t that overflows makes e1 NaN
 * (Inf - Inf), so only the last two additions can reach Inf, where the bracket still holds.  A
 * zero is certified only where B = 0, that is where x = y = 0: then lo = t + (e1 + (d - 0)) =
 * +0 (the TwoProduct and TwoSum errors of zeros are +0), ozb_two_term's value; any other exact
 * zero is flagged, and ozb_two_term with a = +0 gives it +0.  Underflow needs no range test:
 * tau covers the products that fall below TwoProduct's range, whatever the sizes of x, y, c
 * and s. */
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
    const double tau = x != 0.0 || y != 0.0 ? OZB_ROT_TAU : 0.0;
    const double B = fma(fabs(x), wc, fma(fabs(y), ws, tau));
    const double p = x * c, pe = fma(x, c, -p), q = y * s, qe = fma(y, s, -q);
    const double t = p + q, b = t - p, e1 = (p - (t - b)) + (q - b);
    const double d = pe + qe;
    const double lo = t + (e1 + (d - B)), hi = t + (e1 + (d + B));
    *r = lo;
    return lo == hi;
}

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif

int64_t ozb_rot_pairs(int64_t m, const double *x, const double *y, const double h[4], double *nx, double *ny,
                      uint8_t *fail, int wide)
{
    const ozb_rot_consts k = { { h[0], h[1], h[2], h[3] }, { weight_of(h[0]), weight_of(h[1]), weight_of(h[2]), weight_of(h[3]) } };
    if (wide) return ozb_rot_pairs512(m, x, y, &k, nx, ny, fail);
    int64_t nf = 0, i = 0;
#if defined(__AVX2__) && defined(__FMA__)
    const __m256d zero = _mm256_setzero_pd(), tau = _mm256_set1_pd(OZB_ROT_TAU);
    const __m256d w1 = _mm256_set1_pd(k.w[0]), w2 = _mm256_set1_pd(k.w[1]), w3 = _mm256_set1_pd(k.w[2]), w4 = _mm256_set1_pd(k.w[3]);
    const __m256d absm = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffll));
    const __m256d c1 = _mm256_set1_pd(h[0]), s1 = _mm256_set1_pd(h[1]), c2 = _mm256_set1_pd(h[2]), s2 = _mm256_set1_pd(h[3]);
    /* rot1 four elements a vector, its operations in its order; tau where x or y is nonzero
     * (the bits of |x| | |y| are zero only where both are; a NaN pattern there compares
     * unordered, so not equal) */
#define ROT4(C, S, WC, WS, R, OK) do {                                                                 \
        const __m256d B = _mm256_fmadd_pd(ax, WC, _mm256_fmadd_pd(ay, WS, tm));                   \
        const __m256d p = _mm256_mul_pd(vx, C), pe = _mm256_fmsub_pd(vx, C, p);                   \
        const __m256d q = _mm256_mul_pd(vy, S), qe = _mm256_fmsub_pd(vy, S, q);                   \
        const __m256d t = _mm256_add_pd(p, q), b = _mm256_sub_pd(t, p);                           \
        const __m256d e1 = _mm256_add_pd(_mm256_sub_pd(p, _mm256_sub_pd(t, b)), _mm256_sub_pd(q, b)); \
        const __m256d d = _mm256_add_pd(pe, qe);                                                   \
        const __m256d lo = _mm256_add_pd(t, _mm256_add_pd(e1, _mm256_sub_pd(d, B)));              \
        const __m256d hi = _mm256_add_pd(t, _mm256_add_pd(e1, _mm256_add_pd(d, B)));              \
        OK = _mm256_cmp_pd(lo, hi, _CMP_EQ_OQ);                                                    \
        R = lo;                                                                                    \
    } while (0)
#define PAIR4() do {                                                                               \
        const __m256d ax = _mm256_and_pd(vx, absm), ay = _mm256_and_pd(vy, absm);                 \
        const __m256d tm = _mm256_and_pd(_mm256_cmp_pd(_mm256_or_pd(ax, ay), zero, _CMP_NEQ_UQ), tau); \
        __m256d okx, oky;                                                                          \
        ROT4(c1, s1, w1, w2, rx, okx);                                                             \
        ROT4(c2, s2, w3, w4, ry, oky);                                                             \
        ok = _mm256_and_pd(okx, oky);                                                              \
    } while (0)
    /* sixteen pairs a step: x's four vectors loaded, then y's, the new x stored, then the new
     * y, so that the loop moves between x's lines and y's four times a step rather than at
     * every access (where x_i's and y_i's lines share the L1's set and way tag, as vectors
     * 2^27 + 2^12 bytes apart do, each access to one evicts the other) */
    for (; i + 16 <= m; i += 16) {
        ozb_ahead(x + i);
        ozb_ahead(x + i + 8);
        ozb_ahead(y + i);
        ozb_ahead(y + i + 8);
        __m256d X[4], Y[4], RX[4], RY[4], OK[4];
        for (int v = 0; v < 4; v++) X[v] = _mm256_loadu_pd(x + i + 4 * v);
        for (int v = 0; v < 4; v++) Y[v] = _mm256_loadu_pd(y + i + 4 * v);
        unsigned bits = 0;
        for (int v = 0; v < 4; v++) {
            const __m256d vx = X[v], vy = Y[v];
            __m256d ok, rx, ry;
            PAIR4();
            RX[v] = rx;
            RY[v] = ry;
            OK[v] = ok;
            bits |= (unsigned)_mm256_movemask_pd(ok) << (4 * v);
        }
        if (bits == 0xffff) {
            for (int v = 0; v < 4; v++) _mm256_storeu_pd(nx + i + 4 * v, RX[v]);
            for (int v = 0; v < 4; v++) _mm256_storeu_pd(ny + i + 4 * v, RY[v]);
        } else if (bits) {                       /* (all loaded first: nx may be x) */
            for (int v = 0; v < 4; v++) _mm256_maskstore_pd(nx + i + 4 * v, _mm256_castpd_si256(OK[v]), RX[v]);
            for (int v = 0; v < 4; v++) _mm256_maskstore_pd(ny + i + 4 * v, _mm256_castpd_si256(OK[v]), RY[v]);
        }
        nf += ozb_put_flags(fail + i, bits, 0xffff, 16);
    }
    for (; i + 4 <= m; i += 4) {
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
        const unsigned put = (unsigned)_mm256_movemask_pd(ok) & ((1u << r) - 1u);
        ozb_put_lanes(nx + i, rx, put, r);
        ozb_put_lanes(ny + i, ry, put, r);
        nf += ozb_put_flags(fail + i, put, (1u << r) - 1u, r);
        i = m;
    }
#undef PAIR4
#undef ROT4
#endif
    for (; i < m; i++) {
        double rx, ry;
        const int ok = rot1(x[i], y[i], h[0], h[1], k.w[0], k.w[1], &rx) & rot1(x[i], y[i], h[2], h[3], k.w[2], k.w[3], &ry);
        if (ok) {
            nx[i] = rx;
            ny[i] = ry;
        }
        fail[i] = (uint8_t)!ok;
        nf += !ok;
    }
    return nf;
}
