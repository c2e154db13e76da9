/* ozblas_ddot: argument checks and BLAS conventions; the work is the shared pipeline
 * with op(A) = x^T (one row) and op(B) = y (one column): all slice pairs of a k-block
 * in one GEMM (GEMM-ization, seed 001 §4.3). */
#include "dispatch/dispatch.h"
#include "core/backend.h"
#include "core/gather.h"

/* strided DOTs up to this many products (OZB_DOT_ONE_SIGMA, the direct path's limit) go to it
 * through contiguous copies on the stack, 8 KiB a vector (LAPACK's DOTs along rows of a
 * matrix: DTRSYL's by the million, of 1 to some 300 products) */
#define DOT_GATHER 1024

ozblas_status_t ozblas_ddot(ozblas_handle_t h, int64_t n, const double *x, int64_t incx,
                            const double *y, int64_t incy, double *result)
{
    if (!h || !result) return OZBLAS_STATUS_INVALID_VALUE;
    if (n <= 0) {                          /* result is host memory on every handle */
        ozb_info_reset(h);
        *result = 0.0;
        return OZBLAS_STATUS_SUCCESS;
    }
    if (!x || !y) return OZBLAS_STATUS_INVALID_VALUE;
    double r = 0.0;
    ozblas_status_t st;
    /* short contiguous DOTs: the error-free split without the general path's layers */
    if (incx == 1 && incy == 1 && ozb_run_dot_direct(h, x, y, n, &r, &st)) {
        if (st == OZBLAS_STATUS_SUCCESS) *result = r;
        return st;
    }
    const double *x0 = x + (incx < 0 ? (n - 1) * -incx : 0), *y0 = y + (incy < 0 ? (n - 1) * -incy : 0);
    if ((incx != 1 || incy != 1) && n <= DOT_GATHER && ozb_host_operands(h)) {
        /* the same terms in the same order: the same bits as the strided walk (a unit-stride
         * vector is read in place) */
        double xb[DOT_GATHER], yb[DOT_GATHER];
        if (incx != 1) ozb_gather(x0, n, incx, xb);
        if (incy != 1) ozb_gather(y0, n, incy, yb);
        if (ozb_run_dot_direct(h, incx == 1 ? x : xb, incy == 1 ? y : yb, n, &r, &st)) {
            if (st == OZBLAS_STATUS_SUCCESS) *result = r;
            return st;
        }
    }
    ozb_problem pr = {
        .m = 1, .n = 1, .k = n,
        .a = { x0, 0, incx },
        .b = { y0, 0, incy },
        .alpha = 1.0, .beta = 0.0, .c = &r, .crs = 0, .ccs = 0,
        .kblock = OZB_KBLOCK_DOT,
        .c_host = 1,
    };
    st = ozb_run(h, &pr);
    if (st == OZBLAS_STATUS_SUCCESS) *result = r;
    return st;
}
