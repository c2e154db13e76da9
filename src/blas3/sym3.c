/* ozblas_dsymm, dsyrk, dsyr2k: DGEMM problems in the handle's mode — DSYMM on the symmetric
 * matrix made whole, DSYRK and DSYR2K on the uplo triangle of C (DSYR2K as one problem of
 * inner dimension 2k on the panels [op(A) op(B)] and [op(B) op(A)]: one exact sum of both
 * products per element).  The operands are shaped in the handle's memory (shapes/shape_ops.c:
 * on a CUDA handle by device kernels), so a CUDA handle computes them on the device. */
#include "shapes/shapes.h"
#include "dispatch/dispatch.h"

static int valid_uplo(ozblas_uplo_t u) { return u == OZBLAS_UPPER || u == OZBLAS_LOWER; }
static int64_t max1(int64_t v) { return v > 1 ? v : 1; }

/* C's uplo triangle := beta C (beta = 0: +0, C not read), the rest untouched */
static ozblas_status_t scale_triangle(ozblas_handle_t h, double *C, int64_t ldc, int64_t n, ozblas_uplo_t uplo, double beta)
{
    if (beta == 1.0) return OZBLAS_STATUS_SUCCESS;
    const ozb_op_shape s = { .kind = OZB_SHAPE_SCALE, .lower = uplo == OZBLAS_LOWER, .m = n, .n = n, .dst = C, .drs = 1,
                             .dcs = ldc, .beta = beta };
    return ozb_shape(h, &s);
}

ozblas_status_t ozblas_dsymm(ozblas_handle_t h, ozblas_side_t side, ozblas_uplo_t uplo, int64_t m, int64_t n,
                             double alpha, const double *A, int64_t lda, const double *B, int64_t ldb,
                             double beta, double *C, int64_t ldc)
{
    const int left = side == OZBLAS_LEFT;
    const int64_t ka = left ? m : n;
    if (!h || (side != OZBLAS_LEFT && side != OZBLAS_RIGHT) || !valid_uplo(uplo) || m < 0 || n < 0 ||
        lda < max1(ka) || ldb < max1(m) || ldc < max1(m))
        return OZBLAS_STATUS_INVALID_VALUE;
    if (m == 0 || n == 0) return OZBLAS_STATUS_SUCCESS;
    if (!C || (alpha != 0.0 && (!A || !B))) return OZBLAS_STATUS_INVALID_VALUE;
    if (alpha == 0.0) return ozb_scale_c(h, C, 1, ldc, m, n, beta);
    double *full = ozb_shape_buf(h, OZB_BUF_SHAPE_A, sizeof(double) * (size_t)ka * (size_t)ka);
    if (!full) return OZBLAS_STATUS_ALLOC_FAILED;
    const ozb_op_shape sym = { .kind = OZB_SHAPE_SYM, .lower = uplo == OZBLAS_LOWER, .m = ka, .n = ka, .src = A, .srs = 1,
                               .scs = lda, .dst = full, .drs = 1, .dcs = ka };
    const ozblas_status_t st = ozb_shape(h, &sym);
    if (st != OZBLAS_STATUS_SUCCESS) return st;
    ozb_problem pr = { .m = m, .n = n, .k = ka, .alpha = alpha, .beta = beta, .c = C, .crs = 1, .ccs = ldc,
                       .kblock = OZB_KBLOCK_MAX };
    if (left) {   /* A B: op(B)^T (j, l) = B(l, j) */
        pr.a = (ozb_view){ full, 1, ka };
        pr.b = (ozb_view){ B, ldb, 1 };
    } else {      /* B A: op(B)^T (j, l) = A(l, j) = A(j, l) */
        pr.a = (ozb_view){ B, 1, ldb };
        pr.b = (ozb_view){ full, 1, ka };
    }
    return ozb_run(h, &pr);
}

