/* A short residual correctly rounded (residual.h).  Compiled with -ffp-contract=off: the FMA is
 * explicit.
 * Bit budget (u = 2^-53, n <= 32 products): each product -t x = pp + pe exactly (TwoProduct: pp
 * is 0 with a zero factor, or |pp| >= 2^-960, the range tested: the low part's last bit is
 * then at least 2^-1065), each hi + pp = sm + e2 exactly (TwoSum; an overflow leaves Inf or
 * NaN, refused below), so the exact value is hi + sum (e2 + pe).  lo, a floating sum of those
 * at most 2n terms, errs by at most gamma_(2n-1) a' <= 64 u a (1 + 2^-40), a' = sum (|e2| +
 * |pe|) and a its floating sum (a subnormal sum is exact, so underflow adds nothing).
 * B = 2^-45 a is more than twice that and more than 2u |lo|, so RN(hi + RN(lo - B)) and
 * RN(hi + RN(lo + B)) bracket RN of the exact value (RN is monotone, and RN(lo -+ B) moves
 * lo -+ B by at most u |lo -+ B| < B / 2: two_term.h's argument), and where they are equal
 * that is it. */
#include "exact/residual.h"
#include <math.h>

int ozb_residual_short(double c, const double *t, int64_t tstep, const double *x, int64_t n, double *out)
{
    double hi = c, lo = 0.0, a = 0.0;
    int range = 1;
    for (int64_t l = 0; l < n; l++) {
        const double tl = -t[l * tstep], xl = x[l];
        const double pp = tl * xl, pe = fma(tl, xl, -pp);
        const double sm = hi + pp, bb = sm - hi, e2 = (hi - (sm - bb)) + (pp - bb);
        range &= (fabs(pp) >= 0x1p-960) | (tl == 0.0) | (xl == 0.0);
        lo += e2 + pe;
        a += fabs(e2) + fabs(pe);
        hi = sm;
    }
    const double B = 0x1p-45 * a, r1 = hi + (lo - B), r2 = hi + (lo + B);
    *out = r1;
    return range && r1 == r2 && r1 != 0.0 && fabs(r1) <= 0x1.fffffffffffffp1023;
}
