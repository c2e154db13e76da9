/* Error-free transformations on binary64 in round-to-nearest, with the ranges where they are
 * error-free.  Callers are compiled with -ffp-contract=off: fma() here is the explicit one.
 *
 * TwoSum(a, b): s = RN(a + b), t = a + b - s exactly, for all finite a, b whose sum does not
 * overflow (additions of doubles are exact when the result is subnormal, so underflow never
 * breaks it).  Where an intermediate overflows, s or t is Inf or NaN, and they stay
 * non-finite through every later addition: a caller that checks its final sums for
 * finiteness never certifies such a result.
 *
 * TwoProduct(a, b): h = RN(a b), l = RN(a b - h) = a b - h exactly when |RN(a b)| >= 2^-969
 * (the lowest set bits of a and b, at 2^La and 2^Lb, then satisfy La + Lb >= -1074: the exact
 * product and h are multiples of 2^(La + Lb), so l is representable) and
 * |a b| <= 2^1000 (no overflow).  Below 2^-969, |a b - h - l| <= 2^-1075 (l is rounded on the
 * subnormal grid). */
#ifndef OZB_EFT_H
#define OZB_EFT_H
#include <math.h>

static inline void ozb_two_sum(double a, double b, double *s, double *t)
{
    const double x = a + b, bb = x - a;
    *t = (a - (x - bb)) + (b - bb);
    *s = x;
}

/* h + l = a b exactly, or 0 where that is not guaranteed; a zero product (a or b zero) is exact */
static inline int ozb_two_product(double a, double b, double *h, double *l)
{
    const double p = a * b, ap = fabs(p);
    if (a == 0.0 || b == 0.0) { *h = 0.0; *l = 0.0; return isfinite(a) && isfinite(b); }
    if (!(ap >= 0x1p-969 && ap <= 0x1p1000)) return 0;
    *h = p;
    *l = fma(a, b, -p);
    return 1;
}
#endif
