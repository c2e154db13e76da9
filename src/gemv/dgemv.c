/* ozblas_dgemv: argument checks and BLAS conventions; the work is the shared pipeline
 * with op(B) = x (one column): one GEMM per slice of op(A) against all slices of x. */
#include "dispatch/dispatch.h"

ozblas_status_t ozblas_dgemv(ozblas_handle_t h, ozblas_operation_t trans, int64_t m, int64_t n,
                             double alpha, const double *A, int64_t lda, const double *x, int64_t incx,
                             double beta, double *y, int64_t incy)
{
    if (!h || !ozb_valid_op(trans) || m < 0 || n < 0 || lda < (m > 1 ? m : 1) || incx == 0 || incy == 0)
        return OZBLAS_STATUS_INVALID_VALUE;
    if (m == 0 || n == 0) return OZBLAS_STATUS_SUCCESS;
    const int64_t lenx = trans == OZBLAS_OP_N ? n : m;   /* inner dimension */
    const int64_t leny = trans == OZBLAS_OP_N ? m : n;
    if (!y || (alpha != 0.0 && (!A || !x))) return OZBLAS_STATUS_INVALID_VALUE;
    double *ybase = y + (incy < 0 ? (leny - 1) * -incy : 0);
    if (alpha == 0.0) return ozb_scale_c(h, ybase, incy, 0, leny, 1, beta);
    ozb_problem pr = {
        .m = leny, .n = 1, .k = lenx,
        .a = { A, trans == OZBLAS_OP_N ? 1 : lda, trans == OZBLAS_OP_N ? lda : 1 },
        .b = { x + (incx < 0 ? (lenx - 1) * -incx : 0), 0, incx },
        .alpha = alpha, .beta = beta, .c = ybase, .crs = incy, .ccs = 0,
        /* GEMM's inner block: a GEMV is a GEMM of one column, and every element of a GEMM
         * depends on its own row and column alone, so both must split on the same grid */
        .kblock = OZB_KBLOCK_MAX,
    };
    return ozb_run(h, &pr);
}
