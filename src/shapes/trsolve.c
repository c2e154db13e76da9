/* The triangular solve of CONTRACT §6 on a lower op(T): rows in blocks of OZBLAS_TRSM_BLOCK;
 * per block one GEMM update by every earlier row (exact sum, one rounding, the handle's mode),
 * then row by row the exact sum of the block's earlier rows (one rounding, correctly rounded
 * in every mode) and the IEEE division by the diagonal.  Each column of X depends on its own
 * column of B alone, so a solve cut into column blocks, or one column at a time (DTRSV), gives
 * the same bits.  One column whose op(T) has contiguous columns goes by columns instead
 * (trsolve_cols.c: the same sums, op(T) read down its columns); on a device the in-block rows
 * of every column are one certified launch (device_rows). */
#include "shapes/shapes.h"
#include "dispatch/dispatch.h"
#include "core/backend.h"
#include "core/par.h"
#include "eft/eft_dot.h"
#include "eft/eft_subst.h"
#include "eft/eft_trcols.h"
#include <immintrin.h>   /* AVX2: the library's baseline (x86-64-v3) */

/* Columns below this: the in-block sums element by element on the short exact sums (no
 * pipeline per row, which costs about a microsecond); at and above it, the lane groups below
 * (block_lanes), or where they are not offered one correctly rounded problem per row.  All are
 * RN(exact): the choice changes no bit. */
#define ROW_PROBLEM_COLS 8

/* row i of X := RN(row i - T[i, l0..l1) X[l0..l1)), column by column on the short exact sums
 * (the pipeline correctly rounded where they do not apply: Inf/NaN) */
static ozblas_status_t short_update(ozblas_handle_t h, ozb_view t, int64_t i, int64_t l0, int64_t l1, int64_t nrhs,
                                   double *x, int64_t xrs, int64_t xcs)
{
    for (int64_t j = 0; j < nrhs; j++) {
        double *c = x + i * xrs + j * xcs;
        const ozb_problem e = {
            .m = 1, .n = 1, .k = l1 - l0, .a = { t.p + i * t.rs + l0 * t.cs, t.rs, t.cs },
            .b = { x + l0 * xrs + j * xcs, 0, xrs }, .alpha = -1.0, .beta = 1.0, .c = c, .crs = 0, .ccs = 0,
            .kblock = OZB_KBLOCK_MAX,
        };
        double v;
        if (ozb_short_sum(&e, &v)) *c = v;
        else {
            const ozblas_status_t st = ozb_run_rn(h, &e);
            if (st != OZBLAS_STATUS_SUCCESS) return st;
        }
    }
    return OZBLAS_STATUS_SUCCESS;
}

static ozblas_status_t in_block_row(ozblas_handle_t h, ozb_view t, int64_t i, int64_t s, int64_t nrhs,
                                    double *x, int64_t xrs, int64_t xcs)
{
    ozb_problem pr = {
        .m = 1, .n = nrhs, .k = i - s,
        .a = { t.p + i * t.rs + s * t.cs, t.rs, t.cs },
        .b = { x + s * xrs, xcs, xrs },           /* op(B)^T (j, l) = X(s + l, j) */
        .alpha = -1.0, .beta = 1.0, .c = x + i * xrs, .crs = xrs, .ccs = xcs,
        .kblock = OZB_KBLOCK_MAX,
    };
    /* (the short sums read the operands where they lie: host memory only) */
    if (nrhs >= ROW_PROBLEM_COLS || !ozb_host_operands(h)) return ozb_run_rn(h, &pr);
    return short_update(h, t, i, s, i, nrhs, x, xrs, xcs);
}

/* The in-block rows of the block at s for every column at once, eight columns a lane group
 * (ozb_eft_subst8: a row's eight sums in one strip), where the operands are the host's and the
 * error-free kernels are offered; the groups are independent, so they run on the call's
 * threads.  A group stops at a row with a lane not certified; that lane is then finished here
 * as short_update does (RN(exact) either way: the choice changes no bit), the row divided, and
 * the group resumed on the calling thread. */
typedef struct {
    const double *tb, *d;       /* the block's triangle (OZB_SUBST_ROWS a row), its diagonal or NULL */
    double *g;                  /* group q's rows at g + 8 OZB_SUBST_ROWS q */
    int64_t *stop;              /* the row where group q stopped (bs: done) */
    uint8_t *fail;              /* group q's lanes left at fail + 8 q */
    double *x;                  /* the block's row 0 */
    int64_t bs, nrhs, xrs, xcs;
    int wide;                   /* the 512-bit rows (ozb_eft_wide) */
} lanes_t;

