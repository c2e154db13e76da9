/* PDGEMV for the correctly rounded configurations without moving the matrix (pdgemv.c
 * tries it first): each process sums its own block of op(A) against the part of x it needs
 * (the only exchange of operands: O(n) per process) by the error-free DOT kernels of the
 * correctly rounded DDOT (ozb_eft_dot_parts: S + C + D, |D| <= B), one sum per row of op(A)
 * it holds; the (S, C, B) of every row go to the process that holds that element of y, which
 * adds alpha S and alpha C of every process and beta y exactly into a long accumulator T,
 * |alpha| B into E, and takes RN(T - E) where it has the bits of RN(T + E) (RN is monotone:
 * then it is RN of the exact element).  Only where every element of y is so decided and every
 * sum was in the kernels' range (agreed by all processes) is y written; otherwise nothing is
 * and the call is computed by moving rows of op(A) (pdgemv.c): ties across processes, Inf or
 * NaN, results below about 2^-990. */
#include "mpi/pdgemv_cert.h"
#include "eft/ozblas_parts.h"   /* the library's internal interface (fpenv, TwoProduct, the long accumulator) */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* index i of y (0-based in the window): its holder, and the processes that sum its row */
static int holder_of(const ozb_pgrid *g, const ozb_win *yw, int yrow, int holder, int64_t i)
{
    return yrow ? holder * g->npcol + ozb_bc_owner(&yw->c, yw->c0 + i) : ozb_bc_owner(&yw->r, yw->r0 + i) * g->npcol + holder;
}

/* element le (local index) of y held here: along a row of Y's matrix or down a column */
static double *y_at(const ozb_win *yw, int yrow, double *Y, int64_t le)
{
    return yrow ? Y + ozb_bc_local(&yw->r, yw->r0) + le * yw->lld : Y + le + ozb_bc_local(&yw->c, yw->c0) * yw->lld;
}

