/* Ozaki scheme I for one call: the configuration, GEMM-shaped tiles, DOT/GEMV-shaped units. */
#include "core/info.h"
#include "scheme1/s1_internal.h"

/* The configuration of a CORRECTLY_ROUNDED or FIXED call (the modes Scheme I computes:
 * ozb_scheme1_run declines any other). */
run_cfg ozb_s1_config_of(ozblas_handle_t h, ozblas_mode_t mode)
{
    run_cfg c = {0, 0, 0, OZBLAS_SUM_NEARSUM};              /* CORRECTLY_ROUNDED: split until exact, all pairs, NearSum */
    if (mode == OZBLAS_MODE_FIXED) {
        c.limit = h->split_count; c.fast = h->fast_mode; c.dfixed = h->split_count;
        c.summation = h->summation;
    }
    return c;
}

/* GEMM-shaped problems: tiles of mb x nb, B panel split once per column block. */
ozblas_status_t ozb_s1_run_tiles(ctx_t *c, int64_t mb, int64_t nb)
{
    ozblas_handle_t h = c->h;
    const ozb_problem *pr = c->pr;
    const int64_t m = pr->m, n = pr->n, k = pr->k, kb = c->kb, nkb = c->nkb;
    ozblas_info_t *info = &h->info;
    meta_t MA, MB;
    ozb_slices SA, SB;
    int64_t b_ready_j0 = -1;
    int b_ready_cap = 0;
    int lazy_D = 0;
    void *scr = NULL;                      /* the format's scratch (the lazy finish reuses it) */
    for (int64_t j0 = 0; j0 < n; j0 += nb) {
        const int64_t nbb = nb < n - j0 ? nb : n - j0;
        for (int64_t i0 = 0; i0 < m; i0 += mb) {
            const int64_t mbb = mb < m - i0 ? mb : m - i0;
        retry_tile:;
            double *bufB = ozb_buf_get(h, OZB_BUF_SB, sizeof(double) * (size_t)(c->capB + 1) * (size_t)nbb * (size_t)kb);
            double *bufA = ozb_buf_get(h, OZB_BUF_SA, sizeof(double) * (size_t)(c->capA + 1) * (size_t)mbb * (size_t)kb);
            int64_t ldp = mbb * c->capA;
            size_t pblock = (size_t)ldp * (size_t)(nbb * c->capB);
            double *P = NULL;
            if (nkb > 1) P = ozb_buf_get(h, OZB_BUF_P, sizeof(double) * pblock * (size_t)nkb);
            if (!bufA || !bufB || (nkb > 1 && !P) ||
                !ozb_s1_meta_alloc(h, &MB, OZB_BUF_WB, OZB_BUF_NB, nbb, nkb, c->capB) ||
                !ozb_s1_meta_alloc(h, &MA, OZB_BUF_WA, OZB_BUF_NA, mbb, nkb, c->capA))
                return OZBLAS_STATUS_ALLOC_FAILED;
            for (int64_t kk = 0; kk < nkb; kk++) {
                const int64_t l0 = kk * kb, kbb = kb < k - l0 ? kb : k - l0;
                const ozb_split_params prm = ozb_s1_params_of(c);
                double t0 = ozb_now_if(c->timed);
                ozb_s1_bind(&SB, bufB, &MB, kk, 0);
                SB.rows = nbb; SB.kb = kbb;
                if (!(nkb == 1 && b_ready_j0 == j0 && b_ready_cap == c->capB)) {
                    ozb_split(&pr->b, j0, nbb, l0, kbb, &prm, &SB, c->nt);
                    if (SB.need > c->capB) { c->capB = ozb_s1_grow(c->capB, SB.need); b_ready_j0 = -1; goto retry_tile; }
                    if (nkb == 1) { b_ready_j0 = j0; b_ready_cap = c->capB; }
                } else {
                    int s = 0;
                    for (int64_t j = 0; j < nbb; j++) s = SB.ns[j] > s ? SB.ns[j] : s;
                    SB.s = s;
                }
                ozb_s1_bind(&SA, bufA, &MA, kk, 0);
                ozb_split(&pr->a, i0, mbb, l0, kbb, &prm, &SA, c->nt);
                info->seconds_split += ozb_now_if(c->timed) - t0;
                if (SA.need > c->capA) { c->capA = ozb_s1_grow(c->capA, SA.need); goto retry_tile; }
                c->smaxA = SA.s > c->smaxA ? SA.s : c->smaxA;
                c->smaxB = SB.s > c->smaxB ? SB.s : c->smaxB;
                if (nkb == 1) {        /* one k-block: size the products by the slices used */
                    ldp = mbb * (SA.s > 0 ? SA.s : 1);
                    pblock = (size_t)ldp * (size_t)(nbb * (SB.s > 0 ? SB.s : 1));
                    P = ozb_buf_get(h, OZB_BUF_P, sizeof(double) * pblock);
                    if (!P) return OZBLAS_STATUS_ALLOC_FAILED;
                }
                t0 = ozb_now_if(c->timed);
                scr = NULL;
                size_t sb_bytes = c->fmt->scratch_bytes(mbb, nbb, kbb, SA.s, SB.s);
                if (sb_bytes && !(scr = ozb_buf_get(h, OZB_BUF_SCRATCH, sb_bytes))) return OZBLAS_STATUS_ALLOC_FAILED;
                lazy_D = (c->lazy && nkb == 1 && c->dcr < SA.s + SB.s - 1) ? c->dcr : 0;
                if (c->fmt->products(h->dev, &SA, &SB, lazy_D ? lazy_D : ozb_s1_block_dmax(c), P + (size_t)kk * pblock, ldp,
                                     scr, c->nt, &c->pst))
                    return OZBLAS_STATUS_EXECUTION_FAILED;
                info->seconds_multiply += ozb_now_if(c->timed) - t0;
                info->blocks++;
            }
            double t0 = ozb_now_if(c->timed);
            ploc_t pl = {P, pblock, ldp, mbb, nbb};
            /* (the sums take their buffers before they write: a failure there leaves the tile) */
            if (lazy_D) {
                if (!ozb_s1_lazy_tile(c, &MA, &MB, &SA, &SB, P, pblock, ldp, lazy_D, i0, j0, scr)) return OZBLAS_STATUS_ALLOC_FAILED;
                c->wrote = 1;
                if (c->dev_err) return OZBLAS_STATUS_EXECUTION_FAILED;
            } else if (!ozb_s1_sum_range(c, &MA, &MB, i0, mbb, j0, nbb, 0, &pl, NULL, 0, 0)) return OZBLAS_STATUS_ALLOC_FAILED;
            c->wrote = 1;
            info->seconds_sum += ozb_now_if(c->timed) - t0;
        }
    }
    return OZBLAS_STATUS_SUCCESS;
}

