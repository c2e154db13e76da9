/* ozblas_pdgemv: the single-node bits on any process grid.  Correctly rounded
 * configurations first try certified sums of each process's own block (pdgemv_cert.c: no
 * matrix moves).  Otherwise, as pdgemm.c: where every
 * element of y is a function of its own row of op(A) and x alone (ozb_elementwise), the
 * processes that hold sub(y) receive their rows of op(sub(A)) and all of sub(x) and compute
 * their elements with one ozblas_dgemv; otherwise process (0, 0) computes the call. */
#include "mpi/pdgemv_cert.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int64_t dbits(double v) { int64_t b; memcpy(&b, &v, sizeof b); return b; }

/* sub(x) of len elements from X(i, j): a row where inc = desc[M] (PBLAS's rule, M = 1 with
 * inc = 1 included), else a column where inc = 1 */
static int vec_ok(const int *desc, int ctxt, const ozb_pgrid *g, int64_t i, int64_t j, int64_t len, int64_t inc, int *row)
{
    if (!desc) return 0;
    *row = inc == desc[OZBLAS_DESC_M];
    if (!*row && inc != 1) return 0;
    return *row ? ozb_desc_ok(desc, ctxt, g, i, j, 1, len) : ozb_desc_ok(desc, ctxt, g, i, j, len, 1);
}

