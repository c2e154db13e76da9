/* ozblas_dcopy, dswap, dscal, daxpy: element-wise, each output one exact operation rounded
 * once (daxpy: fma, RN(alpha x + y)), so correctly rounded in every mode and the same on every
 * machine.  Reference BLAS conventions: any increment (0 repeats an element, a negative one
 * runs backwards), elements in order. */
#include "shapes/shapes.h"
#include "dispatch/dispatch.h"
#include "core/backend.h"
#include "core/fpenv.h"
#include "core/par.h"
#include <math.h>

/* The contiguous daxpy and dscal of long vectors on the handle's threads, in chunks of CHUNK
 * elements: each element is its own operation, so the split changes no bit.  Threads from the
 * handle's parallel threshold in elements on (ozb_threads_for: OZB_PAR_WORK = 65536 by
 * default, 512 KiB a vector, where one core's share of the memory bandwidth is what bounds
 * them), one thread where the caller's floating-point environment was not the standard one
 * (the pool's threads may carry it: core/fpenv.h). */
enum { CHUNK = 4096 };
typedef struct {
    double alpha;
    const double *x;
    double *y;
    int64_t n;
} vec_t;

static int64_t axpy_chunks(void *ctx, int64_t lo, int64_t hi)
{
    const vec_t *v = ctx;
    const double alpha = v->alpha, *x = v->x;   /* (locals: y's stores may not alias them) */
    double *y = v->y;
    const int64_t e = hi * CHUNK < v->n ? hi * CHUNK : v->n;
    for (int64_t i = lo * CHUNK; i < e; i++) y[i] = fma(alpha, x[i], y[i]);
    return 0;
}

static int64_t scal_chunks(void *ctx, int64_t lo, int64_t hi)
{
    const vec_t *v = ctx;
    const double alpha = v->alpha;
    double *y = v->y;
    const int64_t e = hi * CHUNK < v->n ? hi * CHUNK : v->n;
    for (int64_t i = lo * CHUNK; i < e; i++) y[i] *= alpha;
    return 0;
}

static void unit_chunks(ozblas_handle_t h, int changed, const vec_t *v, int64_t (*body)(void *, int64_t, int64_t))
{
    const int nt = changed ? 1 : ozb_threads_for(h, (double)v->n);
    (void)ozb_par_for(nt > 1, nt, (v->n + CHUNK - 1) / CHUNK, body, (void *)v);
}

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
    if (incx == 1) {
        const vec_t v = { alpha, x, x, n };
        unit_chunks(h, changed, &v, scal_chunks);
    } else for (int64_t i = 0; i < n; i++) x[i * incx] *= alpha;
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
    if (incx == 1 && incy == 1 && (x + n <= y || y + n <= x || x == y)) {
        const vec_t v = { alpha, x, y, n };
        unit_chunks(h, changed, &v, axpy_chunks);
    } else
        for (int64_t i = 0; i < n; i++) yv[i * incy] = fma(alpha, xv[i * incx], yv[i * incy]);
    ozb_fpenv_leave(env, changed);
    return OZBLAS_STATUS_SUCCESS;
}