/* DOT/GEMV-shaped problems (n small): units (m-block, k-block) run in parallel, each
 * on one thread with a single-threaded BLAS; x (or y) is split once when k is one block. */
ozblas_status_t ozb_s1_run_units(ctx_t *c, int64_t mb)
{
    ozblas_handle_t h = c->h;
    const ozb_problem *pr = c->pr;
    const int64_t m = pr->m, n = pr->n, k = pr->k, kb = c->kb, nkb = c->nkb;
    const int64_t nmb = (m + mb - 1) / mb, nunits = nmb * nkb;
    const int bshared = nkb == 1;
    ozblas_info_t *info = &h->info;
    const int nt = c->nt;
    const ozb_prod_stats pst0 = c->pst;              /* earlier waves' counts */
    meta_t MA, MB;
    for (;;) {
        const int capA = c->capA, capB = c->capB;
        const size_t abuf = (size_t)(capA + 1) * (size_t)mb * (size_t)kb;
        const size_t bbuf = (size_t)(capB + 1) * (size_t)n * (size_t)kb;
        double *bufA = ozb_buf_get(h, OZB_BUF_SA, sizeof(double) * abuf * (size_t)nt);
        double *bufB = ozb_buf_get(h, OZB_BUF_SB, sizeof(double) * bbuf * (size_t)(bshared ? 1 : nt));
        const int64_t ldp = mb * capA;
        const size_t pblock = (size_t)ldp * (size_t)(n * capB);
        double *P = ozb_buf_get(h, OZB_BUF_P, sizeof(double) * pblock * (size_t)nunits);
        const size_t scr_bytes = (c->fmt->scratch_bytes(mb, n, kb, capA, capB) + 63) & ~(size_t)63;
        char *scratch = scr_bytes ? ozb_buf_get(h, OZB_BUF_SCRATCH, scr_bytes * (size_t)nt) : NULL;
        if (scr_bytes && !scratch) return OZBLAS_STATUS_ALLOC_FAILED;
        if (!bufA || !bufB || !P ||
            !ozb_s1_meta_alloc(h, &MB, OZB_BUF_WB, OZB_BUF_NB, n, bshared ? 1 : nunits, capB) ||
            !ozb_s1_meta_alloc(h, &MA, OZB_BUF_WA, OZB_BUF_NA, m, nkb, capA))
            return OZBLAS_STATUS_ALLOC_FAILED;
        ozb_slices SBsh;
        const ozb_split_params prm = ozb_s1_params_of(c);
        double t0 = ozb_now_if(c->timed);
        if (bshared) {
            ozb_s1_bind(&SBsh, bufB, &MB, 0, 0);
            ozb_split(&pr->b, 0, n, 0, k, &prm, &SBsh, nt);
            if (SBsh.need > capB) { c->capB = ozb_s1_grow(capB, SBsh.need); continue; }
        }
        info->seconds_split += ozb_now_if(c->timed) - t0;
        int needA = 0, needB = 0;
        double tsplit = 0.0, tmul = 0.0;
        const int par_units = nt > 1 && nunits > 1;
        OZB_PARALLEL_IF(nt > 1 && nunits > 1, num_threads(nt) reduction(max:needA, needB) reduction(+:tsplit, tmul),
        {
            const int tid = omp_get_thread_num();
            ozb_prod_stats st = {0, 0, 0.0};
            int sa_max = 0, sb_max = 0;
            OZB_PRAGMA(omp for schedule(dynamic, 1))
            for (int64_t un = 0; un < nunits; un++) {
                const int64_t mblk = un / nkb, kk = un % nkb;
                const int64_t i0 = mblk * mb, mbb = mb < m - i0 ? mb : m - i0;
                const int64_t l0 = kk * kb, kbb = kb < k - l0 ? kb : k - l0;
                double ts = ozb_now_if(c->timed);
                ozb_slices SB;
                if (bshared) SB = SBsh;
                else {
                    ozb_s1_bind(&SB, bufB + bbuf * (size_t)tid, &MB, un, 0);
                    ozb_split(&pr->b, 0, n, l0, kbb, &prm, &SB, 1);
                    if (SB.need > capB) { needB = SB.need > needB ? SB.need : needB; continue; }
                }
                ozb_slices SA;
                ozb_s1_bind(&SA, bufA + abuf * (size_t)tid, &MA, kk, i0);
                ozb_split(&pr->a, i0, mbb, l0, kbb, &prm, &SA, 1);
                double tm = ozb_now_if(c->timed);
                tsplit += tm - ts;
                if (SA.need > capA) { needA = SA.need > needA ? SA.need : needA; continue; }
                sa_max = SA.s > sa_max ? SA.s : sa_max;
                sb_max = SB.s > sb_max ? SB.s : sb_max;
                if (c->fmt->products(h->dev, &SA, &SB, ozb_s1_block_dmax(c), P + (size_t)un * pblock, ldp,
                                     scratch ? scratch + scr_bytes * (size_t)tid : NULL, par_units ? 1 : nt, &st)) {
                    OZB_PRAGMA(omp atomic write)
                    c->dev_err = 1;
                }
                tmul += ozb_now_if(c->timed) - tm;
            }
            OZB_PRAGMA(omp critical)
            {
                c->pst.calls += st.calls; c->pst.pairs += st.pairs; c->pst.flops += st.flops;
                c->smaxA = sa_max > c->smaxA ? sa_max : c->smaxA;
                c->smaxB = sb_max > c->smaxB ? sb_max : c->smaxB;
            }
        });
        if (c->dev_err) return OZBLAS_STATUS_EXECUTION_FAILED;
        info->seconds_split += tsplit / nt;
        info->seconds_multiply += tmul / nt;
        if (needA > capA || needB > capB) {
            if (needA > capA) c->capA = ozb_s1_grow(capA, needA);
            if (needB > capB) c->capB = ozb_s1_grow(capB, needB);
            c->pst = pst0;
            continue;
        }
        if (bshared) c->smaxB = SBsh.s > c->smaxB ? SBsh.s : c->smaxB;
        info->blocks += nunits;
        t0 = ozb_now_if(c->timed);
        ploc_t pl = {NULL, pblock, ldp, mb, n};
        if (!ozb_s1_sum_range(c, &MA, &MB, 0, m, 0, n, mb, &pl, P, pblock, bshared)) return OZBLAS_STATUS_ALLOC_FAILED;
        c->wrote = 1;
        info->seconds_sum += ozb_now_if(c->timed) - t0;
        return OZBLAS_STATUS_SUCCESS;
    }
}

