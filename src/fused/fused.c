/* Orchestration of the fused correctly rounded DOT and GEMV (kernels: fused_kern*.inc).
 *
 * Blocks of OZB_FZ_KB along k: a row's block is split on the grid of its own maximum,
 * 2^(e-1) <= max |a| < 2^e, with OZB_FZ_BETA-bit digits (fused_kern.h), as is the
 * vector's block.  The kernels return the exact pair sums P_tu of the levels t + u < D;
 * pair (t, u) stands for P_tu 2^(ea + eb - (t + u + 2) beta).
 *
 * What the truncation leaves out is bounded rigorously: digit t of an element is below
 * 2^(e - t beta) in magnitude, so pair (t, u) of a block is below kb 2^(ea + eb - (t+u) beta),
 * level L has at most L + 1 pairs, and the levels L >= D together stay below
 *     kb 2^(ea + eb - D beta) sum_{j >= 0} (D + 1 + j) 2^(-j beta)  <  kb (D + 2) 2^(ea + eb - D beta).
 * ozb_sum_nearest_bounded returns RN(alpha (sum + rest) + beta c) when that value is the same
 * for every rest within the bound.  The first pass takes D = 4 (84 bits: at phi = 1 and
 * k = 8192 about 0.1 % of the rows land too close to a rounding boundary; with 80 bits it
 * is 1.5 %); those rows are done again with D = 6 (126 bits) from the same grids; what is still undecided (massive
 * cancellation) and what the fused path does not handle (Inf/NaN, extreme exponents,
 * non-finite alpha, beta or C) is left to the GEMM-ized pipeline.  Every path gives
 * RN(exact): the same bits.
 *
 * Compiled with -ffp-contract=off; the kernels' FMAs are explicit and exact. */
#include "core/info.h"
#include "fused/fused.h"
#include "eft/eft_dot.h"
#include "core/par.h"
#include <stdatomic.h>
#include "fused/fused_kern.h"
#include "fused/fused_grid.h"
#include "sum/sum.h"
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>

#define BETA OZB_FZ_BETA
#define NP1 OZB_FZ_NPAIRS(OZB_FZ_D1)
#define NP2 OZB_FZ_NPAIRS(OZB_FZ_D2)
#define EA_ZERO OZB_FZ_E_ZERO  /* the block is zero: no terms, no rest */
#define EA_BAD  OZB_FZ_E_BAD   /* non-finite entry or a grid outside the normal range */

typedef struct { int D, np, level[NP2]; } levels_t;

static levels_t levels(int D)
{
    levels_t L = {D, OZB_FZ_NPAIRS(D), {0}};
    int p = 0;
    for (int t = 0; t < D; t++)
        for (int u = 0; u < D - t; u++) L.level[p++] = t + u;
    return L;
}

/* The CPU's set, chosen once per process (the same by every thread: no lock per call); NULL
 * where none is built */
static const ozb_fused_kernels *cpu_set(void)
{
#if defined(__x86_64__)
    static const ozb_fused_kernels *_Atomic k;
    const ozb_fused_kernels *s = atomic_load_explicit(&k, memory_order_acquire);
    if (!s) {
        s = ozb_fused_select();
        atomic_store_explicit(&k, s, memory_order_release);
    }
    return s;
#else
    return NULL;
#endif
}

const ozb_fused_kernels *ozb_fused_kernels_for(ozblas_handle_t h)
{
#if defined(__x86_64__)
    if (h->knobs.fused_avx2) return &ozb_fused_avx2;   /* a test knob: both sets give the same bits */
#else
    (void)h;
#endif
    return cpu_set();
}

/* The error-free DOT lanes follow the same choice (eft_dot.c, eft_dot512.c) */
int ozb_eft_wide(ozblas_handle_t h)
{
    const ozb_fused_kernels *K = ozb_fused_kernels_for(h);
    return K && K->width == 8;
}

int ozb_eft_cpu_wide(void)
{
    const ozb_fused_kernels *K = cpu_set();
    return K && K->width == 8;
}

static int64_t nblocks(int64_t k) { return (k + OZB_FZ_KB - 1) / OZB_FZ_KB; }

/* Pair sums of `groups` groups (rows, or strips of W rows) with np pairs: P[g][kk][p][lane] */
static size_t psums_bytes(int64_t groups, int gw, int64_t nkb, int np)
{
    return (size_t)groups * (size_t)gw * (size_t)nkb * (size_t)np * sizeof(double) + 64;
}

