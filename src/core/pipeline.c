/* Orchestration of split -> products -> summation for one routine call.
 *
 * Reproducibility (CONTRACT §3): every output element is a function of its row of
 * op(A), its column of op(B), the k-block size (shape only) and the mode:
 *  - slices of a row depend only on that row's values in the k-block;
 *  - every slice product is exact (bit budget in split.h), whatever the GEMM does;
 *  - the terms of an element are summed in a fixed order (or correctly rounded);
 *  - the DOUBLE-mode split counts come from canonical-order sums (ozb_weighted_abs_sum
 *    and the column sums below), never from thread-dependent reductions.
 * m/n blocking and thread counts therefore never change a bit. */
#include "core/pipeline.h"
#include "core/product.h"
#include "core/special.h"
#include "split/split.h"
#include "sum/sum.h"
#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>

typedef struct {
    int limit, criterion, fast, dfixed;
    ozblas_summation_t summation;
} run_cfg;

static run_cfg config_of(ozblas_handle_t h)
{
    run_cfg c = {0, 0, 0, 0, OZBLAS_SUM_NEARSUM};
    switch (h->mode) {
    case OZBLAS_MODE_CORRECTLY_ROUNDED: break;              /* split until exact, all pairs, NearSum */
    case OZBLAS_MODE_FIXED:
        c.limit = h->split_count; c.fast = h->fast_mode; c.dfixed = h->split_count;
        c.summation = h->summation; break;
    case OZBLAS_MODE_DOUBLE:
    default:
        c.criterion = 1; c.fast = 1; c.summation = OZBLAS_SUM_DOUBLE; break;
    }
    return c;
}

/* w[l] = sum_i |v(i, l)| over finite entries, i in order (canonical, thread-independent). */
static void abs_col_sums(const ozb_view *v, int64_t rows, int64_t k, double *w, int nt)
{
    #pragma omp parallel for num_threads(nt) schedule(static) if(nt > 1 && k >= 256)
    for (int64_t l = 0; l < k; l++) {
        double s = 0.0;
        for (int64_t i = 0; i < rows; i++) {
            double x = fabs(ozb_view_at(v, i, l));
            if (x <= DBL_MAX) s += x;
        }
        w[l] = s;
    }
}

typedef struct {
    ozb_slices sl;          /* slice buffer of the current k-block                      */
    int32_t   *w, *ns;      /* per k-block copies: w[(kk*(cap+1) + t)*rows + i], ns[kk*rows+i] */
    uint8_t   *flag;        /* flag[kk*rows + i]                                         */
    int        cap;
} side_t;

static int side_alloc(ozblas_handle_t h, side_t *s, int slot_sl, int slot_w, int slot_n, int64_t rows,
                      int64_t kb, int64_t nkb, int cap)
{
    s->cap = cap;
    s->sl.cap = cap;
    s->sl.slice = ozb_buf_get(h, slot_sl, sizeof(double) * (size_t)(cap + 1) * (size_t)rows * (size_t)kb);
    s->w = ozb_buf_get(h, slot_w, sizeof(int32_t) * (size_t)nkb * (size_t)(cap + 1) * (size_t)rows);
    /* ns and flag share a slot */
    void *nf = ozb_buf_get(h, slot_n, (sizeof(int32_t) + 1) * (size_t)nkb * (size_t)rows + 64);
    if (!s->sl.slice || !s->w || !nf) return 0;
    s->ns = nf;
    s->flag = (uint8_t *)(s->ns + nkb * rows);
    return 1;
}

/* Split rows r0.. of one side for k-block kk into s->sl, keeping its exponents. */
static int side_split(side_t *s, const ozb_view *v, int64_t r0, int64_t rows, int64_t l0, int64_t kbb,
                      int64_t kk, const ozb_split_params *prm, int nt)
{
    s->sl.w = s->w + kk * (int64_t)(s->cap + 1) * rows;
    s->sl.ns = s->ns + kk * rows;
    s->sl.flag = s->flag + kk * rows;
    ozb_split(v, r0, rows, l0, kbb, prm, &s->sl, nt);
    return s->sl.need <= s->cap;
}

