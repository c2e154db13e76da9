/* CORRECTLY_ROUNDED DOT, GEMV and GEMM by error-free sums with two extraction levels
 * (eft_deep.c): the results the one-level sums (eft_dot.h) leave undecided because they cancel
 * far below their terms. */
#ifndef OZB_EFT_DEEP_H
#define OZB_EFT_DEEP_H
#include "core/problem.h"

/* The workspace of ozb_eft_deep_cr on pr (which applies where ozb_eft_eligible holds) */
size_t ozb_eft_deep_bytes(ozblas_handle_t h, const ozb_problem *pr);

/* As ozb_eft_cr (eft_dot.h), with a bound near 2^-120 of the largest product instead of 2^-80:
 * RN(exact) written where certified, *fail the m n flags (owned by the handle until its next
 * call), *nfail their count. */
ozblas_status_t ozb_eft_deep_cr(ozblas_handle_t h, const ozb_problem *pr, int nt, uint8_t **fail, int64_t *nfail);
/* The deep sums on one band strip (eft_band.h's layout: P[8 l + r] for l < w, x contiguous),
 * rows `rows` (bit r): RN(alpha sum_l P[8 l + r] x[l] + beta y_r) written to y[r incy] (read
 * where beta != 0) where certified; returns the rows left, untouched.  lsb: 9 w int32 of
 * scratch.  In the standard floating-point environment (core/fpenv.h). */
unsigned ozb_eft_deep_strip(const double *P, const double *x, int64_t w, unsigned rows, double alpha, double beta,
                            double *y, int64_t incy, int32_t *lsb);
#endif
