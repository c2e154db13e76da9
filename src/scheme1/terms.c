/* Slice metadata of one side, the term walk of one output element and the per-element sums
 * over ranges of the output (the fixed order or RN(exact)). */
#include "scheme1/s1_internal.h"

int ozb_s1_meta_alloc(ozblas_handle_t h, meta_t *M, int slot_w, int slot_n, int64_t R, int64_t nkk, int cap)
{
    M->R = R;
    M->cap = cap;
    M->w = ozb_buf_get(h, slot_w, sizeof(int32_t) * (size_t)nkk * (size_t)(cap + 1) * (size_t)R);
    void *nf = ozb_buf_get(h, slot_n, (sizeof(int32_t) + 1) * (size_t)nkk * (size_t)R + 64);
    if (!M->w || !nf) return 0;
    M->ns = nf;
    M->flag = (uint8_t *)(M->ns + nkk * R);
    return 1;
}

void ozb_s1_bind(ozb_slices *sl, double *buf, const meta_t *M, int64_t kk, int64_t roff)
{
    sl->cap = M->cap;
    sl->slice = buf;
    sl->w = M->w + kk * (int64_t)(M->cap + 1) * M->R + roff;
    sl->wstride = M->R;
    sl->ns = M->ns + kk * M->R + roff;
    sl->flag = M->flag + kk * M->R + roff;
}

/* The split of either side: the format's bits, at most the FIXED split count (0: until exact) */
ozb_split_params ozb_s1_params_of(const ctx_t *c)
{
    ozb_split_params p = {c->beta_bits, c->cfg.limit};
    return p;
}

/* Pairs t + u <= dmax - 1 the GEMMs must cover (0: all): FIXED's fast mode takes d = the
 * split count for every element. */
int ozb_s1_block_dmax(const ctx_t *c)
{
    return c->cfg.fast ? c->cfg.dfixed : 0;
}



/* Gathers the terms of element (ia of MA, jb of MB) and sums them as the mode says. */
double ozb_s1_element(const ctx_t *c, const meta_t *MA, int64_t ia, const meta_t *MB, int64_t jb,
                      int64_t bkk_base, int bshared, const ploc_t *pl, int64_t il, int64_t jl,
                      int64_t gi, int64_t gj, double *TP, int32_t *TE, double *scratch, int64_t *fb)
{
    const ozb_problem *pr = c->pr;
    double *cij = pr->c + gi * pr->crs + gj * pr->ccs;
    const int use_c = pr->beta != 0.0;
    const double cval = use_c ? *cij : 0.0;
    int nonfinite = 0;
    int64_t nterm = 0;
    const int d = c->cfg.fast ? c->cfg.dfixed : 0;       /* pairs t + u <= d - 1; 0: all */
    for (int64_t kk = 0; kk < c->nkb; kk++) {
        const int64_t kB = bshared ? 0 : bkk_base + kk;
        const int32_t *wa = MA->w + kk * (int64_t)(MA->cap + 1) * MA->R + ia;
        const int32_t *wb = MB->w + kB * (int64_t)(MB->cap + 1) * MB->R + jb;
        const int nsa = MA->ns[kk * MA->R + ia], nsb = MB->ns[kB * MB->R + jb];
        const uint8_t fa = MA->flag[kk * MA->R + ia], fb2 = MB->flag[kB * MB->R + jb];
        nonfinite |= (fa | fb2) & OZB_ROW_NONFINITE;
        const double *Pk = pl->P + (size_t)kk * pl->kkstride + il + jl * pl->ldp;
        if (c->level_sum && nsa > 0 && nsb > 0) {
            /* Fixed grid: pair (t,u) has exponent w_0(i) + w_0(j) - (t+u) beta, so the pairs of
             * one level t+u add exactly (format.c: their sum stays far below 2^53). */
            const int nlev = nsa + nsb - 1;
            const int32_t e0 = wa[0] + wb[0];
            for (int L = 0; L < nlev; L++) { TP[nterm + L] = 0.0; TE[nterm + L] = e0 - L * c->beta_bits; }
            for (int t = 0; t < nsa; t++) {
                int un = nsb;
                if (d > 0 && d - t < un) un = d - t;
                for (int u = 0; u < un; u++) TP[nterm + t + u] += Pk[t * pl->mrows + u * pl->ncols * pl->ldp];
            }
            nterm += nlev;
            continue;
        }
        for (int t = 0; t < nsa; t++) {
            int un = nsb;
            if (d > 0 && d - t < un) un = d - t;
            for (int u = 0; u < un; u++) {
                TP[nterm] = Pk[t * pl->mrows + u * pl->ncols * pl->ldp];
                TE[nterm] = wa[(int64_t)t * MA->R] + wb[(int64_t)u * MB->R];
                nterm++;
            }
        }
    }
    if (nonfinite || !isfinite(pr->alpha) || (use_c && (!isfinite(pr->beta) || !isfinite(cval)))) {
        int sclass = nonfinite ? ozb_dot_class(&pr->a, gi, &pr->b, gj, pr->k) : OZB_CLASS_FINITE;
        /* alpha = +-Inf: the exact sign of S (the slices' sum is exact only in
         * CORRECTLY_ROUNDED: FIXED's inexact S times Inf would give NaN for S != 0) */
        int ssign = (sclass == OZB_CLASS_FINITE && isinf(pr->alpha)) ? ozb_dot_sign(&pr->a, gi, &pr->b, gj, pr->k) : 0;
        int fin;
        double r = ozb_special_combine(pr->alpha, sclass, ssign, pr->beta, cval, use_c, &fin);
        return fin ? ozb_sum_exact(TP, TE, nterm, pr->alpha, pr->beta, cval, use_c) : r;
    }
    if (c->cfg.summation == OZBLAS_SUM_NEARSUM)
        return ozb_sum_nearest(TP, TE, nterm, pr->alpha, pr->beta, cval, use_c, scratch, fb);
    return ozb_sum_double(TP, TE, nterm, pr->alpha, pr->beta, cval, use_c);
}



