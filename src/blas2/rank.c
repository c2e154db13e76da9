/* ozblas_dger, dsyr, dsyr2: A := A + alpha x y^T (+ alpha y x^T), each updated element
 * RN(a_ij + alpha x_i y_j (+ alpha y_i x_j)) in every mode: GEMM problems with an inner
 * dimension of 1 (2 for DSYR2: one exact sum of both products), correctly rounded (ozb_run_rn),
 * on one triangle for the symmetric ones (ozb_run_triangle). */
#include "shapes/shapes.h"
#include "dispatch/dispatch.h"
#include "core/backend.h"

static ozblas_status_t rank_args(ozblas_handle_t h, int64_t m, int64_t n, int64_t lda, int64_t incx, int64_t incy)
{
    if (!h || m < 0 || n < 0 || lda < (m > 1 ? m : 1) || incx == 0 || incy == 0) return OZBLAS_STATUS_INVALID_VALUE;
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozblas_dger(ozblas_handle_t h, int64_t m, int64_t n, double alpha, const double *x, int64_t incx,
                            const double *y, int64_t incy, double *A, int64_t lda)
{
    ozblas_status_t st = rank_args(h, m, n, lda, incx, incy);
    if (st != OZBLAS_STATUS_SUCCESS || m == 0 || n == 0 || alpha == 0.0) return st;
    if (!x || !y || !A) return OZBLAS_STATUS_INVALID_VALUE;
    if (!ozb_host_operands(h)) return OZBLAS_STATUS_NOT_SUPPORTED;
    const ozb_problem pr = {
        .m = m, .n = n, .k = 1, .a = { ozb_vec0(x, m, incx), incx, 0 }, .b = { ozb_vec0(y, n, incy), incy, 0 },
        .alpha = alpha, .beta = 1.0, .c = A, .crs = 1, .ccs = lda, .kblock = OZB_KBLOCK_MAX,
    };
    return ozb_run_rn(h, &pr);
}

static int valid_uplo(ozblas_uplo_t u) { return u == OZBLAS_UPPER || u == OZBLAS_LOWER; }

ozblas_status_t ozblas_dsyr(ozblas_handle_t h, ozblas_uplo_t uplo, int64_t n, double alpha, const double *x,
                            int64_t incx, double *A, int64_t lda)
{
    ozblas_status_t st = valid_uplo(uplo) ? rank_args(h, n, n, lda, incx, 1) : OZBLAS_STATUS_INVALID_VALUE;
    if (st != OZBLAS_STATUS_SUCCESS || n == 0 || alpha == 0.0) return st;
    if (!x || !A) return OZBLAS_STATUS_INVALID_VALUE;
    if (!ozb_host_operands(h)) return OZBLAS_STATUS_NOT_SUPPORTED;
    const ozb_view xv = { ozb_vec0(x, n, incx), incx, 0 };
    const ozb_problem pr = { .m = n, .n = n, .k = 1, .a = xv, .b = xv, .alpha = alpha, .beta = 1.0, .c = A,
                             .crs = 1, .ccs = lda, .kblock = OZB_KBLOCK_MAX };
    return ozb_run_triangle(h, &pr, uplo == OZBLAS_LOWER, 1);
}

ozblas_status_t ozblas_dsyr2(ozblas_handle_t h, ozblas_uplo_t uplo, int64_t n, double alpha, const double *x,
                             int64_t incx, const double *y, int64_t incy, double *A, int64_t lda)
{
    ozblas_status_t st = valid_uplo(uplo) ? rank_args(h, n, n, lda, incx, incy) : OZBLAS_STATUS_INVALID_VALUE;
    if (st != OZBLAS_STATUS_SUCCESS || n == 0 || alpha == 0.0) return st;
    if (!x || !y || !A) return OZBLAS_STATUS_INVALID_VALUE;
    if (!ozb_host_operands(h)) return OZBLAS_STATUS_NOT_SUPPORTED;
    /* panels [x y] and [y x] (n x 2): row i of the first times row j of the second is
     * x_i y_j + y_i x_j */
    double *p = ozb_buf_get(h, OZB_BUF_SHAPE_B, sizeof(double) * 4 * (size_t)n);
    if (!p) return OZBLAS_STATUS_ALLOC_FAILED;
    const double *x0 = ozb_vec0(x, n, incx), *y0 = ozb_vec0(y, n, incy);
    for (int64_t i = 0; i < n; i++) {
        p[i] = p[3 * n + i] = x0[i * incx];
        p[n + i] = p[2 * n + i] = y0[i * incy];
    }
    const ozb_problem pr = { .m = n, .n = n, .k = 2, .a = { p, 1, n }, .b = { p + 2 * n, 1, n }, .alpha = alpha,
                             .beta = 1.0, .c = A, .crs = 1, .ccs = lda, .kblock = OZB_KBLOCK_MAX };
    return ozb_run_triangle(h, &pr, uplo == OZBLAS_LOWER, 1);
}
