/* A short residual correctly rounded: RN(c - sum_l t_l x_l) by a compensated sum with its own
 * certificate, for DTBSV's rows (at most 16 terms a part there), where each row's value feeds
 * the next.  Inline, so that the newest x can stay in a register: the chain from one row's
 * value to the next row's is the last term alone (ozb_resid_last: a product, a Fast2Sum, two
 * additions), then the division.  Callers compile with -ffp-contract=off: every FMA is explicit.
 *
 * Bit budget (u = 2^-53, n <= 32 terms, T = |c| + sum |t_l x_l|): each product t x = pp + pe
 * (pe = RN(t x - pp): exact, or below the subnormal grid and off by at most 2^-1075); each
 * hi - pp = sm + e2 exactly (TwoSum, or Fast2Sum with the larger magnitude first; an
 * overflow leaves Inf or NaN, refused below).  So the exact value is hi + sum (e2 - pe) within
 * n 2^-1075.  |e2| <= u |sm|, |sm| <= (1 + u)^(2n) T, |pe| <= u |pp| + 2^-1074: the errors'
 * magnitudes a' <= u (n + 1)(1 + 2^-45) T + n 2^-1074.  lo, their floating sum (2n terms, any
 * order; sums never underflow), errs by at most gamma_(2n-1) a' <= 2112 u^2 (1 + 2^-44) T +
 * 2^-1068 <= 2^-94.8 T + 2^-1068.  s, the floating sum of T by FMAs, is >= (1 - u)^n T; with
 * s >= 2^-970 (else refused) the whole error E < 2^-94.5 s.  B = 2^-92 s (rounded only where
 * subnormal, by at most 2^-1075 against B >= 2^-1062) exceeds E + u |lo -+ B| (u |lo| <=
 * 2^-100 s), so RN(lo - B) <= exact lo sum <= RN(lo + B) and RN(hi + RN(lo - B)), RN(hi + RN(lo
 * + B)) bracket RN of the exact value (RN is monotone); RN(hi + lo) lies between them, so where
 * they are equal all three are RN(exact). */
#ifndef OZB_RESIDUAL_H
#define OZB_RESIDUAL_H
#include <math.h>

/* c - sum t x so far: hi + lo, s the floating sum of |c| + sum |t x| (the bound's scale) */
typedef struct {
    double hi, lo, s;
} ozb_resid_t;

static inline ozb_resid_t ozb_resid_start(double c) { return (ozb_resid_t){ c, 0.0, fabs(c) }; }

/* one more term, -t x, by TwoSum: the fewest operations, for the terms off the chain */
static inline void ozb_resid_add(ozb_resid_t *r, double t, double x)
{
    const double pp = t * x, pe = fma(t, x, -pp);
    const double sm = r->hi - pp, bb = sm - r->hi, e2 = (r->hi - (sm - bb)) - (pp + bb);
    r->lo = r->lo + (e2 - pe);
    r->s = fma(fabs(t), fabs(x), r->s);
    r->hi = sm;
}

/* the last term, -t x, by Fast2Sum on the larger and smaller magnitudes: the shortest path
 * from x to the value (a product, the sum, its error two operations later, two additions) */
static inline void ozb_resid_last(ozb_resid_t *r, double t, double x)
{
    const double pp = t * x, mp = -pp, pe = fma(t, x, mp);
    const int first = fabs(r->hi) >= fabs(pp);
    const double big = first ? r->hi : mp, small = first ? mp : r->hi;
    const double sm = r->hi + mp, e2 = small - (sm - big);
    r->lo = (r->lo - pe) + e2;
    r->s = fma(fabs(t), fabs(x), r->s);
    r->hi = sm;
}

/* RN(c - sum t x) into *out; 1 where certified, finite and nonzero, 0 where not (a zero's sign,
 * and what it cannot prove, are the exact sums' to decide; *out is then not the value) */
static inline int ozb_resid_finish(const ozb_resid_t *r, double *out)
{
    const double B = 0x1p-92 * r->s, v = r->hi + r->lo;
    const double r1 = r->hi + (r->lo - B), r2 = r->hi + (r->lo + B);
    *out = v;
    return (r1 == r2) & (v != 0.0) & (fabs(v) <= 0x1.fffffffffffffp1023) & (r->s >= 0x1p-970);
}
#endif
