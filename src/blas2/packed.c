/* The packed level-2 routines, each with the bits of its full-storage counterpart (CONTRACT
 * §6).  DSPMV and DTPMV read the packed triangle where it lies (the error-free pass of
 * sym_tri2.c; the rows it leaves on the triangle unpacked), as does DTPSV without transpose
 * (shapes/trsolve_cols.c); the others run the full-storage routine on the triangle unpacked
 * into the handle's workspace (a full-storage matrix whose other triangle is never read), and
 * the updates pack it back.  The copies cost O(n^2), the order of the routine itself. */
#include "shapes/shapes.h"
#include "dispatch/dispatch.h"
#include "core/backend.h"
#include "core/par.h"
#include "core/ozb_internal.h"
#include "blas2/blas2.h"
#include <string.h>

/* the stored triangle into full (ld n), or back (pack != 0) */
typedef struct { double *AP, *full; int64_t n; int lower, pack; } move_t;

/* columns lo..hi-1 of the move */
static void move_columns(const move_t *mv, int64_t lo, int64_t hi)
{
    for (int64_t j = lo; j < hi; j++) {
        const int64_t i0 = mv->lower ? j : 0, i1 = mv->lower ? mv->n : j + 1;
        double *p = mv->AP + ozb_packed_at(mv->n, mv->lower, i0, j), *f = mv->full + i0 + j * mv->n;
        if (mv->pack) memcpy(p, f, sizeof(double) * (size_t)(i1 - i0));
        else memcpy(f, p, sizeof(double) * (size_t)(i1 - i0));
    }
}

/* Two ranges of columns of about equal area a thread: the copy is as memory-bound as the
 * routine after it, and one core does not draw the memory's bandwidth */
static int64_t move_pairs(void *ctx, int64_t lo, int64_t hi)
{
    const move_t *mv = ctx;
    const int64_t n = mv->n, units = (n + 63) / 64;
    for (int64_t u = lo; u < hi; u++) {
        /* unit u: column blocks u and units - 1 - u (lower: long then short columns) */
        const int64_t a = u, b = units - 1 - u;
        move_columns(mv, 64 * a, 64 * a + 64 < n ? 64 * a + 64 : n);
        if (b != a) move_columns(mv, 64 * b, 64 * b + 64 < n ? 64 * b + 64 : n);
    }
    return 0;
}

static void move_triangle(ozblas_handle_t h, double *AP, double *full, int64_t n, int lower, int pack)
{
    move_t mv = { AP, full, n, lower, pack };
    const int nt = ozb_threads_for(h, (double)n * (double)n / 2.0);
    (void)ozb_par_for(nt > 1, nt, (n + 127) / 128, move_pairs, &mv);
}

static int valid_uplo(ozblas_uplo_t u) { return u == OZBLAS_UPPER || u == OZBLAS_LOWER; }

/* the unpacked copy of AP, NULL on allocation failure */
static double *unpacked(ozblas_handle_t h, const double *AP, int64_t n, int lower)
{
    double *full = ozb_buf_get(h, OZB_BUF_SHAPE_P, sizeof(double) * (size_t)n * (size_t)n);
    if (full) move_triangle(h, (double *)AP, full, n, lower, 0);
    return full;
}

const double *ozb_packed_full(ozblas_handle_t h, const double *AP, int64_t n, int lower) { return unpacked(h, AP, n, lower); }

ozblas_status_t ozblas_dspmv(ozblas_handle_t h, ozblas_uplo_t uplo, int64_t n, double alpha, const double *AP,
                             const double *x, int64_t incx, double beta, double *y, int64_t incy)
{
    if (!h || !valid_uplo(uplo) || n < 0 || incx == 0 || incy == 0) return OZBLAS_STATUS_INVALID_VALUE;
    if (n == 0) return OZBLAS_STATUS_SUCCESS;
    if (!y || (alpha != 0.0 && (!AP || !x))) return OZBLAS_STATUS_INVALID_VALUE;
    if (!ozb_host_operands(h)) return OZBLAS_STATUS_NOT_SUPPORTED;
    return ozb_symv_stored(h, uplo, n, alpha, NULL, n, AP, x, incx, beta, y, incy);
}

