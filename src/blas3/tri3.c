/* ozblas_dtrmm (a DGEMM problem on op(T) made whole and a copy of B, in the handle's mode; in
 * blocks that leave out op(T)'s zeros where the results are RN(exact), or one problem whose
 * engine leaves them out itself) and
 * ozblas_dtrsm (the fixed-block rule of CONTRACT §6, shapes/trsolve.c).  The operands are
 * shaped in the handle's memory (shapes/shape_ops.c), so a CUDA handle computes both on the
 * device. */
#include "shapes/shapes.h"
#include "dispatch/dispatch.h"
#include "core/info.h"
#include "core/backend.h"
#include "core/parts.h"
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
    return OZBLAS_STATUS_SUCCESS;
}

/* Where the results are RN(exact) the zeros of op(T) need not be summed: blocks of bk
 * rows of C (left) or columns (right), each against the part of the inner
 * dimension where op(T) is not zero: about half the products for a large T. */
static ozblas_status_t trmm_blocks(ozblas_handle_t h, const ozb_problem *prp, int left, int low, int64_t ka, int64_t m,
                                   int64_t bk, const double *full, const double *bc, double *B, int64_t ldb)
{
    const ozb_problem pr = *prp;
    ozblas_status_t rs;
    for (int64_t b0 = 0; b0 < ka; b0 += bk) {
        const int64_t b1 = b0 + bk < ka ? b0 + bk : ka;
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
        /* (a block after the first fails with the blocks before it written) */
        if ((rs = ozb_run(h, &q)) != OZBLAS_STATUS_SUCCESS) return b0 ? ozb_after_written(rs) : rs;
    }
    return OZBLAS_STATUS_SUCCESS;
}

/* One call's arguments, for its parts: B's columns lo..hi-1 where side = L, its rows where
 * side = R (each output column, or row, from its own of B alone) */
typedef struct {
    ozblas_side_t side;
    ozblas_uplo_t uplo;
    ozblas_operation_t transa;
    ozblas_diag_t diag;
    int64_t m, n;
    double alpha;
    const double *A;
    int64_t lda;
    double *B;
    int64_t ldb;
    const double *full;       /* DTRMM: op(T) made whole for every part, or NULL (each its own) */
} tri3_call;

/* Where op(T) is larger than this order, DTRMM's parts share one copy of it made whole (the
 * handle's), else each makes its own: its thread then reads only what it wrote itself, at no
 * more than 2 MiB a part */
#define TRMM_SHARED 512

/* op(T) made whole in h's scratch: zeros outside the triangle, ones on a unit diagonal */
static ozblas_status_t tri_whole(ozblas_handle_t h, const tri3_call *c, double **full)
{
    const int64_t ka = c->side == OZBLAS_LEFT ? c->m : c->n;
    const int t = c->transa == OZBLAS_OP_T;
    *full = ozb_shape_buf(h, OZB_BUF_SHAPE_A, sizeof(double) * (size_t)ka * (size_t)ka);
    if (!*full) return OZBLAS_STATUS_ALLOC_FAILED;
    /* op(T)(i, j) = A[i + j lda] or A[j + i lda]; op(T) lower where T is lower and not
     * transposed or upper and transposed */
    const ozb_op_shape tri = { .kind = OZB_SHAPE_TRI, .lower = (c->uplo == OZBLAS_LOWER) != t,
                               .unit = c->diag == OZBLAS_UNIT, .m = ka, .n = ka, .src = c->A, .srs = t ? c->lda : 1,
                               .scs = t ? 1 : c->lda, .dst = *full, .drs = 1, .dcs = ka };
    return ozb_shape(h, &tri);
}

/* DTRMM with alpha != 0 on B's m x n block at B (a part's: op(T) is c's whole), op(T) made
 * whole at full, or in h's scratch where full is NULL */
