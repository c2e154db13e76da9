/* Summation engines shared by the three routines.  A partial product is a term
 * P * 2^E with P an integer-valued double (|P| <= 2^53, from an exact slice GEMM). */
#ifndef OZB_SUM_H
#define OZB_SUM_H
#include <math.h>
#include <stdint.h>
#include <string.h>

/* NearSum (Rump, Ogita, Oishi 2008, Part II, Algorithm 7.3): returns fl(sum p_i)
 * rounded to nearest (ties to even), also under underflow.  Overwrites p.
 * Preconditions: n <= 2^26 - 2, max|p_i| * 2^ceil(log2(n+2)) * 2 finite. */
double ozb_nearsum(double *p, int64_t n);
/* The same value for terms whose sum is the exact value wanted (a residual's exact terms): one
 * VecSum pass, and where the lower terms it leaves sum exactly in floating point, one IEEE
 * addition; else NearSum on them.  Overwrites p.  Preconditions: |p_i| <= 2^1000 (NearSum's
 * alone above n = 32 terms, where it is NearSum). */
double ozb_nearsum_vec(double *p, int64_t n);

/* RN(alpha * sum_t P_t 2^E_t + beta * c) for finite alpha != 0, beta, c (c is used only
 * when use_c).  NearSum in a scaled frame; the long accumulator when the frame would
 * leave the normal range.  scratch holds 2n+2 doubles.  *fallback += 1 when the long
 * accumulator was used.  An exact zero gives +0. */
double ozb_sum_nearest(const double *P, const int32_t *E, int64_t n, double alpha,
                       double beta, double c, int use_c, double *scratch, int64_t *fallback);

/* Lazy correct rounding: terms not in P are bounded by |skipped| <= bound * 2^bound_exp
 * (before alpha).  Returns 1 and *result = RN(alpha*(sum P + skipped) + beta*c) when that
 * value is certain whatever the skipped terms are; 0 when they must be computed.  scratch
 * holds 2n+3 doubles (the terms in their frame, then the residual's -x). */
int ozb_sum_nearest_bounded(const double *P, const int32_t *E, int64_t n, double alpha, double beta,
                            double c, int use_c, double bound, int bound_exp, double *scratch, double *result);

/* The same value by the long accumulator alone (exact, any range). */
double ozb_sum_exact(const double *P, const int32_t *E, int64_t n, double alpha,
                     double beta, double c, int use_c);

/* RN(sum of the doubles p[0..m)) when Sum2's error bound certifies it (returns 1), else 0.
 * Preconditions: every |p_i| <= 2^1000, m < 2^40.  Certifies only results that are normal and
 * at least 2^-1000 in magnitude, or an exact zero (+0). */
int ozb_sum2_rn(const double *p, int64_t m, double *out);
/* The same for a sum known only to within `extra` (>= 0, absolute): RN(sum of p + d) for every
 * |d| <= extra, when Sum2's bound plus extra certifies that they all round alike. */
int ozb_sum2_certify(const double *p, int64_t m, double extra, double *out);
/* RN(v) = y for every v within b (>= 0) of y + z (z exact, as TwoSum leaves it): then *out = y
 * and 1, else 0; y certified only where it is normal and at least 2^-1000 in magnitude, or an
 * exact zero (z = b = 0: +0).  The sign of z is used, so that above a power of two y (where the
 * gap away from zero is twice the gap toward it) a value up to twice as far from y is still
 * certified (a product a RN(1/a), within an ulp of 1, is the common case) */
int ozb_round_certified_z(double y, double z, double b, double *out);
/* The same, its common case inline: where y is finite with |y| >= 2^-960, hz (half the gap
 * toward zero next to y: 2^(e - 53), 2^(e - 54) above a power of two, from y's bits) and the
 * symmetric test (|z| + b)(1 + 2^-50) < hz are ozb_round_certified_z's own, so where the test
 * passes it would certify y too; anything else goes to it (a DOT's call path: out of line,
 * the call and half_gap's exponent take ~5 ns of a 100-product DOT) */
static inline int ozb_round_certified_z_inline(double y, double z, double b, double *out)
{
    uint64_t yb;
    memcpy(&yb, &y, sizeof yb);
    yb &= 0x7fffffffffffffffull;
    if (yb >= 0x03f0000000000000ull && yb < 0x7ff0000000000000ull) {    /* 2^-960 <= |y| < Inf */
        const uint64_t hb = (yb & 0x7ff0000000000000ull) - (53ull << 52) - ((yb & 0x000fffffffffffffull) == 0 ? 1ull << 52 : 0);
        double hz;
        memcpy(&hz, &hb, sizeof hz);
        if ((fabs(z) + b) * (1.0 + 0x1p-50) < hz) {
            *out = y;
            return 1;
        }
    }
    return ozb_round_certified_z(y, z, b, out);
}

/* Fixed-order binary64 summation (terms in the order given), then alpha and beta
 * in a common power-of-two frame so that no intermediate overflows spuriously. */
double ozb_sum_double(const double *P, const int32_t *E, int64_t n, double alpha,
                      double beta, double c, int use_c);

#endif
