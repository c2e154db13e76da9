/* ozblas_dsymm, dsyrk, dsyr2k: DGEMM problems in the handle's mode — DSYMM on the symmetric
 * matrix made whole, DSYRK and DSYR2K on the uplo triangle of C (DSYR2K as one problem of
 * inner dimension 2k on the panels [op(A) op(B)] and [op(B) op(A)]: one exact sum of both
 * products per element), in parts on the call's threads (core/parts.h).  The operands are
 * shaped in the handle's memory (shapes/shape_ops.c: on a CUDA handle by device kernels), so a
 * CUDA handle computes them on the device. */
#include "shapes/shapes.h"
#include "dispatch/dispatch.h"
#include "core/parts.h"

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

/* One DSYMM call's arguments, for its parts: C's (and B's) columns lo..hi-1 where side = L,
 * rows where side = R (each from its own of B alone) */
typedef struct {
    ozblas_side_t side;
    ozblas_uplo_t uplo;
    int64_t m, n;
    double alpha;
    const double *A;
    int64_t lda;
    const double *B;
    int64_t ldb;
    double beta;
    double *C;
    int64_t ldc;
} symm_call;

/* DSYMM with alpha != 0 on a nonempty C: one problem on A made whole (in this handle's scratch) */
static ozblas_status_t symm(ozblas_handle_t h, const symm_call *c, int64_t m, int64_t n, const double *B, double *C)
{
    const int left = c->side == OZBLAS_LEFT;
    const int64_t ka = left ? m : n;
    double *full = ozb_shape_buf(h, OZB_BUF_SHAPE_A, sizeof(double) * (size_t)ka * (size_t)ka);
    if (!full) return OZBLAS_STATUS_ALLOC_FAILED;
    const ozb_op_shape sym = { .kind = OZB_SHAPE_SYM, .lower = c->uplo == OZBLAS_LOWER, .m = ka, .n = ka, .src = c->A,
                               .srs = 1, .scs = c->lda, .dst = full, .drs = 1, .dcs = ka };
    const ozblas_status_t st = ozb_shape(h, &sym);
    if (st != OZBLAS_STATUS_SUCCESS) return st;
    ozb_problem pr = { .m = m, .n = n, .k = ka, .alpha = c->alpha, .beta = c->beta, .c = C, .crs = 1, .ccs = c->ldc,
                       .kblock = OZB_KBLOCK_MAX };
    if (left) {   /* A B: op(B)^T (j, l) = B(l, j) */
        pr.a = (ozb_view){ full, 1, ka };
        pr.b = (ozb_view){ B, c->ldb, 1 };
    } else {      /* B A: op(B)^T (j, l) = A(l, j) = A(j, l) */
        pr.a = (ozb_view){ B, 1, c->ldb };
        pr.b = (ozb_view){ full, 1, ka };
    }
    return ozb_run(h, &pr);
}

static ozblas_status_t symm_part(ozblas_handle_t h, int64_t lo, int64_t hi, void *ctx)
{
    const symm_call *c = ctx;
    return c->side == OZBLAS_LEFT ? symm(h, c, c->m, hi - lo, c->B + lo * c->ldb, c->C + lo * c->ldc)
                                  : symm(h, c, hi - lo, c->n, c->B + lo, c->C + lo);
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
    /* parts along C's columns (left) or rows (right), one per thread (core/parts.h), each
     * making A whole in its own scratch */
    const symm_call c = { side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc };
    return ozb_par_parts(h, ozb_threads_for(h, (double)m * (double)n * (double)ka), left ? n : m, 8, symm_part, (void *)&c);
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

/* One DSYR2K call's arguments, for its parts */
typedef struct {
    int lower, t;
    int64_t n, k;
    double alpha;
    const double *A;
    int64_t lda;
    const double *B;
    int64_t ldb;
    double beta;
    double *C;
    int64_t ldc;
} syr2k_call;

/* Columns c0..c1-1 of C's triangle on the panels P = [op(A) op(B)] and Q = [op(B) op(A)] (one
 * problem of inner dimension 2k) over the rows [s0, s1) they reach: lower, rows c0.. of P and
 * c0..c1-1 of Q; upper, rows ..c1-1 of P and c0..c1-1 of Q.  Each part copies its own rows
 * into its own scratch (the caller's A and B only read), which its thread then reads. */
static ozblas_status_t syr2k_part(ozblas_handle_t h, int64_t c0, int64_t c1, void *ctx)
{
    const syr2k_call *c = ctx;
    const int64_t s0 = c->lower ? c0 : 0, s1 = c->lower ? c->n : c1, ns = s1 - s0, k = c->k;
    const size_t nk = (size_t)ns * (size_t)k;
    double *p = ozb_shape_buf(h, OZB_BUF_SHAPE_B, sizeof(double) * 4 * nk);
    if (!p) return OZBLAS_STATUS_ALLOC_FAILED;
    double *q = p + 2 * nk;
    /* op(X)(i, l) = X[i + l ldx] (N) or X[l + i ldx] (T); P's rows s0..s1-1 and Q's rows
     * c0..c1-1, each at its row less s0 (leading dimension ns) */
    const double *from[4] = { c->A, c->B, c->B, c->A };
    const int64_t ld[4] = { c->lda, c->ldb, c->ldb, c->lda };
    double *to[4] = { p, p + nk, q + (c0 - s0), q + nk + (c0 - s0) };
    for (int v = 0; v < 4; v++) {
        const int64_t r0 = v < 2 ? s0 : c0, rows = v < 2 ? ns : c1 - c0;
        const ozb_op_shape cp = { .kind = OZB_SHAPE_COPY, .m = rows, .n = k, .src = from[v] + r0 * (c->t ? ld[v] : 1),
                                  .srs = c->t ? ld[v] : 1, .scs = c->t ? 1 : ld[v], .dst = to[v], .drs = 1, .dcs = ns };
        const ozblas_status_t st = ozb_shape(h, &cp);
        if (st != OZBLAS_STATUS_SUCCESS) return st;
    }
    const ozb_problem pr = { .m = ns, .n = ns, .k = 2 * k, .a = { p, 1, ns }, .b = { q, 1, ns }, .alpha = c->alpha,
                             .beta = c->beta, .c = c->C + s0 + s0 * c->ldc, .crs = 1, .ccs = c->ldc,
                             .kblock = OZB_KBLOCK_MAX };
    return ozb_run_triangle_cols(h, &pr, c->lower, 0, c0 - s0, c1 - s0);
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
    /* the triangle's columns in parts of equal area, one per thread (core/parts.h) */
    const syr2k_call c = { uplo == OZBLAS_LOWER, t, n, k, alpha, A, lda, B, ldb, beta, C, ldc };
    const int nt = ozb_threads_for(h, (double)n * (double)n * (double)k);
    int64_t cuts[nt + 1];
    ozb_triangle_cuts(n, c.lower, nt, cuts);
    return ozb_par_parts_at(h, nt, cuts, syr2k_part, (void *)&c);
}
