/* Window exchanges over a process grid (redist.h).
 *
 * Order: a sender walks its local part of the window column by column, row by row, which is
 * increasing global order (a local index grows with the global one); a receiver walks the
 * part it needs in the same global order and takes each element from the next place of the
 * segment of the process that holds it.  Both restrict one order to the same elements, so
 * nothing but the counts needs to be exchanged. */
#include "mpi/redist.h"
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* errors agreed before any exchange: 0 ok, 1 out of memory, 2 beyond an int count */
static ozblas_status_t agree_err(MPI_Comm comm, int err)
{
    int r = 0;
    MPI_Allreduce(&err, &r, 1, MPI_INT, MPI_MAX, comm);
    return r == 0 ? OZBLAS_STATUS_SUCCESS : r == 1 ? OZBLAS_STATUS_ALLOC_FAILED : OZBLAS_STATUS_NOT_SUPPORTED;
}

/* the process of one grid dimension that index x of the window's rows (is_row) or columns
 * needs, by this need: >= 0 that one, -1 any (not keyed on this index) */
static int keyed(const ozb_need *n, int is_row, int64_t x)
{
    if (n->kind == (is_row ? OZB_NEED_I : OZB_NEED_J)) return ozb_bc_owner(&n->lay, n->off + x);
    return -1;
}

/* does this process (coordinate me in the need's dimension) need index x at all */
static int wanted(const ozb_need *n, int is_row, int64_t x, int me)
{
    const int t = keyed(n, is_row, x);
    return t < 0 || t == me;
}

