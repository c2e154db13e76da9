/* What the level-2 files share: the routines on a triangle in full or packed storage, and the
 * packed triangle unpacked. */
#ifndef OZB_BLAS2_H
#define OZB_BLAS2_H
#include "core/ozb_internal.h"

/* DSYMV and DTRMV (arguments checked, n > 0, host operands) on the triangle in full storage
 * (A, lda) or packed (AP, A == NULL) (sym_tri2.c): the same bits either way */
ozblas_status_t ozb_symv_stored(ozblas_handle_t h, ozblas_uplo_t uplo, int64_t n, double alpha, const double *A,
                                int64_t lda, const double *AP, const double *x, int64_t incx, double beta, double *y,
                                int64_t incy);
ozblas_status_t ozb_trmv_stored(ozblas_handle_t h, ozblas_uplo_t uplo, ozblas_operation_t trans, ozblas_diag_t diag,
                                int64_t n, const double *A, int64_t lda, const double *AP, double *x, int64_t incx);
/* The packed triangle AP in full storage (leading dimension n, the other triangle not
 * written), in the handle's workspace; NULL on allocation failure (packed.c) */
const double *ozb_packed_full(ozblas_handle_t h, const double *AP, int64_t n, int lower);
#endif