_Static_assert(OZBLAS_TRSM_BLOCK <= OZB_SUBST_ROWS, "a block's rows fit the lane groups");

static int lanes_of(const lanes_t *L, int64_t q) { return L->nrhs - 8 * q < 8 ? (int)(L->nrhs - 8 * q) : 8; }

/* A whole group (16 rows, eight columns, each column's rows contiguous from x + c xcs) to its
 * lane rows b[8 i + c], or back (to_x): 4 x 4 register transposes, a copy either way */
static void group_copy16(double *x, int64_t xcs, double *b, int to_x)
{
    for (int i0 = 0; i0 < 16; i0 += 4)
        for (int c0 = 0; c0 < 8; c0 += 4) {
            double *src[4], *dst[4];
            for (int k = 0; k < 4; k++) {
                double *col = x + (c0 + k) * xcs + i0, *row = b + 8 * (i0 + k) + c0;
                src[k] = to_x ? row : col;
                dst[k] = to_x ? col : row;
            }
            const __m256d v0 = _mm256_loadu_pd(src[0]), v1 = _mm256_loadu_pd(src[1]);
            const __m256d v2 = _mm256_loadu_pd(src[2]), v3 = _mm256_loadu_pd(src[3]);
            const __m256d t0 = _mm256_unpacklo_pd(v0, v1), t1 = _mm256_unpackhi_pd(v0, v1);
            const __m256d t2 = _mm256_unpacklo_pd(v2, v3), t3 = _mm256_unpackhi_pd(v2, v3);
            _mm256_storeu_pd(dst[0], _mm256_permute2f128_pd(t0, t2, 0x20));
            _mm256_storeu_pd(dst[1], _mm256_permute2f128_pd(t1, t3, 0x20));
            _mm256_storeu_pd(dst[2], _mm256_permute2f128_pd(t0, t2, 0x31));
            _mm256_storeu_pd(dst[3], _mm256_permute2f128_pd(t1, t3, 0x31));
        }
}

static int whole_group(const lanes_t *L, int64_t q) { return L->xrs == 1 && L->bs == 16 && lanes_of(L, q) == 8; }

static void put_back(const lanes_t *L, int64_t q)
{
    double *b = L->g + 8 * OZB_SUBST_ROWS * q;
    if (whole_group(L, q)) {
        group_copy16(L->x + 8 * q * L->xcs, L->xcs, b, 1);
        return;
    }
    for (int c = 0; c < lanes_of(L, q); c++)
        for (int64_t i = 0; i < L->bs; i++) L->x[i * L->xrs + (8 * q + c) * L->xcs] = b[8 * i + c];
}

static double *group_in(const lanes_t *L, int64_t q)
{
    double *b = L->g + 8 * OZB_SUBST_ROWS * q;
    const int lanes = lanes_of(L, q);
    if (whole_group(L, q)) group_copy16(L->x + 8 * q * L->xcs, L->xcs, b, 0);
    else
        for (int c = 0; c < 8; c++)
            for (int64_t i = 0; i < L->bs; i++) b[8 * i + c] = c < lanes ? L->x[i * L->xrs + (8 * q + c) * L->xcs] : 0.0;
    return b;
}

/* Groups lo..hi-1; with 512-bit vectors two at a time first (ozb_eft_subst16_512: their
 * certified rows side by side), each then from the row that pass left.  Every row written is
 * RN(exact): how the groups are paired changes no bit. */
static int64_t lane_groups(void *ctx, int64_t lo, int64_t hi)
{
    const lanes_t *L = ctx;
    for (int64_t q = lo; q < hi; q++) {
        const int two = L->wide && q + 1 < hi;
        double *b = group_in(L, q), *b2 = two ? group_in(L, q + 1) : NULL;
        const int64_t r = two ? ozb_eft_subst16_512(L->tb, L->d, L->bs, lanes_of(L, q), lanes_of(L, q + 1), b, b2) : 0;
        for (int64_t p = q; p <= q + two; p++) {
            L->stop[p] = ozb_eft_subst8(L->tb, L->d, L->bs, r, lanes_of(L, p), p == q ? b : b2, L->fail + 8 * p, L->wide);
            if (L->stop[p] == L->bs) put_back(L, p);
        }
        q += two;
    }
    return 0;
}

/* group q from its stop on: the lanes left at that row by the short sums (or the pipeline),
 * the row divided, the group resumed */
