/* FIXED-mode DOT and GEMV without stored slices: the fused kernels (fused_kern_d.inc)
 * compute, in registers, the same digits and the same exact pair sums that the GEMM-ized
 * pipeline (src/scheme1) stores as slices and multiplies by DGEMM, and the terms go to the
 * same summation in the same order.  So the result is the configuration's defined one, bit
 * for bit, at the cost of one read of x and y (the block maximum first, then the block again
 * from cache).  A GEMV-T is a DOT per row of op(A), a GEMV-N panels of rows copied to cache and
 * strips of them in the lanes (the strip kernel, op(B)'s digits found once): the rows' grids
 * are their own per block, op(B)'s
 * blocks are shared, as in the pipeline.
 *
 * Why the bits are the same.  The pipeline splits each k-block (kb = min(OZB_KBLOCK_DOT, k),
 * beta = the FP64 format's bits for kb) of x on the grid of the block's maximum,
 * 2^(e-1) <= max |x| < 2^e: digit t is trunc(r / 2^w_t), w_t = e - (t+1) beta, of the
 * remainder r (split.c, pass_fast; pass_generic gives the same digits), at most
 * split_count digits, fewer where the remainder becomes zero (then every further digit is
 * zero).  The kernels compute the same digits by the scaled recurrence of fused_kern.h with
 * radix 2^beta (exact: |r| < 2^beta <= 2^26 in the scaled copy, the scale 2^(beta - e) a
 * normal double, checked per block, and what underflows there has every digit zero either
 * way).  Pair (t, u), for t + u < split_count in fast mode and every t, u < split_count
 * without it, is sum_l q_t(x_l) q_u(y_l): integers below 2^(2 beta), kb of them, every
 * partial sum below 2^(2 beta + log2 kb) <= 2^53, so exact in any order, as the pipeline's
 * DGEMM computes it.  The terms (P_tu, w_t(x) + w_u(y)) are listed block by block, t-major,
 * as ozb_s1_element lists them; pairs the pipeline leaves out are those with a digit beyond a
 * block's slice count, whose sums are zero here, and both summations skip zero terms
 * (ozb_sum_double explicitly; ozb_sum_nearest returns RN of the exact sum, unique).
 *
 * What it does not take (NOT_SUPPORTED, before anything is written; the pipeline computes
 * it): Inf/NaN in x or y, blocks whose scale is not a normal double, split counts above
 * OZB_FZ_FIXED_MAX, other formats, a CPU without the kernels, OZBLAS_NO_FUSED.
 *
 * Compiled with -ffp-contract=off; the kernels' FMAs are explicit and exact. */
#include "fixed/fixed_dot.h"
#include "fused/fused_kern.h"
#include "fused/fused_grid.h"
#include "core/format.h"
#include "core/info.h"
#include "core/par.h"
#include "core/ozb_internal.h"
#include "sum/sum.h"
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <string.h>
#include "core/gather.h"


typedef struct {
    const ozb_problem *pr;
    void (*kern)(const double *, const double *, int64_t, double, double, double, double *);
    void (*fdotq)(const double *, int64_t, double, const double *, int64_t, double, double *);
    void (*fstrip)(const double *, int64_t, int, int64_t, const double *, const double *, int64_t, double, double *,
                   int64_t);
    const ozb_fused_kernels *K;
    int64_t kb, nkb;
    int beta, np, L, fast, nearsum;
    double *P;                /* DOT: P[kk * np + p] */
    int32_t *ex, *ey;         /* block exponents: DOT x's, and y's (op(B)'s, all blocks) */
    const double *y;          /* op(B) contiguous (gathered where strided) */
    double *gather;           /* the per-thread double areas, thr_dbl each (ozb_fixed_dot) */
    int32_t *ext;             /* the per-thread int32 areas, thr_i32 each */
    double *out;              /* GEMV: the rows' results until all are known */
    double *yq;               /* GEMV: op(B)'s digits, yq[u k + l], u < L (DOT: NULL) */
    size_t thr_dbl, thr_i32;
} fx_t;

static int64_t blen(const fx_t *f, int64_t kk) { return f->kb < f->pr->k - kk * f->kb ? f->kb : f->pr->k - kk * f->kb; }

