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
    const double *full;       /* A made whole for every part, or NULL (each its own) */
} symm_call;

/* Where A is larger than this order, DSYMM's parts share one copy of it made whole (the
 * handle's), else each makes its own: its thread then reads only what it wrote itself, at no
 * more than 2 MiB a part */
#define SYMM_SHARED 512

/* A (order ka) made whole in h's scratch */
static ozblas_status_t sym_whole(ozblas_handle_t h, const symm_call *c, int64_t ka, double **full)
{
    *full = ozb_shape_buf(h, OZB_BUF_SHAPE_A, sizeof(double) * (size_t)ka * (size_t)ka);
    if (!*full) return OZBLAS_STATUS_ALLOC_FAILED;
    const ozb_op_shape sym = { .kind = OZB_SHAPE_SYM, .lower = c->uplo == OZBLAS_LOWER, .m = ka, .n = ka, .src = c->A,
                               .srs = 1, .scs = c->lda, .dst = *full, .drs = 1, .dcs = ka };
    return ozb_shape(h, &sym);
}

/* DSYMM with alpha != 0 on C's m x n block at C (a part's): one problem on A made whole (c's,
 * or in this handle's scratch) */
static ozblas_status_t symm(ozblas_handle_t h, const symm_call *c, int64_t m, int64_t n, const double *B, double *C)
{
    const int left = c->side == OZBLAS_LEFT;
    const int64_t ka = left ? m : n;
    const double *full = c->full;
    if (!full) {
        double *own;
        const ozblas_status_t st = sym_whole(h, c, ka, &own);
        if (st != OZBLAS_STATUS_SUCCESS) return st;
        full = own;
    }
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
    /* parts along C's columns (left) or rows (right), one per thread (core/parts.h) */
    symm_call c = { side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc, NULL };
    if (ka > SYMM_SHARED) {
        double *full;
        const ozblas_status_t st = sym_whole(h, &c, ka, &full);
        if (st != OZBLAS_STATUS_SUCCESS) return st;
        c.full = full;
    }
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
    int lower, t;             /* uplo, trans */
    int64_t n, k, lda, ldb, ldc;
    double alpha, beta;
    const double *A, *B;
    double *C;
    const double *p, *q;      /* the panels for every part (n rows, leading dimension n), or NULL */
} syr2k_call;

/* Where the panels hold more elements than this, DSYR2K's parts share one copy of them (the
 * handle's), else each copies its own rows: at most 16 MiB a part */
#define SYR2K_SHARED ((int64_t)1 << 21)

/* P = [op(A) op(B)]'s rows r0..r0+rp-1 and Q = [op(B) op(A)]'s rows q0..q0+rq-1 into p and q
 * (n x 2k each, leading dimension ld; each row at its index less s0) */
static ozblas_status_t panels(ozblas_handle_t h, const syr2k_call *c, int64_t s0, int64_t ld, int64_t r0, int64_t rp,
                              int64_t q0, int64_t rq, double *p, double *q)
{
    const size_t nk = (size_t)ld * (size_t)c->k;
    /* op(X)(i, l) = X[i + l ldx] (N) or X[l + i ldx] (T) */
    const double *from[4] = { c->A, c->B, c->B, c->A };
    const int64_t ldx[4] = { c->lda, c->ldb, c->ldb, c->lda };
    double *to[4] = { p + (r0 - s0), p + nk + (r0 - s0), q + (q0 - s0), q + nk + (q0 - s0) };
    for (int v = 0; v < 4; v++) {
        const int64_t i0 = v < 2 ? r0 : q0, rows = v < 2 ? rp : rq;
        const ozb_op_shape cp = { .kind = OZB_SHAPE_COPY, .m = rows, .n = c->k, .src = from[v] + i0 * (c->t ? ldx[v] : 1),
                                  .srs = c->t ? ldx[v] : 1, .scs = c->t ? 1 : ldx[v], .dst = to[v], .drs = 1, .dcs = ld };
        const ozblas_status_t st = ozb_shape(h, &cp);
        if (st != OZBLAS_STATUS_SUCCESS) return st;
    }
    return OZBLAS_STATUS_SUCCESS;
}

/* Columns c0..c1-1 of C's triangle on the panels P = [op(A) op(B)] and Q = [op(B) op(A)] (one
 * problem of inner dimension 2k) over the rows [s0, s1) they reach: lower, rows c0.. of P and
 * c0..c1-1 of Q; upper, rows ..c1-1 of P and c0..c1-1 of Q.  A part copies its own rows into
 * its own scratch (the caller's A and B only read), which its thread then reads, unless the
 * call's panels are shared. */
static ozblas_status_t syr2k_part(ozblas_handle_t h, int64_t c0, int64_t c1, void *ctx)
{
    const syr2k_call *c = ctx;
    const int64_t s0 = c->lower ? c0 : 0, s1 = c->lower ? c->n : c1;
    int64_t ns = s1 - s0;
    const double *p = c->p, *q = c->q;
    if (p) {          /* the shared panels, leading dimension n */
        p += s0;
        q += s0;
        ns = c->n;
    } else {
        const size_t nk = (size_t)ns * (size_t)c->k;
        double *pp = ozb_shape_buf(h, OZB_BUF_SHAPE_B, sizeof(double) * 4 * nk);
        if (!pp) return OZBLAS_STATUS_ALLOC_FAILED;
        const ozblas_status_t st = panels(h, c, s0, ns, s0, s1 - s0, c0, c1 - c0, pp, pp + 2 * nk);
        if (st != OZBLAS_STATUS_SUCCESS) return st;
        p = pp;
        q = pp + 2 * nk;
    }
    const ozb_problem pr = { .m = s1 - s0, .n = s1 - s0, .k = 2 * c->k, .a = { p, 1, ns }, .b = { q, 1, ns },
                             .alpha = c->alpha, .beta = c->beta, .c = c->C + s0 + s0 * c->ldc, .crs = 1, .ccs = c->ldc,
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
    syr2k_call c = { .lower = uplo == OZBLAS_LOWER, .t = t, .n = n, .k = k, .lda = lda, .ldb = ldb, .ldc = ldc,
                     .alpha = alpha, .beta = beta, .A = A, .B = B, .C = C };
    const int nt = ozb_parts_count(h, ozb_threads_for(h, (double)n * (double)n * (double)k), n, 8);
    if (nt > 1 && 4 * n * k > SYR2K_SHARED) {
        const size_t nk = (size_t)n * (size_t)k;
        double *p = ozb_shape_buf(h, OZB_BUF_SHAPE_B, sizeof(double) * 4 * nk);
        if (!p) return OZBLAS_STATUS_ALLOC_FAILED;
        const ozblas_status_t st = panels(h, &c, 0, n, 0, n, 0, n, p, p + 2 * nk);
        if (st != OZBLAS_STATUS_SUCCESS) return st;
        c.p = p;
        c.q = p + 2 * nk;
    }
    int64_t cuts[OZB_MAX_PARTS + 1];
    ozb_triangle_cuts(n, c.lower, nt, cuts);
    return ozb_par_parts_at(h, nt, cuts, syr2k_part, (void *)&c);
}