/* ea[m][nkb], eb[nkb], state[m] after the first pass's sums */
static size_t meta_bytes(int64_t m, int64_t nkb)
{
    return (size_t)m * (size_t)nkb * sizeof(int32_t) + (size_t)nkb * sizeof(int32_t) + (size_t)m + 64;
}

/* Per thread: gathered x and y blocks (strided DOT) or a GEMV-N panel (up to 32 rows), then the
 * summation's TP, scratch, TE */
#define THR_BLOCK (32 * OZB_FZ_KB)
static size_t thread_bytes(int64_t nkb)
{
    const size_t nt = (size_t)nkb * NP2;
    return ((THR_BLOCK + 3 * nt + 8) * sizeof(double) + nt * sizeof(int32_t) + 127) & ~(size_t)63;
}

int ozb_fused_applies(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *plan)
{
    if (plan->mode != OZBLAS_MODE_CORRECTLY_ROUNDED || plan->engine != OZBLAS_ENGINE_FP64 || pr->n != 1) return 0;
    if (h->knobs.no_fused || !ozb_fused_kernels_for(h)) return 0;
    return pr->m == 1 || pr->a.rs == 1 || pr->a.cs == 1;
}

size_t ozb_fused_bytes(ozblas_handle_t h, const ozb_problem *pr)
{
    const int64_t nkb = nblocks(pr->k), mpad = pr->m + 32;
    const double bytes = (double)psums_bytes(mpad, 1, nkb, NP1) + (double)psums_bytes(mpad, 1, nkb, NP2)
                       + (double)meta_bytes(pr->m, nkb) + (double)thread_bytes(nkb) * ozb_threads(h)
                       + (pr->m > 1 ? (double)OZB_FZ_D2 * (double)pr->k * sizeof(double) : 0.0);
    return bytes < 0x1p62 ? (size_t)bytes : SIZE_MAX;
}

static int32_t block_exp(int64_t mxbits) { return ozb_fused_block_exp(mxbits, BETA); }
static int usable(int32_t e) { return ozb_fused_usable(e); }

typedef struct {
    const ozb_problem *pr;
    const ozb_fused_kernels *K;
    int64_t m, k, nkb, kb;
    int W;                  /* vector width */
    int dot, stripwise;
    int32_t *ea, *eb;       /* block exponents */
    double *yq;             /* GEMV: the vector's digits, D2 rows of k */
    char *thr;
} fz_t;

static double *thread_buf(const fz_t *f) { return (double *)(f->thr + thread_bytes(f->nkb) * (size_t)omp_get_thread_num()); }

/* Pair sums of group g (row g, or strip g) for every k-block with `lv` (0: D1, 1: D2),
 * into Pg[kk][p][lane].  The first pass also finds the rows' block exponents. */