static ozblas_status_t trmm(ozblas_handle_t h, const tri3_call *c, int64_t m, int64_t n, double *B, const double *full)
{
    const int left = c->side == OZBLAS_LEFT;
    const int64_t ka = left ? m : n, ldb = c->ldb;
    const double alpha = c->alpha;
    const int lower = (c->uplo == OZBLAS_LOWER) != (c->transa == OZBLAS_OP_T);   /* op(T)'s triangle */
    ozblas_status_t rs;
    if (!full) {
        double *own;
        if ((rs = tri_whole(h, c, &own)) != OZBLAS_STATUS_SUCCESS) return rs;
        full = own;
    }
    double *bc = ozb_shape_buf(h, OZB_BUF_SHAPE_B, sizeof(double) * (size_t)m * (size_t)n);
    if (!bc) return OZBLAS_STATUS_ALLOC_FAILED;
    const ozb_op_shape cp = { .kind = OZB_SHAPE_COPY, .m = m, .n = n, .src = B, .srs = 1, .scs = ldb, .dst = bc,
                              .drs = 1, .dcs = m };
    if ((rs = ozb_shape(h, &cp)) != OZBLAS_STATUS_SUCCESS) return rs;
    ozb_problem pr = { .m = m, .n = n, .k = ka, .alpha = alpha, .beta = 0.0, .c = B, .crs = 1, .ccs = ldb,
                       .kblock = OZB_KBLOCK_MAX };
    if (left) {   /* op(T) B */
        pr.a = (ozb_view){ full, 1, ka };
        pr.b = (ozb_view){ bc, m, 1 };
    } else {      /* B op(T): op(B)^T (j, l) = op(T)(l, j) */
        pr.a = (ozb_view){ bc, 1, m };
        pr.b = (ozb_view){ full, ka, 1 };
    }
    /* one problem, told op(T)'s zeros, which a backend may leave out (core/problem.h; left,
     * a(i, l) = op(T)(i, l); right, b(j, l) = op(T)(l, j)); or blocks of at least the
     * backend's min_block (core/backend.h), where that backend's engine does not */
    const int64_t bk = h->be->min_block > TRMM_BLOCK ? h->be->min_block : TRMM_BLOCK;
    ozb_problem whole = pr;
    whole.zeros = left ? (lower ? OZB_ZEROS_A_KLE : OZB_ZEROS_A_KGE) : (lower ? OZB_ZEROS_B_KGE : OZB_ZEROS_B_KLE);
    if (!ozb_run_rounds_exact(h) || ka <= bk || (h->be->whole_triangles && h->be->whole_triangles(h, &whole)))
        rs = ozb_run(h, &whole);
    else rs = trmm_blocks(h, &pr, left, lower, ka, m, bk, full, bc, B, ldb);
    if (rs != OZBLAS_STATUS_SUCCESS || (ozb_host_operands(h) && ozb_all_finite(bc, m * n))) return rs;
    /* where B holds Inf or NaN: the elements its absent zeros reached, on the triangle alone
     * (left: column j of C is alpha op(T) times column j of B; right: row i of C is alpha
     * op(T)^T times row i of B), on the handle's memory */
    return left ? ozb_tri_absent_zeros_cols(h, (ozb_view){ full, 1, ka }, lower, ka, alpha, (ozb_view){ bc, 1, m }, n,
                                            (ozb_view){ B, 1, ldb })
                : ozb_tri_absent_zeros_cols(h, (ozb_view){ full, ka, 1 }, !lower, ka, alpha, (ozb_view){ bc, m, 1 }, m,
                                            (ozb_view){ B, ldb, 1 });
}

static ozblas_status_t trmm_part(ozblas_handle_t h, int64_t lo, int64_t hi, void *ctx)
{
    const tri3_call *c = ctx;
    const int left = c->side == OZBLAS_LEFT;
    return trmm(h, c, left ? c->m : hi - lo, left ? hi - lo : c->n, c->B + (left ? lo * c->ldb : lo), c->full);
}

/* The threads for a call of `work` multiply-adds split into parts along nrhs (B's columns
 * where side = L, rows where side = R), `quantum` of them at least each: core/parts.h */
static ozblas_status_t tri3_parts(ozblas_handle_t h, const tri3_call *c, double work, int64_t quantum, ozb_part_fn body)
{
    const int64_t nrhs = c->side == OZBLAS_LEFT ? c->n : c->m;
    return ozb_par_parts(h, ozb_threads_for(h, work), nrhs, quantum, body, (void *)c);
}

