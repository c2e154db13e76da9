/* ozblas_dsymv, dtrmv, dtrsv.  DSYMV and DTRMV are DGEMV problems on the matrix made whole
 * by row panels (shapes/shapes.h: the symmetric matrix from its stored triangle, op(T) with its
 * zeros), so every element is dgemv's in the handle's mode; DTRSV is DTRSM's rule on one
 * column. */
#include "shapes/shapes.h"
#include "dispatch/dispatch.h"
#include "core/backend.h"
#include "core/fpenv.h"

static int valid_uplo(ozblas_uplo_t u) { return u == OZBLAS_UPPER || u == OZBLAS_LOWER; }
static int valid_diag(ozblas_diag_t d) { return d == OZBLAS_NON_UNIT || d == OZBLAS_UNIT; }

ozblas_status_t ozblas_dsymv(ozblas_handle_t h, ozblas_uplo_t uplo, int64_t n, double alpha, const double *A,
                             int64_t lda, const double *x, int64_t incx, double beta, double *y, int64_t incy)
{
    if (!h || !valid_uplo(uplo) || n < 0 || lda < (n > 1 ? n : 1) || incx == 0 || incy == 0)
        return OZBLAS_STATUS_INVALID_VALUE;
    if (n == 0) return OZBLAS_STATUS_SUCCESS;
    if (!y || (alpha != 0.0 && (!A || !x))) return OZBLAS_STATUS_INVALID_VALUE;
    if (!ozb_host_operands(h)) return OZBLAS_STATUS_NOT_SUPPORTED;
    double *y0 = ozb_vec0_mut(y, n, incy);
    if (alpha == 0.0) return ozb_scale_c(h, y0, incy, 0, n, 1, beta);
    /* row blocks of the symmetric matrix made whole, a panel of at most 256 KiB each (shape
     * only; every element is dgemv's on its own row, so the blocks change no bit) */
    int64_t rb = ((int64_t)1 << 17) / n;
    rb = rb < 8 ? 8 : rb > n ? n : rb;
    const int64_t ldp = n + 8;
    double *panel = ozb_buf_get(h, OZB_BUF_SHAPE_A, sizeof(double) * (size_t)ldp * (size_t)rb);
    if (!panel) return OZBLAS_STATUS_ALLOC_FAILED;
    for (int64_t r0 = 0; r0 < n; r0 += rb) {
        const int64_t r1 = r0 + rb < n ? r0 + rb : n;
        ozb_sym_rows(A, lda, n, uplo == OZBLAS_LOWER, r0, r1, panel, ldp, ozb_threads_for(h, (double)n * (double)(r1 - r0)));
        const ozb_problem pr = {
            .m = r1 - r0, .n = 1, .k = n, .a = { panel, ldp, 1 }, .b = { ozb_vec0(x, n, incx), 0, incx },
            .alpha = alpha, .beta = beta, .c = y0 + r0 * incy, .crs = incy, .ccs = 0, .kblock = OZB_KBLOCK_MAX,
        };
        const ozblas_status_t st = ozb_run(h, &pr);
        if (st != OZBLAS_STATUS_SUCCESS) return st;
    }
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozblas_dtrmv(ozblas_handle_t h, ozblas_uplo_t uplo, ozblas_operation_t trans, ozblas_diag_t diag,
                             int64_t n, const double *A, int64_t lda, double *x, int64_t incx)
{
    if (!h || !valid_uplo(uplo) || !ozb_valid_op(trans) || !valid_diag(diag) || n < 0 || lda < (n > 1 ? n : 1) ||
        incx == 0)
        return OZBLAS_STATUS_INVALID_VALUE;
    if (n == 0) return OZBLAS_STATUS_SUCCESS;
    if (!A || !x) return OZBLAS_STATUS_INVALID_VALUE;
    if (!ozb_host_operands(h)) return OZBLAS_STATUS_NOT_SUPPORTED;
    /* row panels of op(T) made whole: the symmetric rows of the stored triangle, the other
     * half zeroed (op(T) keeps j <= i where it is lower: uplo lower and no transpose, or upper
     * transposed), the diagonal 1 where unit */
    int64_t rb = ((int64_t)1 << 17) / n;
    rb = rb < 8 ? 8 : rb > n ? n : rb;
    const int64_t ldp = n + 8;
    double *panel = ozb_buf_get(h, OZB_BUF_SHAPE_A, sizeof(double) * (size_t)ldp * (size_t)rb);
    double *xc = ozb_buf_get(h, OZB_BUF_SHAPE_B, sizeof(double) * (size_t)n);
    if (!panel || !xc) return OZBLAS_STATUS_ALLOC_FAILED;
    double *x0 = ozb_vec0_mut(x, n, incx);
    for (int64_t i = 0; i < n; i++) xc[i] = x0[i * incx];
    const int low = (uplo == OZBLAS_LOWER) != (trans == OZBLAS_OP_T);
    for (int64_t r0 = 0; r0 < n; r0 += rb) {
        const int64_t r1 = r0 + rb < n ? r0 + rb : n;
        ozb_sym_rows(A, lda, n, uplo == OZBLAS_LOWER, r0, r1, panel, ldp, ozb_threads_for(h, (double)n * (double)(r1 - r0)));
        for (int64_t i = r0; i < r1; i++) {
            double *row = panel + (i - r0) * ldp;
            if (low) memset(row + i + 1, 0, sizeof(double) * (size_t)(n - i - 1));
            else memset(row, 0, sizeof(double) * (size_t)i);
            if (diag == OZBLAS_UNIT) row[i] = 1.0;
        }
        const ozb_problem pr = {
            .m = r1 - r0, .n = 1, .k = n, .a = { panel, ldp, 1 }, .b = { xc, 0, 1 },
            .alpha = 1.0, .beta = 0.0, .c = x0 + r0 * incx, .crs = incx, .ccs = 0, .kblock = OZB_KBLOCK_MAX,
        };
        const ozblas_status_t st = ozb_run(h, &pr);
        if (st != OZBLAS_STATUS_SUCCESS) return st;
    }
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozblas_dtrsv(ozblas_handle_t h, ozblas_uplo_t uplo, ozblas_operation_t trans, ozblas_diag_t diag,
                             int64_t n, const double *A, int64_t lda, double *x, int64_t incx)
{
    if (!h || !valid_uplo(uplo) || !ozb_valid_op(trans) || !valid_diag(diag) || n < 0 || lda < (n > 1 ? n : 1) ||
        incx == 0)
        return OZBLAS_STATUS_INVALID_VALUE;
    if (n == 0) return OZBLAS_STATUS_SUCCESS;
    if (!A || !x) return OZBLAS_STATUS_INVALID_VALUE;
    if (!ozb_host_operands(h)) return OZBLAS_STATUS_NOT_SUPPORTED;
    ozb_fpenv_t env;   /* the divisions rounded as CONTRACT §1 says */
    const int changed = ozb_fpenv_enter(&env);
    const ozblas_status_t st = ozb_tri_solve_op(h, A, lda, n, uplo == OZBLAS_LOWER, trans == OZBLAS_OP_T,
                                                diag == OZBLAS_UNIT, 1, ozb_vec0_mut(x, n, incx), incx, 0);
    ozb_fpenv_leave(env, changed);
    return st;
}
