/* The device's certified DOT (src/cuda/resident_eft.c): element operations written once for
 * the GPU and the emulated device's host build.  Each row's products are summed by
 * error-free transformations (TwoProduct by FMA, Knuth's TwoSum) into a chain value s whose
 * errors are all kept: with C the exact sum of the errors, s + C is the exact dot product.
 * C is only approximated (c, summed in floating point, in any tree), so the finish proves
 * that RN(alpha (s + C) + beta c0) is one particular double before it returns it, and
 * declines otherwise -- the caller then computes the row by the exact slice path.  The
 * correctly rounded value is unique, so a certified row has the same bits whatever the
 * order of the partial sums (blocks, threads, atomics) and whatever the other path would
 * have done.  Compiled with --fmad=false (nvcc) and -ffp-contract=off (host): every FMA
 * below is explicit and nothing else may be fused.
 *
 * Bit budget of the certificate (u = 2^-53):
 * - TwoProduct p + e = x y exactly when |p| <= 2^960 (no overflow) and |p| >= 2^-960 or
 *   x y = 0 (then e_x + e_y >= -962 > -970 = emin + p - 2: e is representable, Boldo 2005).
 *   Any other product, and any Inf or NaN, marks the row bad (declined).
 * - TwoSum is exact for finite operands without overflow: |s| <= n 2^960 < 2^1000.
 * - The error terms t (TwoSum) and e (TwoProduct) are leaves of a floating-point summation
 *   tree into c; with D the tree's depth (additions from any leaf to the root),
 *   |c - C| <= gamma_D sum|leaves| (Higham 2002, (4.3) for any tree; additions that underflow
 *   are exact).  b sums |leaves| in the same tree, so sum|leaves| <= b / (1 - gamma_D).  For
 *   D u <= 2^-10 both factors are below D u (1 + 2^-8), so ES = 2 D u b + 2^-1074 bounds
 *   |c - C| (computed as D 2^-52 b: D < 2^53, the multiplication by a power of two exact,
 *   the one rounding below the factor 2 spared).
 * - The finish: alpha s = p1 + q1 and beta c0 = p3 + q3 by TwoProduct (range-checked as
 *   above), p2 = fl(alpha c) (error <= u |p2| + 2^-1075); r accumulates p1, p3, p2, q1, q3 by
 *   TwoSum, the four errors into f (three rounded additions: <= gamma_3 F, F = sum of their
 *   magnitudes); (r2, f2) = TwoSum(r, f).  Then
 *     |alpha (s + C) + beta c0 - r2 - f2| <= |alpha| ES + u |p2| + 2^-1075 + gamma_3 F = EB,
 *   computed with every term's factor rounded up (2^-52 for u, 2^-50 for gamma_3, the sum
 *   times 1 + 2^-40 for its own roundings, + 2^-1073 for underflow).
 * - Certified iff r2 != 0, |r2| <= 2^1000, and 2 (|f2| + EB)(1 + 2^-50) < gap, gap the distance
 *   from |r2| to the next double toward zero (the smaller of its two gaps): the exact value
 *   lies strictly inside r2's rounding interval, so RN of it is r2, ties impossible. */
#ifndef OZB_EFT_OPS_H
#define OZB_EFT_OPS_H
#include "ozb_bits_ops.h"

#define OZB_EFT_PMAX 0x1p960
#define OZB_EFT_PMIN 0x1p-960
/* the largest tree depth the budget allows (D u <= 2^-10) */
#define OZB_EFT_DEPTH_MAX ((int64_t)1 << 43)

typedef struct { double s, c, b; int bad; } ozb_eft_acc;

OZB_HD void ozb_op_eft_init(ozb_eft_acc *a) { a->s = a->c = a->b = 0.0; a->bad = 0; }

/* a->s + p = s + t exactly (TwoSum, 6 operations, no ordering needed) */
OZB_HD double ozb_op_two_sum(double a, double p, double *t)
{
    const double s = a + p, z = s - a;
    *t = (a - (s - z)) + (p - z);
    return s;
}

/* one product x y into the row's chain: depth + 2 for its error leaves */
OZB_HD void ozb_op_eft_add(ozb_eft_acc *a, double x, double y)
{
    const double p = x * y, e = fma(x, y, -p), ap = fabs(p);
    a->bad |= !(ap <= OZB_EFT_PMAX) || (ap < OZB_EFT_PMIN && x != 0.0 && y != 0.0);
    double t;
    a->s = ozb_op_two_sum(a->s, p, &t);
    a->c = a->c + (t + e);
    a->b = a->b + (fabs(t) + fabs(e));
}