static void group_pass(const fz_t *f, int64_t g, int gw, int64_t kk, int lv, double *Pg, int first)
{
    const ozb_problem *pr = f->pr;
    const ozb_fused_kernels *K = f->K;
    const int np = lv ? NP2 : NP1;
    const int64_t l0 = kk * f->kb, kbb = f->kb < f->k - l0 ? f->kb : f->k - l0;
    double *Pk = Pg + kk * (int64_t)np * gw;
    if (f->dot) {
        double *xb = thread_buf(f), *ybuf = xb + f->kb;
        const double *x = pr->a.p + l0 * pr->a.cs, *y = pr->b.p + l0 * pr->b.cs;
        if (first) {
            int64_t mx, my;
            if (pr->a.cs == 1) mx = K->maxbits(x, kbb); else mx = ozb_fused_gather_max(x, pr->a.cs, kbb, xb);
            if (pr->b.cs == 1) my = K->maxbits(y, kbb); else my = ozb_fused_gather_max(y, pr->b.cs, kbb, ybuf);
            f->ea[kk] = block_exp(mx); f->eb[kk] = block_exp(my);
        } else {
            if (pr->a.cs != 1) ozb_fused_gather_max(x, pr->a.cs, kbb, xb);
            if (pr->b.cs != 1) ozb_fused_gather_max(y, pr->b.cs, kbb, ybuf);
        }
        if (pr->a.cs != 1) x = xb;
        if (pr->b.cs != 1) y = ybuf;
        const int32_t ex = f->ea[kk], ey = f->eb[kk];
        if (usable(ex) && usable(ey)) K->dot[lv](x, y, kbb, ozb_pow2(BETA - ex), ozb_pow2(BETA - ey), Pk);
    } else if (f->stripwise) {
        /* first pass: panel g of gw = 4W rows, copied (K->panel), then strip by strip from
         * the copy; second pass: strip g of gw = W rows, read in place */
        const int64_t r0 = g * gw;
        const int rows = (int)(f->m - r0 < gw ? f->m - r0 : gw);
        const double *src = pr->a.p + r0 + l0 * pr->a.cs;
        int64_t lds = pr->a.cs, vstride = f->W;     /* strip v starts at src + v * vstride */
        if (first) {
            int64_t mx[32];
            double *buf = thread_buf(f);
            K->panel(src, pr->a.cs, rows, kbb, buf, mx);
            for (int r = 0; r < rows; r++) f->ea[(r0 + r) * f->nkb + kk] = block_exp(mx[r]);
            src = buf; lds = f->W; vstride = kbb * f->W;
        }
        for (int v = 0; v * f->W < rows; v++) {
            const int rv = rows - v * f->W < f->W ? rows - v * f->W : f->W;
            double s[8];
            int any = 0;
            for (int r = 0; r < rv; r++) {
                const int32_t e = f->ea[(r0 + v * f->W + r) * f->nkb + kk];
                s[r] = usable(e) ? ozb_pow2(BETA - e) : 0.0;   /* 0: the lane's digits are 0 */
                any |= s[r] != 0.0;
            }
            if (any && usable(f->eb[kk]))
                K->strip[lv](src + v * vstride, lds, rv, kbb, s, f->yq + l0, f->k, Pk + v * f->W, gw);
        }
    } else {
        const double *a = pr->a.p + g * pr->a.rs + l0;
        if (first) f->ea[g * f->nkb + kk] = block_exp(K->maxbits(a, kbb));
        const int32_t e = f->ea[g * f->nkb + kk];
        if (usable(e) && usable(f->eb[kk])) K->dotq[lv](a, kbb, ozb_pow2(BETA - e), f->yq + l0, f->k, Pk);
    }
}

/* Row i's terms (lane `lane` of group base Pg) summed and certified.
 * 1: *out written; 0: undecided at these levels; -1: for the GEMM-ized pipeline. */
static int row_result(const fz_t *f, const levels_t *L, const double *Pg, int gw, int lane, int64_t i,
                      double *TP, int32_t *TE, double *scratch, int force_fail)
{
    const ozb_problem *pr = f->pr;
    double *cij = pr->c + i * pr->crs;
    const int use_c = pr->beta != 0.0;
    const double cval = use_c ? *cij : 0.0;
    const int32_t *ea = f->ea + i * f->nkb, *eb = f->eb;
    if (!isfinite(pr->alpha) || (use_c && (!isfinite(pr->beta) || !isfinite(cval)))) return -1;
    int64_t n = 0;
    int32_t emax = INT32_MIN;
    for (int64_t kk = 0; kk < f->nkb; kk++) {
        if (ea[kk] == EA_BAD || eb[kk] == EA_BAD) return -1;
        if (ea[kk] == EA_ZERO || eb[kk] == EA_ZERO) continue;
        const int32_t e2 = ea[kk] + eb[kk];
        emax = e2 > emax ? e2 : emax;
        const double *Pk = Pg + kk * (int64_t)L->np * gw + lane;
        for (int p = 0; p < L->np; p++) {
            TP[n] = Pk[p * gw];
            TE[n++] = e2 - (L->level[p] + 2) * BETA;
        }
    }
    if (n == 0) {                         /* every block is zero: the sum is exactly 0 */
        *cij = ozb_sum_nearest(TP, TE, 0, pr->alpha, pr->beta, cval, use_c, scratch, NULL);
        return 1;
    }
    if (force_fail) return 0;
    double bnd = 0.0;
    for (int64_t kk = 0; kk < f->nkb; kk++) {
        if (!usable(ea[kk]) || !usable(eb[kk])) continue;
        const int64_t l0 = kk * f->kb, kbb = f->kb < f->k - l0 ? f->kb : f->k - l0;
        const int de = ea[kk] + eb[kk] - emax;
        bnd += (double)(kbb * (L->D + 2)) * ldexp(1.0, de > -1000 ? de : -1000);
    }
    bnd *= 1.0 + 0x1p-40;                 /* covers the rounding of the sum above (nkb < 2^40) */
    double r;
    if (!ozb_sum_nearest_bounded(TP, TE, n, pr->alpha, pr->beta, cval, use_c, bnd, emax - L->D * BETA, scratch, &r))
        return 0;
    *cij = r;
    return 1;
}

