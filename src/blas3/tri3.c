/* ozblas_dtrmm (a DGEMM problem on op(T) made whole and a copy of B, in the handle's mode; in
 * blocks that leave out op(T)'s zeros where the results are RN(exact)) and
 * ozblas_dtrsm (the fixed-block rule of CONTRACT §6, shapes/trsolve.c). */
#include "shapes/shapes.h"
#include "dispatch/dispatch.h"
#include "core/backend.h"
#include "core/fpenv.h"

/* DTRMM's blocks of C where its results are RN(exact) (shape only: no bit depends on it) */
#define TRMM_BLOCK 64

static int64_t max1(int64_t v) { return v > 1 ? v : 1; }

static ozblas_status_t tri3_args(ozblas_handle_t h, ozblas_side_t side, ozblas_uplo_t uplo, ozblas_operation_t ta,
                                 ozblas_diag_t diag, int64_t m, int64_t n, double alpha, const double *A,
                                 int64_t lda, const double *B, int64_t ldb)
{
    if (!h || (side != OZBLAS_LEFT && side != OZBLAS_RIGHT) || (uplo != OZBLAS_UPPER && uplo != OZBLAS_LOWER) ||
        !ozb_valid_op(ta) || (diag != OZBLAS_NON_UNIT && diag != OZBLAS_UNIT) || m < 0 || n < 0 ||
        lda < max1(side == OZBLAS_LEFT ? m : n) || ldb < max1(m))
        return OZBLAS_STATUS_INVALID_VALUE;
    if (m > 0 && n > 0 && (!B || (alpha != 0.0 && !A))) return OZBLAS_STATUS_INVALID_VALUE;
    if (!ozb_host_operands(h)) return OZBLAS_STATUS_NOT_SUPPORTED;
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozblas_dtrmm(ozblas_handle_t h, ozblas_side_t side, ozblas_uplo_t uplo, ozblas_operation_t transa,
                             ozblas_diag_t diag, int64_t m, int64_t n, double alpha, const double *A, int64_t lda,
                             double *B, int64_t ldb)
{
    const ozblas_status_t st = tri3_args(h, side, uplo, transa, diag, m, n, alpha, A, lda, B, ldb);
    if (st != OZBLAS_STATUS_SUCCESS || m == 0 || n == 0) return st;
    if (alpha == 0.0) return ozb_scale_c(h, B, 1, ldb, m, n, 0.0);
    const int left = side == OZBLAS_LEFT;
    const int64_t ka = left ? m : n;
    double *full = ozb_buf_get(h, OZB_BUF_SHAPE_A, sizeof(double) * (size_t)ka * (size_t)ka);
    double *bc = ozb_buf_get(h, OZB_BUF_SHAPE_B, sizeof(double) * (size_t)m * (size_t)n);
    if (!full || !bc) return OZBLAS_STATUS_ALLOC_FAILED;
    ozb_tri_full(A, lda, ka, uplo == OZBLAS_LOWER, transa == OZBLAS_OP_T, diag == OZBLAS_UNIT, full);
    for (int64_t j = 0; j < n; j++) memcpy(bc + j * m, B + j * ldb, sizeof(double) * (size_t)m);
    ozb_problem pr = { .m = m, .n = n, .k = ka, .alpha = alpha, .beta = 0.0, .c = B, .crs = 1, .ccs = ldb,
                       .kblock = OZB_KBLOCK_MAX };
    if (left) {   /* op(T) B */
        pr.a = (ozb_view){ full, 1, ka };
        pr.b = (ozb_view){ bc, m, 1 };
    } else {      /* B op(T): op(B)^T (j, l) = op(T)(l, j) */
        pr.a = (ozb_view){ bc, 1, m };
        pr.b = (ozb_view){ full, ka, 1 };
    }
    if (!ozb_run_rounds_exact(h) || ka <= TRMM_BLOCK) return ozb_run(h, &pr);
    /* Results RN(exact): the zeros of op(T) need not be summed.  Blocks of TRMM_BLOCK rows of
     * C (left) or columns (right), each against the part of the inner dimension where op(T)
     * is not zero: about half the products for a large T. */
    const int low = (uplo == OZBLAS_LOWER) != (transa == OZBLAS_OP_T);   /* op(T) lower */
    for (int64_t b0 = 0; b0 < ka; b0 += TRMM_BLOCK) {
        const int64_t b1 = b0 + TRMM_BLOCK < ka ? b0 + TRMM_BLOCK : ka;
        /* the inner range [l0, l1): left, rows b0..b1-1 of op(T) are zero outside it; right,
         * columns b0..b1-1 of op(T) */
        const int64_t l0 = left == low ? 0 : b0, l1 = left == low ? b1 : ka;
        ozb_problem q = pr;
        q.k = l1 - l0;
        if (left) {
            q.m = b1 - b0;
            q.a.p = full + b0 + l0 * ka;
            q.b.p = bc + l0;
            q.c = B + b0;
        } else {
            q.n = b1 - b0;
            q.a.p = bc + l0 * m;
            q.b.p = full + l0 + b0 * ka;
            q.c = B + b0 * ldb;
        }
        const ozblas_status_t rs = ozb_run(h, &q);
        if (rs != OZBLAS_STATUS_SUCCESS) return rs;
    }
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozblas_dtrsm(ozblas_handle_t h, ozblas_side_t side, ozblas_uplo_t uplo, ozblas_operation_t transa,
                             ozblas_diag_t diag, int64_t m, int64_t n, double alpha, const double *A, int64_t lda,
                             double *B, int64_t ldb)
{
    const ozblas_status_t st = tri3_args(h, side, uplo, transa, diag, m, n, alpha, A, lda, B, ldb);
    if (st != OZBLAS_STATUS_SUCCESS || m == 0 || n == 0) return st;
    ozb_info_reset(h);
    if (alpha == 0.0) return ozb_scale_c(h, B, 1, ldb, m, n, 0.0);
    ozb_fpenv_t env;   /* alpha b and the divisions rounded as CONTRACT §1 says */
    const int changed = ozb_fpenv_enter(&env);
    if (alpha != 1.0)
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++) B[i + j * ldb] *= alpha;
    const int lower = uplo == OZBLAS_LOWER, t = transa == OZBLAS_OP_T, unit = diag == OZBLAS_UNIT;
    /* left: op(T) X = B, X's columns solved alike; right: X op(T) = B <=> op(T)^T X^T = B^T,
     * op(T)^T being T with the other transpose */
    const ozblas_status_t sst = side == OZBLAS_LEFT ? ozb_tri_solve_op(h, A, lda, m, lower, t, unit, n, B, 1, ldb)
                                                    : ozb_tri_solve_op(h, A, lda, n, lower, !t, unit, m, B, ldb, 1);
    ozb_fpenv_leave(env, changed);
    return sst;
}
