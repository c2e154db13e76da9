/* The shapes of the BLAS beyond GEMM, brought to the problems ozb_run computes: symmetric and
 * triangular operands made whole, a GEMM problem on one triangle of C, and the fixed-block
 * triangular solve of CONTRACT §6.  Every element computed here is an element of a GEMM
 * problem, so it keeps the pipeline's element-locality (README, tests/test_element_local.c):
 * how the work is cut into blocks below changes no bit. */
#ifndef OZB_SHAPES_H
#define OZB_SHAPES_H
#include "core/problem.h"
#include "../../kernels/ozb_shape_ops.h"

/* Workspace: the handle's slots OZB_BUF_SHAPE_A (operands made whole), OZB_BUF_SHAPE_B
 * (copies of B and panels), OZB_BUF_SHAPE_T (ozb_run_triangle's diagonal blocks). */

/* BLAS vector element 0 in memory: the last one for a negative increment */
static inline const double *ozb_vec0(const double *x, int64_t n, int64_t inc)
{
    return inc < 0 ? x + (n - 1) * -inc : x;
}
static inline double *ozb_vec0_mut(double *x, int64_t n, int64_t inc)
{
    return inc < 0 ? x + (n - 1) * -inc : x;
}

/* dst (n x n, leading dimension n) = the symmetric matrix whose `lower` (else upper) triangle
 * A holds; the other triangle of A is not read. */
void ozb_sym_full(const double *A, int64_t lda, int64_t n, int lower, double *dst);
/* Rows r0 .. r1-1 of that symmetric matrix as the columns of dst (n x (r1 - r0), leading
 * dimension ldd >= n): dst[j + r*ldd] = A_sym(r0 + r, j).  Every read runs along a column of
 * A.  (An ldd off a multiple of 512 keeps the panel's columns out of each other's cache sets.)
 * nt threads, by strips of 16 rows (moves only: no bit depends on them). */
void ozb_sym_rows(const double *A, int64_t lda, int64_t n, int lower, int64_t r0, int64_t r1, double *dst,
                  int64_t ldd, int nt);
/* dst (n x n, ld n) = op(T) made whole: zeros outside the triangle, ones on a unit diagonal;
 * only T's `lower` (else upper) triangle is read (a unit diagonal's values are not used). */
void ozb_tri_full(const double *A, int64_t lda, int64_t n, int lower, int trans, int unit, double *dst);

/* DTRMM's B := alpha op(T) B (left) or alpha B op(T) (right) where op(T) has order at most 4, B
 * at most 16 elements and alpha = +-1 (LAPACK's 1x1 and 2x2 blocks by the hundred thousand,
 * where making T whole and a GEMM cost far more than the products): each element RN of its
 * exact sum over the triangle by ozb_eft_dot_tiny (negation exact), computed into a copy and
 * written only where every one is certified and nonzero; 1 then, else 0 with B untouched (the
 * general path: the same RN(exact), and the zeros' signs).  lower: T's triangle; the caller's
 * environment the standard one (core/fpenv.h). */
int ozb_trmm_tiny(int left, int lower, int trans, int unit, int64_t m, int64_t n, double alpha, const double *A,
                  int64_t lda, double *B, int64_t ldb);

/* The level-3 routines' scratch (slot: OZB_BUF_SHAPE_A, B or T) and shapes in the handle's
 * memory: the host's, or the backend's where it keeps the operands (shape_ops.c) */
double *ozb_shape_buf(ozblas_handle_t h, int slot, size_t bytes);
ozblas_status_t ozb_shape(ozblas_handle_t h, const ozb_op_shape *s);

/* The problem pr (m == n) on the `lower` (else upper) triangle of C alone, diagonal included:
 * the other triangle is neither read nor written; its columns cut into parts of equal area, one
 * per thread (core/parts.h).  rn: correctly rounded whatever the mode. */
ozblas_status_t ozb_run_triangle(ozblas_handle_t h, const ozb_problem *pr, int lower, int rn);
/* The same on the triangle's columns c0..c1-1 alone, on the calling thread's handle */
ozblas_status_t ozb_run_triangle_cols(ozblas_handle_t h, const ozb_problem *pr, int lower, int rn, int64_t c0, int64_t c1);
/* cuts[0..nt] (0 = cuts[0] <= ... <= cuts[nt] = n, inner ones multiples of 8: the error-free
 * GEMM's strips) cutting an n x n triangle's columns into nt parts of about equal area */
void ozb_triangle_cuts(int64_t n, int lower, int nt, int64_t *cuts);