ozblas_status_t ozblas_dsyrk(ozblas_handle_t h, ozblas_uplo_t uplo, ozblas_operation_t trans, int64_t n, int64_t k,
                             double alpha, const double *A, int64_t lda, double beta, double *C, int64_t ldc)
{
    const int t = trans == OZBLAS_OP_T;
    if (!h || !valid_uplo(uplo) || !ozb_valid_op(trans) || n < 0 || k < 0 || lda < max1(t ? k : n) || ldc < max1(n))
        return OZBLAS_STATUS_INVALID_VALUE;
    if (n == 0) return OZBLAS_STATUS_SUCCESS;
    if (!C || (alpha != 0.0 && k > 0 && !A)) return OZBLAS_STATUS_INVALID_VALUE;
    ozb_info_reset(h);
    if (alpha == 0.0 || k == 0) return scale_triangle(h, C, ldc, n, uplo, beta);
    const ozb_view a = { A, t ? lda : 1, t ? 1 : lda };   /* op(A) (i, l) */
    const ozb_problem pr = { .m = n, .n = n, .k = k, .a = a, .b = a, .alpha = alpha, .beta = beta, .c = C,
                             .crs = 1, .ccs = ldc, .kblock = OZB_KBLOCK_MAX };
    return ozb_run_triangle(h, &pr, uplo == OZBLAS_LOWER, 0);
}

ozblas_status_t ozblas_dsyr2k(ozblas_handle_t h, ozblas_uplo_t uplo, ozblas_operation_t trans, int64_t n, int64_t k,
                              double alpha, const double *A, int64_t lda, const double *B, int64_t ldb,
                              double beta, double *C, int64_t ldc)
{
    const int t = trans == OZBLAS_OP_T;
    if (!h || !valid_uplo(uplo) || !ozb_valid_op(trans) || n < 0 || k < 0 || lda < max1(t ? k : n) ||
        ldb < max1(t ? k : n) || ldc < max1(n))
        return OZBLAS_STATUS_INVALID_VALUE;
    if (n == 0) return OZBLAS_STATUS_SUCCESS;
    if (!C || (alpha != 0.0 && k > 0 && (!A || !B))) return OZBLAS_STATUS_INVALID_VALUE;
    ozb_info_reset(h);
    if (alpha == 0.0 || k == 0) return scale_triangle(h, C, ldc, n, uplo, beta);
    /* P = [op(A) op(B)], Q = [op(B) op(A)], n x 2k each, leading dimension n */
    const size_t nk = (size_t)n * (size_t)k;
    double *p = ozb_shape_buf(h, OZB_BUF_SHAPE_B, sizeof(double) * 4 * nk);
    if (!p) return OZBLAS_STATUS_ALLOC_FAILED;
    double *q = p + 2 * nk;
    /* op(X)(i, l) = X[i + l ldx] (N) or X[l + i ldx] (T) */
    const double *from[4] = { A, B, B, A };
    const int64_t ld[4] = { lda, ldb, ldb, lda };
    double *to[4] = { p, p + nk, q, q + nk };
    for (int c = 0; c < 4; c++) {
        const ozb_op_shape cp = { .kind = OZB_SHAPE_COPY, .m = n, .n = k, .src = from[c], .srs = t ? ld[c] : 1,
                                  .scs = t ? 1 : ld[c], .dst = to[c], .drs = 1, .dcs = n };
        const ozblas_status_t st = ozb_shape(h, &cp);
        if (st != OZBLAS_STATUS_SUCCESS) return st;
    }
    const ozb_problem pr = { .m = n, .n = n, .k = 2 * k, .a = { p, 1, n }, .b = { q, 1, n }, .alpha = alpha,
                             .beta = beta, .c = C, .crs = 1, .ccs = ldc, .kblock = OZB_KBLOCK_MAX };
    return ozb_run_triangle(h, &pr, uplo == OZBLAS_LOWER, 0);
}
