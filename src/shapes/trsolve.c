/* The triangular solve of CONTRACT §6 on a lower op(T): rows in blocks of OZBLAS_TRSM_BLOCK;
 * per block one GEMM update by every earlier row (exact sum, one rounding, the handle's mode),
 * then row by row the exact sum of the block's earlier rows (one rounding, correctly rounded
 * in every mode) and the IEEE division by the diagonal.  Each column of X depends on its own
 * column of B alone, so a solve cut into column blocks, or one column at a time (DTRSV), gives
 * the same bits. */
#include "shapes/shapes.h"
#include "dispatch/dispatch.h"
#include "core/backend.h"

/* Columns below this: the in-block sums element by element on the short exact sums (no
 * pipeline per row, which costs about a microsecond); at and above it, one correctly rounded
 * problem per row.  Both are RN(exact): the choice changes no bit. */
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

ozblas_status_t ozb_tri_solve(ozblas_handle_t h, ozb_view t, int unit, int64_t m, int64_t nrhs,
                              double *x, int64_t xrs, int64_t xcs)
{
    for (int64_t s = 0; s < m; s += OZBLAS_TRSM_BLOCK) {
        const int64_t bs = m - s < OZBLAS_TRSM_BLOCK ? m - s : OZBLAS_TRSM_BLOCK;
        ozblas_status_t st;
        if (s > 0) {
            /* r = RN(b - T[s.., 0..s) X[0..s)): the block's rows against every solved row */
            const ozb_problem up = {
                .m = bs, .n = nrhs, .k = s,
                .a = { t.p + s * t.rs, t.rs, t.cs },
                .b = { x, xcs, xrs },
                .alpha = -1.0, .beta = 1.0, .c = x + s * xrs, .crs = xrs, .ccs = xcs,
                .kblock = OZB_KBLOCK_MAX,
            };
            if ((st = ozb_run(h, &up)) != OZBLAS_STATUS_SUCCESS) return st;
        }
        for (int64_t i = s; i < s + bs; i++) {
            if (i > s && (st = in_block_row(h, t, i, s, nrhs, x, xrs, xcs)) != OZBLAS_STATUS_SUCCESS) return st;
            if (!unit) {   /* row i := row i / T(i, i), where the operands lie */
                const ozb_op_shape dv = { .kind = OZB_SHAPE_DIV, .m = 1, .n = nrhs, .dst = x + i * xrs, .drs = xrs,
                                          .dcs = xcs, .div = t.p + i * t.rs + i * t.cs };
                if ((st = ozb_shape(h, &dv)) != OZBLAS_STATUS_SUCCESS) return st;
            }
        }
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
