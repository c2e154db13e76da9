/* CORRECTLY_ROUNDED DOT and GEMV by streaming error-free transformations: one read of the
 * operands, a dozen vector operations per element, a certified rounding per output. */
#ifndef OZB_EFT_DOT_H
#define OZB_EFT_DOT_H
#include "core/problem.h"

/* 1 when ozb_eft_cr may run pr: CORRECTLY_ROUNDED with the FP64 format, op(A) with a unit
 * stride along rows or columns, finite alpha and beta, k <= 2^32, its buffers within the
 * workspace limit, OZBLAS_NO_DOT2 not set.  Every size: on the AVX2 EPYC the error-free GEMM
 * is faster than the lazily rounded slices from 16^3 to 2048^3 (2048^3, 2 threads: 1.9 s
 * against 4.5 s).  ozb_eft_applies is all of it but the workspace, ozb_eft_bytes that. */
int ozb_eft_eligible(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *plan);
int ozb_eft_applies(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *plan);
size_t ozb_eft_bytes(ozblas_handle_t h, const ozb_problem *pr);

/* Writes RN(exact) for every element of C it can certify; *fail points to m n flags
 * (column-major, owned by the handle until its next call), 1 where the element was left
 * untouched: Inf/NaN or overflow anywhere in its row and column, results below 2^-947 or
 * exactly zero, or a sum within its error bound of a rounding boundary.  *nfail is their
 * count. */
ozblas_status_t ozb_eft_cr(ozblas_handle_t h, const ozb_problem *pr, int nt, uint8_t **fail, int64_t *nfail);

/* A DOT (m = n = 1) below OZB_PAR_WORK products, one thread, no workspace (h: whether the
 * 512-bit lane loop runs, ozb_eft_wide, asked only beyond OZB_DOT_ONE_SIGMA): up to
 * OZB_DOT_ONE_SIGMA products by one split with a single sigma (eft_dot_small.c), beyond by the
 * sums of ozb_eft_cr on the stack; 1 where certified (RN(exact) written to C), 0 where the
 * general path must run (it then finds the same).  For the fixed cost of small calls. */
int ozb_eft_dot_small(ozblas_handle_t h, const ozb_problem *pr);

/* 1 where a handle's DOT lanes run the 512-bit loop (the CPU has AVX-512 and OZBLAS_FUSED_AVX2
 * is not set: fused.c's choice of kernel set); the same bits either way */
int ozb_eft_wide(ozblas_handle_t h);
/* the same choice for the CPU alone, where no handle is at hand (ozb_eft_dot_parts) */
int ozb_eft_cpu_wide(void);

/* The same with its buffers in workspace slot `slot` (the scaled sums run it inside a call
 * whose flags are in OZB_BUF_EFT) */
ozblas_status_t ozb_eft_cr_in(ozblas_handle_t h, const ozb_problem *pr, int nt, int slot, uint8_t **fail, int64_t *nfail);

/* sum_i x_i y_i (BLAS increments: negative ones traverse backwards) as S + C + D with
 * |D| <= B, by the DOT kernels on the calling thread, in the caller's floating-point
 * environment (round to nearest, no FTZ/DAZ: core/fpenv.h); 0 where a product is out of the
 * kernels' range or not finite, n > 2^32, or without the kernels.  Not a rounding: the parts
 * of ozblas_pddot's certificate across processes (src/mpi/pddot.c). */
int ozb_eft_dot_parts(int64_t n, const double *x, int64_t incx, const double *y, int64_t incy, double *S, double *C,
                      double *B);

/* The same for the m rows of a column-major block (columns lda apart) times a contiguous x
 * of k: parts[3 i .. 3 i + 2] = S, C, B of row i, by the GEMV-N kernels (eft_gemv_n.c); 0
 * where some row is out of range or not finite. */
int ozb_eft_gemv_n_parts(int64_t m, int64_t k, const double *A, int64_t lda, const double *x, double *parts);

#endif