/* The passes of ozb_fused_cr as loop bodies over index ranges (core/par.h). */
typedef struct {
    fz_t *f;
    const levels_t *L;
    double *P;
    int gw, second, force;
    int8_t *state;
    const int64_t *gl;        /* second pass: the groups holding an undecided row */
} pass_t;

/* the vector's digits, blocks lo..hi-1 */
static int64_t vector_pass(void *ctx, int64_t lo, int64_t hi)
{
    fz_t *f = ((pass_t *)ctx)->f;
    const ozb_problem *pr = f->pr;
    for (int64_t kk = lo; kk < hi; kk++) {
        const int64_t l0 = kk * f->kb, kbb = f->kb < f->k - l0 ? f->kb : f->k - l0;
        const double *x = pr->b.p + l0 * pr->b.cs;
        int64_t mx = 0;
        for (int64_t l = 0; l < kbb; l++) {
            int64_t b = (int64_t)(ozb_bits(x[l * pr->b.cs]) & 0x7fffffffffffffffull);
            mx = b > mx ? b : mx;
        }
        f->eb[kk] = block_exp(mx);
        ozb_fused_digits(x, pr->b.cs, kbb, f->eb[kk], BETA, OZB_FZ_D2, f->yq + l0, f->k);
    }
    return 0;
}

/* pair sums of units (group, k-block) lo..hi-1 */
static int64_t group_units(void *ctx, int64_t lo, int64_t hi)
{
    const pass_t *c = ctx;
    const int64_t nkb = c->f->nkb;
    for (int64_t un = lo; un < hi; un++) {
        const int64_t q = un / nkb, g = c->second ? c->gl[q] : q;
        group_pass(c->f, g, c->gw, un % nkb, c->second, c->P + q * nkb * (c->second ? NP2 : NP1) * c->gw, !c->second);
    }
    return 0;
}

/* the rounded results of rows lo..hi-1 (first pass) or of the undecided rows of groups
 * lo..hi-1 (second pass); returns how many stay undecided */
static int64_t row_results(void *ctx, int64_t lo, int64_t hi)
{
    const pass_t *c = ctx;
    const fz_t *f = c->f;
    const int64_t nkb = f->nkb, np = c->second ? NP2 : NP1;
    double *TP = thread_buf(f) + THR_BLOCK, *scratch = TP + nkb * NP2;
    int32_t *TE = (int32_t *)(scratch + 2 * nkb * NP2 + 8);
    int64_t nund = 0;
    for (int64_t q = lo; q < hi; q++) {
        const int lanes = c->second ? c->gw : 1;
        for (int lane = 0; lane < lanes; lane++) {
            const int64_t i = c->second ? c->gl[q] * c->gw + lane : q;
            if (c->second && (i >= f->m || c->state[i] != 0)) continue;
            const int64_t g = i / c->gw;
            const int ln = (int)(i % c->gw);
            const double *Pg = c->second ? c->P + q * nkb * np * c->gw : c->P + g * nkb * np * c->gw;
            c->state[i] = (int8_t)row_result(f, c->L, Pg, c->gw, ln, i, TP, TE, scratch, c->force);
            nund += c->state[i] == 0;
        }
    }
    return nund;
}

