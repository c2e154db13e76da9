/* ozblas_dsymm, dsyrk, dsyr2k: DGEMM problems in the handle's mode — DSYMM on the symmetric
 * matrix made whole, DSYRK and DSYR2K on the uplo triangle of C (DSYR2K as one problem of
 * inner dimension 2k on the panels [op(A) op(B)] and [op(B) op(A)]: one exact sum of both
 * products per element). */
#include "shapes/shapes.h"
#include "dispatch/dispatch.h"
#include "core/backend.h"

static int valid_uplo(ozblas_uplo_t u) { return u == OZBLAS_UPPER || u == OZBLAS_LOWER; }
static int64_t max1(int64_t v) { return v > 1 ? v : 1; }

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
    if (!ozb_host_operands(h)) return OZBLAS_STATUS_NOT_SUPPORTED;
    if (alpha == 0.0) return ozb_scale_c(h, C, 1, ldc, m, n, beta);
    double *full = ozb_buf_get(h, OZB_BUF_SHAPE_A, sizeof(double) * (size_t)ka * (size_t)ka);
    if (!full) return OZBLAS_STATUS_ALLOC_FAILED;
    ozb_sym_full(A, lda, ka, uplo == OZBLAS_LOWER, full);
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
    if (!ozb_host_operands(h)) return OZBLAS_STATUS_NOT_SUPPORTED;
    ozb_info_reset(h);
    if (alpha == 0.0 || k == 0) {
        ozb_scale_triangle(C, ldc, n, uplo == OZBLAS_LOWER, beta);
        return OZBLAS_STATUS_SUCCESS;
    }
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
    if (!ozb_host_operands(h)) return OZBLAS_STATUS_NOT_SUPPORTED;
    ozb_info_reset(h);
    if (alpha == 0.0 || k == 0) {
        ozb_scale_triangle(C, ldc, n, uplo == OZBLAS_LOWER, beta);
        return OZBLAS_STATUS_SUCCESS;
    }
    /* P = [op(A) op(B)], Q = [op(B) op(A)], n x 2k each, leading dimension n */
    const size_t nk = (size_t)n * (size_t)k;
    double *p = ozb_buf_get(h, OZB_BUF_SHAPE_B, sizeof(double) * 4 * nk);
    if (!p) return OZBLAS_STATUS_ALLOC_FAILED;
    double *q = p + 2 * nk;
    for (int64_t l = 0; l < k; l++)
        for (int64_t i = 0; i < n; i++) {
            const double av = t ? A[l + i * lda] : A[i + l * lda], bv = t ? B[l + i * ldb] : B[i + l * ldb];
            p[i + l * n] = q[i + (l + k) * n] = av;
            p[i + (l + k) * n] = q[i + l * n] = bv;
        }
    const ozb_problem pr = { .m = n, .n = n, .k = 2 * k, .a = { p, 1, n }, .b = { q, 1, n }, .alpha = alpha,
                             .beta = beta, .c = C, .crs = 1, .ccs = ldc, .kblock = OZB_KBLOCK_MAX };
    return ozb_run_triangle(h, &pr, uplo == OZBLAS_LOWER, 0);
}
