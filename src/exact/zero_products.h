/* Elements whose every product is exactly zero (a zero row or column block, a structured zero
 * of a triangular or banded operand): the error-free sums cannot certify them, since a zero
 * sum within a nonzero bound may round to either sign or to a subnormal, but their exact value
 * is simply beta c.  And elements with one nonzero product (an identity or diagonal operand, a
 * unit vector e_j: LAPACK's test programs), whose exact value alpha a b + beta c one FMA
 * rounds where alpha = +-1 and beta = 0 or +-1. */
#ifndef OZB_ZERO_PRODUCTS_H
#define OZB_ZERO_PRODUCTS_H
#include "core/problem.h"
#include <math.h>

/* 1 when the pair (x, y) contributes exactly zero: one factor zero, the other finite (0 Inf is
 * NaN) */
static inline int ozb_zero_pair(double x, double y) { return (x == 0.0 && isfinite(y)) || (y == 0.0 && isfinite(x)); }

/* 1 when every product x_l y_l (l < n, contiguous) is exactly zero */
static inline int ozb_zero_pairs(const double *x, const double *y, int64_t n)
{
    int64_t l = 0;
    while (l < n && ozb_zero_pair(x[l], y[l])) l++;
    return l == n;
}

/* RN(a b + beta c) for beta = 0 or +-1 (c is not read where beta = 0: pass 0), where a and b
 * are finite: beta c is exact (a sign), and the FMA (the product where beta = 0) rounds the
 * exact value once: RN(exact), subnormal results included.  A zero from it is the exact value
 * where a b is 0 (a or b zero) or at least 2^-960 in magnitude (its last bit then at least
 * 2^-1065, c's at least 2^-1074, so a nonzero sum is at least 2^-1074 and rounds to nonzero),
 * written +0 as the error-free sums write an exact zero (adding +0 turns an FMA's -0 into +0).
 * 1 and *y where so; 0 for other zeros (a sum that may lie below 2^-1075) and results that are
 * not finite (overflow, an infinite or NaN c) */
static inline int ozb_one_product(double a, double b, double beta, double c, double *y)
{
    const double v = (beta == 0.0 ? a * b : fma(a, b, beta * c)) + 0.0;
    *y = v;
    return (v != 0.0 || a == 0.0 || b == 0.0 || fabs(a * b) >= 0x1p-960) && fabs(v) <= 0x1.fffffffffffffp1023;
}

/* the beta ozb_one_product takes: 0 or +-1 (beta c exact) */
static inline int ozb_one_product_beta(double beta) { return beta == 0.0 || beta == 1.0 || beta == -1.0; }

/* For every flagged element (fail: m n flags, column-major) whose products op(A)(i, l)
 * op(B)(l, j) are all exactly zero (for each l one factor is zero and the other finite):
 * writes RN(beta c) (+0 where beta or c is zero: the contract's exact zero) and clears its
 * flag; the same for an element with one nonzero product (both factors finite, every other
 * pair a zero pair) by ozb_one_product, where alpha = +-1 and beta = 0 or +-1.  Left
 * flagged: alpha or (where used) beta not finite, c not finite, beta c overflowing or
 * underflowing to zero, or what ozb_one_product does not decide (the later methods decide
 * those).  A flag left may become 2 (a pair of nonzero factors seen, or an element
 * ozb_one_product declined): still flagged, and the walks skip it.
 * Returns the flags cleared. */
int64_t ozb_exact_zero_products(const ozb_problem *pr, uint8_t *fail);
/* One element known to have only zero products (alpha, beta finite): RN(beta c) written and
 * its flag cleared (1), or its flag set (0: c not finite, beta c out of range) */
int ozb_exact_zero_products_put(const ozb_problem *pr, int64_t i, int64_t j, uint8_t *fail);
/* The same for every row of column j (all its products known zero); returns the rows left
 * flagged */
int64_t ozb_exact_zero_products_put_column(const ozb_problem *pr, int64_t j, uint8_t *fail);
#endif