int ozb_pdgemv_certified(const ozb_pgrid *g, int t, double alpha, const ozb_win *aw, const ozb_win *xw, int xrow, double beta,
                         const ozb_win *yw, int yrow, int holder, double *Y, ozblas_status_t *st)
{
    const int P = g->nprow * g->npcol;
    *st = OZBLAS_STATUS_SUCCESS;
    /* this process's block of the window of A: local rows lr0.., columns lc0.. */
    const int64_t lr0 = ozb_bc_count(&aw->r, aw->r0, g->myrow), nlr = ozb_bc_count(&aw->r, aw->r0 + aw->M, g->myrow) - lr0;
    const int64_t lc0 = ozb_bc_count(&aw->c, aw->c0, g->mycol), nlc = ozb_bc_count(&aw->c, aw->c0 + aw->N, g->mycol) - lc0;
    /* x where this process's columns (N) or rows (T) of A need it: x's index l is A's column
     * (row) l, so the need is keyed on x's index through A's layout of that dimension */
    const ozb_need all = { OZB_NEED_ALL, {1, 0, 1}, 0, 0 };
    const ozb_need by_a = { xrow ? OZB_NEED_J : OZB_NEED_I, t ? aw->r : aw->c, t ? aw->r0 : aw->c0, 0 };
    double *xown = NULL;
    const double *xd = NULL;
    int64_t ldx = 1;
    *st = ozb_redist_gather(g, xw, t ? by_a : all, t ? all : by_a, 1, &xown, &xd, &ldx);
    if (*st != OZBLAS_STATUS_SUCCESS) return 0;
    const int64_t xinc = xrow ? ldx : 1;
    /* the sums of the rows of op(A) held here: N, A's local rows; T, its local columns */
    const int64_t nmine = t ? nlc : nlr, len = t ? nlr : nlc;
    double *parts = calloc((size_t)(3 * nmine + 1), sizeof(double));
    int *scount = calloc((size_t)P, sizeof(int)), *sdispl = calloc((size_t)P, sizeof(int));
    int *rcount = calloc((size_t)P, sizeof(int)), *rdispl = calloc((size_t)P, sizeof(int));
    int64_t *cur = calloc((size_t)P, sizeof(int64_t));
    /* y's elements held here (yi: their indices, increasing) */
    const ozb_bc1 *ylay = yrow ? &yw->c : &yw->r;
    const int64_t ny = yrow ? yw->N : yw->M, y0 = yrow ? yw->c0 : yw->r0;
    const int mine_y = yrow ? g->myrow == holder : g->mycol == holder;
    const int yq = yrow ? g->mycol : g->myrow;     /* this process's place along y's layout */
    const int64_t h0 = mine_y ? ozb_bc_count(ylay, y0, yq) : 0;   /* its first held element, local */
    const int64_t nheld = mine_y ? ozb_bc_count(ylay, y0 + ny, yq) - h0 : 0;
    /* A's layout along op(A)'s rows (N: A's rows; T: its columns) */
    const ozb_bc1 *alay = t ? &aw->c : &aw->r;
    const int64_t a0 = t ? aw->c0 : aw->r0;
    /* every process of the row (T: column) of A's grid that holds row i of op(A) sends a sum */
    const int nsrc = t ? g->nprow : g->npcol;
    double *sbuf = malloc(sizeof(double) * (size_t)(3 * nmine + 1)), *rbuf = malloc(sizeof(double) * (size_t)(3 * nheld * nsrc + 1));
    double *res = malloc(sizeof(double) * (size_t)(nheld + 1));
    ozb_longacc *acc = malloc(4 * sizeof *acc);
    double *terms = malloc(sizeof(double) * (size_t)(4 * nsrc + 2));
    int err = !(parts && scount && sdispl && rcount && rdispl && cur && sbuf && rbuf && res && acc && terms);
    if (3 * nmine > INT_MAX || 3 * nheld * nsrc > INT_MAX) err = 1;
    int ok = 1;
    ozb_fpenv_t saved;
    const int changed = ozb_fpenv_enter(&saved);   /* the kernels' environment */
    /* x contiguous (a view of a row vector has its elements ldx apart) */
    double *xc_ = !err && xinc != 1 && len > 0 ? malloc(sizeof(double) * (size_t)len) : NULL;
    if (xc_)
        for (int64_t l = 0; l < len; l++) xc_[l] = xd[l * xinc];
    const double *xv = xc_ ? xc_ : xd;
    if (!err && xinc != 1 && len > 0 && !xc_) err = 1;
    if (!err) {
        if (len == 0)
            for (int64_t q = 0; q < 3 * nmine; q++) parts[q] = 0.0;
        else if (t)     /* T: op(A)'s rows are A's local columns, contiguous: one DOT each */
            for (int64_t q = 0; q < nmine; q++)
                ok &= ozblas_internal_dot_parts(len, aw->p + lr0 + (lc0 + q) * aw->lld, 1, xv, 1, &parts[3 * q],
                                                &parts[3 * q + 1], &parts[3 * q + 2]);
        else            /* N: the GEMV-N kernels stream the block's columns */
            ok = ozblas_internal_gemv_n_parts(nmine, len, aw->p + lr0 + lc0 * aw->lld, aw->lld, xv, parts);
        /* to the holders: counts, then the sums in increasing index order */
        const int myq = t ? g->mycol : g->myrow;
        for (int64_t q = 0; q < nmine; q++)
            scount[holder_of(g, yw, yrow, holder, ozb_bc_global(alay, (t ? lc0 : lr0) + q, myq) - a0)] += 3;
        for (int s = 1; s < P; s++) sdispl[s] = sdispl[s - 1] + scount[s - 1];
        for (int s = 0; s < P; s++) cur[s] = sdispl[s];
        for (int64_t q = 0; q < nmine; q++) {
            const int d = holder_of(g, yw, yrow, holder, ozb_bc_global(alay, (t ? lc0 : lr0) + q, myq) - a0);
            memcpy(sbuf + cur[d], parts + 3 * q, 3 * sizeof(double));
            cur[d] += 3;
        }
        /* from the processes that sum each held index: the grid row (N) or column (T) of
         * A's layout holding that row of op(A) */
        for (int64_t e = 0; e < nheld; e++) {
            const int64_t i = ozb_bc_global(ylay, h0 + e, yq) - y0;
            const int p = ozb_bc_owner(alay, a0 + i);
            for (int q = 0; q < nsrc; q++) rcount[t ? q * g->npcol + p : p * g->npcol + q] += 3;
        }
        for (int s = 1; s < P; s++) rdispl[s] = rdispl[s - 1] + rcount[s - 1];
    }
    int agreed = 0, flag = !err;
    MPI_Allreduce(&flag, &agreed, 1, MPI_INT, MPI_MIN, g->comm);
    if (agreed) {
        MPI_Alltoallv(sbuf, scount, sdispl, MPI_DOUBLE, rbuf, rcount, rdispl, MPI_DOUBLE, g->comm);
        for (int s = 0; s < P; s++) cur[s] = rdispl[s];
        for (int64_t e = 0; e < nheld && ok; e++) {
            const int64_t i = ozb_bc_global(ylay, h0 + e, yq) - y0;
            const double *yp = y_at(yw, yrow, Y, h0 + e);
            const int p = ozb_bc_owner(alay, a0 + i);
            /* first Sum2 over alpha S, alpha C (TwoProduct: exact) of every process and beta y,
             * with |alpha| sum B (and a margin for its rounding, far above nsrc u) beyond */
            int m2 = 0, exact = 1;
            double ext = 0.0;
            for (int q = 0; q < nsrc && exact; q++) {
                const int s = t ? q * g->npcol + p : p * g->npcol + q;
                const double *tr = rbuf + cur[s];
                exact = ozb_two_product(alpha, tr[0], &terms[m2], &terms[m2 + 1]) &&
                        ozb_two_product(alpha, tr[1], &terms[m2 + 2], &terms[m2 + 3]);
                m2 += 4;
                ext += tr[2];
            }
            if (exact && beta != 0.0) {
                exact = isfinite(*yp) && ozb_two_product(beta, *yp, &terms[m2], &terms[m2 + 1]);
                m2 += 2;
            }
            double quick = 0.0, extra = fabs(alpha) * ext * (1.0 + 0x1p-40);
            /* a nonzero bound that underflows would certify a tiny exact value as +0: never
             * below 2^-1000 (as the single-node certificate, ozb_eft_finish) */
            if (ext > 0.0 && extra < 0x1p-1000) extra = 0x1p-1000;
            if (exact && ozblas_internal_sum2_certify(terms, m2, extra, &quick)) {
                for (int q = 0; q < nsrc; q++) cur[t ? q * g->npcol + p : p * g->npcol + q] += 3;
                res[e] = quick;
                continue;
            }
            /* else exactly: lo: T, then T - E; hi: T + E; the bounds gathered apart in ep (+) and em (-) */
            ozb_longacc *lo = acc, *hi = acc + 1, *ep = acc + 2, *em = acc + 3;
            ozb_op_la_init(lo);
            ozb_op_la_init(ep);
            ozb_op_la_init(em);
            for (int q = 0; q < nsrc; q++) {
                const int s = t ? q * g->npcol + p : p * g->npcol + q;
                const double *tr = rbuf + cur[s];
                cur[s] += 3;
                if (tr[0] != 0.0) ozb_op_la_add_product(lo, alpha, tr[0]);
                if (tr[1] != 0.0) ozb_op_la_add_product(lo, alpha, tr[1]);
                if (tr[2] != 0.0) {
                    ozb_op_la_add_product(ep, fabs(alpha), tr[2]);
                    ozb_op_la_add_product(em, -fabs(alpha), tr[2]);
                }
            }
            if (beta != 0.0) {
                if (!isfinite(*yp)) { ok = 0; break; }
                if (*yp != 0.0) ozb_op_la_add_product(lo, beta, *yp);
            }
            *hi = *lo;
            ozb_op_la_merge(hi, ep);
            ozb_op_la_merge(lo, em);
            int s1, s2;
            const double a = ozb_op_la_round(lo, &s1), b = ozb_op_la_round(hi, &s2);
            uint64_t ba, bb;
            memcpy(&ba, &a, sizeof ba);
            memcpy(&bb, &b, sizeof bb);
            if (ba != bb || !isfinite(a)) ok = 0;
            res[e] = a;
        }
        /* written only where every process decided every element */
        int all_ok = 0;
        MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, g->comm);
        ok = all_ok;
        if (ok)
            for (int64_t e = 0; e < nheld; e++) *y_at(yw, yrow, Y, h0 + e) = res[e];
    } else {
        ok = 0;
        *st = OZBLAS_STATUS_ALLOC_FAILED;
    }
    ozb_fpenv_leave(saved, changed);
    free(xc_); free(xown); free(parts); free(scount); free(sdispl); free(rcount); free(rdispl); free(cur);
    free(sbuf); free(rbuf); free(res); free(acc); free(terms);
    return ok;
}