/* op(B)'s blocks lo..hi-1: their exponents (op(B) already contiguous) */
static int64_t y_blocks(void *ctx, int64_t lo, int64_t hi)
{
    const fx_t *f = ctx;
    int64_t bad = 0;
    for (int64_t kk = lo; kk < hi; kk++) {
        f->ey[kk] = ozb_fused_block_exp(f->K->maxbits(f->y + kk * f->kb, blen(f, kk)), f->beta);
        bad += f->ey[kk] == OZB_FZ_E_BAD;
    }
    return bad;
}

/* Row `row` of op(A) times op(B), blocks lo..hi-1: exponents into ex, pair sums into P;
 * returns the blocks out of the kernels' reach. */
static int64_t row_blocks(const fx_t *f, int64_t row, int64_t lo, int64_t hi, int32_t *ex, double *P, double *xb)
{
    const ozb_problem *pr = f->pr;
    int64_t bad = 0;
    for (int64_t kk = lo; kk < hi; kk++) {
        const int64_t l0 = kk * f->kb, n = blen(f, kk);
        const double *x = pr->a.p + row * pr->a.rs + l0 * pr->a.cs;
        const int64_t mx = pr->a.cs == 1 ? f->K->maxbits(x, n) : ozb_fused_gather_max(x, pr->a.cs, n, xb);
        if (pr->a.cs != 1) x = xb;
        const int32_t e = ozb_fused_block_exp(mx, f->beta), ey = f->ey[kk];
        ex[kk] = e;
        if (e == OZB_FZ_E_BAD) { bad++; continue; }
        double *Pk = P + kk * f->np;
        if (ozb_fused_usable(e) && ozb_fused_usable(ey) && f->yq)   /* GEMV-T: op(B)'s digits found once */
            f->fdotq(x, n, ozb_pow2(f->beta - e), f->yq + l0, pr->k, ozb_pow2(f->beta), Pk);
        else if (ozb_fused_usable(e) && ozb_fused_usable(ey))
            f->kern(x, f->y + l0, n, ozb_pow2(f->beta - e), ozb_pow2(f->beta - ey), ozb_pow2(f->beta), Pk);
        else
            for (int p = 0; p < f->np; p++) Pk[p] = 0.0;
    }
    return bad;
}

static double *thr_d(const fx_t *f) { return f->gather + f->thr_dbl * (size_t)omp_get_thread_num(); }
static int32_t *thr_i(const fx_t *f) { return f->ext + f->thr_i32 * (size_t)omp_get_thread_num(); }

/* a DOT's blocks lo..hi-1 (row 0), each with y's exponent found just before (the block of y
 * then comes from cache to the kernel; no pass of its own over y) */
static int64_t dot_blocks(void *ctx, int64_t lo, int64_t hi)
{
    const fx_t *f = ctx;
    int64_t bad = 0;
    for (int64_t kk = lo; kk < hi; kk++) {
        bad += y_blocks(ctx, kk, kk + 1);
        bad += row_blocks(f, 0, kk, kk + 1, f->ex, f->P, thr_d(f));
    }
    return bad;
}

/* The terms of a row (P, ex per block) in ozb_s1_element's order, block, then t, then u, and
 * their sum: RN(alpha sum + beta c) by the configured summation.  Pairs with a zero sum are
 * left out (both summations skip zero terms).  *smax: the deepest digit used. */
static double row_sum(const fx_t *f, const double *P, const int32_t *ex, double cval, double *TP, int32_t *TE,
                      double *scratch, int64_t *fb, int *smax)
{
    const ozb_problem *pr = f->pr;
    int64_t n = 0;
    for (int64_t kk = 0; kk < f->nkb; kk++) {
        if (!ozb_fused_usable(ex[kk]) || !ozb_fused_usable(f->ey[kk])) continue;
        const double *Pk = P + kk * f->np;
        int p = 0;
        for (int t = 0; t < f->L; t++)
            for (int u = 0; u < (f->fast ? f->L - t : f->L); u++, p++) {
                if (Pk[p] == 0.0) continue;
                TP[n] = Pk[p];
                TE[n] = (ex[kk] - (t + 1) * f->beta) + (f->ey[kk] - (u + 1) * f->beta);
                n++;
                *smax = t + 1 > *smax ? t + 1 : *smax;
                *smax = u + 1 > *smax ? u + 1 : *smax;
            }
    }
    const int use_c = pr->beta != 0.0;
    return f->nearsum ? ozb_sum_nearest(TP, TE, n, pr->alpha, pr->beta, cval, use_c, scratch, fb)
                      : ozb_sum_double(TP, TE, n, pr->alpha, pr->beta, cval, use_c);
}