ozblas_status_t ozb_redist_gather(const ozb_pgrid *g, const ozb_win *w, ozb_need need_r, ozb_need need_c, int allow_view,
                                  double **own, const double **data, int64_t *ld)
{
    const int P = g->nprow * g->npcol, me = g->myrow * g->npcol + g->mycol;
    *own = NULL;
    *data = NULL;
    *ld = 1;
    /* ---- what this process needs: selected rows and columns, and who holds them ---- */
    const int none = (need_r.kind == OZB_NEED_ONE && need_r.one != g->myrow) ||
                     (need_c.kind == OZB_NEED_ONE && need_c.one != g->mycol);
    int64_t *selr = malloc(sizeof(int64_t) * (size_t)(w->M + 1)), *selc = malloc(sizeof(int64_t) * (size_t)(w->N + 1));
    int *scount = calloc((size_t)P, sizeof(int)), *sdispl = calloc((size_t)P, sizeof(int));
    int *rcount = calloc((size_t)P, sizeof(int)), *rdispl = calloc((size_t)P, sizeof(int));
    int64_t *cntr = calloc((size_t)g->nprow, sizeof(int64_t)), *cntc = calloc((size_t)g->npcol, sizeof(int64_t));
    int64_t *cur = calloc((size_t)P, sizeof(int64_t));
    /* this process's part of the window: local rows lr0..lr1-1, columns lc0..lc1-1 */
    const int64_t lr0 = ozb_bc_count(&w->r, w->r0, g->myrow), lr1 = ozb_bc_count(&w->r, w->r0 + w->M, g->myrow);
    const int64_t lc0 = ozb_bc_count(&w->c, w->c0, g->mycol), lc1 = ozb_bc_count(&w->c, w->c0 + w->N, g->mycol);
    const int64_t nlr = lr1 - lr0, nlc = lc1 - lc0;
    /* per local row / column: the process row and column it goes to where keyed on it */
    int *tr_r = malloc(sizeof(int) * (size_t)(nlr + 1)), *tc_r = malloc(sizeof(int) * (size_t)(nlr + 1));
    int *tc_c = malloc(sizeof(int) * (size_t)(nlc + 1));
    /* tr_c: per local column, then (unpacking) per run of selected rows; runs: their starts */
    int *tr_c = malloc(sizeof(int) * (size_t)((nlc > w->M ? nlc : w->M) + 1));
    int64_t *runs = malloc(sizeof(int64_t) * (size_t)((nlr > w->M ? nlr : w->M) + 2));
    int err = !(selr && selc && scount && sdispl && rcount && rdispl && cntr && cntc && cur && tr_r && tc_r && tr_c && tc_c && runs);
    int64_t nr = 0, nc = 0, stotal = 0, rtotal = 0, nruns = 0;
    int view = 0;
    if (!err) {
        if (!none) {
            for (int64_t i = 0; i < w->M; i++)
                if (wanted(&need_r, 1, i, g->myrow) && wanted(&need_c, 1, i, g->mycol)) selr[nr++] = i;
            for (int64_t j = 0; j < w->N; j++)
                if (wanted(&need_r, 0, j, g->myrow) && wanted(&need_c, 0, j, g->mycol)) selc[nc++] = j;
        }
        for (int64_t a = 0; a < nr; a++) cntr[ozb_bc_owner(&w->r, w->r0 + selr[a])]++;
        for (int64_t b = 0; b < nc; b++) cntc[ozb_bc_owner(&w->c, w->c0 + selc[b])]++;
        /* all this process needs is its own part of the window, whole: it reads it in place
         * (one process; the undivided dimension of a 1-D grid) and sends nothing to itself */
        view = allow_view && nr > 0 && nc > 0 && nr == nlr && nc == nlc && cntr[g->myrow] == nr && cntc[g->mycol] == nc;
        for (int pr = 0; pr < g->nprow; pr++)
            for (int pc = 0; pc < g->npcol; pc++) {
                const int64_t c = view && pr * g->npcol + pc == me ? 0 : cntr[pr] * cntc[pc];
                if (c > INT_MAX || rtotal + c > INT_MAX) err = 2;
                else { rdispl[pr * g->npcol + pc] = (int)rtotal; rcount[pr * g->npcol + pc] = (int)c; rtotal += c; }
            }
        /* what goes where: the targets of a local row (keyed on i) and column (keyed on j);
         * need ONE is a constant target, ALL none (-1: every process of that dimension) */
        for (int64_t a = 0; a < nlr; a++) {
            const int64_t i = ozb_bc_global(&w->r, lr0 + a, g->myrow) - w->r0;
            tr_r[a] = keyed(&need_r, 1, i);
            tc_r[a] = keyed(&need_c, 1, i);
        }
        for (int64_t b = 0; b < nlc; b++) {
            const int64_t j = ozb_bc_global(&w->c, lc0 + b, g->mycol) - w->c0;
            tr_c[b] = need_r.kind == OZB_NEED_ONE ? need_r.one : keyed(&need_r, 0, j);
            tc_c[b] = need_c.kind == OZB_NEED_ONE ? need_c.one : keyed(&need_c, 0, j);
        }
        /* runs of local rows with the same targets (blocks of the layouts): counted and
         * copied whole.  Compacted in place: a run's start is never after the row read. */
        for (int64_t a = 0; a < nlr; a++)
            if (a == 0 || tr_r[a] != tr_r[a - 1] || tc_r[a] != tc_r[a - 1]) tr_r[nruns] = tr_r[a], tc_r[nruns] = tc_r[a], runs[nruns++] = a;
        runs[nruns] = nlr;
        int64_t *sc = cur;   /* counts first */
        for (int64_t b = 0; b < nlc; b++)
            for (int64_t u = 0; u < nruns; u++) {
                const int pr = tr_r[u] >= 0 ? tr_r[u] : tr_c[b], pc = tc_r[u] >= 0 ? tc_r[u] : tc_c[b];
                const int64_t len = runs[u + 1] - runs[u];
                for (int q = pr >= 0 ? pr : 0; q < (pr >= 0 ? pr + 1 : g->nprow); q++)
                    for (int t = pc >= 0 ? pc : 0; t < (pc >= 0 ? pc + 1 : g->npcol); t++) sc[q * g->npcol + t] += len;
            }
        if (view) sc[me] = 0;
        for (int s = 0; s < P; s++) {
            if (sc[s] > INT_MAX || stotal + sc[s] > INT_MAX) { err = 2; break; }
            sdispl[s] = (int)stotal;
            scount[s] = (int)sc[s];
            stotal += sc[s];
        }
    }
    double *sbuf = err ? NULL : malloc(sizeof(double) * (size_t)(stotal + 1));
    double *rbuf = err ? NULL : malloc(sizeof(double) * (size_t)(rtotal + 1));
    double *out = err || view ? NULL : malloc(sizeof(double) * (size_t)(nr * nc + 1));
    if (!err && !(sbuf && rbuf && (out || view))) err = 1;
    ozblas_status_t st = agree_err(g->comm, err);
    if (st == OZBLAS_STATUS_SUCCESS) {
        for (int s = 0; s < P; s++) cur[s] = sdispl[s];
        for (int64_t b = 0; b < nlc; b++) {
            const double *col = w->p + (lc0 + b) * w->lld + lr0;
            for (int64_t u = 0; u < nruns; u++) {
                const int pr = tr_r[u] >= 0 ? tr_r[u] : tr_c[b], pc = tc_r[u] >= 0 ? tc_r[u] : tc_c[b];
                const int64_t a0 = runs[u], len = runs[u + 1] - a0;
                for (int q = pr >= 0 ? pr : 0; q < (pr >= 0 ? pr + 1 : g->nprow); q++)
                    for (int t = pc >= 0 ? pc : 0; t < (pc >= 0 ? pc + 1 : g->npcol); t++) {
                        if (view && q * g->npcol + t == me) continue;
                        int64_t *c = &cur[q * g->npcol + t];
                        memcpy(sbuf + *c, col + a0, sizeof(double) * (size_t)len);
                        *c += len;
                    }
            }
        }
        MPI_Alltoallv(sbuf, scount, sdispl, MPI_DOUBLE, rbuf, rcount, rdispl, MPI_DOUBLE, g->comm);
        /* runs of selected rows held by one process row, copied whole */
        int64_t nrr = 0;
        for (int64_t a = 0; a < nr; a++) {
            const int pr = ozb_bc_owner(&w->r, w->r0 + selr[a]);
            if (a == 0 || pr != tr_c[nrr - 1] || selr[a] != selr[a - 1] + 1) tr_c[nrr] = pr, runs[nrr++] = a;
        }
        runs[nrr] = nr;
        for (int s = 0; s < P; s++) cur[s] = rdispl[s];
        for (int64_t b = 0; b < nc && !view; b++) {
            const int pc = ozb_bc_owner(&w->c, w->c0 + selc[b]);
            double *o = out + b * (nr > 1 ? nr : 1);
            for (int64_t u = 0; u < nrr; u++) {
                int64_t *c = &cur[tr_c[u] * g->npcol + pc];
                const int64_t len = runs[u + 1] - runs[u];
                memcpy(o + runs[u], rbuf + *c, sizeof(double) * (size_t)len);
                *c += len;
            }
        }
        if (view) {
            *data = w->p + lr0 + lc0 * w->lld;
            *ld = w->lld;
        } else {
            *own = out;
            *data = out;
            *ld = nr > 1 ? nr : 1;
            out = NULL;
        }
    }
    free(out); free(sbuf); free(rbuf);
    free(selr); free(selc); free(scount); free(sdispl); free(rcount); free(rdispl);
    free(cntr); free(cntc); free(cur); free(tr_r); free(tc_r); free(tr_c); free(tc_c); free(runs);
    return st;
}

