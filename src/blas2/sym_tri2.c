/* ozblas_dsymv, dtrmv, dtrsv.  DSYMV and DTRMV are DGEMV problems on the matrix made whole
 * by row panels (shapes/shapes.h: the symmetric matrix from its stored triangle, op(T) with its
 * zeros), so every element is dgemv's in the handle's mode; where those results are RN(exact)
 * the error-free GEMV on the stored triangle (eft/eft_symv.h) computes them first, reading the
 * triangle where it lies, and the panels only the rows it leaves: the same bits.  DTRSV is
 * DTRSM's rule on one column. */
#include "shapes/shapes.h"
#include "dispatch/dispatch.h"
#include "eft/eft_symv.h"
#include "core/backend.h"
#include "core/fpenv.h"
#include "blas2/blas2.h"
#include "core/gather.h"

static int valid_uplo(ozblas_uplo_t u) { return u == OZBLAS_UPPER || u == OZBLAS_LOWER; }
static int valid_diag(ozblas_diag_t d) { return d == OZBLAS_NON_UNIT || d == OZBLAS_UNIT; }

/* y := alpha M x + beta y (beta == 0: y not read) by row panels of M made whole, each a DGEMV
 * problem: M the symmetric matrix of A's stored `lower` (else upper) triangle, or where tri
 * op(T): the same rows with the half op(T) does not keep zeroed (it keeps j <= i where `low`:
 * uplo lower and no transpose, or upper transposed) and 1 on a unit diagonal.  Panels of at
 * most 1 MiB (shape only; every element is dgemv's on its own row, so they change no bit). */
static ozblas_status_t panel_rows(ozblas_handle_t h, const double *A, int64_t lda, int64_t n, int lower, int tri,
                                  int low, int unit, double alpha, const double *x0, int64_t incx, double beta,
                                  double *y0, int64_t incy, int64_t ra, int64_t rz)
{
    int64_t rb = ((int64_t)1 << 17) / n;
    rb = rb < 8 ? 8 : rb > n ? n : rb;
    const int64_t ldp = n + 8;
    double *panel = ozb_buf_get(h, OZB_BUF_SHAPE_A, sizeof(double) * (size_t)ldp * (size_t)rb);
    if (!panel) return OZBLAS_STATUS_ALLOC_FAILED;
    for (int64_t r0 = ra; r0 < rz; r0 += rb) {
        const int64_t r1 = r0 + rb < rz ? r0 + rb : rz;
        ozb_sym_rows(A, lda, n, lower, r0, r1, panel, ldp, ozb_threads_for(h, (double)n * (double)(r1 - r0)));
        for (int64_t i = r0; i < r1 && tri; i++) {
            double *row = panel + (i - r0) * ldp;
            if (low) memset(row + i + 1, 0, sizeof(double) * (size_t)(n - i - 1));
            else memset(row, 0, sizeof(double) * (size_t)i);
            if (unit) row[i] = 1.0;
        }
        const ozb_problem pr = {
            .m = r1 - r0, .n = 1, .k = n, .a = { panel, ldp, 1 }, .b = { x0, 0, incx },
            .alpha = alpha, .beta = beta, .c = y0 + r0 * incy, .crs = incy, .ccs = 0, .kblock = OZB_KBLOCK_MAX,
        };
        const ozblas_status_t st = ozb_run(h, &pr);
        if (st != OZBLAS_STATUS_SUCCESS) return st;
    }
    return OZBLAS_STATUS_SUCCESS;
}

/* The same for every row: first the error-free pass on the stored triangle where the handle's
 * results are RN(exact) (x copied contiguous where it is not), then the panels for each run
 * of rows it left.  symv: M symmetric (else op(T), tri's flags).  The triangle in full storage
 * (A, lda), or packed (AP, A == NULL): the error-free pass reads it where it lies, and the
 * panels read it unpacked (ozb_packed_full), only where some rows are left to them. */