static ozblas_status_t tp_args(ozblas_handle_t h, ozblas_uplo_t uplo, ozblas_operation_t trans, ozblas_diag_t diag,
                               int64_t n, const double *AP, const double *x, int64_t incx)
{
    if (!h || !valid_uplo(uplo) || !ozb_valid_op(trans) || (diag != OZBLAS_NON_UNIT && diag != OZBLAS_UNIT) || n < 0 ||
        incx == 0)
        return OZBLAS_STATUS_INVALID_VALUE;
    if (n > 0 && (!AP || !x)) return OZBLAS_STATUS_INVALID_VALUE;
    if (!ozb_host_operands(h)) return OZBLAS_STATUS_NOT_SUPPORTED;
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozblas_dtpmv(ozblas_handle_t h, ozblas_uplo_t uplo, ozblas_operation_t trans, ozblas_diag_t diag,
                             int64_t n, const double *AP, double *x, int64_t incx)
{
    const ozblas_status_t st = tp_args(h, uplo, trans, diag, n, AP, x, incx);
    if (st != OZBLAS_STATUS_SUCCESS || n == 0) return st;
    return ozb_trmv_stored(h, uplo, trans, diag, n, NULL, n, AP, x, incx);
}

ozblas_status_t ozblas_dtpsv(ozblas_handle_t h, ozblas_uplo_t uplo, ozblas_operation_t trans, ozblas_diag_t diag,
                             int64_t n, const double *AP, double *x, int64_t incx)
{
    ozblas_status_t st = tp_args(h, uplo, trans, diag, n, AP, x, incx);
    if (st != OZBLAS_STATUS_SUCCESS || n == 0) return st;
    if (trans == OZBLAS_OP_N && ozb_tri_cols_apply(h, n)) {
        ozb_info_reset(h);
        /* op(T)'s columns are the packed columns: solved where they lie (DTRSV's path for
         * such a triangle in full storage, so its bits), in the environment DTRSV sets */
        const ozb_env_t e = ozb_env_enter(h);
        st = ozb_tri_solve_packed(h, AP, n, uplo == OZBLAS_LOWER, diag == OZBLAS_UNIT, ozb_vec0_mut(x, n, incx), incx);
        ozb_env_leave(h, e);
        return st;
    }
    const double *full = unpacked(h, AP, n, uplo == OZBLAS_LOWER);
    if (!full) return OZBLAS_STATUS_ALLOC_FAILED;
    return ozblas_dtrsv(h, uplo, trans, diag, n, full, n, x, incx);
}

ozblas_status_t ozblas_dspr(ozblas_handle_t h, ozblas_uplo_t uplo, int64_t n, double alpha, const double *x,
                            int64_t incx, double *AP)
{
    if (!h || !valid_uplo(uplo) || n < 0 || incx == 0) return OZBLAS_STATUS_INVALID_VALUE;
    if (n == 0 || alpha == 0.0) return OZBLAS_STATUS_SUCCESS;
    if (!x || !AP) return OZBLAS_STATUS_INVALID_VALUE;
    if (!ozb_host_operands(h)) return OZBLAS_STATUS_NOT_SUPPORTED;
    double *full = unpacked(h, AP, n, uplo == OZBLAS_LOWER);
    if (!full) return OZBLAS_STATUS_ALLOC_FAILED;
    const ozblas_status_t st = ozblas_dsyr(h, uplo, n, alpha, x, incx, full, n);
    if (st == OZBLAS_STATUS_SUCCESS) move_triangle(h, AP, full, n, uplo == OZBLAS_LOWER, 1);
    return st;
}

ozblas_status_t ozblas_dspr2(ozblas_handle_t h, ozblas_uplo_t uplo, int64_t n, double alpha, const double *x,
                             int64_t incx, const double *y, int64_t incy, double *AP)
{
    if (!h || !valid_uplo(uplo) || n < 0 || incx == 0 || incy == 0) return OZBLAS_STATUS_INVALID_VALUE;
    if (n == 0 || alpha == 0.0) return OZBLAS_STATUS_SUCCESS;
    if (!x || !y || !AP) return OZBLAS_STATUS_INVALID_VALUE;
    if (!ozb_host_operands(h)) return OZBLAS_STATUS_NOT_SUPPORTED;
    double *full = unpacked(h, AP, n, uplo == OZBLAS_LOWER);
    if (!full) return OZBLAS_STATUS_ALLOC_FAILED;
    const ozblas_status_t st = ozblas_dsyr2(h, uplo, n, alpha, x, incx, y, incy, full, n);
    if (st == OZBLAS_STATUS_SUCCESS) move_triangle(h, AP, full, n, uplo == OZBLAS_LOWER, 1);
    return st;
}