ozblas_status_t ozb_fused_cr(ozblas_handle_t h, const ozb_problem *pr, int nt,
                             uint8_t **failp, int64_t *nfailp)
{
    fz_t f;
    f.pr = pr;
    f.K = ozb_fused_kernels_for(h);
    f.W = f.K->width;
    f.m = pr->m; f.k = pr->k; f.nkb = nblocks(pr->k); f.kb = OZB_FZ_KB;
    f.dot = f.m == 1;
    f.stripwise = !f.dot && pr->a.rs == 1;
    /* rows per group: GEMV-N panels of 4 strips in the first pass, strips in the second */
    const int gw1 = f.stripwise ? 4 * f.W : 1, gw2 = f.stripwise ? f.W : 1;
    const int64_t m = f.m, nkb = f.nkb, ngroups = (m + gw1 - 1) / gw1;
    /* test knob: the first pass decides nothing, the second nothing either when = 2 */
    const int force = h->knobs.fused_fail;
    double *P1 = ozb_buf_get(h, OZB_BUF_FZ_TERMS, psums_bytes(ngroups, gw1, nkb, NP1));
    char *meta = ozb_buf_get(h, OZB_BUF_FZ_THREAD, meta_bytes(m, nkb) + thread_bytes(nkb) * (size_t)nt);
    f.yq = f.dot ? NULL : ozb_buf_get(h, OZB_BUF_FZ_DIGITS, sizeof(double) * OZB_FZ_D2 * (size_t)f.k);
    if (!P1 || !meta || (!f.dot && !f.yq)) return OZBLAS_STATUS_ALLOC_FAILED;
    f.thr = meta + ((meta_bytes(m, nkb) + 63) & ~(size_t)63);
    f.ea = (int32_t *)meta;
    f.eb = f.ea + m * nkb;
    int8_t *state = (int8_t *)(f.eb + nkb);    /* 1 done, 0 undecided, -1 pipeline */
    ozblas_info_t *info = &h->info;
    /* phase times only where a call is long enough for them: a clock read costs as much as
     * a small call's whole arithmetic (seconds_total is measured for every call) */
    const int timed = m * f.k >= 16384;
    const double t0 = ozb_now_if(timed);
    const int par = nt > 1;       /* nt: the caller's, 1 below OZB_PAR_WORK = m k (ozb_threads_for) */

    const levels_t L1 = levels(OZB_FZ_D1), L2 = levels(OZB_FZ_D2);
    pass_t c1 = { &f, &L1, P1, gw1, 0, force >= 1, state, NULL };
    if (!f.dot) ozb_par_for(nt > 1 && f.k >= OZB_PAR_WORK, nt, nkb, vector_pass, &c1);   /* the vector's digits, once */
    const double t1 = ozb_now_if(timed);
    ozb_par_for(par, nt, ngroups * nkb, group_units, &c1);
    const double t2 = ozb_now_if(timed);
    int64_t nund = ozb_par_for(nt > 1 && m * nkb >= 256, nt, m, row_results, &c1);
    const double t3 = ozb_now_if(timed);

    /* rows the first pass left undecided: again with D2 levels, group by group */
    int64_t ng2 = 0;
    if (nund) {
        /* groups holding an undecided row, in order (gl), then their pair sums (P2) */
        const size_t glb = (sizeof(int64_t) * (size_t)nund + 63) & ~(size_t)63;
        int64_t *gl = ozb_buf_get(h, OZB_BUF_FZ_TERMS2, glb + psums_bytes(nund, gw2, nkb, NP2));
        if (!gl) {
            for (int64_t i = 0; i < m; i++) h->out_partial |= state[i] == 1;   /* the rows decided are written */
            return OZBLAS_STATUS_ALLOC_FAILED;
        }
        double *P2 = (double *)((char *)gl + glb);
        for (int64_t i = 0; i < m; i++)
            if (state[i] == 0 && (ng2 == 0 || gl[ng2 - 1] != i / gw2)) gl[ng2++] = i / gw2;
        pass_t c2 = { &f, &L2, P2, gw2, 1, force >= 2, state, gl };
        ozb_par_for(par && ng2 * nkb > 1, nt, ng2 * nkb, group_units, &c2);
        ozb_par_for(nt > 1 && ng2 * nkb >= 256, nt, ng2, row_results, &c2);   /* still undecided: the pipeline */
    }
    int64_t nfail = 0;
    uint8_t *fail = (uint8_t *)state;
    for (int64_t i = 0; i < m; i++) { fail[i] = state[i] != 1; nfail += fail[i]; }
    const double t4 = ozb_now_if(timed);

    info = ozb_info_begin(h, OZBLAS_SUM_NEARSUM, BETA);
    info->slices_a = info->slices_b = nund ? OZB_FZ_D2 : OZB_FZ_D1;
    info->slice_products = m * nkb * NP1 + ng2 * gw2 * nkb * NP2;
    info->blocks = ngroups * nkb;
    info->block_m = gw1; info->block_n = 1; info->block_k = f.kb;
    info->lazy_fixups = nund;
    info->seconds_split = t1 - t0;
    info->seconds_multiply = t2 - t1;
    info->seconds_sum = t4 - t2;
    info->fused = 1;
    (void)t3;
    *failp = fail;
    *nfailp = nfail;
    return OZBLAS_STATUS_SUCCESS;
}
