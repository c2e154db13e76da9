/* Elements whose every product is exactly zero (a zero row or column block, a structured zero
 * of a triangular or banded operand): the error-free sums cannot certify them, since a zero
 * sum within a nonzero bound may round to either sign or to a subnormal, but their exact value
 * is simply beta c. */
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

/* For every flagged element (fail: m n flags, column-major) whose products op(A)(i, l)
 * op(B)(l, j) are all exactly zero (for each l one factor is zero and the other finite):
 * writes RN(beta c) (+0 where beta or c is zero: the contract's exact zero) and clears its
 * flag.  Left flagged: alpha or (where used) beta not finite, c not finite, or beta c
 * overflowing or underflowing to zero (the later methods decide those).  A flag left may
 * become 2 (a pair of nonzero factors seen): still flagged.  Returns the flags cleared. */
int64_t ozb_exact_zero_products(const ozb_problem *pr, uint8_t *fail);
/* One element known to have only zero products (alpha, beta finite): RN(beta c) written and
 * its flag cleared (1), or its flag set (0: c not finite, beta c out of range) */
int ozb_exact_zero_products_put(const ozb_problem *pr, int64_t i, int64_t j, uint8_t *fail);
/* The same for every row of column j (all its products known zero); returns the rows left
 * flagged */
int64_t ozb_exact_zero_products_put_column(const ozb_problem *pr, int64_t j, uint8_t *fail);
#endif
