/* Slice products: the only place that calls a GEMM.  One file per backend and
 * slice format (product_fp64.c: FP64 slices through OpenBLAS DGEMM). */
#ifndef OZB_PRODUCT_H
#define OZB_PRODUCT_H
#include "split/split.h"

typedef struct { int64_t calls, pairs; double flops; } ozb_prod_stats;

/* P(t,i,u,j) = sum_l A.slice(t,i,l) * B.slice(u,j,l), exact by the bit budget, stored at
 * P[(t*A.rows + i) + (u*B.rows + j)*ldp] (ldp >= A.rows * A.s).  Only pairs with
 * t + u <= dmax - 1 are guaranteed when dmax > 0 (fast mode); dmax == 0: all pairs.
 * Batched: one GEMM per A slice against all needed B slices side by side, or one GEMM
 * for every pair when the A side is skinny (GEMM-ized DOT). */
void ozb_products_fp64(const ozb_slices *A, const ozb_slices *B, int dmax, double *P, int64_t ldp,
                       ozb_prod_stats *st);

/* Makes the BLAS use `threads` threads (process-wide setting of OpenBLAS). */
void ozb_blas_set_threads(int threads);
#endif
