/* Ozaki scheme I (slices): split -> exact products -> summation, for one routine call.
 *
 * Reproducibility (CONTRACT §3): every output element is a function of its row of
 * op(A), its column of op(B), the k-block size (routine, k and format only), the
 * mode and the format:
 *  - slices of a row depend only on that row's values in the k-block;
 *  - every slice product is exact (bit budgets in format.c), whatever the GEMM does;
 *  - the terms of an element are summed in a fixed order (or correctly rounded);
 *  - the split counts are the row's own (until exact, or FIXED's split count).
 * m/n blocking and thread counts therefore never change a bit.
 * Modes: CORRECTLY_ROUNDED and FIXED (DOUBLE never comes here: the call's plan, src/dispatch,
 * computes it correctly rounded, or through the CRT). */
#ifndef OZB_SCHEME1_H
#define OZB_SCHEME1_H
#include "core/problem.h"

/* Computes pr with slices of the plan's format in its mode, on the host (a CUDA handle's
 * products on its device); NOT_SUPPORTED for a mode other than CORRECTLY_ROUNDED and FIXED. */
ozblas_status_t ozb_scheme1_run(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *plan);
#endif