static int pair_fast(int nsa, int nsb, int meta, int metb)
{
    if (nsa > nsb) return meta;
    if (nsb > nsa) return metb;
    return meta && metb;
}

ozblas_status_t ozb_run(ozblas_handle_t h, const ozb_problem *pr)
{
    const double t_start = ozb_now();
    const run_cfg cfg = config_of(h);
    const int nt = ozb_threads(h);
    const int64_t m = pr->m, n = pr->n, k = pr->k;
    const int64_t kb = pr->kblock < k ? pr->kblock : k;
    const int64_t nkb = (k + kb - 1) / kb;
    const int beta_bits = ozb_split_bits_fp64(kb);
    ozblas_info_t *info = &h->info;
    memset(info, 0, sizeof *info);
    info->mode = h->mode;
    info->summation = cfg.summation;
    ozb_blas_set_threads(nt);

    /* Algorithm 3 weights (DOUBLE mode): vA = |op(B)| e, vB = e^T |op(A)|, over all of k. */
    double *vA = NULL, *vB = NULL;
    if (cfg.criterion) {
        double *v = ozb_buf_get(h, OZB_BUF_CRIT, sizeof(double) * 2 * (size_t)k);
        if (!v) return OZBLAS_STATUS_ALLOC_FAILED;
        vA = v; vB = v + k;
        double t0 = ozb_now();
        abs_col_sums(&pr->b, n, k, vA, nt);
        abs_col_sums(&pr->a, m, k, vB, nt);
        info->seconds_split += ozb_now() - t0;
    }
    const double sfac = 2.0 * sqrt((double)kb) * 0x1p-53;

    int capA = cfg.limit > 0 ? cfg.limit : h->slice_hint_a;
    int capB = cfg.limit > 0 ? cfg.limit : h->slice_hint_b;

    /* Blocking in m and n under the workspace limit (results do not depend on it). */
    const size_t limit = ozb_workspace_limit(h);
    int64_t mb = m, nb = n;
    for (;;) {
        double words = (double)(capA + 1) * mb * kb + (double)(capB + 1) * nb * (nkb == 1 ? k : kb)
                     + (double)nkb * (mb * capA) * (nb * capB);
        if (words * 8.0 <= (double)limit || (mb == 1 && nb == 1)) break;
        if (mb >= nb && mb > 1) mb = (mb + 1) / 2; else nb = (nb + 1) / 2;
    }
    /* memory-bound shapes (GEMV, DOT): keep a row panel's slices in cache */
    if (n <= 8) {
        int64_t cache_rows = ((int64_t)6 << 20) / (8 * (int64_t)(capA + 1) * kb);
        if (cache_rows < 16) cache_rows = 16;
        if (mb > cache_rows) mb = cache_rows;
    }

    side_t SA, SB;
    int64_t b_ready_j0 = -1;     /* nkb == 1: the B panel of this j0 is split once for all m-blocks */
    int b_ready_cap = 0;
    int64_t fallbacks = 0;
    ozb_prod_stats pst = {0, 0, 0.0};
    int smaxA = 0, smaxB = 0;

    for (int64_t j0 = 0; j0 < n; j0 += nb) {
        const int64_t nbb = nb < n - j0 ? nb : n - j0;
        for (int64_t i0 = 0; i0 < m; i0 += mb) {
            const int64_t mbb = mb < m - i0 ? mb : m - i0;
        retry_tile:
            if (!side_alloc(h, &SB, OZB_BUF_SB, OZB_BUF_WB, OZB_BUF_NB, nbb, kb, nkb, capB) ||
                !side_alloc(h, &SA, OZB_BUF_SA, OZB_BUF_WA, OZB_BUF_NA, mbb, kb, nkb, capA))
                return OZBLAS_STATUS_ALLOC_FAILED;
            const int64_t ldp = mbb * capA;
            const size_t pblock = (size_t)ldp * (size_t)(nbb * capB);
            double *P = ozb_buf_get(h, OZB_BUF_P, sizeof(double) * pblock * (size_t)nkb);
            if (!P) return OZBLAS_STATUS_ALLOC_FAILED;

            for (int64_t kk = 0; kk < nkb; kk++) {
                const int64_t l0 = kk * kb, kbb = kb < k - l0 ? kb : k - l0;
                ozb_split_params pa = {beta_bits, cfg.limit, cfg.criterion, vA ? vA + l0 : NULL, sfac};
                ozb_split_params pb = {beta_bits, cfg.limit, cfg.criterion, vB ? vB + l0 : NULL, sfac};
                double t0 = ozb_now();
                int okB = 1;
                if (!(nkb == 1 && b_ready_j0 == j0 && b_ready_cap == capB)) {
                    okB = side_split(&SB, &pr->b, j0, nbb, l0, kbb, kk, &pb, nt);
                    if (okB && nkb == 1) { b_ready_j0 = j0; b_ready_cap = capB; }
                }
                int okA = side_split(&SA, &pr->a, i0, mbb, l0, kbb, kk, &pa, nt);
                info->seconds_split += ozb_now() - t0;
                if (!okA || !okB) {               /* more slices than room: grow and redo the tile */
                    if (!okA) capA = SA.sl.need > 2 * capA ? SA.sl.need : 2 * capA;
                    if (!okB) capB = SB.sl.need > 2 * capB ? SB.sl.need : 2 * capB;
                    goto retry_tile;
                }
                smaxA = SA.sl.s > smaxA ? SA.sl.s : smaxA;
                smaxB = SB.sl.s > smaxB ? SB.sl.s : smaxB;
                int dmax = 0;
                if (cfg.fast && cfg.criterion) {
                    /* the GEMMs cover every pair t + u <= dmax - 1 that some element uses */
                    const int sa = SA.sl.s, sb = SB.sl.s;
                    for (int64_t i = 0; i < mbb; i++) {
                        int ns = SA.sl.ns[i], d = (SA.sl.flag[i] & OZB_ROW_CRIT_MET) ? (ns > sb ? ns : sb) : ns + sb - 1;
                        dmax = d > dmax ? d : dmax;
                    }
                    for (int64_t j = 0; j < nbb; j++) {
                        int ns = SB.sl.ns[j], d = (SB.sl.flag[j] & OZB_ROW_CRIT_MET) ? (ns > sa ? ns : sa) : ns + sa - 1;
                        dmax = d > dmax ? d : dmax;
                    }
                    if (dmax < 1) dmax = 1;
                } else if (cfg.fast) {
                    dmax = cfg.dfixed;
                }
                t0 = ozb_now();
                ozb_products_fp64(&SA.sl, &SB.sl, dmax, P + (size_t)kk * pblock, ldp, &pst);
                info->seconds_multiply += ozb_now() - t0;
                info->blocks++;
            }

            /* Summation, element by element, in parallel over elements (each element's
             * order is fixed, so the thread count does not matter). */
            double t0 = ozb_now();
            const int64_t maxterms = nkb * (int64_t)capA * capB;
            /* per thread: TP[maxterms], scratch[2*maxterms+4], TE[maxterms]; 64-byte aligned */
            const size_t per_thread = (((size_t)maxterms * (3 * sizeof(double) + sizeof(int32_t)) + 4 * sizeof(double)) + 127) & ~(size_t)63;
            char *tbuf = ozb_buf_get(h, OZB_BUF_TERMS, per_thread * (size_t)nt);
            if (!tbuf) return OZBLAS_STATUS_ALLOC_FAILED;
            const int use_c = pr->beta != 0.0;
            const int alpha_special = !isfinite(pr->alpha);
            const int beta_special = use_c && !isfinite(pr->beta);
            const int64_t ntile = mbb * nbb;
            #pragma omp parallel num_threads(nt) reduction(+:fallbacks) if(nt > 1 && ntile * maxterms >= 4096)
            {
                char *mine = tbuf + per_thread * (size_t)omp_get_thread_num();
                double *TP = (double *)mine;
                double *scratch = TP + maxterms;
                int32_t *TE = (int32_t *)(scratch + 2 * maxterms + 4);
                #pragma omp for schedule(static)
                for (int64_t e = 0; e < ntile; e++) {
                    const int64_t j = e / mbb, i = e % mbb;
                    double *cij = pr->c + (i0 + i) * pr->crs + (j0 + j) * pr->ccs;
                    const double cval = use_c ? *cij : 0.0;
                    int nonfinite = 0;
                    int64_t nterm = 0;
                    for (int64_t kk = 0; kk < nkb; kk++) {
                        const int32_t *wa = SA.w + kk * (int64_t)(capA + 1) * mbb;
                        const int32_t *wb = SB.w + kk * (int64_t)(capB + 1) * nbb;
                        const int nsa = SA.ns[kk * mbb + i], nsb = SB.ns[kk * nbb + j];
                        const uint8_t fa = SA.flag[kk * mbb + i], fb = SB.flag[kk * nbb + j];
                        nonfinite |= (fa | fb) & OZB_ROW_NONFINITE;
                        int d = 0;                          /* pairs t + u <= d - 1, 0: all */
                        if (cfg.criterion) {
                            if (pair_fast(nsa, nsb, fa & OZB_ROW_CRIT_MET, fb & OZB_ROW_CRIT_MET))
                                d = nsa > nsb ? nsa : nsb;
                        } else if (cfg.fast) d = cfg.dfixed;
                        const double *Pk = P + (size_t)kk * pblock;
                        for (int t = 0; t < nsa; t++) {
                            int un = nsb;
                            if (d > 0 && d - t < un) un = d - t;
                            for (int u = 0; u < un; u++) {
                                TP[nterm] = Pk[(t * mbb + i) + (u * nbb + j) * ldp];
                                TE[nterm] = wa[(int64_t)t * mbb + i] + wb[(int64_t)u * nbb + j];
                                nterm++;
                            }
                        }
                    }
                    double r;
                    if (nonfinite || alpha_special || beta_special || (use_c && !isfinite(cval))) {
                        int sclass = nonfinite ? ozb_dot_class(&pr->a, i0 + i, &pr->b, j0 + j, k) : OZB_CLASS_FINITE;
                        int ssign = (sclass == OZB_CLASS_FINITE && isinf(pr->alpha)) ? ozb_sum_sign(TP, TE, nterm) : 0;
                        int fin;
                        r = ozb_special_combine(pr->alpha, sclass, ssign, pr->beta, cval, use_c, &fin);
                        if (fin) r = ozb_sum_exact(TP, TE, nterm, pr->alpha, pr->beta, cval, use_c);
                    } else if (cfg.summation == OZBLAS_SUM_NEARSUM) {
                        r = ozb_sum_nearest(TP, TE, nterm, pr->alpha, pr->beta, cval, use_c, scratch, &fallbacks);
                    } else {
                        r = ozb_sum_double(TP, TE, nterm, pr->alpha, pr->beta, cval, use_c);
                    }
                    *cij = r;
                }
            }
            info->seconds_sum += ozb_now() - t0;
        }
    }
    if (cfg.limit == 0) {                /* remember capacities so later calls allocate once */
        h->slice_hint_a = capA;
        h->slice_hint_b = capB;
    }
    info->slices_a = smaxA;
    info->slices_b = smaxB;
    info->fast_mode = cfg.fast;
    info->split_count = cfg.criterion ? (smaxA > smaxB ? smaxA : smaxB) : (cfg.fast ? cfg.dfixed : 0);
    info->gemm_calls = pst.calls;
    info->slice_products = pst.pairs;
    info->gemm_flops = pst.flops;
    info->block_m = mb; info->block_n = nb; info->block_k = kb;
    info->exact_fallbacks = fallbacks;
    info->seconds_total = ozb_now() - t_start;
    return OZBLAS_STATUS_SUCCESS;
}

void ozb_scale_c(ozblas_handle_t h, double *c, int64_t crs, int64_t ccs, int64_t m, int64_t n, double beta)
{
    memset(&h->info, 0, sizeof h->info);
    h->info.mode = h->mode;
    if (beta == 1.0) return;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            double *p = c + i * crs + j * ccs;
            *p = beta == 0.0 ? 0.0 : beta * *p;
        }
}
