/* The error-free GEMV on one stored triangle (eft_symv.c): DSYMV and DTRMV, correctly rounded,
 * reading the triangle where it lies instead of a copy of the matrix made whole. */
#ifndef OZB_EFT_SYMV_H
#define OZB_EFT_SYMV_H
#include "core/problem.h"

/* y_i := RN(alpha sum_j M_ij x_j + beta y_i) (beta == 0: y not read), where row i of M is
 * made of A's stored triangle (full storage, or packed: element (i, j) of the triangle at
 * column j's start plus its row's offset) in up to two parts:
 *   part_n: the stored elements of row i (lower: j <= i, upper: j >= i), read along rows as
 *           a GEMV-N reads them (strips of 8 rows over the triangle's columns);
 *   part_t: the stored elements of column i (lower: j >= i, upper: j <= i), each a DOT down
 *           its column;
 * the diagonal in part_t where diag_t, else in part_n; unit: a diagonal of ones, not read.
 * DSYMV is part_n + part_t without the diagonal in part_t; DTRMV op(T) = T is part_n alone,
 * op(T) = T^T part_t alone with the diagonal. */
typedef struct {
    const double *A;
    int64_t lda, n;
    int lower, part_n, part_t, diag_t, unit;
    int packed;               /* A is the reference BLAS's packed triangle (lda unused) */
    double alpha, beta;
    const double *x;          /* contiguous, n */
    double *y;                /* element i at y[i incy] */
    int64_t incy;
} ozb_symv_t;

/* 1 where ozb_eft_symv may run: the kernels are built (AVX2 and FMA), OZBLAS_NO_DOT2 is not
 * set, alpha and beta are finite, n <= 2^32 */
int ozb_eft_symv_applies(ozblas_handle_t h, double alpha, double beta, int64_t n);

/* Writes RN(exact) into every y_i it certifies, on nt threads; fail[i] = 1 where y_i is left
 * as it was (Inf or NaN, products beyond the kernels' range, a result at a rounding boundary
 * or zero).  Returns the rows left.  In the caller's floating-point environment, which must
 * be the standard one (core/fpenv.h). */
int64_t ozb_eft_symv(ozblas_handle_t h, const ozb_symv_t *s, uint8_t *fail, void *state, int nt);
/* the bytes of ozb_eft_symv's state for nt threads (32-byte aligned) */
size_t ozb_eft_symv_state_bytes(int64_t n, int nt);
#endif
