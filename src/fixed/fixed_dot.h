/* FIXED-mode DOT and GEMV by the fused kernels: the GEMM-ized pipeline's bits without its
 * stored slices (fixed_dot.c). */
#ifndef OZB_FIXED_DOT_H
#define OZB_FIXED_DOT_H
#include "core/problem.h"

/* The configuration's FIXED result of a DOT or a GEMV on nt threads, bit for bit the
 * pipeline's; NOT_SUPPORTED (nothing written) where it does not apply: other modes, formats
 * and shapes (GEMM, strides in both directions),
 * split counts above OZB_FZ_FIXED_MAX, Inf/NaN, grids outside the normal range,
 * OZBLAS_NO_FUSED. */
ozblas_status_t ozb_fixed_dot(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *plan, int nt);
#endif