/* GEMV-T rows lo..hi-1, each on its own (per-thread buffers): results into f->out; returns
 * the rows out of the kernels' reach */
static int64_t gemv_rows(void *ctx, int64_t lo, int64_t hi)
{
    const fx_t *f = ctx;
    const ozb_problem *pr = f->pr;
    double *xb = thr_d(f), *P = xb + f->kb, *TP = P + f->nkb * f->np, *scratch = TP + f->nkb * f->np;
    int32_t *ex = thr_i(f), *TE = ex + f->nkb;
    int64_t bad = 0, fb = 0;
    int smax = 0;
    for (int64_t i = lo; i < hi; i++) {
        if (row_blocks(f, i, 0, f->nkb, ex, P, xb)) { bad++; continue; }
        const double cval = pr->beta != 0.0 ? pr->c[i * pr->crs] : 0.0;
        f->out[i] = row_sum(f, P, ex, cval, TP, TE, scratch, &fb, &smax);
    }
    return bad;
}

/* op(B)'s digits u < L on its blocks' grids (ozb_fused_digits: the kernels' recurrence) */
static int64_t y_digits(void *ctx, int64_t lo, int64_t hi)
{
    const fx_t *f = ctx;
    for (int64_t kk = lo; kk < hi; kk++)
        ozb_fused_digits(f->y + kk * f->kb, 1, blen(f, kk), f->ey[kk], f->beta, f->L, f->yq + kk * f->kb, f->pr->k);
    return 0;
}

/* GEMV-N panels lo..hi-1 of 4W rows (columns of op(A) contiguous): per block the panel copied
 * to cache with its rows' maxima in one pass (K->panel: a column's page visited once for
 * 4W rows, as the CR kernels read GEMV-N), then the strip kernel on the copy, a scale per
 * lane; each row's terms gathered from its lane */
static int64_t gemv_n_panels(void *ctx, int64_t lo, int64_t hi)
{
    const fx_t *f = ctx;
    const ozb_problem *pr = f->pr;
    const int W = f->K->width, G = 4 * W;
    const int64_t nterm = f->nkb * f->np;
    double *copy = thr_d(f), *Ps = copy + (int64_t)G * f->kb, *P = Ps + nterm * G, *TP = P + nterm, *scratch = TP + nterm;
    int32_t *es = thr_i(f), *ex = es + f->nkb * G, *TE = ex + f->nkb;
    int64_t bad = 0, fb = 0;
    int smax = 0;
    for (int64_t b = lo; b < hi; b++) {
        const int64_t r0 = b * G;
        const int rows = (int)(pr->m - r0 < G ? pr->m - r0 : G);
        for (int64_t kk = 0; kk < f->nkb; kk++) {
            const int64_t l0 = kk * f->kb, n = blen(f, kk);
            int64_t mx[32];
            f->K->panel(pr->a.p + r0 + l0 * pr->a.cs, pr->a.cs, rows, n, copy, mx);
            double *Pk = Ps + kk * f->np * G;
            for (int v = 0; v * W < rows; v++) {
                const int rv = rows - v * W < W ? rows - v * W : W;
                double sc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
                int any = 0;
                for (int r = 0; r < rv; r++) {
                    const int32_t e = ozb_fused_block_exp(mx[v * W + r], f->beta);
                    es[kk * G + v * W + r] = e;
                    if (e == OZB_FZ_E_BAD) bad++;
                    if (ozb_fused_usable(e)) { sc[r] = ozb_pow2(f->beta - e); any = 1; }
                }
                if (any && ozb_fused_usable(f->ey[kk]))
                    f->fstrip(copy + v * n * W, W, rv, n, sc, f->yq + l0, pr->k, ozb_pow2(f->beta), Pk + v * W, G);
                else
                    for (int p = 0; p < f->np; p++)
                        for (int r = 0; r < W; r++) Pk[p * G + v * W + r] = 0.0;
            }
        }
        if (bad) continue;
        for (int r = 0; r < rows; r++) {
            for (int64_t kk = 0; kk < f->nkb; kk++) {
                ex[kk] = es[kk * G + r];
                for (int p = 0; p < f->np; p++) P[kk * f->np + p] = Ps[(kk * f->np + p) * G + r];
            }
            const int64_t i = r0 + r;
            const double cval = pr->beta != 0.0 ? pr->c[i * pr->crs] : 0.0;
            f->out[i] = row_sum(f, P, ex, cval, TP, TE, scratch, &fb, &smax);
        }
    }
    return bad;
}

