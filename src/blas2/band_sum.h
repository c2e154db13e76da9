/* What the banded level-2 routines share (band_sum.c): a row's exact sum over its band terms,
 * and the triangular band routines' arguments. */
#ifndef OZB_BAND_SUM_H
#define OZB_BAND_SUM_H
#include "core/ozb_internal.h"

/* *c := RN(alpha sum_l a_l b_l + beta c) (beta == 0: c not read), the k terms contiguous:
 * correctly rounded in every mode */
ozblas_status_t ozb_band_sum(ozblas_handle_t h, const double *a, const double *b, int64_t k, double alpha, double beta,
                             double *c);
/* DTBMV's and DTBSV's arguments as the reference BLAS checks them (INVALID_VALUE), and host
 * operands (NOT_SUPPORTED elsewhere) */
ozblas_status_t ozb_tb_args(ozblas_handle_t h, ozblas_uplo_t uplo, ozblas_operation_t trans, ozblas_diag_t diag,
                            int64_t n, int64_t k, const double *A, int64_t lda, const double *x, int64_t incx);
#endif