/* DOT/GEMV shapes in waves of rows: the units of one wave keep the products of every
 * k-block until its rows are summed, so a wave's rows are as many as fit the workspace
 * beside the per-thread buffers (all of m for ordinary GEMV and DOT; a 10^7 x 2 x 2 GEMM
 * would otherwise keep 10^7 rows of products, and shrink its units to one row trying).  Each wave
 * is the same computation on the rows it holds: every element depends only on its row and
 * column, so the waves change no bit. */
ozblas_status_t ozb_s1_run_waves(ctx_t *c, int64_t mb, size_t limit)
{
    const ozb_problem *pr = c->pr;
    const int64_t m = pr->m, n = pr->n;
    /* bytes per row of a wave: products of every k-block and pair, slice metadata */
    const double per_row = 8.0 * (double)c->nkb * c->capA * (double)(n * c->capB)
                         + (4.0 * (c->capA + 1) + 9.0) * (double)c->nkb;
    const double fixed = 8.0 * ((double)c->nt * (c->capA + 1) * mb * c->kb + (double)c->nt * (c->capB + 1) * n * c->kb);
    /* at most 256 MiB of products a wave: more buys nothing but memory (each wave's units
     * still run in parallel) */
    double room = (double)limit - fixed;
    room = room < 268435456.0 ? room : 268435456.0;
    int64_t wrows = room > per_row * (double)mb ? (int64_t)(room / per_row) / mb * mb : mb;
    if (wrows >= m) return ozb_s1_run_units(c, mb);
    ozblas_status_t st = OZBLAS_STATUS_SUCCESS;
    for (int64_t w0 = 0; w0 < m && st == OZBLAS_STATUS_SUCCESS; w0 += wrows) {
        ozb_problem wave = *pr;
        wave.m = wrows < m - w0 ? wrows : m - w0;
        wave.a.p += w0 * pr->a.rs;
        wave.c += w0 * pr->crs;
        c->pr = &wave;
        st = ozb_s1_run_units(c, mb);
        c->pr = pr;
    }
    return st;
}