/* two partial chains into one (either order): depth + 2 */
OZB_HD void ozb_op_eft_merge(ozb_eft_acc *a, const ozb_eft_acc *o)
{
    double t;
    a->s = ozb_op_two_sum(a->s, o->s, &t);
    a->c = (a->c + o->c) + t;
    a->b = (a->b + o->b) + fabs(t);
    a->bad |= o->bad;
}

/* One call: C(i) = RN(alpha sum_l a(i, l) b(l) + beta C(i)), i < m, a(i, l) at
 * a[i ars + l acs], b(l) at b[l bcs], C(i) at c[i crs]; k in nq chunks of L per row (the
 * last may be shorter), by rows (one thread a row and chunk) or by blocks (one block);
 * depth: the error sum's tree depth (ozb_kl_eft_plan) */
typedef struct {
    const double *a; int64_t ars, acs;
    const double *b; int64_t bcs;
    int64_t m, k, L, nq;
    double depth, alpha, beta;
    const double *c; int64_t crs;
    int rows;
} ozb_op_eft_args;

/* row i's chunk q into acc, from l0 by steps of `step` */
OZB_HD void ozb_op_eft_chunk(const ozb_op_eft_args *g, int64_t i, int64_t q, int64_t l0, int64_t step, ozb_eft_acc *acc)
{
    const int64_t l1 = (q + 1) * g->L < g->k ? (q + 1) * g->L : g->k;
    const double *a = g->a + i * g->ars;
    for (int64_t l = q * g->L + l0; l < l1; l += step) ozb_op_eft_add(acc, a[l * g->acs], g->b[l * g->bcs]);
}

/* TwoProduct x y = *q + return, with the range it is exact in (x y = 0 included) */
OZB_HD double ozb_op_eft_prod(double x, double y, double *q, int *bad)
{
    const double p = x * y, ap = fabs(p);
    *q = fma(x, y, -p);
    *bad |= (x != 0.0 && y != 0.0) && !(ap <= OZB_EFT_PMAX && ap >= OZB_EFT_PMIN);
    return p;
}

/* 1 and *out = RN(alpha (s + C) + beta c0) where certified (the budget above; depth: the
 * tree depth D of a's error sum, at most OZB_EFT_DEPTH_MAX; beta == 0: c0 is not read);
 * 0 where not, *out untouched */
OZB_HD int ozb_op_eft_finish(const ozb_eft_acc *a, double depth, double alpha, double beta, double c0, double *out)
{
    int bad = a->bad;
    const double es = depth * 0x1p-52 * a->b + 0x1p-1074;
    double q1, q3 = 0.0, p3 = 0.0;
    const double p1 = ozb_op_eft_prod(alpha, a->s, &q1, &bad);
    const double p2 = alpha * a->c;
    bad |= !(fabs(p2) <= OZB_EFT_PMAX);
    if (beta != 0.0) p3 = ozb_op_eft_prod(beta, c0, &q3, &bad);
    if (bad) return 0;
    double r = p1, f = 0.0, F = 0.0, t;
    r = ozb_op_two_sum(r, p3, &t); f = f + t; F = F + fabs(t);
    r = ozb_op_two_sum(r, p2, &t); f = f + t; F = F + fabs(t);
    r = ozb_op_two_sum(r, q1, &t); f = f + t; F = F + fabs(t);
    r = ozb_op_two_sum(r, q3, &t); f = f + t; F = F + fabs(t);
    double f2;
    const double r2 = ozb_op_two_sum(r, f, &f2);
    const double eb = (fabs(alpha) * es + 0x1p-52 * fabs(p2) + 0x1p-50 * F) * (1.0 + 0x1p-40) + 0x1p-1073;
    const double ar = fabs(r2);
    if (!(r2 != 0.0 && ar <= 0x1p1000)) return 0;
    const double gap = ar - ozb_op_from_bits(ozb_op_bits(ar) - 1);     /* exact (Sterbenz) */
    if (!(2.0 * ((fabs(f2) + eb) * (1.0 + 0x1p-50)) < gap)) return 0;
    *out = r2;
    return 1;
}
#endif