ozblas_status_t ozb_redist_output_at_root(const ozb_pgrid *g, const ozb_win *w, int read, double **out)
{
    const ozb_need root = { OZB_NEED_ONE, {1, 0, 1}, 0, 0 };
    *out = NULL;
    if (read) {
        const double *data;
        int64_t ld;
        return ozb_redist_gather(g, w, root, root, 0, out, &data, &ld);
    }
    if (g->myrow != 0 || g->mycol != 0) return OZBLAS_STATUS_SUCCESS;
    *out = malloc(sizeof(double) * (size_t)(w->M * w->N + 1));
    return *out ? OZBLAS_STATUS_SUCCESS : OZBLAS_STATUS_ALLOC_FAILED;
}

ozblas_status_t ozb_redist_scatter(const ozb_pgrid *g, int root, const double *full, const ozb_win *w, double *out)
{
    const int P = g->nprow * g->npcol, me = g->myrow * g->npcol + g->mycol;
    const int64_t lr0 = ozb_bc_count(&w->r, w->r0, g->myrow), lr1 = ozb_bc_count(&w->r, w->r0 + w->M, g->myrow);
    const int64_t lc0 = ozb_bc_count(&w->c, w->c0, g->mycol), lc1 = ozb_bc_count(&w->c, w->c0 + w->N, g->mycol);
    const int64_t mine = (lr1 - lr0) * (lc1 - lc0);
    int *scount = calloc((size_t)P, sizeof(int)), *sdispl = calloc((size_t)P, sizeof(int));
    int *rcount = calloc((size_t)P, sizeof(int)), *rdispl = calloc((size_t)P, sizeof(int));
    int64_t *cur = calloc((size_t)P, sizeof(int64_t));
    int err = !(scount && sdispl && rcount && rdispl && cur);
    if (mine > INT_MAX) err = 2;
    if (!err) rcount[root] = (int)mine;
    int64_t total = 0;
    if (!err && me == root) {
        for (int pr = 0; pr < g->nprow && !err; pr++)
            for (int pc = 0; pc < g->npcol; pc++) {
                const int64_t c = (ozb_bc_count(&w->r, w->r0 + w->M, pr) - ozb_bc_count(&w->r, w->r0, pr)) *
                                  (ozb_bc_count(&w->c, w->c0 + w->N, pc) - ozb_bc_count(&w->c, w->c0, pc));
                if (total + c > INT_MAX) { err = 2; break; }
                sdispl[pr * g->npcol + pc] = (int)total;
                scount[pr * g->npcol + pc] = (int)c;
                total += c;
            }
    }
    double *sbuf = err ? NULL : malloc(sizeof(double) * (size_t)(total + 1));
    double *rbuf = err ? NULL : malloc(sizeof(double) * (size_t)(mine + 1));
    if (!err && !(sbuf && rbuf)) err = 1;
    ozblas_status_t st = agree_err(g->comm, err);
    if (st == OZBLAS_STATUS_SUCCESS) {
        if (me == root) {
            for (int s = 0; s < P; s++) cur[s] = sdispl[s];
            const int64_t ld = w->M > 1 ? w->M : 1;
            for (int64_t j = 0; j < w->N; j++) {
                const int pc = ozb_bc_owner(&w->c, w->c0 + j);
                for (int64_t i = 0; i < w->M; i++)
                    sbuf[cur[ozb_bc_owner(&w->r, w->r0 + i) * g->npcol + pc]++] = full[i + j * ld];
            }
        }
        MPI_Alltoallv(sbuf, scount, sdispl, MPI_DOUBLE, rbuf, rcount, rdispl, MPI_DOUBLE, g->comm);
        int64_t t = 0;
        for (int64_t lc = lc0; lc < lc1; lc++)
            for (int64_t lr = lr0; lr < lr1; lr++) out[lr + lc * w->lld] = rbuf[t++];
    }
    free(sbuf); free(rbuf); free(scount); free(sdispl); free(rcount); free(rdispl); free(cur);
    return st;
}