ozblas_status_t ozblas_dtrmm(ozblas_handle_t h, ozblas_side_t side, ozblas_uplo_t uplo, ozblas_operation_t transa,
                             ozblas_diag_t diag, int64_t m, int64_t n, double alpha, const double *A, int64_t lda,
                             double *B, int64_t ldb)
{
    ozblas_status_t st = tri3_args(h, side, uplo, transa, diag, m, n, alpha, A, lda, B, ldb);
    if (st != OZBLAS_STATUS_SUCCESS || m == 0 || n == 0) return st;
    if (alpha == 0.0) return ozb_scale_c(h, B, 1, ldb, m, n, 0.0);
    if (ozb_host_operands(h) && ozb_run_rounds_exact(h) && m * n <= 16) {
        /* tiny: element by element where every one is certified (shapes.h), where the handle's
         * products round exactly (CORRECTLY_ROUNDED, and DOUBLE computed so): RN(exact) is
         * then the value of every path */
        ozb_fpenv_t env;
        const int changed = ozb_fpenv_enter(&env);
        const int done = ozb_trmm_tiny(side == OZBLAS_LEFT, uplo == OZBLAS_LOWER, transa == OZBLAS_OP_T,
                                       diag == OZBLAS_UNIT, m, n, alpha, A, lda, B, ldb);
        ozb_fpenv_leave(env, changed);
        if (done) {
            ozb_info_reset(h);
            return OZBLAS_STATUS_SUCCESS;
        }
    }
    tri3_call c = { side, uplo, transa, diag, m, n, alpha, A, lda, B, ldb, NULL };
    const int64_t ka = side == OZBLAS_LEFT ? m : n;
    ozb_info_moves_begin(h);   /* the info reports every problem's copies */
    double *full = NULL;
    if (ka > TRMM_SHARED) st = tri_whole(h, &c, &full);
    c.full = full;
    /* parts of whole quads (the error-free GEMM's columns) or strips (its rows) */
    if (st == OZBLAS_STATUS_SUCCESS)
        st = tri3_parts(h, &c, (double)ka * (double)ka * (double)(side == OZBLAS_LEFT ? n : m) / 2.0,
                        side == OZBLAS_LEFT ? 4 : 8, trmm_part);
    ozb_info_moves_end(h);
    return st;
}

/* DTRSM with alpha != 0 on a nonempty B (a part's), in the standard environment */
static ozblas_status_t trsm(ozblas_handle_t h, ozblas_side_t side, ozblas_uplo_t uplo, ozblas_operation_t transa,
                            ozblas_diag_t diag, int64_t m, int64_t n, double alpha, const double *A, int64_t lda,
                            double *B, int64_t ldb)
{
    ozblas_status_t sst = alpha != 1.0 ? ozb_scale_c(h, B, 1, ldb, m, n, alpha) : OZBLAS_STATUS_SUCCESS;
    const int lower = uplo == OZBLAS_LOWER, t = transa == OZBLAS_OP_T, unit = diag == OZBLAS_UNIT;
    /* left: op(T) X = B, X's columns solved alike; right: X op(T) = B <=> op(T)^T X^T = B^T,
     * op(T)^T being T with the other transpose */
    if (sst != OZBLAS_STATUS_SUCCESS) return sst;
    sst = side == OZBLAS_LEFT ? ozb_tri_solve_op(h, A, lda, m, lower, t, unit, n, B, 1, ldb)
                              : ozb_tri_solve_op(h, A, lda, n, lower, !t, unit, m, B, ldb, 1);
    return alpha != 1.0 ? ozb_after_written(sst) : sst;   /* B was scaled before */
}

static ozblas_status_t trsm_part(ozblas_handle_t h, int64_t lo, int64_t hi, void *ctx)
{
    const tri3_call *c = ctx;
    const int left = c->side == OZBLAS_LEFT;
    return trsm(h, c->side, c->uplo, c->transa, c->diag, left ? c->m : hi - lo, left ? hi - lo : c->n, c->alpha, c->A,
                c->lda, c->B + (left ? lo * c->ldb : lo), c->ldb);
}

ozblas_status_t ozblas_dtrsm(ozblas_handle_t h, ozblas_side_t side, ozblas_uplo_t uplo, ozblas_operation_t transa,
                             ozblas_diag_t diag, int64_t m, int64_t n, double alpha, const double *A, int64_t lda,
                             double *B, int64_t ldb)
{
    ozblas_status_t st = tri3_args(h, side, uplo, transa, diag, m, n, alpha, A, lda, B, ldb);
    if (st != OZBLAS_STATUS_SUCCESS || m == 0 || n == 0) return st;
    ozb_info_reset(h);
    if (alpha == 0.0) return ozb_scale_c(h, B, 1, ldb, m, n, 0.0);
    const tri3_call c = { side, uplo, transa, diag, m, n, alpha, A, lda, B, ldb, NULL };
    const double ka = (double)(side == OZBLAS_LEFT ? m : n);
    /* parts of whole lane groups (8 columns of the solve); alpha b and the divisions in the
     * standard environment (CONTRACT §1), which the parts enter on their threads */
    ozb_info_moves_begin(h);   /* the info reports every problem's copies */
    st = tri3_parts(h, &c, ka * ka * (double)(side == OZBLAS_LEFT ? n : m) / 2.0, 8, trsm_part);
    ozb_info_moves_end(h);
    return st;
}