ozblas_status_t ozb_fixed_dot(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *plan, int nt)
{
    if (plan->mode != OZBLAS_MODE_FIXED || plan->engine != OZBLAS_ENGINE_FP64 || pr->n != 1 ||
        (pr->m > 1 && pr->a.cs != 1 && pr->a.rs != 1) || h->knobs.no_fused)
        return OZBLAS_STATUS_NOT_SUPPORTED;
    const int L = h->split_count, fast = h->fast_mode;
    const ozb_fused_kernels *K = ozb_fused_kernels_for(h);
    if (!K || L < 1 || L > OZB_FZ_FIXED_MAX || !K->fdot[fast ? 0 : 1][L]) return OZBLAS_STATUS_NOT_SUPPORTED;
    /* what ozb_s1_element hands to its special-value path; alpha = 0 never reaches a method */
    const int use_c = pr->beta != 0.0;
    if (!isfinite(pr->alpha) || pr->alpha == 0.0 || (use_c && !isfinite(pr->beta))) return OZBLAS_STATUS_NOT_SUPPORTED;
    if (use_c)
        for (int64_t i = 0; i < pr->m; i++)
            if (!isfinite(pr->c[i * pr->crs])) return OZBLAS_STATUS_NOT_SUPPORTED;
    ozb_format fmt;
    if (!ozb_format_for(h, OZBLAS_ENGINE_FP64, &fmt)) return OZBLAS_STATUS_NOT_SUPPORTED;
    const int timed = ozb_timed((double)pr->m * (double)pr->k);
    const double t0 = ozb_now_if(timed);
    /* the pipeline's blocking (scheme1/pipeline.c): kb and beta from the routine's block and k */
    const int64_t kblock = pr->kblock < fmt.kblock_max ? pr->kblock : fmt.kblock_max;
    fx_t f = {0};
    f.pr = pr;
    f.K = K;
    f.L = L;
    f.fast = fast;
    f.nearsum = h->summation == OZBLAS_SUM_NEARSUM;
    f.kern = K->fdot[fast ? 0 : 1][L];
    f.fstrip = K->fstrip[fast ? 0 : 1][L];
    f.fdotq = K->fdotq[fast ? 0 : 1][L];
    f.kb = kblock < pr->k ? kblock : pr->k;
    f.nkb = (pr->k + f.kb - 1) / f.kb;
    f.beta = fmt.bits(f.kb);
    f.np = fast ? L * (L + 1) / 2 : L * L;
    const int64_t ntr = nt > 0 ? nt : 1, nterm = f.nkb * f.np;
    const int dot = pr->m == 1, gemv_n = !dot && pr->a.cs != 1, W = K->width;
    /* per thread: a gathered block (kb), then for GEMV rows P, TP (nterm each) and the
     * scratch (2 nterm + 2), GEMV-N before them a panel's copy (4 W kb) and pair sums (4 W
     * nterm); int32: the row's exponents (nkb), TE (nterm), GEMV-N before them the panel's (4 W nkb) */
    f.thr_dbl = (size_t)f.kb + (dot ? 0 : 4 * (size_t)nterm + 2) + (gemv_n ? 4 * (size_t)W * ((size_t)nterm + (size_t)f.kb) : 0);
    f.thr_i32 = dot ? 1 : (size_t)(f.nkb + nterm) + (gemv_n ? 4 * (size_t)W * (size_t)f.nkb : 0);
    /* shared: op(B) gathered (k, where strided), DOT: P, TP (nterm each), scratch (2 nterm +
     * 2); GEMV: the rows' results (m), op(B)'s digits (L k).  int32: ey (nkb), DOT: ex
     * (nkb), TE (nterm) */
    const size_t ygather = pr->b.cs != 1 ? (size_t)pr->k : 0;
    const size_t ydig = dot ? 0 : (size_t)L * (size_t)pr->k;
    const size_t shared = ygather + ydig + (dot ? 4 * (size_t)nterm + 2 : (size_t)pr->m);
    const size_t shared_i = (size_t)f.nkb + (dot ? (size_t)(f.nkb + nterm) : 0);
    const size_t bytes = (shared + f.thr_dbl * (size_t)ntr) * sizeof(double) + (shared_i + f.thr_i32 * (size_t)ntr) * sizeof(int32_t);
    char *buf = ozb_buf_get(h, OZB_BUF_FZ_TERMS, bytes);
    if (!buf) return OZBLAS_STATUS_ALLOC_FAILED;
    double *d = (double *)buf;
    double *yb = d;
    d += ygather;
    f.yq = dot ? NULL : d;
    d += ydig;
    f.gather = d;
    d += f.thr_dbl * (size_t)ntr;
    int32_t *iw = (int32_t *)(d + (dot ? 4 * (size_t)nterm + 2 : (size_t)pr->m));
    f.ey = iw;
    f.ext = iw + f.nkb;
    f.ex = f.ext + f.thr_i32 * (size_t)ntr;
    /* op(B), contiguous, and its block exponents, once */
    f.y = pr->b.p;
    if (pr->b.cs != 1) {
        ozb_gather(pr->b.p, pr->k, pr->b.cs, yb);
        f.y = yb;
    }
    if (!dot && ozb_par_for(nt > 1 && f.nkb > 1, nt, f.nkb, y_blocks, &f) > 0) return OZBLAS_STATUS_NOT_SUPPORTED;
    int64_t fb = 0;
    int smax = 0;
    if (dot) {
        f.P = d;
        double *TP = d + nterm, *scratch = TP + nterm;
        int32_t *TE = f.ex + f.nkb;
        if (ozb_par_for(nt > 1 && f.nkb > 1, nt, f.nkb, dot_blocks, &f) > 0) return OZBLAS_STATUS_NOT_SUPPORTED;
        *pr->c = row_sum(&f, f.P, f.ex, use_c ? *pr->c : 0.0, TP, TE, scratch, &fb, &smax);
    } else if (gemv_n) {
        f.out = d;
        ozb_par_for(nt > 1 && f.nkb > 1, nt, f.nkb, y_digits, &f);
        const int64_t npanels = (pr->m + 4 * W - 1) / (4 * W);
        if (ozb_par_for(nt > 1 && npanels > 1, nt, npanels, gemv_n_panels, &f) > 0) return OZBLAS_STATUS_NOT_SUPPORTED;
        for (int64_t i = 0; i < pr->m; i++) pr->c[i * pr->crs] = f.out[i];
        smax = L;
    } else {
        f.out = d;
        ozb_par_for(nt > 1 && f.nkb > 1, nt, f.nkb, y_digits, &f);
        if (ozb_par_for(nt > 1 && pr->m > 1, nt, pr->m, gemv_rows, &f) > 0) return OZBLAS_STATUS_NOT_SUPPORTED;
        for (int64_t i = 0; i < pr->m; i++) pr->c[i * pr->crs] = f.out[i];
        smax = L;
    }
    ozblas_info_t *info = ozb_info_begin(h, h->summation, f.beta);
    info->slices_a = info->slices_b = smax > 0 ? smax : 1;
    info->split_count = fast ? L : 0;
    info->fast_mode = fast;
    info->slice_products = pr->m * nterm;
    info->blocks = f.nkb;
    info->block_m = 1; info->block_n = 1; info->block_k = f.kb;
    info->exact_fallbacks = fb;
    info->seconds_multiply = ozb_now_if(timed) - t0;
    info->seconds_total = ozb_now_if(timed) - t0;
    info->fused = 1;
    return OZBLAS_STATUS_SUCCESS;
}