static ozblas_status_t panel_gemv(ozblas_handle_t h, const double *A, int64_t lda, const double *AP, int64_t n, int lower,
                                  int tri, int low, int unit, double alpha, const double *x0, int64_t incx, double beta,
                                  double *y0, int64_t incy)
{
    if (!ozb_run_rounds_exact(h) || !ozb_eft_symv_applies(h, alpha, beta, n)) {
        if (!A && !(A = ozb_packed_full(h, AP, n, lower))) return OZBLAS_STATUS_ALLOC_FAILED;
        return panel_rows(h, A, AP ? n : lda, n, lower, tri, low, unit, alpha, x0, incx, beta, y0, incy, 0, n);
    }
    ozb_fpenv_t env;
    const int changed = ozb_fpenv_enter(&env);
    const int nt = changed ? 1 : ozb_threads_for(h, (double)n * (double)n);
    const size_t sb = (ozb_eft_symv_state_bytes(n, nt) + 63) & ~(size_t)63;
    char *buf = ozb_buf_get(h, OZB_BUF_SHAPE_T, sb + (size_t)n + 8);
    if (!buf) { ozb_fpenv_leave(env, changed); return OZBLAS_STATUS_ALLOC_FAILED; }
    uint8_t *fail = (uint8_t *)buf + sb;
    const double *xc = x0;
    if (incx != 1) {
        double *c = ozb_buf_get(h, OZB_BUF_SHAPE_B, sizeof(double) * (size_t)n);   /* (DTRMV passes its copy, incx 1) */
        if (!c) { ozb_fpenv_leave(env, changed); return OZBLAS_STATUS_ALLOC_FAILED; }
        ozb_gather(x0, n, incx, c);
        xc = c;
    }
    /* DSYMV: the stored part of row i and the rest of column i; DTRMV: op(T)'s row i is the
     * stored row of T where op(T) keeps what T stores in rows (low == lower), else the
     * stored column i of T with its diagonal */
    const int rows = !tri || low == lower;
    const ozb_symv_t s = { A ? A : AP, lda, n, lower, rows, !tri || !rows, tri && !rows, tri && unit, !A, alpha, beta, xc,
                           y0, incy };
    const int64_t left = ozb_eft_symv(h, &s, fail, buf, nt);
    ozb_fpenv_leave(env, changed);
    if (left > 0 && !A) {
        if (!(A = ozb_packed_full(h, AP, n, lower))) return OZBLAS_STATUS_ALLOC_FAILED;
        lda = n;
    }
    for (int64_t i = 0; left > 0 && i < n;) {
        if (!fail[i]) { i++; continue; }
        int64_t i2 = i + 1;
        while (i2 < n && fail[i2]) i2++;
        const ozblas_status_t st = panel_rows(h, A, lda, n, lower, tri, low, unit, alpha, xc, 1, beta, y0, incy, i, i2);
        if (st != OZBLAS_STATUS_SUCCESS) return st;
        i = i2;
    }
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozb_symv_stored(ozblas_handle_t h, ozblas_uplo_t uplo, int64_t n, double alpha, const double *A,
                                int64_t lda, const double *AP, const double *x, int64_t incx, double beta, double *y,
                                int64_t incy)
{
    double *y0 = ozb_vec0_mut(y, n, incy);
    if (alpha == 0.0) return ozb_scale_c(h, y0, incy, 0, n, 1, beta);
    return panel_gemv(h, A, lda, AP, n, uplo == OZBLAS_LOWER, 0, 0, 0, alpha, ozb_vec0(x, n, incx), incx, beta, y0, incy);
}

ozblas_status_t ozblas_dsymv(ozblas_handle_t h, ozblas_uplo_t uplo, int64_t n, double alpha, const double *A,
                             int64_t lda, const double *x, int64_t incx, double beta, double *y, int64_t incy)
{
    if (!h || !valid_uplo(uplo) || n < 0 || lda < (n > 1 ? n : 1) || incx == 0 || incy == 0)
        return OZBLAS_STATUS_INVALID_VALUE;
    if (n == 0) return OZBLAS_STATUS_SUCCESS;
    if (!y || (alpha != 0.0 && (!A || !x))) return OZBLAS_STATUS_INVALID_VALUE;
    if (!ozb_host_operands(h)) return OZBLAS_STATUS_NOT_SUPPORTED;
    return ozb_symv_stored(h, uplo, n, alpha, A, lda, NULL, x, incx, beta, y, incy);
}

ozblas_status_t ozb_trmv_stored(ozblas_handle_t h, ozblas_uplo_t uplo, ozblas_operation_t trans, ozblas_diag_t diag,
                                int64_t n, const double *A, int64_t lda, const double *AP, double *x, int64_t incx)
{
    /* x is overwritten row block by row block: the products read a copy */
    double *xc = ozb_buf_get(h, OZB_BUF_SHAPE_B, sizeof(double) * (size_t)n);
    if (!xc) return OZBLAS_STATUS_ALLOC_FAILED;
    double *x0 = ozb_vec0_mut(x, n, incx);
    ozb_gather(x0, n, incx, xc);
    const int t = trans == OZBLAS_OP_T, low = (uplo == OZBLAS_LOWER) != t;
    const ozblas_status_t st = panel_gemv(h, A, lda, AP, n, uplo == OZBLAS_LOWER, 1, low, diag == OZBLAS_UNIT, 1.0, xc, 1,
                                          0.0, x0, incx);
    if (st != OZBLAS_STATUS_SUCCESS || ozb_all_finite(xc, n)) return st;
    /* where x holds Inf or NaN: the rows they reached only through op(T)'s zeros (op(T)(i, k)
     * = A[i + k lda], or A[k + i lda] transposed) */
    if (!A) {
        if (!(A = ozb_packed_full(h, AP, n, uplo == OZBLAS_LOWER))) return OZBLAS_STATUS_ALLOC_FAILED;
        lda = n;
    }
    return ozb_after_written(ozb_tri_absent_zeros(h, t ? (ozb_view){ A, lda, 1 } : (ozb_view){ A, 1, lda }, low,
                                                  diag == OZBLAS_UNIT, n, 1.0, xc, 1, x0, incx));
}

/* DTRMV's and DTRSV's arguments as the reference BLAS checks them (INVALID_VALUE), and host
 * operands (NOT_SUPPORTED elsewhere); n == 0 passes (nothing to do) */
static ozblas_status_t tr_args(ozblas_handle_t h, ozblas_uplo_t uplo, ozblas_operation_t trans, ozblas_diag_t diag,
                               int64_t n, const double *A, int64_t lda, const double *x, int64_t incx)
{
    if (!h || !valid_uplo(uplo) || !ozb_valid_op(trans) || !valid_diag(diag) || n < 0 || lda < (n > 1 ? n : 1) ||
        incx == 0)
        return OZBLAS_STATUS_INVALID_VALUE;
    if (n > 0 && (!A || !x)) return OZBLAS_STATUS_INVALID_VALUE;
    if (n > 0 && !ozb_host_operands(h)) return OZBLAS_STATUS_NOT_SUPPORTED;
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozblas_dtrmv(ozblas_handle_t h, ozblas_uplo_t uplo, ozblas_operation_t trans, ozblas_diag_t diag,
                             int64_t n, const double *A, int64_t lda, double *x, int64_t incx)
{
    const ozblas_status_t st = tr_args(h, uplo, trans, diag, n, A, lda, x, incx);
    if (st != OZBLAS_STATUS_SUCCESS || n == 0) return st;
    return ozb_trmv_stored(h, uplo, trans, diag, n, A, lda, NULL, x, incx);
}

ozblas_status_t ozblas_dtrsv(ozblas_handle_t h, ozblas_uplo_t uplo, ozblas_operation_t trans, ozblas_diag_t diag,
                             int64_t n, const double *A, int64_t lda, double *x, int64_t incx)
{
    ozblas_status_t st = tr_args(h, uplo, trans, diag, n, A, lda, x, incx);
    if (st != OZBLAS_STATUS_SUCCESS || n == 0) return st;
    ozb_info_reset(h);   /* (the problems it runs report themselves; a solve by columns may run none) */
    const ozb_env_t e = ozb_env_enter(h);   /* the divisions rounded as CONTRACT §1 says (as DTRSM) */
    st = ozb_tri_solve_op(h, A, lda, n, uplo == OZBLAS_LOWER, trans == OZBLAS_OP_T, diag == OZBLAS_UNIT, 1,
                          ozb_vec0_mut(x, n, incx), incx, 0);
    ozb_env_leave(h, e);
    return st;
}