size_t ozb_s1_terms_bytes(int64_t maxterms)
{
    return (((size_t)maxterms * (3 * sizeof(double) + sizeof(int32_t)) + 4 * sizeof(double)) + 127) & ~(size_t)63;
}

/* The handle's term buffers for nt threads (NULL on allocation failure). */
char *ozb_s1_terms_alloc(ozblas_handle_t h, int64_t maxterms, int nt)
{
    return ozb_buf_get(h, OZB_BUF_TERMS, ozb_s1_terms_bytes(maxterms) * (size_t)nt);
}

/* The calling thread's share of ozb_s1_terms_alloc's buffer. */
terms_t ozb_s1_thread_terms(char *tbuf, int64_t maxterms)
{
    terms_t t;
    t.P = (double *)(tbuf + ozb_s1_terms_bytes(maxterms) * (size_t)omp_get_thread_num());
    t.scratch = t.P + maxterms;
    t.E = (int32_t *)(t.scratch + 2 * maxterms + 4);
    return t;
}

/* Sums every element (i, j) of an mcount x ncount range in parallel; each element's
 * computation is sequential and fixed, so the thread count does not matter. */
int ozb_s1_sum_range(ctx_t *c, const meta_t *MA, const meta_t *MB, int64_t i0, int64_t mcount,
                     int64_t j0, int64_t ncount, int64_t mb_units, const ploc_t *pl_tile,
                     const double *Punits, size_t unit_stride, int bshared)
{
    const int64_t maxterms = c->nkb * (int64_t)c->capA * c->capB;
    char *tbuf = ozb_s1_terms_alloc(c->h, maxterms, c->nt);
    if (!tbuf) return 0;
    const int64_t ntile = mcount * ncount;
    int64_t fallbacks = 0;
    OZB_PARALLEL_IF(c->nt > 1 && ntile * maxterms >= 4096, num_threads(c->nt) reduction(+:fallbacks),
    {
        const terms_t tt = ozb_s1_thread_terms(tbuf, maxterms);
        double *TP = tt.P, *scratch = tt.scratch;
        int32_t *TE = tt.E;
        OZB_PRAGMA(omp for schedule(static))
        for (int64_t e = 0; e < ntile; e++) {
            const int64_t j = e / mcount, i = e % mcount;
            if (mb_units) {            /* units layout: A meta rows are global, P per m-block */
                const int64_t gi = i0 + i, mblk = gi / mb_units;
                ploc_t pl = *pl_tile;
                pl.P = Punits + (size_t)mblk * (size_t)c->nkb * unit_stride;
                pl.mrows = (mblk + 1) * mb_units <= c->pr->m ? mb_units : c->pr->m - mblk * mb_units;
                *(c->pr->c + gi * c->pr->crs + (j0 + j) * c->pr->ccs) =
                    ozb_s1_element(c, MA, gi, MB, j, mblk * c->nkb, bshared, &pl, gi - mblk * mb_units, j,
                            gi, j0 + j, TP, TE, scratch, &fallbacks);
            } else {
                *(c->pr->c + (i0 + i) * c->pr->crs + (j0 + j) * c->pr->ccs) =
                    ozb_s1_element(c, MA, i, MB, j, 0, 0, pl_tile, i, j, i0 + i, j0 + j, TP, TE, scratch, &fallbacks);
            }
        }
    });
    c->fallbacks += fallbacks;
    return 1;
}

int ozb_s1_grow(int cap, int need) { return need > 2 * cap ? need : 2 * cap; }
