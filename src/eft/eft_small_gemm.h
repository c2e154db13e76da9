/* CORRECTLY_ROUNDED GEMMs of a few rows, columns and products (LAPACK's blocked updates
 * C -+ A B: 8 x 8 x 8 by the million in its Sylvester solver, 15..37 x 15..37 x 3 in its
 * bidiagonal reduction): the error-free sums of the streaming GEMM, one block per element,
 * without its setup. */
#ifndef OZB_EFT_SMALL_GEMM_H
#define OZB_EFT_SMALL_GEMM_H
#include "core/problem.h"

#define OZB_SMALL_GEMM_M 64   /* rows of C, at least 4 (fewer: the tiny sums or one GEMV per column) */
#define OZB_SMALL_GEMM_N 64   /* columns, at least 2 (one: the GEMV paths), and at most 16 or 2 m:
                               * a few rows times many columns are the streaming sums' (one strip,
                               * 512-bit loops: 8 x 64 x 8 2.4 against 2.8 us here, 1 thread) */
#define OZB_SMALL_GEMM_K 16   /* products per element */

/* 1 where ozb_eft_small_gemm takes pr: 4 <= m <= 64, 2 <= n <= 64 (n <= 16 or n <= 2 m),
 * k <= 16, alpha = +-1, C whole (no triangle, no remainder's flags), and the streaming sums'
 * conditions (ozb_eft_applies) */
int ozb_eft_small_gemm_applies(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl);

/* Writes RN(exact) for every element it certifies; *fail: m n flags (owned by the handle until
 * its next call) set where it left the element untouched, *nfail their count.  Declines
 * (OZBLAS_STATUS_NOT_SUPPORTED, C as it was) where an operand holds Inf or NaN or a bound is
 * beyond 2^990. */
ozblas_status_t ozb_eft_small_gemm(ozblas_handle_t h, const ozb_problem *pr, uint8_t **fail, int64_t *nfail);
#endif