ozblas_status_t ozblas_pdgemv(ozblas_handle_t h, ozblas_operation_t trans, int64_t m, int64_t n, double alpha,
                              const double *A, int64_t ia, int64_t ja, const int *raw_a,
                              const double *X, int64_t ix, int64_t jx, const int *raw_x, int64_t incx,
                              double beta, double *Y, int64_t iy, int64_t jy, const int *raw_y, int64_t incy)
{
    if (!raw_y) return OZBLAS_STATUS_INVALID_VALUE;
    /* descriptors in type-1 form (PBLAS's type 2 with whole first blocks too) */
    int da[9], dx[9], dy[9];
    const int dnorm = ozb_desc_norm(raw_a, da) & ozb_desc_norm(raw_x, dx) & ozb_desc_norm(raw_y, dy);
    const int ctxt = dy[OZBLAS_DESC_CTXT];
    ozb_pgrid g;
    const int in = ozb_pgrid_get(ctxt, &g);
    if (in == 0) return OZBLAS_STATUS_INVALID_VALUE;
    if (in < 0) return OZBLAS_STATUS_EXECUTION_FAILED;

    const int t = trans != OZBLAS_OP_N;
    const int64_t lenx = t ? m : n, leny = t ? n : m;
    int err = 0, xrow = 0, yrow = 0;
    int64_t key[48] = { 0 };
    int nk = 6;
    const ozblas_status_t cst = ozb_config_key(h, key);
    if (cst != OZBLAS_STATUS_SUCCESS || !dnorm) err = 1;
    if ((trans != OZBLAS_OP_N && trans != OZBLAS_OP_T) || m < 0 || n < 0) err = 1;
    if (!err && (!ozb_desc_ok(da, ctxt, &g, ia, ja, m, n) || !vec_ok(dx, ctxt, &g, ix, jx, lenx, incx, &xrow) ||
                 !vec_ok(dy, ctxt, &g, iy, jy, leny, incy, &yrow)))
        err = 1;
    const int64_t fixed[] = { trans, m, n, ia, ja, ix, jx, incx, iy, jy, incy, dbits(alpha), dbits(beta) };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) key[nk++] = fixed[i];
    for (int d = 0; d < 3; d++) {
        const int *desc = d == 0 ? da : d == 1 ? dx : dy;
        /* CTXT and LLD are local: context numbers differ between processes of one grid */
        for (int i = 0; i < OZBLAS_DESC_LLD; i++) key[nk++] = i == OZBLAS_DESC_CTXT ? 0 : desc[i];
    }
    /* sub(y) as a window, and the part of it this process holds (a column of y: its rows in
     * the process column of jy; a row: its columns in the process row of iy) */
    ozb_win yw = { Y, 0, {1, 0, 1}, {1, 0, 1}, iy - 1, jy - 1, yrow ? 1 : leny, yrow ? leny : 1 };
    int holder = 0;            /* the process row (y a row) or column (y a column) holding y */
    int64_t ny = 0, yinc = 1;
    double *yl = NULL;
    if (!err) {
        yw.lld = dy[OZBLAS_DESC_LLD];
        yw.r = ozb_desc_rows(dy, g.nprow);
        yw.c = ozb_desc_cols(dy, g.npcol);
        if (yrow) {
            holder = ozb_bc_owner(&yw.r, yw.r0);
            const int64_t c0 = ozb_bc_count(&yw.c, yw.c0, g.mycol);
            ny = g.myrow == holder ? ozb_bc_count(&yw.c, yw.c0 + leny, g.mycol) - c0 : 0;
            yinc = yw.lld;
            if (ny > 0) yl = Y ? Y + ozb_bc_local(&yw.r, yw.r0) + c0 * yw.lld : NULL;
        } else {
            holder = ozb_bc_owner(&yw.c, yw.c0);
            const int64_t r0 = ozb_bc_count(&yw.r, yw.r0, g.myrow);
            ny = g.mycol == holder ? ozb_bc_count(&yw.r, yw.r0 + leny, g.myrow) - r0 : 0;
            if (ny > 0) yl = Y ? Y + r0 + ozb_bc_local(&yw.c, yw.c0) * yw.lld : NULL;
        }
        if (ny > 0 && !yl) err = 1;
        /* A and x where this process holds part of them */
        const ozb_bc1 ar = ozb_desc_rows(da, g.nprow), ac = ozb_desc_cols(da, g.npcol);
        if (!A && ozb_bc_count(&ar, ia - 1 + m, g.myrow) > ozb_bc_count(&ar, ia - 1, g.myrow) &&
            ozb_bc_count(&ac, ja - 1 + n, g.mycol) > ozb_bc_count(&ac, ja - 1, g.mycol))
            err = 1;
        const ozb_bc1 xr_ = ozb_desc_rows(dx, g.nprow), xc_ = ozb_desc_cols(dx, g.npcol);
        const int64_t xm_ = xrow ? 1 : lenx, xn_ = xrow ? lenx : 1;
        if (!X && ozb_bc_count(&xr_, ix - 1 + xm_, g.myrow) > ozb_bc_count(&xr_, ix - 1, g.myrow) &&
            ozb_bc_count(&xc_, jx - 1 + xn_, g.mycol) > ozb_bc_count(&xc_, jx - 1, g.mycol))
            err = 1;
    }
    const ozblas_status_t local = cst != OZBLAS_STATUS_SUCCESS ? cst : err ? OZBLAS_STATUS_INVALID_VALUE : OZBLAS_STATUS_SUCCESS;
    const ozblas_status_t ag = ozb_agree(g.comm, key, nk, local);
    if (ag != OZBLAS_STATUS_SUCCESS) return ag;
    if (m == 0 || n == 0) return OZBLAS_STATUS_SUCCESS;     /* BLAS: y untouched */

    const double none = 0.0;
    if (alpha == 0.0) {      /* y := beta y, on its holders (A and x are not read) */
        ozblas_status_t st = OZBLAS_STATUS_SUCCESS;
        if (ny > 0) st = ozblas_dgemv(h, trans, t ? 1 : ny, t ? ny : 1, 0.0, &none, t ? 1 : ny, &none, 1, beta, yl, yinc);
        return ozb_agree_status(g.comm, st);
    }
    const ozb_win aw = { A, da[OZBLAS_DESC_LLD], ozb_desc_rows(da, g.nprow), ozb_desc_cols(da, g.npcol),
                         ia - 1, ja - 1, m, n };
    const ozb_win xw = { X, dx[OZBLAS_DESC_LLD], ozb_desc_rows(dx, g.nprow), ozb_desc_cols(dx, g.npcol),
                         ix - 1, jx - 1, xrow ? 1 : lenx, xrow ? lenx : 1 };
    double *Ab = NULL, *xb = NULL, *yb = NULL;        /* the copies to free */
    const double *Ad = NULL, *xd = NULL;            /* what the call reads: a copy or the local array */
    int64_t lda = 1, ldx = 1;
    ozblas_status_t st = OZBLAS_STATUS_SUCCESS;
    /* correctly rounded configurations: certified sums of each process's own block first */
    if (ozb_dot_exact(key) && isfinite(alpha) && isfinite(beta)) {
        if (ozb_pdgemv_certified(&g, t, alpha, &aw, &xw, xrow, beta, &yw, yrow, holder, Y, &st)) return OZBLAS_STATUS_SUCCESS;
        if (st != OZBLAS_STATUS_SUCCESS) return st;
    }
    if (ozb_elementwise(key)) {
        const ozb_need all = { OZB_NEED_ALL, {1, 0, 1}, 0, 0 };
        const ozb_need one = { OZB_NEED_ONE, {1, 0, 1}, 0, holder };
        /* y's element i: row i of op(A), which is A's row i (N) or column i (T) */
        const ozb_need by_y = { t ? OZB_NEED_J : OZB_NEED_I, yrow ? yw.c : yw.r, yrow ? yw.c0 : yw.r0, 0 };
        st = ozb_redist_gather(&g, &aw, yrow ? one : by_y, yrow ? by_y : one, 1, &Ab, &Ad, &lda);
        if (st == OZBLAS_STATUS_SUCCESS)
            st = ozb_redist_gather(&g, &xw, yrow ? one : all, yrow ? all : one, 1, &xb, &xd, &ldx);
        /* x gathered along a row: its elements ldx apart (1 in a copy) */
        if (st == OZBLAS_STATUS_SUCCESS && ny > 0)
            st = ozblas_dgemv(h, trans, t ? m : ny, t ? ny : n, alpha, Ad, lda, xd, xrow ? ldx : 1, beta, yl, yinc);
        st = ozb_agree_status(g.comm, st);
    } else {
        const ozb_need root = { OZB_NEED_ONE, {1, 0, 1}, 0, 0 };
        const int me0 = g.myrow == 0 && g.mycol == 0;
        st = ozb_redist_gather(&g, &aw, root, root, 1, &Ab, &Ad, &lda);
        if (st == OZBLAS_STATUS_SUCCESS) st = ozb_redist_gather(&g, &xw, root, root, 1, &xb, &xd, &ldx);
        if (st == OZBLAS_STATUS_SUCCESS) st = ozb_redist_output_at_root(&g, &yw, beta != 0.0, &yb);
        if (st == OZBLAS_STATUS_SUCCESS && me0)
            st = ozblas_dgemv(h, trans, m, n, alpha, Ad, lda, xd, xrow ? ldx : 1, beta, yb, 1);
        st = ozb_agree_status(g.comm, st);
        if (st == OZBLAS_STATUS_SUCCESS) st = ozb_redist_scatter(&g, 0, yb, &yw, Y);
    }
    free(Ab);
    free(xb);
    free(yb);
    return st;
}