static ozblas_status_t finish_group(ozblas_handle_t h, const lanes_t *L, int64_t q)
{
    double *b = L->g + 8 * OZB_SUBST_ROWS * q;
    uint8_t *fail = L->fail + 8 * q;
    const int lanes = lanes_of(L, q);
    for (int64_t r = L->stop[q]; r < L->bs; r = ozb_eft_subst8(L->tb, L->d, L->bs, r + 1, lanes, b, fail, L->wide)) {
        for (int c = 0; c < lanes; c++) {
            if (!fail[c]) continue;
            const ozb_problem e = {
                .m = 1, .n = 1, .k = r, .a = { L->tb + OZB_SUBST_ROWS * r, 0, 1 }, .b = { b + c, 0, 8 },
                .alpha = -1.0, .beta = 1.0, .c = b + 8 * r + c, .crs = 0, .ccs = 0, .kblock = OZB_KBLOCK_MAX,
            };
            double v;
            if (ozb_short_sum(&e, &v)) b[8 * r + c] = v;
            else {
                const ozblas_status_t st = ozb_run_rn(h, &e);
                if (st != OZBLAS_STATUS_SUCCESS) return st;
            }
        }
        if (L->d)
            for (int c = 0; c < lanes; c++) b[8 * r + c] /= L->d[r];
    }
    put_back(L, q);
    return OZBLAS_STATUS_SUCCESS;
}

static ozblas_status_t block_lanes(ozblas_handle_t h, ozb_view t, int unit, int64_t s, int64_t bs, int64_t nrhs,
                                   double *x, int64_t xrs, int64_t xcs)
{
    const int64_t ng = (nrhs + 7) / 8, R = OZB_SUBST_ROWS;
    double *w = ozb_buf_get(h, OZB_BUF_SHAPE_T, sizeof(double) * (size_t)(R * R + R + 8 * R * ng + ng) + 8 * (size_t)ng);
    if (!w) return OZBLAS_STATUS_ALLOC_FAILED;
    double *tb = w, *d = tb + R * R;
    for (int64_t i = 0; i < bs; i++) {
        for (int64_t l = 0; l < i; l++) tb[R * i + l] = t.p[(s + i) * t.rs + (s + l) * t.cs];
        if (!unit) d[i] = t.p[(s + i) * (t.rs + t.cs)];   /* (a unit diagonal is not read) */
    }
    const lanes_t L = { .tb = tb, .d = unit ? NULL : d, .g = d + R, .stop = (int64_t *)(d + R + 8 * R * ng),
                        .fail = (uint8_t *)(d + R + 8 * R * ng + ng), .x = x + s * xrs, .bs = bs, .nrhs = nrhs,
                        .xrs = xrs, .xcs = xcs, .wide = ozb_eft_wide(h) };
    ozb_par_for(1, ozb_threads_for(h, (double)bs * (double)bs * (double)nrhs), ng, lane_groups, (void *)&L);
    for (int64_t q = 0; q < ng; q++) {
        if (L.stop[q] == bs) continue;
        const ozblas_status_t st = finish_group(h, &L, q);
        if (st != OZBLAS_STATUS_SUCCESS) return st;
    }
    return OZBLAS_STATUS_SUCCESS;
}

/* row i's diagonal step: row i := row i / T(i, i) (non-unit), where the operands lie */
static ozblas_status_t divide_row(ozblas_handle_t h, ozb_view t, int64_t i, int64_t nrhs, double *x, int64_t xrs,
                                  int64_t xcs)
{
    const ozb_op_shape dv = { .kind = OZB_SHAPE_DIV, .m = 1, .n = nrhs, .dst = x + i * xrs, .drs = xrs, .dcs = xcs,
                              .div = t.p + i * t.rs + i * t.cs };
    return ozb_shape(h, &dv);
}

/* the block at s row by row: each row's exact sum of the block's earlier rows, one problem
 * of nrhs columns where the operands lie, then its division */
static ozblas_status_t block_rows(ozblas_handle_t h, ozb_view t, int unit, int64_t s, int64_t bs, int64_t nrhs,
                                  double *x, int64_t xrs, int64_t xcs)
{
    ozblas_status_t st;
    for (int64_t i = s; i < s + bs; i++) {
        if (i > s && (st = in_block_row(h, t, i, s, nrhs, x, xrs, xcs)) != OZBLAS_STATUS_SUCCESS) return st;
        if (!unit && (st = divide_row(h, t, i, nrhs, x, xrs, xcs)) != OZBLAS_STATUS_SUCCESS) return st;
    }
    return OZBLAS_STATUS_SUCCESS;
}

/* The block at s on the backend's memory, every column at once (core/backend.h: subst, two
 * launches and a 4-byte read-back instead of 2 bs - 1 problems); where a row of any column is
 * not certified it writes nothing and the block goes row by row (a column at a time would
 * cost each such column as much as the whole block).  RN(exact) either way: the choice
 * changes no bit. */
