/* ozblas_pdgemm: the single-node bits on any process grid.
 *
 * Where every element of C is a function of its own row of op(A) and column of op(B) alone
 * (ozb_elementwise: every configuration but FIXED with the CRT's ACCURATE scaling), each process computes the
 * elements of sub(C) it holds with one ozblas_dgemm on the rows of op(A) and the columns of
 * op(B) they need, which it receives in one exchange: the panels SUMMA would broadcast along
 * its process row and column, all of k, so the k-reduction of every element happens in one
 * call in the single-node order (README, "Distributed": bytes moved and the model).  FIXED
 * with the ACCURATE scaling takes each row's scale from the whole of op(B): computed on
 * process (0, 0) and C sent back to its holders. */
#include "mpi/redist.h"
#include <stdlib.h>
#include <string.h>

static int64_t dbits(double v) { int64_t b; memcpy(&b, &v, sizeof b); return b; }

ozblas_status_t ozblas_pdgemm(ozblas_handle_t h, ozblas_operation_t transa, ozblas_operation_t transb,
                              int64_t m, int64_t n, int64_t k, double alpha,
                              const double *A, int64_t ia, int64_t ja, const int *raw_a,
                              const double *B, int64_t ib, int64_t jb, const int *raw_b,
                              double beta, double *C, int64_t ic, int64_t jc, const int *raw_c)
{
    if (!raw_c) return OZBLAS_STATUS_INVALID_VALUE;
    /* descriptors in type-1 form (PBLAS's type 2 with whole first blocks too) */
    int da[9], db[9], dc[9];
    const int dnorm = ozb_desc_norm(raw_a, da) & ozb_desc_norm(raw_b, db) & ozb_desc_norm(raw_c, dc);
    const int ctxt = dc[OZBLAS_DESC_CTXT];
    ozb_pgrid g;
    const int in = ozb_pgrid_get(ctxt, &g);
    if (in == 0) return OZBLAS_STATUS_INVALID_VALUE;     /* not a process of this grid */
    if (in < 0) return OZBLAS_STATUS_EXECUTION_FAILED;

    /* ---- arguments, checked here and agreed by all ---- */
    const int ta = transa != OZBLAS_OP_N, tb = transb != OZBLAS_OP_N;
    const int64_t arows = ta ? k : m, acols = ta ? m : k, brows = tb ? n : k, bcols = tb ? k : n;
    int err = 0;
    int64_t key[48] = { 0 };
    int nk = 0;
    const ozblas_status_t cst = ozb_config_key(h, key);
    if (cst != OZBLAS_STATUS_SUCCESS || !dnorm) err = 1;
    nk = 6;
    if ((transa != OZBLAS_OP_N && transa != OZBLAS_OP_T) || (transb != OZBLAS_OP_N && transb != OZBLAS_OP_T)) err = 1;
    if (m < 0 || n < 0 || k < 0) err = 1;
    if (!err && (!ozb_desc_ok(da, ctxt, &g, ia, ja, arows, acols) || !ozb_desc_ok(db, ctxt, &g, ib, jb, brows, bcols) ||
                 !ozb_desc_ok(dc, ctxt, &g, ic, jc, m, n)))
        err = 1;
    const int64_t fixed[] = { transa, transb, m, n, k, ia, ja, ib, jb, ic, jc, dbits(alpha), dbits(beta) };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) key[nk++] = fixed[i];
    for (int d = 0; d < 3; d++) {
        const int *desc = d == 0 ? da : d == 1 ? db : dc;
        /* CTXT and LLD are local: context numbers differ between processes of one grid */
        for (int i = 0; i < OZBLAS_DESC_LLD; i++) key[nk++] = i == OZBLAS_DESC_CTXT ? 0 : desc[i];
    }
    /* this process's part of sub(C) and the local arrays it reads */
    ozb_win cw = { C, 0, {1, 0, 1}, {1, 0, 1}, ic - 1, jc - 1, m, n };
    int64_t lr0 = 0, lc0 = 0, mloc = 0, nloc = 0;
    if (!err) {
        cw.lld = dc[OZBLAS_DESC_LLD];
        cw.r = ozb_desc_rows(dc, g.nprow);
        cw.c = ozb_desc_cols(dc, g.npcol);
        lr0 = ozb_bc_count(&cw.r, cw.r0, g.myrow);
        lc0 = ozb_bc_count(&cw.c, cw.c0, g.mycol);
        mloc = ozb_bc_count(&cw.r, cw.r0 + m, g.myrow) - lr0;
        nloc = ozb_bc_count(&cw.c, cw.c0 + n, g.mycol) - lc0;
        if (mloc > 0 && nloc > 0 && !C) err = 1;
        const ozb_bc1 ar = ozb_desc_rows(da, g.nprow), ac = ozb_desc_cols(da, g.npcol);
        const ozb_bc1 br = ozb_desc_rows(db, g.nprow), bc = ozb_desc_cols(db, g.npcol);
        if (!A && ozb_bc_count(&ar, ia - 1 + arows, g.myrow) > ozb_bc_count(&ar, ia - 1, g.myrow) &&
            ozb_bc_count(&ac, ja - 1 + acols, g.mycol) > ozb_bc_count(&ac, ja - 1, g.mycol))
            err = 1;
        if (!B && ozb_bc_count(&br, ib - 1 + brows, g.myrow) > ozb_bc_count(&br, ib - 1, g.myrow) &&
            ozb_bc_count(&bc, jb - 1 + bcols, g.mycol) > ozb_bc_count(&bc, jb - 1, g.mycol))
            err = 1;
    }
    const ozblas_status_t local = cst != OZBLAS_STATUS_SUCCESS ? cst : err ? OZBLAS_STATUS_INVALID_VALUE : OZBLAS_STATUS_SUCCESS;
    const ozblas_status_t ag = ozb_agree(g.comm, key, nk, local);
    if (ag != OZBLAS_STATUS_SUCCESS) return ag;
    if (m == 0 || n == 0) return OZBLAS_STATUS_SUCCESS;

    double *Cl = C + lr0 + lc0 * cw.lld;
    const double none = 0.0;
    /* C := beta C: A and B are not read, every element on its own holder */
    if (alpha == 0.0 || k == 0) {
        ozblas_status_t st = OZBLAS_STATUS_SUCCESS;
        if (mloc > 0 && nloc > 0)
            st = ozblas_dgemm(h, transa, transb, mloc, nloc, k, alpha, &none, ta ? (k > 1 ? k : 1) : mloc, &none,
                              tb ? nloc : (k > 1 ? k : 1), beta, Cl, cw.lld);
        return ozb_agree_status(g.comm, st);
    }
    const ozb_win aw = { A, da[OZBLAS_DESC_LLD], ozb_desc_rows(da, g.nprow), ozb_desc_cols(da, g.npcol),
                         ia - 1, ja - 1, arows, acols };
    const ozb_win bw = { B, db[OZBLAS_DESC_LLD], ozb_desc_rows(db, g.nprow), ozb_desc_cols(db, g.npcol),
                         ib - 1, jb - 1, brows, bcols };
    double *Ab = NULL, *Bb = NULL, *Cb = NULL;      /* the copies to free */
    const double *Ad = NULL, *Bd = NULL;            /* what the call reads: a copy or the local array */
    int64_t lda = 1, ldb = 1;
    ozblas_status_t st;
    if (ozb_elementwise(key)) {
        /* op(A)'s rows of this process row of C, op(B)'s columns of its process column */
        const ozb_need all = { OZB_NEED_ALL, {1, 0, 1}, 0, 0 };
        const ozb_need a_r = { ta ? OZB_NEED_J : OZB_NEED_I, cw.r, cw.r0, 0 };
        const ozb_need b_c = { tb ? OZB_NEED_I : OZB_NEED_J, cw.c, cw.c0, 0 };
        st = ozb_redist_gather(&g, &aw, a_r, all, 1, &Ab, &Ad, &lda);
        if (st == OZBLAS_STATUS_SUCCESS) st = ozb_redist_gather(&g, &bw, all, b_c, 1, &Bb, &Bd, &ldb);
        if (st == OZBLAS_STATUS_SUCCESS && mloc > 0 && nloc > 0)
            st = ozblas_dgemm(h, transa, transb, mloc, nloc, k, alpha, Ad, lda, Bd, ldb, beta, Cl, cw.lld);
        st = ozb_agree_status(g.comm, st);
    } else {
        /* everything on process (0, 0), which computes the single-node call itself */
        const ozb_need root = { OZB_NEED_ONE, {1, 0, 1}, 0, 0 };
        const int me0 = g.myrow == 0 && g.mycol == 0;
        st = ozb_redist_gather(&g, &aw, root, root, 1, &Ab, &Ad, &lda);
        if (st == OZBLAS_STATUS_SUCCESS) st = ozb_redist_gather(&g, &bw, root, root, 1, &Bb, &Bd, &ldb);
        /* C: a copy always (the call writes it, then it is sent back) */
        if (st == OZBLAS_STATUS_SUCCESS) st = ozb_redist_output_at_root(&g, &cw, beta != 0.0, &Cb);
        if (st == OZBLAS_STATUS_SUCCESS && me0)
            st = ozblas_dgemm(h, transa, transb, m, n, k, alpha, Ad, lda, Bd, ldb, beta, Cb, m > 1 ? m : 1);
        st = ozb_agree_status(g.comm, st);
        if (st == OZBLAS_STATUS_SUCCESS) st = ozb_redist_scatter(&g, 0, Cb, &cw, C);
    }
    free(Ab);
    free(Bb);
    free(Cb);
    return st;
}
