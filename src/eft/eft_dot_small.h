/* Short correctly rounded DOTs by one error-free split with a single sigma (eft_dot_small.c). */
#ifndef OZB_EFT_DOT_SMALL_H
#define OZB_EFT_DOT_SMALL_H
#include "core/problem.h"

/* the most products one sigma can take with its budget (eft_dot_small.c) */
#define OZB_DOT_ONE_SIGMA 1024

/* A DOT (pr: m = n = 1, finite alpha and beta) of 0 < k <= OZB_DOT_ONE_SIGMA products, any
 * strides: RN(alpha x^T y + beta c) into C and 1 where the split's bound certifies it, else 0
 * (a product beyond 2^990 in magnitude, Inf or NaN, a result too near a rounding boundary or
 * tiny, a CPU without AVX2 and FMA): the caller's general path then finds the same bits. */
int ozb_eft_dot_short(const ozb_problem *pr);

/* sum x_l y_l for 0 < n <= 4 products (strides xs, ys): RN of the exact sum into *out and 1
 * where the exact products' certified sum decides it (a normal product alone where n = 1; an
 * exact zero as +0), else 0 (a product out of TwoProduct's range, Inf, NaN, a sum near a
 * rounding boundary) */
int ozb_eft_dot_tiny(const double *x, int64_t xs, const double *y, int64_t ys, int64_t n, double *out);

/* x^T y for contiguous x, y and 0 < n <= OZB_DOT_ONE_SIGMA (a DDOT, alpha = 1, beta = 0):
 * ozb_eft_dot_short's steps for that case (ozb_eft_dot_tiny's exact products for n <= 4, the split, the
 * split on the scaled DOT where it refuses), so that 0 means ozb_eft_dot_short would not
 * certify it either.  RN(x^T y) into *out and 1 where certified.  wide: 1 where the split may
 * use AVX-512 DQ and VL when the CPU has them (0: the 256-bit code only; the same bits). */
int ozb_eft_dot_unit(const double *x, const double *y, int64_t n, int wide, double *out);

/* The same split for one row of a GEMV (x, y contiguous, 0 < n <= OZB_DOT_ONE_SIGMA): 1 and
 * sum x_i y_i = S + R + D with S exact and |D| <= G EBC + 2^-1000 (EBC of eft_kern.h: G plays
 * the lanes' sum of sigmas there, and S, R, 0, G are a fold's S, C, A, G), or 0 where a product
 * is Inf or beyond 2^990 in magnitude (NaN: S or R non-finite). */
int ozb_eft_split1(const double *x, const double *y, int64_t n, double *S, double *R, double *G);

/* The same with ymax >= max|y_i| given (a GEMV's vector, once per call): sigma from max|x_i|
 * ymax before the pass, one pass always (where products grow across the row, ozb_eft_split1
 * passes twice).  0 also where max|x_i| or ymax exceeds 2^490. */
int ozb_eft_split1_bounded(const double *x, const double *y, int64_t n, double ymax, double *S, double *R, double *G);
/* max |x_i| (NaN if some x_i is NaN; NaN without AVX2) */
double ozb_eft_absmax(const double *x, int64_t n);
#endif