/* RN(alpha x^T y + beta c) of a one-element problem (m = n = 1) into *out (nothing else
 * written), 1 where it applies: first the short error-free DOT, taken where it certifies a
 * nonzero result (there RN(exact) is unique, so it is what the exact sums give), then the short
 * exact sums (a zero's sign is theirs to decide; k <= OZB_EXACT_SMALL_K, finite terms).  0:
 * the caller's correctly rounded pipeline. */
int ozb_short_sum(const ozb_problem *pr, double *out);

/* op(T) X = B for a lower op(T) (after the caller's reversal and transposition), by the
 * rule of CONTRACT §6: t (m x m) element (i, j) = t.p[i*t.rs + j*t.cs]; X overwrites B,
 * element (i, j) = x[i*xrs + j*xcs], nrhs columns.  B is alpha B already. */
ozblas_status_t ozb_tri_solve(ozblas_handle_t h, ozb_view t, int unit, int64_t m, int64_t nrhs,
                              double *x, int64_t xrs, int64_t xcs);
/* op(T) X = B for T (m x m, leading dimension lda) with its `lower` (else upper) triangle
 * stored: an upper op(T) solved in reverse order (both views reversed), then ozb_tri_solve.
 * X (element (i, j) = x[i*xrs + j*xcs]) overwrites B, already alpha B. */
ozblas_status_t ozb_tri_solve_op(ozblas_handle_t h, const double *A, int64_t lda, int64_t m, int lower, int trans,
                                 int unit, int64_t nrhs, double *x, int64_t xrs, int64_t xcs);

/* 1 where ozb_tri_solve_cols may take a solve of m rows: m above one block, host operands,
 * ozb_run's results RN(exact) (so every path gives the same bits), the kernels offered */
int ozb_tri_cols_apply(ozblas_handle_t h, int64_t m);
/* ozb_tri_solve's solve on one right-hand side x (element i at x[i xrs]) where op(T)'s columns
 * are contiguous (trsolve_cols.c): kind OZB_COLS_FULL, op(T)(i, j) = p[i rs + j cs], rs = +-1;
 * or the packed storages of eft/eft_trcols.h (p: AP).  The same bits as ozb_tri_solve. */
ozblas_status_t ozb_tri_solve_cols(ozblas_handle_t h, const double *p, int64_t rs, int64_t cs, int kind, int unit,
                                   int64_t m, double *x, int64_t xrs);
/* DTPSV without transpose on the packed triangle where it lies (ozb_tri_cols_apply's
 * conditions): the bits of DTRSV on the triangle in full storage */
ozblas_status_t ozb_tri_solve_packed(ozblas_handle_t h, const double *AP, int64_t n, int lower, int unit, double *x,
                                     int64_t incx);

/* After y = alpha op(T) x was computed on op(T) made whole (its absent zeros multiplied): the
 * elements y_i for which a non-finite x_k met an absent zero of row i (0 Inf or 0 NaN, a NaN
 * the reference BLAS never forms) computed again on row i's triangle alone, correctly
 * rounded in every mode.  op(T)(i, k) = t.p[i t.rs + k t.cs] (n x n), lower where `low`, a
 * unit diagonal not read; x (element k at x[k incx]) is the input, not aliasing y.  Host
 * memory; nothing happens where every x_k is finite. */
ozblas_status_t ozb_tri_absent_zeros(ozblas_handle_t h, ozb_view t, int low, int unit, int64_t n, double alpha,
                                     const double *x, int64_t incx, double *y, int64_t incy);
/* The same for nvec vectors at once in the handle's memory (DTRMM: host or device), op(T) made
 * whole (its unit diagonal written): vector v's x_k at x.p[k x.rs + v x.cs], its y_i at
 * y.p[i y.rs + v y.cs].  On a backend's memory the non-finite x_k are found there
 * (core/backend.h: nonfinite) and the rows computed again by problems on it.  y was written
 * before: a failure returns ALLOC_FAILED or PARTIAL. */
ozblas_status_t ozb_tri_absent_zeros_cols(ozblas_handle_t h, ozb_view t, int low, int64_t n, double alpha, ozb_view x,
                                          int64_t nvec, ozb_view y);
/* The status of a failure that came after part of the output was written (CONTRACT §4: the
 * routines of §6 may say so by ALLOC_FAILED; anything else is PARTIAL) */
static inline ozblas_status_t ozb_after_written(ozblas_status_t st)
{
    return st == OZBLAS_STATUS_SUCCESS || st == OZBLAS_STATUS_ALLOC_FAILED ? st : OZBLAS_STATUS_PARTIAL;
}
/* 1 where x[0..n-1] are all finite (one vector pass over the bits: no arithmetic) */
int ozb_all_finite(const double *x, int64_t n);
#endif