static ozblas_status_t device_rows(ozblas_handle_t h, ozb_view t, int unit, int64_t s, int64_t bs, int64_t nrhs,
                                   double *x, int64_t xrs, int64_t xcs)
{
    const ozb_op_subst g = { .t = t.p + s * (t.rs + t.cs), .trs = t.rs, .tcs = t.cs, .unit = unit, .bs = bs,
                             .nrhs = nrhs, .x = x + s * xrs, .xrs = xrs, .xcs = xcs, .out = NULL, .bad = NULL };
    int left = 0;
    if (h->be->subst(h, &g, &left)) return OZBLAS_STATUS_EXECUTION_FAILED;
    return left ? block_rows(h, t, unit, s, bs, nrhs, x, xrs, xcs) : OZBLAS_STATUS_SUCCESS;
}

/* An upper op(T) is solved from its last row (ozb_tri_solve_op), so a block's GEMV may read
 * A and X backwards; where the results are RN(exact) its sums are taken in the other order
 * (k reversed where A's steps along k are negative, the rows where they are negative down
 * the rows), which changes no bit and lets the error-free GEMVs read forwards (with negative
 * steps a block's GEMV goes to the sliced GEMM instead). */
static void forward(ozb_problem *pr)
{
    if (pr->a.cs < 0) {
        pr->a.p += (pr->k - 1) * pr->a.cs;
        pr->a.cs = -pr->a.cs;
        pr->b.p += (pr->k - 1) * pr->b.cs;
        pr->b.cs = -pr->b.cs;
    }
    if (pr->a.rs < 0) {
        pr->a.p += (pr->m - 1) * pr->a.rs;
        pr->a.rs = -pr->a.rs;
        pr->c += (pr->m - 1) * pr->crs;
        pr->crs = -pr->crs;
    }
}

ozblas_status_t ozb_tri_solve(ozblas_handle_t h, ozb_view t, int unit, int64_t m, int64_t nrhs,
                              double *x, int64_t xrs, int64_t xcs)
{
    if (nrhs == 1 && (t.rs == 1 || t.rs == -1) && ozb_tri_cols_apply(h, m))
        return ozb_tri_solve_cols(h, t.p, t.rs, t.cs, OZB_COLS_FULL, unit, m, x, xrs);
    for (int64_t s = 0; s < m; s += OZBLAS_TRSM_BLOCK) {
        const int64_t bs = m - s < OZBLAS_TRSM_BLOCK ? m - s : OZBLAS_TRSM_BLOCK;
        ozblas_status_t st;
        if (s > 0) {
            /* r = RN(b - T[s.., 0..s) X[0..s)): the block's rows against every solved row */
            ozb_problem up = {
                .m = bs, .n = nrhs, .k = s,
                .a = { t.p + s * t.rs, t.rs, t.cs },
                .b = { x, xcs, xrs },
                .alpha = -1.0, .beta = 1.0, .c = x + s * xrs, .crs = xrs, .ccs = xcs,
                .kblock = OZB_KBLOCK_MAX,
            };
            if (ozb_run_rounds_exact(h)) forward(&up);
            if ((st = ozb_run(h, &up)) != OZBLAS_STATUS_SUCCESS) return ozb_after_written(st);
        }
        if (nrhs >= ROW_PROBLEM_COLS && ozb_host_operands(h) && ozb_eft_subst_applies(h))
            st = block_lanes(h, t, unit, s, bs, nrhs, x, xrs, xcs);
        else if (h->be->subst)
            st = device_rows(h, t, unit, s, bs, nrhs, x, xrs, xcs);
        else
            st = block_rows(h, t, unit, s, bs, nrhs, x, xrs, xcs);
        /* X's rows are written as they are solved (a device block's before its flag is read) */
        if (st != OZBLAS_STATUS_SUCCESS) return ozb_after_written(st);
    }
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozb_tri_solve_op(ozblas_handle_t h, const double *A, int64_t lda, int64_t m, int lower, int trans,
                                 int unit, int64_t nrhs, double *x, int64_t xrs, int64_t xcs)
{
    /* op(T)(i, j) = A[i*rs + j*cs] */
    ozb_view t = { A, trans ? lda : 1, trans ? 1 : lda };
    if (lower == trans) {   /* op(T) upper: solve rows m-1 .. 0 */
        t.p += (m - 1) * (t.rs + t.cs);
        t.rs = -t.rs;
        t.cs = -t.cs;
        x += (m - 1) * xrs;
        xrs = -xrs;
    }
    return ozb_tri_solve(h, t, unit, m, nrhs, x, xrs, xcs);
}
