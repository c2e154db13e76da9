/* Correctly rounded DOT and GEMV by the fused split-and-accumulate kernels: the inputs
 * are read from memory once (a block's maximum is found, then the block is split and
 * multiplied from cache) and no slice is ever stored.  Rows the fused path cannot decide
 * are left to the GEMM-ized pipeline. */
#ifndef OZB_FUSED_H
#define OZB_FUSED_H
#include "core/problem.h"

/* 1 when ozb_fused_cr may run pr on this handle (CORRECTLY_ROUNDED, FP64 format, one
 * output column, a kernel set for this CPU); ozb_fused_bytes: its workspace. */
int ozb_fused_applies(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *plan);
size_t ozb_fused_bytes(ozblas_handle_t h, const ozb_problem *pr);

/* Writes RN(exact) for every row of C it can certify.  *fail points to m flags (owned by
 * the handle, valid until its next call): fail[i] = 1 where row i was left untouched
 * for the caller to compute (non-finite inputs or alpha/beta/C, grids outside the normal
 * range, or a rounding the truncated levels cannot decide).  *nfail is their count. */
ozblas_status_t ozb_fused_cr(ozblas_handle_t h, const ozb_problem *pr, int nt,
                             uint8_t **fail, int64_t *nfail);
#endif