ozblas_status_t ozb_scheme1_run(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *plan)
{
    ctx_t c;
    memset(&c, 0, sizeof c);
    c.timed = ozb_timed((double)pr->m * (double)pr->n * (double)pr->k);
    const double t_start = ozb_now_if(c.timed);
    if (plan->mode != OZBLAS_MODE_CORRECTLY_ROUNDED && plan->mode != OZBLAS_MODE_FIXED) return OZBLAS_STATUS_NOT_SUPPORTED;
    c.h = h;
    c.pr = pr;
    c.cfg = ozb_s1_config_of(h, plan->mode);
    const int64_t m = pr->m, n = pr->n, k = pr->k;
    /* small problems: thread start-up costs more than it saves (never changes a bit) */
    c.nt = ozb_threads_for(h, (double)m * (double)n * (double)k);
    if (!ozb_format_for(h, plan->engine, &c.fmt_row)) return OZBLAS_STATUS_NOT_SUPPORTED;
    c.fmt = &c.fmt_row;
    const int64_t kblock = pr->kblock < c.fmt->kblock_max ? pr->kblock : c.fmt->kblock_max;
    c.kb = kblock < k ? kblock : k;
    c.nkb = (k + c.kb - 1) / c.kb;
    c.beta_bits = c.fmt->bits(c.kb);
    c.lazy = plan->mode == OZBLAS_MODE_CORRECTLY_ROUNDED && c.fmt->id == OZBLAS_ENGINE_FP64 &&
             !h->knobs.no_lazy;
    c.dcr = ozb_s1_lazy_levels(c.beta_bits, c.kb);
    if (h->knobs.lazy_levels >= 0) c.dcr = h->knobs.lazy_levels;
    c.level_sum = c.fmt->exact_level_sums;
    ozblas_info_t *info = ozb_info_begin(h, c.cfg.summation, c.beta_bits);

    c.capA = c.cfg.limit > 0 ? c.cfg.limit : h->slice_hint_a;
    c.capB = c.cfg.limit > 0 ? c.cfg.limit : h->slice_hint_b;

    const size_t limit = ozb_workspace_limit(h);
    ozblas_status_t st;
    int64_t mb = m, nb = n;
    if (n <= 8) {
        /* a row panel's slices stay in the core's cache; every unit has its own buffers */
        int64_t rows = ((int64_t)1 << 20) / (8 * (int64_t)(c.capA + 1) * c.kb);
        mb = rows < 8 ? 8 : rows;
        /* per-thread slice buffers and one unit's products */
        for (;;) {
            double words = (double)c.nt * (c.capA + 1) * mb * c.kb + (double)c.nt * (c.capB + 1) * n * c.kb
                         + (double)c.nkb * (mb * c.capA) * (n * c.capB);
            if (words * 8.0 <= (double)limit || mb == 1) break;
            mb = (mb + 1) / 2;
        }
        if (mb > m) mb = m;
        st = ozb_s1_run_waves(&c, mb, limit);
        nb = n;
    } else {
        /* slices of both sides (cap + 1 each) and the products of every pair, in doubles */
        const ozb_tile_cost cost = { 8.0 * (c.capA + 1) * (double)c.kb, 8.0 * (c.capB + 1) * (double)c.kb,
                                     8.0 * (double)c.nkb * c.capA * c.capB, 0.0, 0.0 };
        ozb_tiles(limit, m, n, cost, &mb, &nb);
        st = ozb_s1_run_tiles(&c, mb, nb);
    }
    /* a tile or wave of C summed before the failure: the output is partly written */
    if (st != OZBLAS_STATUS_SUCCESS) {
        h->out_partial |= c.wrote;
        return st;
    }
    if (c.cfg.limit == 0) {              /* remember capacities so later calls allocate once */
        h->slice_hint_a = c.capA;
        h->slice_hint_b = c.capB;
    }
    info->slices_a = c.smaxA;
    info->slices_b = c.smaxB;
    info->fast_mode = c.cfg.fast;
    info->split_count = c.cfg.fast ? c.cfg.dfixed : 0;
    info->gemm_calls = c.pst.calls;
    info->slice_products = c.pst.pairs;
    info->gemm_flops = c.pst.flops;
    info->block_m = mb; info->block_n = nb; info->block_k = c.kb;
    info->exact_fallbacks = c.fallbacks;
    info->lazy_fixups = c.lazy_fixups;
    info->seconds_total = ozb_now_if(c.timed) - t_start;
    return OZBLAS_STATUS_SUCCESS;
}
