/* ozblas_dasum: RN(sum |x_i|) in every mode, as a correctly rounded DOT of |x| (a copy in the
 * handle's workspace) with a vector of ones (one element, increment 0); ozblas_idamax: the
 * reference BLAS's scan.  incx <= 0: 0 for both, as the reference BLAS. */
#include "shapes/shapes.h"
#include "dispatch/dispatch.h"
#include "core/backend.h"
#include <math.h>

ozblas_status_t ozblas_dasum(ozblas_handle_t h, int64_t n, const double *x, int64_t incx, double *result)
{
    if (!h || !result || (n > 0 && !x)) return OZBLAS_STATUS_INVALID_VALUE;
    if (!ozb_host_operands(h)) return OZBLAS_STATUS_NOT_SUPPORTED;
    if (n <= 0 || incx <= 0) {
        ozb_info_reset(h);
        *result = 0.0;
        return OZBLAS_STATUS_SUCCESS;
    }
    double *ax = ozb_buf_get(h, OZB_BUF_SHAPE_A, sizeof(double) * (size_t)n);
    if (!ax) return OZBLAS_STATUS_ALLOC_FAILED;
    for (int64_t i = 0; i < n; i++) ax[i] = fabs(x[i * incx]);
    static const double one = 1.0;
    double r = 0.0;
    const ozb_problem pr = { .m = 1, .n = 1, .k = n, .a = { ax, 0, 1 }, .b = { &one, 0, 0 }, .alpha = 1.0,
                             .beta = 0.0, .c = &r, .crs = 0, .ccs = 0, .kblock = OZB_KBLOCK_DOT, .c_host = 1 };
    const ozblas_status_t st = ozb_run_rn(h, &pr);
    if (st == OZBLAS_STATUS_SUCCESS) *result = r;
    return st;
}

ozblas_status_t ozblas_idamax(ozblas_handle_t h, int64_t n, const double *x, int64_t incx, int64_t *result)
{
    if (!h || !result || (n > 0 && incx > 0 && !x)) return OZBLAS_STATUS_INVALID_VALUE;
    if (!ozb_host_operands(h)) return OZBLAS_STATUS_NOT_SUPPORTED;
    ozb_info_reset(h);
    if (n <= 0 || incx <= 0) {
        *result = 0;
        return OZBLAS_STATUS_SUCCESS;
    }
    int64_t best = 0;
    double m = fabs(x[0]);
    for (int64_t i = 1; i < n; i++) {
        const double v = fabs(x[i * incx]);
        if (v > m) { m = v; best = i; }
    }
    *result = best + 1;
    return OZBLAS_STATUS_SUCCESS;
}
