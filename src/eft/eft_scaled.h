/* CORRECTLY_ROUNDED DOT, GEMV and GEMM whose products are all tiny (LAPACK's scaling tests:
 * operands near 2^-970, results near 2^-975): the error-free sums' bound has an absolute term
 * of 2^-1000 (underflow of the products' errors), so they certify nothing below about 2^-947.
 * Scaled by a power of two into the middle of the range, the same sums certify them. */
#ifndef OZB_EFT_SCALED_H
#define OZB_EFT_SCALED_H
#include "core/problem.h"

/* The power of two s > 0 that brings pr's largest product near 1 (one operand and C scaled by
 * 2^s without overflow), or 0 where the products are not tiny, some operand is not finite,
 * or the scaled copies do not fit the workspace limit. */
int ozb_eft_scale_for(ozblas_handle_t h, const ozb_problem *pr);

/* As ozb_eft_cr (eft_dot.h) on pr scaled by 2^s (ozb_eft_scale_for > 0): RN(exact) written
 * where the scaled sums certify it and it is a normal number (the scaling back is then
 * exact); the rest flagged. */
ozblas_status_t ozb_eft_scaled_cr(ozblas_handle_t h, const ozb_problem *pr, int nt, uint8_t **fail, int64_t *nfail);
#endif
