/* The triangular solve of CONTRACT §6 on one right-hand side whose op(T) has its columns
 * contiguous (a lower triangle without transpose, an upper one read from its last row, in full
 * or packed storage): the rule's block sums RN(b_i - T[i, 0..s) X[0..s)) from the
 * column-by-column error-free sums (eft/eft_trcols.h: op(T) read once, down its columns, as a
 * GEMV-N reads a matrix), each row they leave by ozb_run on that row alone; then the block's
 * in-block rows by the one-lane substitution (ozb_eft_subst1), each row it leaves by the short
 * exact sums.  RN(exact) on every path where ozb_run rounds exactly: the bits of
 * ozb_tri_solve's block GEMVs and lanes. */
#include "shapes/shapes.h"
#include "dispatch/dispatch.h"
#include "core/backend.h"
#include "core/par.h"
#include "eft/eft_subst.h"
#include "eft/eft_trcols.h"
#include "core/gather.h"

int ozb_tri_cols_apply(ozblas_handle_t h, int64_t m)
{
    return m > OZBLAS_TRSM_BLOCK && ozb_host_operands(h) && ozb_run_rounds_exact(h) && ozb_eft_subst_applies(h);
}

static double el(const ozb_trcols_t *c, int64_t i, int64_t j) { return ozb_trcols_col(c, j)[i * c->rs]; }

/* The in-block rows of the block at s on the contiguous right-hand side xb (its row 0 the
 * block's): ozb_eft_subst1 on a copy of the block's triangle, each row it leaves by the short
 * exact sums (the pipeline correctly rounded where they do not apply), divided, and the
 * substitution resumed. */
static ozblas_status_t block_one(ozblas_handle_t h, const ozb_trcols_t *c, int unit, int64_t s, int64_t bs, double *xb)
{
    enum { R = OZB_SUBST_ROWS };
    double tb[R * R], d[R];
    for (int64_t i = 0; i < bs; i++) {
        for (int64_t l = 0; l < i; l++) tb[R * i + l] = el(c, s + i, s + l);
        if (!unit) d[i] = el(c, s + i, s + i);
    }
    for (int64_t r = ozb_eft_subst1(tb, unit ? NULL : d, bs, 0, xb); r < bs;
         r = ozb_eft_subst1(tb, unit ? NULL : d, bs, r + 1, xb)) {
        const ozb_problem e = {
            .m = 1, .n = 1, .k = r, .a = { tb + R * r, 0, 1 }, .b = { xb, 0, 1 }, .alpha = -1.0, .beta = 1.0,
            .c = xb + r, .crs = 0, .ccs = 0, .kblock = OZB_KBLOCK_MAX,
        };
        double v;
        if (ozb_short_sum(&e, &v)) xb[r] = v;
        else {
            const ozblas_status_t st = ozb_run_rn(h, &e);
            if (st != OZBLAS_STATUS_SUCCESS) return st;
        }
        if (!unit) xb[r] /= d[r];
    }
    return OZBLAS_STATUS_SUCCESS;
}

/* Row i's block sum, k = s columns, where the column sums left it: RN(x_i - T[i, 0..s) X[0..s))
 * by ozb_run on the row gathered into row (s doubles) */
static ozblas_status_t row_sum(ozblas_handle_t h, const ozb_trcols_t *c, int64_t i, int64_t s, double *xw, double *row)
{
    for (int64_t j = 0; j < s; j++) row[j] = el(c, i, j);
    const ozb_problem pr = {
        .m = 1, .n = 1, .k = s, .a = { row, 0, 1 }, .b = { xw, 0, 1 }, .alpha = -1.0, .beta = 1.0, .c = xw + i,
        .crs = 1, .ccs = 0, .kblock = OZB_KBLOCK_MAX,
    };
    return ozb_run(h, &pr);
}

ozblas_status_t ozb_tri_solve_cols(ozblas_handle_t h, const double *p, int64_t rs, int64_t cs, int kind, int unit,
                                   int64_t m, double *x, int64_t xrs)
{
    const size_t sb = ozb_eft_trcols_bytes(m);
    char *buf = ozb_buf_get(h, OZB_BUF_SHAPE_A, sb + 2 * sizeof(double) * (size_t)m);
    if (!buf) return OZBLAS_STATUS_ALLOC_FAILED;
    double *xw = (double *)(buf + sb), *row = xw + m;
    ozb_gather(x, m, xrs, xw);
    ozb_trcols_t c;
    ozb_eft_trcols_init(&c, p, rs, cs, m, kind, buf);
    ozblas_status_t st = OZBLAS_STATUS_SUCCESS;
    for (int64_t s = 0; s < m && st == OZBLAS_STATUS_SUCCESS; s += OZBLAS_TRSM_BLOCK) {
        const int64_t bs = m - s < OZBLAS_TRSM_BLOCK ? m - s : OZBLAS_TRSM_BLOCK;
        for (int64_t b = s / 8; s > 0 && 8 * b < s + bs && st == OZBLAS_STATUS_SUCCESS; b++) {
            uint8_t fail[8];
            if (ozb_eft_trcols_put(&c, b, s, xw, fail) == 0) continue;
            for (int64_t r = 0; r < 8 && 8 * b + r < m && st == OZBLAS_STATUS_SUCCESS; r++)
                if (fail[r]) st = row_sum(h, &c, 8 * b + r, s, xw, row);
        }
        if (st == OZBLAS_STATUS_SUCCESS) st = block_one(h, &c, unit, s, bs, xw + s);
        /* the rows below the block take its columns (strips from row s + bs: a multiple of 8) */
        if (s + bs < m && st == OZBLAS_STATUS_SUCCESS)
            ozb_eft_trcols_add(&c, (s + bs) / 8, s, bs, xw, ozb_threads_for(h, 4.0 * (double)(m - s - bs) * (double)bs));
    }
    for (int64_t i = 0; i < m && st == OZBLAS_STATUS_SUCCESS; i++) x[i * xrs] = xw[i];
    return st;
}

ozblas_status_t ozb_tri_solve_packed(ozblas_handle_t h, const double *AP, int64_t n, int lower, int unit, double *x,
                                     int64_t incx)
{
    /* upper: solved from the last row, x's view reversed as ozb_tri_solve_op reverses it */
    if (!lower) x += (n - 1) * incx;
    return ozb_tri_solve_cols(h, AP, lower ? 1 : -1, 0, lower ? OZB_COLS_PACKED_LOWER : OZB_COLS_PACKED_UPPER, unit, n, x,
                              lower ? incx : -incx);
}
