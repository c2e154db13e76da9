/* CORRECTLY_ROUNDED GEMM with a small inner dimension by error-free dot products. */
#ifndef OZB_CR_DOT2_H
#define OZB_CR_DOT2_H
#include "core/problem.h"

/* Largest inner dimension, and largest m n k, the method takes (shape-only choices; at k = 64
 * Scheme I with lazy rounding is as fast on the AVX2 EPYC, bench/results/sweep-*). */
#define OZB_DOT2_KMAX 32
#define OZB_DOT2_WORK_MAX ((double)(1 << 21))

/* 1 when ozb_dot2_cr may run pr (CORRECTLY_ROUNDED, FP64 or CRT format, more than one column,
 * k and m n k small, OZBLAS_NO_DOT2 not set). */
int ozb_dot2_eligible(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *plan);

/* Writes RN(exact) for every element it can certify; *fail points to m n flags (column-major,
 * owned by the handle until its next call), 1 where the element was left untouched (non-finite
 * or out-of-range operands, or a sum Sum2 cannot certify); *nfail is their count. */
ozblas_status_t ozb_dot2_cr(ozblas_handle_t h, const ozb_problem *pr, int nt, const uint8_t **fail, int64_t *nfail);
#endif
