/* The Ozaki-scheme pipeline shared by DOT, GEMV and GEMM: split, multiply, sum,
 * blocked in m and n under the workspace limit and in k by a shape-only block size. */
#ifndef OZB_PIPELINE_H
#define OZB_PIPELINE_H
#include "core/ozb_internal.h"

typedef struct {
    int64_t  m, n, k;          /* C is m x n, inner dimension k (all >= 1)               */
    ozb_view a;                /* op(A): element (i, l), i < m, l < k                    */
    ozb_view b;                /* op(B)^T: element (j, l), j < n, l < k                  */
    double   alpha, beta;      /* alpha != 0 (drivers handle alpha == 0)                 */
    double  *c;                /* C(i, j) = c[i*crs + j*ccs]                             */
    int64_t  crs, ccs;
    int64_t  kblock;           /* inner block size: depends on the routine and shape only */
    int      c_host;           /* c is host memory on a device handle too (DOT's result)  */
} ozb_problem;

/* Computes C = alpha op(A) op(B) + beta C as the handle's mode says. */
ozblas_status_t ozb_run(ozblas_handle_t h, const ozb_problem *pr);



/* Clears the handle's info for a call that computes nothing. */
void ozb_info_reset(ozblas_handle_t h);

/* C := beta * C (beta == 0: C := +0, not read; beta == 1: untouched), for alpha == 0 or k == 0. */
ozblas_status_t ozb_scale_c(ozblas_handle_t h, double *c, int64_t crs, int64_t ccs, int64_t m, int64_t n, double beta);

/* DOUBLE mode: the d of a row split to its end (scheme1/terms.c's s1_row_d), from the format's bits
 * and the inner block: (d+1) 2^(-(d-1) beta) < 2 sqrt(kb) u. */
int ozb_hypothetical_d(int beta, int64_t kb);

/* Inner block sizes (shape-only, CONTRACT §3). */
#define OZB_KBLOCK_DOT  ((int64_t)1 << 15)  /* DOT: 19 bits per FP64 slice, blocks in cache */
#define OZB_KBLOCK_MAX  ((int64_t)1 << 20)  /* GEMM: 16 bits per FP64 slice at most k */
#define OZB_KBLOCK_GEMV ((int64_t)1 << 12)  /* GEMV: a unit's row panel stays in L2 */
#endif
