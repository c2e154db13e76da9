/* ozblas_dcopy, dswap, dscal, daxpy: element-wise, each output one exact operation rounded
 * once (daxpy: fma, RN(alpha x + y)), so correctly rounded in every mode and the same on every
 * machine.  Reference BLAS conventions: any increment (0 repeats an element, a negative one
 * runs backwards), elements in order. */
#include "shapes/shapes.h"
#include "dispatch/dispatch.h"
#include "core/backend.h"
#include "core/fpenv.h"
#include <math.h>

static ozblas_status_t vec_args(ozblas_handle_t h, int64_t n, const void *x, const void *y)
{
    if (!h) return OZBLAS_STATUS_INVALID_VALUE;
    if (!ozb_host_operands(h)) return OZBLAS_STATUS_NOT_SUPPORTED;
    if (n > 0 && (!x || !y)) return OZBLAS_STATUS_INVALID_VALUE;
    ozb_info_reset(h);
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozblas_dcopy(ozblas_handle_t h, int64_t n, const double *x, int64_t incx, double *y, int64_t incy)
{
    const ozblas_status_t st = vec_args(h, n, x, y);
    if (st != OZBLAS_STATUS_SUCCESS || n <= 0) return st;
    const double *xv = ozb_vec0(x, n, incx);
    double *yv = ozb_vec0_mut(y, n, incy);
    if (incx == 1 && incy == 1 && (x + n <= y || y + n <= x)) memcpy(y, x, sizeof(double) * (size_t)n);
    else for (int64_t i = 0; i < n; i++) yv[i * incy] = xv[i * incx];
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozblas_dswap(ozblas_handle_t h, int64_t n, double *x, int64_t incx, double *y, int64_t incy)
{
    const ozblas_status_t st = vec_args(h, n, x, y);
    if (st != OZBLAS_STATUS_SUCCESS || n <= 0) return st;
    double *xv = ozb_vec0_mut(x, n, incx), *yv = ozb_vec0_mut(y, n, incy);
    for (int64_t i = 0; i < n; i++) {
        const double t = xv[i * incx];
        xv[i * incx] = yv[i * incy];
        yv[i * incy] = t;
    }
    return OZBLAS_STATUS_SUCCESS;
}

/* incx <= 0: nothing (the reference BLAS's dscal) */
ozblas_status_t ozblas_dscal(ozblas_handle_t h, int64_t n, double alpha, double *x, int64_t incx)
{
    const ozblas_status_t st = vec_args(h, n, x, x);
    if (st != OZBLAS_STATUS_SUCCESS || n <= 0 || incx <= 0 || alpha == 1.0) return st;
    ozb_fpenv_t env;   /* products rounded as CONTRACT §1 says, whatever the caller's MXCSR */
    const int changed = ozb_fpenv_enter(&env);
    if (incx == 1) for (int64_t i = 0; i < n; i++) x[i] *= alpha;
    else for (int64_t i = 0; i < n; i++) x[i * incx] *= alpha;
    ozb_fpenv_leave(env, changed);
    return OZBLAS_STATUS_SUCCESS;
}

/* alpha == 0: nothing, x not read (the reference BLAS) */
ozblas_status_t ozblas_daxpy(ozblas_handle_t h, int64_t n, double alpha, const double *x, int64_t incx,
                             double *y, int64_t incy)
{
    const ozblas_status_t st = vec_args(h, n, x, y);
    if (st != OZBLAS_STATUS_SUCCESS || n <= 0 || alpha == 0.0) return st;
    const double *xv = ozb_vec0(x, n, incx);
    double *yv = ozb_vec0_mut(y, n, incy);
    ozb_fpenv_t env;
    const int changed = ozb_fpenv_enter(&env);
    if (incx == 1 && incy == 1 && (x + n <= y || y + n <= x || x == y))
        for (int64_t i = 0; i < n; i++) y[i] = fma(alpha, x[i], y[i]);
    else
        for (int64_t i = 0; i < n; i++) yv[i * incy] = fma(alpha, xv[i * incx], yv[i * incy]);
    ozb_fpenv_leave(env, changed);
    return OZBLAS_STATUS_SUCCESS;
}
