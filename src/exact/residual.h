/* A short residual correctly rounded: RN(c - sum_l t_l x_l) by a compensated sum with its own
 * certificate (residual.c), for the in-block rows of the triangular solves, where each row's
 * value feeds the next: a few nanoseconds of dependency from one row to the next. */
#ifndef OZB_RESIDUAL_H
#define OZB_RESIDUAL_H
#include <stdint.h>

/* RN(c - sum_{l < n} t[l tstep] x[l]) into *out where certified, finite and nonzero (1); 0
 * where not (a zero's sign, and what it cannot prove, are the exact sums' to decide).
 * n <= 32; the standard floating-point environment (core/fpenv.h). */
int ozb_residual_short(double c, const double *t, int64_t tstep, const double *x, int64_t n, double *out);
#endif
