/* A banded row's exact sum, and the triangular band routines' arguments (band_sum.h). */
#include "blas2/band_sum.h"
#include "shapes/shapes.h"
#include "dispatch/dispatch.h"
#include "core/backend.h"
#include "eft/eft_tiny_row.h"
#include "eft/eft_dot_small.h"
#include "exact/exact_small.h"
#include "exact/zero_products.h"

/* *c := RN(alpha sum_l a_l b_l + beta c) (beta == 0: c not read), the terms contiguous */
ozblas_status_t ozb_band_sum(ozblas_handle_t h, const double *a, const double *b, int64_t k, double alpha, double beta,
                             double *c)
{
    if (k == 0 || alpha == 0.0) {
        *c = beta == 0.0 ? 0.0 : beta * *c;
        return OZBLAS_STATUS_SUCCESS;
    }
    /* alpha = 1, beta = 0 (DTBSV's and DTBMV's rows): ozb_short_sum's first step, the short
     * error-free DOT, straight away without the problem, where it certifies a nonzero */
    const int unit = alpha == 1.0 && beta == 0.0 && k <= OZB_DOT_ONE_SIGMA;
    double v;
    if (unit) {
        if (ozb_eft_dot_unit(a, b, k, 0, &v) && v != 0.0) {
            *c = v;
            return OZBLAS_STATUS_SUCCESS;
        }
        /* every product exactly zero: the exact sum is zero, +0 as the exact sums round it
         * (ozb_exact_zero_products): LAPACK's right-hand sides of zeros */
        if (ozb_zero_pairs(a, b, k)) {
            *c = 0.0;
            return OZBLAS_STATUS_SUCCESS;
        }
        if (ozb_eft_tiny_row(a, b, k, &v)) {
            *c = v;
            return OZBLAS_STATUS_SUCCESS;
        }
    }
    const ozb_problem pr = { .m = 1, .n = 1, .k = k, .a = { a, 0, 1 }, .b = { b, 0, 1 }, .alpha = alpha, .beta = beta,
                             .c = c, .crs = 0, .ccs = 0, .kblock = OZB_KBLOCK_DOT, .c_host = 1 };
    /* where unit, the short DOT has just failed: ozb_short_sum's second step alone */
    if (unit ? ozb_exact_small_value(&pr, &v) : ozb_short_sum(&pr, &v)) { *c = v; return OZBLAS_STATUS_SUCCESS; }
    return ozb_run_rn(h, &pr);
}

ozblas_status_t ozb_tb_args(ozblas_handle_t h, ozblas_uplo_t uplo, ozblas_operation_t trans, ozblas_diag_t diag,
                            int64_t n, int64_t k, const double *A, int64_t lda, const double *x, int64_t incx)
{
    if (!h || (uplo != OZBLAS_UPPER && uplo != OZBLAS_LOWER) || !ozb_valid_op(trans) ||
        (diag != OZBLAS_NON_UNIT && diag != OZBLAS_UNIT) || n < 0 || k < 0 || lda < k + 1 || incx == 0)
        return OZBLAS_STATUS_INVALID_VALUE;
    if (n > 0 && (!A || !x)) return OZBLAS_STATUS_INVALID_VALUE;
    if (!ozb_host_operands(h)) return OZBLAS_STATUS_NOT_SUPPORTED;
    return OZBLAS_STATUS_SUCCESS;
}
