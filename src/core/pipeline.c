/* Orchestration of split -> products -> summation for one routine call.
 *
 * Reproducibility (CONTRACT §3): every output element is a function of its row of
 * op(A), its column of op(B), the k-block size (routine, k and format only), the
 * mode and the format:
 *  - slices of a row depend only on that row's values in the k-block;
 *  - every slice product is exact (bit budgets in format.c), whatever the GEMM does;
 *  - the terms of an element are summed in a fixed order (or correctly rounded);
 *  - the DOUBLE-mode split counts come from canonical-order sums (ozb_crit_sum
 *    and the column sums below), never from thread-dependent reductions.
 * m/n blocking and thread counts therefore never change a bit. */
#include "core/pipeline.h"
#include "core/format.h"
#include "core/special.h"
#include "fused/fused.h"
#include "crt/crt.h"
#include "cuda/dev.h"
#include "cuda/stage.h"
#include "cuda/resident.h"
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
    switch (h->run_mode) {
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

/* w[l] = sum_i |v(i, l)| over finite entries, i in order (canonical, thread-independent),
 * then scaled by 2^-E so that max_l w[l] < 1 (E >= 0): the Algorithm 3 sums over a row
 * scaled below 1 then stay below k, far from overflow.  One pass over the data; only
 * when a raw sum overflows (entries near DBL_MAX) is it redone with every entry
 * pre-scaled by 2^-E0, 2^E0 above the largest entry.  Algorithm 3 compares two sums
 * weighted by the same w, so the scale cancels. */
static void col_sums_pass(const double *p, int64_t rs, int64_t cs, int64_t rows, int64_t k,
                          double sc, double *w, int nt, int par)
{
    if (rs == 1 && rows > 1) {             /* walk memory in order; each w[l] sums i in order */
        #pragma omp parallel for num_threads(nt) schedule(static) if(par)
        for (int64_t l = 0; l < k; l++) {
            double s = 0.0;
            for (int64_t i = 0; i < rows; i++) {
                double x = fabs(p[i + l * cs]);
                s += x <= DBL_MAX ? x * sc : 0.0;
            }
            w[l] = s;
        }
    } else {
        const int64_t chunk = 4096, nch = (k + chunk - 1) / chunk;
        #pragma omp parallel for num_threads(nt) schedule(static) if(par)
        for (int64_t ch = 0; ch < nch; ch++) {
            const int64_t l0 = ch * chunk, l1 = l0 + chunk < k ? l0 + chunk : k;
            for (int64_t l = l0; l < l1; l++) w[l] = 0.0;
            for (int64_t i = 0; i < rows; i++) {
                const double *row = p + i * rs;
                for (int64_t l = l0; l < l1; l++) {
                    double x = fabs(row[l * cs]);
                    w[l] += x <= DBL_MAX ? x * sc : 0.0;
                }
            }
        }
    }
}

static double max_of(const double *w, int64_t k)
{
    double m = 0.0;
    for (int64_t l = 0; l < k; l++) m = w[l] > m ? w[l] : m;   /* order-free */
    return m;
}

/* Returns Ev: w[l] = 2^-Ev sum_i |v(i, l)|. */
static int abs_col_sums(const ozb_view *v, int64_t rows, int64_t k, double *w, int nt)
{
    const int par = nt > 1 && rows * k >= 65536;
    double m = 0.0;
    int Ev = 0;
    if (rows == 1) {                       /* DOT: w = |x|, nothing to sum */
        for (int64_t l = 0; l < k; l++) {
            double x = fabs(v->p[l * v->cs]);
            x = x <= DBL_MAX ? x : 0.0;
            w[l] = x;
            m = x > m ? x : m;
        }
    } else {
        col_sums_pass(v->p, v->rs, v->cs, rows, k, 1.0, w, nt, par);
        m = max_of(w, k);
    }
    if (!(m <= DBL_MAX)) {                 /* a sum overflowed: pre-scale every entry */
        int64_t mx = 0;
        #pragma omp parallel for num_threads(nt) schedule(static) reduction(max:mx) if(par)
        for (int64_t l = 0; l < k; l++)
            for (int64_t i = 0; i < rows; i++) {
                int64_t b = (int64_t)(ozb_bits(ozb_view_at(v, i, l)) & 0x7fffffffffffffffull);
                b = b < 0x7ff0000000000000LL ? b : 0;
                mx = b > mx ? b : mx;
            }
        double e; memcpy(&e, &mx, sizeof e);
        Ev = ozb_ilogb(e) + 1;
        col_sums_pass(v->p, v->rs, v->cs, rows, k, ldexp(1.0, -Ev), w, nt, par);
        m = max_of(w, k);
    }
    if (m >= 1.0) {
        const double sc = ldexp(1.0, -(ozb_ilogb(m) + 1));
        Ev += ozb_ilogb(m) + 1;
        for (int64_t l = 0; l < k; l++) w[l] *= sc;
    }
    return Ev;
}

/* Fast mode's weights (DOUBLE mode), on the scale of abs_col_sums's w (2^-Ev):
 *   u[l] = 2^-Ev sum_i [v(i, l) != 0] 2^E_i,  E_i with max_l |v(i, l)| < 2^E_i,
 * rounded up (a term below the subnormal range counts as 2^-1074): an upper bound that split.c
 * uses to bound the pairs fast mode skips (ozb_split_params.u).  i in order: canonical. */
static void exp_col_sums(const ozb_view *v, int64_t rows, int64_t k, int Ev, double *u, int32_t *E)
{
    for (int64_t i = 0; i < rows; i++) {
        uint64_t mx = 0;
        for (int64_t l = 0; l < k; l++) { uint64_t b = ozb_bits(ozb_view_at(v, i, l)) & 0x7fffffffffffffffull; mx = b > mx ? b : mx; }
        double d; memcpy(&d, &mx, sizeof d);
        E[i] = mx == 0 || mx >= 0x7ff0000000000000ull ? INT32_MIN : ozb_ilogb(d) + 1;
    }
    for (int64_t l = 0; l < k; l++) u[l] = 0.0;
    for (int64_t i = 0; i < rows; i++) {
        if (E[i] == INT32_MIN) continue;
        const int p = E[i] - Ev;                 /* <= 1: w's scale keeps every column sum below 1 */
        const double g = p < -1074 ? 0x1p-1074 : ldexp(1.0, p);
        for (int64_t l = 0; l < k; l++) {
            const double x = ozb_view_at(v, i, l);
            u[l] += (x != 0.0 && isfinite(x)) ? g : 0.0;
        }
    }
}

/* Exponents, slice counts and flags of one side, for every k-block:
 * w[(kk*(cap+1) + t)*R + i], ns[kk*R + i], flag[kk*R + i]. */
typedef struct { int32_t *w, *ns, *dsafe; uint8_t *flag; int64_t R; int cap; } meta_t;

typedef struct {
    ozblas_handle_t h;
    const ozb_problem *pr;
    run_cfg cfg;
    int nt;
    int64_t kb, nkb;
    int beta_bits;
    const double *vA, *vB, *uA;   /* uA: fast mode's weights (exp_col_sums), DOUBLE mode */
    double sfac;
    int capA, capB;
    const ozb_format *fmt;
    int dhyp;              /* DOUBLE: d for rows that became exact (row_d)                  */
    int level_sum;         /* pairs on one grid level may be pre-summed exactly (format)     */
    int local_weights;     /* DOT: Algorithm 3 weights per k-block, from data already in cache */
    int exact_b;           /* DOUBLE mode: op(B) is split until exact, not by Algorithm 3 (see ozb_run) */
    int lazy;              /* CORRECTLY_ROUNDED through lazy_tile (FP64 products, one k-block)  */
    int dcr;               /* lazy_tile multiplies pairs t + u < dcr first                     */
    int64_t lazy_fixups;   /* elements that needed their remaining pairs                       */
    ozb_prod_stats pst;
    int smaxA, smaxB;
    int64_t fallbacks;
    int dev_err;                   /* a device product failed (CUDA handles) */
} ctx_t;

static int meta_alloc(ozblas_handle_t h, meta_t *M, int slot_w, int slot_n, int64_t R, int64_t nkk, int cap)
{
    M->R = R;
    M->cap = cap;
    M->w = ozb_buf_get(h, slot_w, sizeof(int32_t) * (size_t)nkk * (size_t)(cap + 1) * (size_t)R);
    void *nf = ozb_buf_get(h, slot_n, (2 * sizeof(int32_t) + 1) * (size_t)nkk * (size_t)R + 64);
    if (!M->w || !nf) return 0;
    M->ns = nf;
    M->dsafe = M->ns + nkk * R;
    M->flag = (uint8_t *)(M->dsafe + nkk * R);
    return 1;
}

static void bind(ozb_slices *sl, double *buf, const meta_t *M, int64_t kk, int64_t roff)
{
    sl->cap = M->cap;
    sl->slice = buf;
    sl->w = M->w + kk * (int64_t)(M->cap + 1) * M->R + roff;
    sl->wstride = M->R;
    sl->ns = M->ns + kk * M->R + roff;
    sl->dsafe = M->dsafe + kk * M->R + roff;
    sl->flag = M->flag + kk * M->R + roff;
}

static ozb_split_params params_of(const ctx_t *c, const double *v, const double *u, int64_t l0)
{
    /* v == NULL in DOUBLE mode: this side is split until exact (see exact_b) */
    ozb_split_params p = {c->beta_bits, c->cfg.limit, c->cfg.criterion && v, v ? v + l0 : NULL, c->sfac,
                          c->cfg.criterion && v && u ? u + l0 : NULL};
    return p;
}

/* DOUBLE mode: the d of Algorithm 3 for one row.  A row that met the criterion uses its
 * d = ns.  A row that became exact first has no slice d to measure, so it takes the d at
 * which a fully populated row would meet the criterion, (d+1) 2^(-(d-1) beta) < 2 sqrt(kb) u,
 * or its ns if larger: every pair fast mode then skips has t + u >= d and is below
 * 2^(-d beta) of the product of the row and column maxima, under DGEMM's error whatever
 * the other side holds (with 7-bit slices, two rows exact at 3 slices would otherwise lose
 * the 2^-28-sized pair (3,3)). */
static int row_d(int ns, uint8_t flag, int dhyp)
{
    if (!(flag & OZB_ROW_EXACT) || ns == 0) return ns;
    return ns > dhyp ? ns : dhyp;
}

int ozb_hypothetical_d(int beta, int64_t kb)
{
    const double s = 2.0 * sqrt((double)kb) * 0x1p-53;
    int d = 2;
    while (d < 200 && (double)(d + 1) * ldexp(1.0, -(d - 1) * beta) >= s) d++;
    return d;
}

/* Pairs t + u <= dmax - 1 the GEMMs must cover for this block (0: all). */
static int block_dmax(const ctx_t *c, const ozb_slices *A, const ozb_slices *B)
{
    if (!c->cfg.fast) return 0;
    if (!c->cfg.criterion) return c->cfg.dfixed;
    int dmax = 1;
    for (int64_t i = 0; i < A->rows; i++) {
        int d = row_d(A->ns[i], A->flag[i], c->dhyp); dmax = d > dmax ? d : dmax;
        d = A->dsafe[i]; dmax = d > dmax ? d : dmax;        /* fast mode's own bound (split.c) */
    }
    for (int64_t j = 0; j < B->rows; j++) { int d = row_d(B->ns[j], B->flag[j], c->dhyp); dmax = d > dmax ? d : dmax; }
    return dmax;
}

/* Where the partial products of one element live:
 * P(kk, t, u) = P[kk*kkstride + (t*mrows + il) + (u*ncols + jl)*ldp]. */
typedef struct { const double *P; size_t kkstride; int64_t ldp, mrows, ncols; } ploc_t;

/* Gathers the terms of element (ia of MA, jb of MB) and sums them as the mode says. */
static double element(const ctx_t *c, const meta_t *MA, int64_t ia, const meta_t *MB, int64_t jb,
                      int64_t bkk_base, int bshared, const ploc_t *pl, int64_t il, int64_t jl,
                      int64_t gi, int64_t gj, double *TP, int32_t *TE, double *scratch, int64_t *fb)
{
    const ozb_problem *pr = c->pr;
    double *cij = pr->c + gi * pr->crs + gj * pr->ccs;
    const int use_c = pr->beta != 0.0;
    const double cval = use_c ? *cij : 0.0;
    int nonfinite = 0;
    int64_t nterm = 0;
    for (int64_t kk = 0; kk < c->nkb; kk++) {
        const int64_t kB = bshared ? 0 : bkk_base + kk;
        const int32_t *wa = MA->w + kk * (int64_t)(MA->cap + 1) * MA->R + ia;
        const int32_t *wb = MB->w + kB * (int64_t)(MB->cap + 1) * MB->R + jb;
        const int nsa = MA->ns[kk * MA->R + ia], nsb = MB->ns[kB * MB->R + jb];
        const uint8_t fa = MA->flag[kk * MA->R + ia], fb2 = MB->flag[kB * MB->R + jb];
        nonfinite |= (fa | fb2) & OZB_ROW_NONFINITE;
        int d = 0;                                   /* pairs t + u <= d - 1; 0: all */
        if (c->cfg.criterion) {             /* fast mode with d = max(d_i, d_j), and safe (split.c) */
            const int da = row_d(nsa, fa, c->dhyp), db = row_d(nsb, fb2, c->dhyp), ds = MA->dsafe[kk * MA->R + ia];
            d = da > db ? da : db;
            d = ds > d ? ds : d;
        } else if (c->cfg.fast) d = c->cfg.dfixed;
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
         * CORRECTLY_ROUNDED; FIXED gave NaN for S != 0, found by tests/fuzz) */
        int ssign = (sclass == OZB_CLASS_FINITE && isinf(pr->alpha)) ? ozb_dot_sign(&pr->a, gi, &pr->b, gj, pr->k) : 0;
        int fin;
        double r = ozb_special_combine(pr->alpha, sclass, ssign, pr->beta, cval, use_c, &fin);
        return fin ? ozb_sum_exact(TP, TE, nterm, pr->alpha, pr->beta, cval, use_c) : r;
    }
    if (c->cfg.summation == OZBLAS_SUM_NEARSUM)
        return ozb_sum_nearest(TP, TE, nterm, pr->alpha, pr->beta, cval, use_c, scratch, fb);
    return ozb_sum_double(TP, TE, nterm, pr->alpha, pr->beta, cval, use_c);
}

/* Per-thread term buffers, one layout for every summation loop:
 * P[maxterms], scratch[2*maxterms+4] (NearSum input), E[maxterms]; 64-byte aligned. */
typedef struct { double *P, *scratch; int32_t *E; } terms_t;

static size_t terms_bytes(int64_t maxterms)
{
    return (((size_t)maxterms * (3 * sizeof(double) + sizeof(int32_t)) + 4 * sizeof(double)) + 127) & ~(size_t)63;
}

/* The handle's term buffers for nt threads (NULL on allocation failure). */
static char *terms_alloc(ozblas_handle_t h, int64_t maxterms, int nt)
{
    return ozb_buf_get(h, OZB_BUF_TERMS, terms_bytes(maxterms) * (size_t)nt);
}

/* The calling thread's share of terms_alloc's buffer. */
static terms_t thread_terms(char *tbuf, int64_t maxterms)
{
    terms_t t;
    t.P = (double *)(tbuf + terms_bytes(maxterms) * (size_t)omp_get_thread_num());
    t.scratch = t.P + maxterms;
    t.E = (int32_t *)(t.scratch + 2 * maxterms + 4);
    return t;
}

/* Sums every element (i, j) of an mcount x ncount range in parallel; each element's
 * computation is sequential and fixed, so the thread count does not matter. */
static int sum_range(ctx_t *c, const meta_t *MA, const meta_t *MB, int64_t i0, int64_t mcount,
                     int64_t j0, int64_t ncount, int64_t mb_units, const ploc_t *pl_tile,
                     const double *Punits, size_t unit_stride, int bshared)
{
    const int64_t maxterms = c->nkb * (int64_t)c->capA * c->capB;
    char *tbuf = terms_alloc(c->h, maxterms, c->nt);
    if (!tbuf) return 0;
    const int64_t ntile = mcount * ncount;
    int64_t fallbacks = 0;
    #pragma omp parallel num_threads(c->nt) reduction(+:fallbacks) if(c->nt > 1 && ntile * maxterms >= 4096)
    {
        const terms_t tt = thread_terms(tbuf, maxterms);
        double *TP = tt.P, *scratch = tt.scratch;
        int32_t *TE = tt.E;
        #pragma omp for schedule(static)
        for (int64_t e = 0; e < ntile; e++) {
            const int64_t j = e / mcount, i = e % mcount;
            if (mb_units) {            /* units layout: A meta rows are global, P per m-block */
                const int64_t gi = i0 + i, mblk = gi / mb_units;
                ploc_t pl = *pl_tile;
                pl.P = Punits + (size_t)mblk * (size_t)c->nkb * unit_stride;
                pl.mrows = (mblk + 1) * mb_units <= c->pr->m ? mb_units : c->pr->m - mblk * mb_units;
                *(c->pr->c + gi * c->pr->crs + (j0 + j) * c->pr->ccs) =
                    element(c, MA, gi, MB, j, mblk * c->nkb, bshared, &pl, gi - mblk * mb_units, j,
                            gi, j0 + j, TP, TE, scratch, &fallbacks);
            } else {
                *(c->pr->c + (i0 + i) * c->pr->crs + (j0 + j) * c->pr->ccs) =
                    element(c, MA, i, MB, j, 0, 0, pl_tile, i, j, i0 + i, j0 + j, TP, TE, scratch, &fallbacks);
            }
        }
    }
    c->fallbacks += fallbacks;
    return 1;
}

static int grow(int cap, int need) { return need > 2 * cap ? need : 2 * cap; }

/* ---- Lazy correct rounding (CORRECTLY_ROUNDED, FP64 products, one k-block) ----
 * Pair (t,u) of element (i,j) is at most 2^(w_t(i) + w_u(j)) * min(|A_t(i)|_1 |B_u(j)|_inf,
 * |A_t(i)|_inf |B_u(j)|_1) in magnitude.  Only the pairs t + u < D are multiplied first, D
 * chosen so that the rest lies ~2^-64 below the leading products; an element whose RN is
 * certain whatever the rest holds (ozb_sum_nearest_bounded) is done.  The others get their
 * remaining pairs (exact dot products of slice rows, or GEMMs when many need them) and the
 * full NearSum.  Either way the output is RN(exact): the same bits as computing every pair. */
static int lazy_levels(int beta, int64_t kb)
{
    int lg = 0;
    while (((int64_t)1 << lg) < kb) lg++;
    return (lg + 64 + beta - 1) / beta;
}

/* n1[t*rows+i] = sum_l |d|, nx[...] = max_l |d| (exact: integer sums below 2^53) */
static void slice_norms(const ozb_slices *S, double *n1, double *nx, int nt)
{
    const int64_t rows = S->rows, kb = S->kb, tot = (int64_t)S->s * rows;
    #pragma omp parallel for num_threads(nt) schedule(static) if(nt > 1 && tot * kb > 65536)
    for (int64_t r = 0; r < tot; r++) {
        const double *d = S->slice + r * kb;
        double a[4] = {0, 0, 0, 0}, m[4] = {0, 0, 0, 0};
        int64_t l = 0;
        for (; l + 4 <= kb; l += 4)
            for (int j = 0; j < 4; j++) { double v = fabs(d[l + j]); a[j] += v; m[j] = v > m[j] ? v : m[j]; }
        double sum = (a[0] + a[1]) + (a[2] + a[3]), mx = m[0] > m[1] ? m[0] : m[1];
        mx = mx > m[2] ? mx : m[2]; mx = mx > m[3] ? mx : m[3];
        for (; l < kb; l++) { double v = fabs(d[l]); sum += v; mx = v > mx ? v : mx; }
        n1[r] = sum; nx[r] = mx;
    }
}

static int lazy_tile(ctx_t *c, const meta_t *MA, const meta_t *MB, const ozb_slices *SA, const ozb_slices *SB,
                     double *P, size_t pblock, int64_t ldp, int D, int64_t i0, int64_t j0, void *scr)
{
    const ozb_problem *pr = c->pr;
    const int64_t mbb = SA->rows, nbb = SB->rows, kb = SA->kb, ntile = mbb * nbb;
    const int sa = SA->s, sb = SB->s, nt = c->nt;
    const int64_t maxterms = (int64_t)c->capA * c->capB;
    char *tbuf = terms_alloc(c->h, maxterms, nt);
    double *nrm = ozb_buf_get(c->h, OZB_BUF_LAZY, sizeof(double) * 2 * (size_t)(sa * mbb + sb * nbb)
                                                  + sizeof(int64_t) * (size_t)ntile);
    if (!tbuf || !nrm) return 0;
    double *n1A = nrm, *nxA = n1A + sa * mbb, *n1B = nxA + sa * mbb, *nxB = n1B + sb * nbb;
    int64_t *fail = (int64_t *)(nxB + sb * nbb);
    slice_norms(SA, n1A, nxA, nt);
    slice_norms(SB, n1B, nxB, nt);
    int64_t nfail = 0;
    const ploc_t pl = {P, pblock, ldp, mbb, nbb};
    #pragma omp parallel num_threads(nt) if(nt > 1 && ntile * maxterms >= 4096)
    {
        const terms_t tt = thread_terms(tbuf, maxterms);
        double *TP = tt.P, *scratch = tt.scratch;
        int32_t *TE = tt.E;
        #pragma omp for schedule(static)
        for (int64_t e = 0; e < ntile; e++) {
            const int64_t j = e / mbb, i = e % mbb;
            double *cij = pr->c + (i0 + i) * pr->crs + (j0 + j) * pr->ccs;
            const int use_c = pr->beta != 0.0;
            const double cval = use_c ? *cij : 0.0;
            const int nsa = MA->ns[i], nsb = MB->ns[j];
            int ok = 0;
            double r = 0.0;
            if (!((MA->flag[i] | MB->flag[j]) & OZB_ROW_NONFINITE) && isfinite(pr->alpha) &&
                !(use_c && (!isfinite(pr->beta) || !isfinite(cval)))) {
                int64_t nterm = 0;
                double bnd = 0.0;
                const int32_t e0 = MA->w[i] + MB->w[j];
                for (int t = 0; t < nsa; t++)
                    for (int u = 0; u < nsb; u++) {
                        const int32_t ew = MA->w[(int64_t)t * MA->R + i] + MB->w[(int64_t)u * MB->R + j];
                        if (t + u < D) {
                            TP[nterm] = P[(t * mbb + i) + (u * nbb + j) * ldp];
                            TE[nterm++] = ew;
                        } else {
                            double a = n1A[t * mbb + i] * nxB[u * nbb + j], b = nxA[t * mbb + i] * n1B[u * nbb + j];
                            int de = ew - e0;
                            bnd += (a < b ? a : b) * ldexp(1.0, de > -1000 ? de : -1000);
                        }
                    }
                bnd *= 1.0 + 0x1p-40;            /* the sum above rounds; this covers it */
                ok = ozb_sum_nearest_bounded(TP, TE, nterm, pr->alpha, pr->beta, cval, use_c, bnd, e0, scratch, &r);
            }
            if (ok) *cij = r;
            else {
                int64_t slot;
                #pragma omp atomic capture
                slot = nfail++;
                fail[slot] = e;
            }
        }
    }
    if (nfail == 0) return 1;
    /* the remaining pairs: GEMMs when many elements need them, exact dots otherwise */
    if (nfail * 32 > ntile) {
        for (int t = 0; t < sa; t++) {
            const int u0 = D - t > 0 ? D - t : 0;
            if (u0 >= sb) continue;
            ozb_slices At = *SA, Bu = *SB;
            At.slice = SA->slice + (int64_t)t * mbb * kb; At.s = 1;
            Bu.slice = SB->slice + (int64_t)u0 * nbb * kb; Bu.s = sb - u0;
            if (c->fmt->products(c->h->dev, &At, &Bu, 0, P + t * mbb + (int64_t)u0 * nbb * ldp, ldp, scr, nt, &c->pst))
                c->dev_err = 1;
        }
    } else {
        #pragma omp parallel for num_threads(nt) schedule(dynamic, 16) if(nt > 1 && nfail > 16)
        for (int64_t f = 0; f < nfail; f++) {
            const int64_t j = fail[f] / mbb, i = fail[f] % mbb;
            for (int t = 0; t < MA->ns[i]; t++)
                for (int u = (D - t > 0 ? D - t : 0); u < MB->ns[j]; u++) {
                    const double *a = SA->slice + ((int64_t)t * mbb + i) * kb, *b = SB->slice + ((int64_t)u * nbb + j) * kb;
                    double s0 = 0.0, s1 = 0.0;    /* integers below 2^53: exact in any order */
                    int64_t l = 0;
                    for (; l + 2 <= kb; l += 2) { s0 += a[l] * b[l]; s1 += a[l + 1] * b[l + 1]; }
                    if (l < kb) s0 += a[l] * b[l];
                    P[(t * mbb + i) + (u * nbb + j) * ldp] = s0 + s1;
                }
        }
    }
    int64_t fb = 0;
    #pragma omp parallel num_threads(nt) reduction(+:fb) if(nt > 1 && nfail * maxterms >= 4096)
    {
        const terms_t tt = thread_terms(tbuf, maxterms);
        double *TP = tt.P, *scratch = tt.scratch;
        int32_t *TE = tt.E;
        #pragma omp for schedule(dynamic, 16)
        for (int64_t f = 0; f < nfail; f++) {
            const int64_t j = fail[f] / mbb, i = fail[f] % mbb;
            *(pr->c + (i0 + i) * pr->crs + (j0 + j) * pr->ccs) =
                element(c, MA, i, MB, j, 0, 0, &pl, i, j, i0 + i, j0 + j, TP, TE, scratch, &fb);
        }
    }
    c->fallbacks += fb;
    c->lazy_fixups += nfail;
    return 1;
}

/* GEMM-shaped problems: tiles of mb x nb, B panel split once per column block. */
static ozblas_status_t run_tiles(ctx_t *c, int64_t mb, int64_t nb)
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
                !meta_alloc(h, &MB, OZB_BUF_WB, OZB_BUF_NB, nbb, nkb, c->capB) ||
                !meta_alloc(h, &MA, OZB_BUF_WA, OZB_BUF_NA, mbb, nkb, c->capA))
                return OZBLAS_STATUS_ALLOC_FAILED;
            for (int64_t kk = 0; kk < nkb; kk++) {
                const int64_t l0 = kk * kb, kbb = kb < k - l0 ? kb : k - l0;
                ozb_split_params pa = params_of(c, c->vA, c->uA, l0), pb = params_of(c, c->vB, NULL, l0);
                double t0 = ozb_now();
                bind(&SB, bufB, &MB, kk, 0);
                SB.rows = nbb; SB.kb = kbb;
                if (!(nkb == 1 && b_ready_j0 == j0 && b_ready_cap == c->capB)) {
                    ozb_split(&pr->b, j0, nbb, l0, kbb, &pb, &SB, c->nt);
                    if (SB.need > c->capB) { c->capB = grow(c->capB, SB.need); b_ready_j0 = -1; goto retry_tile; }
                    if (nkb == 1) { b_ready_j0 = j0; b_ready_cap = c->capB; }
                } else {
                    int s = 0;
                    for (int64_t j = 0; j < nbb; j++) s = SB.ns[j] > s ? SB.ns[j] : s;
                    SB.s = s;
                }
                bind(&SA, bufA, &MA, kk, 0);
                ozb_split(&pr->a, i0, mbb, l0, kbb, &pa, &SA, c->nt);
                info->seconds_split += ozb_now() - t0;
                if (SA.need > c->capA) { c->capA = grow(c->capA, SA.need); goto retry_tile; }
                c->smaxA = SA.s > c->smaxA ? SA.s : c->smaxA;
                c->smaxB = SB.s > c->smaxB ? SB.s : c->smaxB;
                if (nkb == 1) {        /* one k-block: size the products by the slices used */
                    ldp = mbb * (SA.s > 0 ? SA.s : 1);
                    pblock = (size_t)ldp * (size_t)(nbb * (SB.s > 0 ? SB.s : 1));
                    P = ozb_buf_get(h, OZB_BUF_P, sizeof(double) * pblock);
                    if (!P) return OZBLAS_STATUS_ALLOC_FAILED;
                }
                t0 = ozb_now();
                scr = NULL;
                size_t sb_bytes = c->fmt->scratch_bytes(mbb, nbb, kbb, SA.s, SB.s);
                if (sb_bytes && !(scr = ozb_buf_get(h, OZB_BUF_SCRATCH, sb_bytes))) return OZBLAS_STATUS_ALLOC_FAILED;
                lazy_D = (c->lazy && nkb == 1 && c->dcr < SA.s + SB.s - 1) ? c->dcr : 0;
                if (c->fmt->products(h->dev, &SA, &SB, lazy_D ? lazy_D : block_dmax(c, &SA, &SB), P + (size_t)kk * pblock, ldp,
                                     scr, c->nt, &c->pst))
                    return OZBLAS_STATUS_EXECUTION_FAILED;
                info->seconds_multiply += ozb_now() - t0;
                info->blocks++;
            }
            double t0 = ozb_now();
            ploc_t pl = {P, pblock, ldp, mbb, nbb};
            if (lazy_D) {
                if (!lazy_tile(c, &MA, &MB, &SA, &SB, P, pblock, ldp, lazy_D, i0, j0, scr)) return OZBLAS_STATUS_ALLOC_FAILED;
                if (c->dev_err) return OZBLAS_STATUS_EXECUTION_FAILED;
            } else if (!sum_range(c, &MA, &MB, i0, mbb, j0, nbb, 0, &pl, NULL, 0, 0)) return OZBLAS_STATUS_ALLOC_FAILED;
            info->seconds_sum += ozb_now() - t0;
        }
    }
    return OZBLAS_STATUS_SUCCESS;
}

/* DOT/GEMV-shaped problems (n small): units (m-block, k-block) run in parallel, each
 * on one thread with a single-threaded BLAS; x (or y) is split once when k is one block. */
static ozblas_status_t run_units(ctx_t *c, int64_t mb)
{
    ozblas_handle_t h = c->h;
    const ozb_problem *pr = c->pr;
    const int64_t m = pr->m, n = pr->n, k = pr->k, kb = c->kb, nkb = c->nkb;
    const int64_t nmb = (m + mb - 1) / mb, nunits = nmb * nkb;
    const int bshared = nkb == 1;
    ozblas_info_t *info = &h->info;
    const int nt = c->nt;
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
        double *vloc = c->local_weights ? ozb_buf_get(h, OZB_BUF_CRIT, sizeof(double) * 2 * (size_t)kb * (size_t)nt) : NULL;
        const size_t scr_bytes = (c->fmt->scratch_bytes(mb, n, kb, capA, capB) + 63) & ~(size_t)63;
        char *scratch = scr_bytes ? ozb_buf_get(h, OZB_BUF_SCRATCH, scr_bytes * (size_t)nt) : NULL;
        if (scr_bytes && !scratch) return OZBLAS_STATUS_ALLOC_FAILED;
        if (!bufA || !bufB || !P || (c->local_weights && !vloc) ||
            !meta_alloc(h, &MB, OZB_BUF_WB, OZB_BUF_NB, n, bshared ? 1 : nunits, capB) ||
            !meta_alloc(h, &MA, OZB_BUF_WA, OZB_BUF_NA, m, nkb, capA))
            return OZBLAS_STATUS_ALLOC_FAILED;
        ozb_slices SBsh;
        double t0 = ozb_now();
        if (bshared) {
            ozb_split_params pb = params_of(c, c->vB, NULL, 0);
            bind(&SBsh, bufB, &MB, 0, 0);
            ozb_split(&pr->b, 0, n, 0, k, &pb, &SBsh, nt);
            if (SBsh.need > capB) { c->capB = grow(capB, SBsh.need); continue; }
        }
        info->seconds_split += ozb_now() - t0;
        int needA = 0, needB = 0;
        double tsplit = 0.0, tmul = 0.0;
        const int par_units = nt > 1 && nunits > 1;
        #pragma omp parallel num_threads(nt) reduction(max:needA, needB) reduction(+:tsplit, tmul) if(nt > 1 && nunits > 1)
        {
            const int tid = omp_get_thread_num();
            ozb_prod_stats st = {0, 0, 0.0};
            int sa_max = 0, sb_max = 0;
            #pragma omp for schedule(dynamic, 1)
            for (int64_t un = 0; un < nunits; un++) {
                const int64_t mblk = un / nkb, kk = un % nkb;
                const int64_t i0 = mblk * mb, mbb = mb < m - i0 ? mb : m - i0;
                const int64_t l0 = kk * kb, kbb = kb < k - l0 ? kb : k - l0;
                double ts = ozb_now();
                const double *vA = c->vA, *vB = c->vB, *uA = c->uA;
                if (c->local_weights) {
                    /* x^T y: weights |y| and |x| on this block, scaled by the block's own
                     * power of two (Algorithm 3 compares sums with the same weights, so the
                     * scale cancels); offset by -l0 so params_of can add l0 back. */
                    double *vl = vloc + 2 * kb * (size_t)tid;
                    ozb_view bv = {pr->b.p + l0 * pr->b.cs, pr->b.rs, pr->b.cs};
                    const int Ev = abs_col_sums(&bv, n, kbb, vl, 1);
                    int32_t Ey;                  /* exact_b: vl + kb holds fast mode's weights */
                    exp_col_sums(&bv, n, kbb, Ev, vl + kb, &Ey);
                    vA = vl - l0; vB = NULL; uA = vl + kb - l0;
                }
                ozb_slices SB;
                if (bshared) SB = SBsh;
                else {
                    ozb_split_params pb = params_of(c, vB, NULL, l0);
                    bind(&SB, bufB + bbuf * (size_t)tid, &MB, un, 0);
                    ozb_split(&pr->b, 0, n, l0, kbb, &pb, &SB, 1);
                    if (SB.need > capB) { needB = SB.need > needB ? SB.need : needB; continue; }
                }
                ozb_slices SA;
                ozb_split_params pa = params_of(c, vA, uA, l0);
                bind(&SA, bufA + abuf * (size_t)tid, &MA, kk, i0);
                ozb_split(&pr->a, i0, mbb, l0, kbb, &pa, &SA, 1);
                double tm = ozb_now();
                tsplit += tm - ts;
                if (SA.need > capA) { needA = SA.need > needA ? SA.need : needA; continue; }
                sa_max = SA.s > sa_max ? SA.s : sa_max;
                sb_max = SB.s > sb_max ? SB.s : sb_max;
                if (c->fmt->products(h->dev, &SA, &SB, block_dmax(c, &SA, &SB), P + (size_t)un * pblock, ldp,
                                     scratch ? scratch + scr_bytes * (size_t)tid : NULL, par_units ? 1 : nt, &st)) {
                    #pragma omp atomic write
                    c->dev_err = 1;
                }
                tmul += ozb_now() - tm;
            }
            #pragma omp critical
            {
                c->pst.calls += st.calls; c->pst.pairs += st.pairs; c->pst.flops += st.flops;
                c->smaxA = sa_max > c->smaxA ? sa_max : c->smaxA;
                c->smaxB = sb_max > c->smaxB ? sb_max : c->smaxB;
            }
        }
        if (c->dev_err) return OZBLAS_STATUS_EXECUTION_FAILED;
        info->seconds_split += tsplit / nt;
        info->seconds_multiply += tmul / nt;
        if (needA > capA || needB > capB) {
            if (needA > capA) c->capA = grow(capA, needA);
            if (needB > capB) c->capB = grow(capB, needB);
            memset(&c->pst, 0, sizeof c->pst);
            continue;
        }
        if (bshared) c->smaxB = SBsh.s > c->smaxB ? SBsh.s : c->smaxB;
        info->blocks = nunits;
        t0 = ozb_now();
        ploc_t pl = {NULL, pblock, ldp, mb, n};
        if (!sum_range(c, &MA, &MB, 0, m, 0, n, mb, &pl, P, pblock, bshared)) return OZBLAS_STATUS_ALLOC_FAILED;
        info->seconds_sum += ozb_now() - t0;
        return OZBLAS_STATUS_SUCCESS;
    }
}

static ozblas_status_t run_pipeline(ozblas_handle_t h, const ozb_problem *pr)
{
    const double t_start = ozb_now();
    ctx_t c;
    memset(&c, 0, sizeof c);
    c.h = h;
    c.pr = pr;
    c.cfg = config_of(h);
    c.nt = ozb_threads(h);
    const int64_t m = pr->m, n = pr->n, k = pr->k;
    /* small problems: thread start-up costs more than it saves (never changes a bit) */
    if ((double)m * (double)n * (double)k < 65536.0) c.nt = 1;
    c.fmt = ozb_format_for(h, h->run_engine);
    if (!c.fmt) return OZBLAS_STATUS_NOT_SUPPORTED;
    const int64_t kblock = pr->kblock < c.fmt->kblock_max ? pr->kblock : c.fmt->kblock_max;
    c.kb = kblock < k ? kblock : k;
    c.nkb = (k + c.kb - 1) / c.kb;
    c.beta_bits = c.fmt->bits(c.kb);
    c.dhyp = ozb_hypothetical_d(c.beta_bits, c.kb);
    c.lazy = h->run_mode == OZBLAS_MODE_CORRECTLY_ROUNDED && c.fmt->id == OZBLAS_ENGINE_FP64 &&
             !h->knobs.no_lazy;
    c.dcr = lazy_levels(c.beta_bits, c.kb);
    if (h->knobs.lazy_levels >= 0) c.dcr = h->knobs.lazy_levels;
    c.level_sum = c.fmt->exact_level_sums;
    c.sfac = 2.0 * sqrt((double)c.kb) * 0x1p-53;
    ozblas_info_t *info = &h->info;
    memset(info, 0, sizeof *info);
    info->mode = h->mode;
    info->summation = c.cfg.summation;
    info->engine = h->engine;
    info->bits_per_slice = c.beta_bits;

    /* Algorithm 3 weights (DOUBLE mode): vA = |op(B)| e, vB = e^T |op(A)|, over all of k. */
    c.local_weights = c.cfg.criterion && m == 1 && n == 1 && c.nkb > 1;
    /* Algorithm 3 bounds the columns of op(B) with weights e^T|op(A)| summed over all rows,
     * which does not bound the error of one row whose entries are small next to the others'
     * (found by the tests: phi = 8 with 7-bit slices, 24x the row-wise DGEMM bound; FP64 with
     * few columns, e.g. 257x2x33; phi = 12 with any shape).  So op(B) is split until exact and
     * only op(A)'s rows are truncated, by the row criterion, which does bound each row (its
     * weights are |op(B)|e); the paper's own d likewise comes from A's rows alone.  For GEMV
     * and DOT this is also cheaper: the weights e^T|A| and the second criterion cost extra
     * passes over the data (DOT 2^24: 52 -> 45 ms). */
    c.exact_b = c.cfg.criterion;
    if (c.cfg.criterion && !c.local_weights) {
        double *v = ozb_buf_get(h, OZB_BUF_CRIT, sizeof(double) * 2 * (size_t)k + sizeof(int32_t) * (size_t)n);
        if (!v) return OZBLAS_STATUS_ALLOC_FAILED;
        double t0 = ozb_now();
        const int Ev = abs_col_sums(&pr->b, n, k, v, c.nt);
        exp_col_sums(&pr->b, n, k, Ev, v + k, (int32_t *)(v + 2 * k));   /* exact_b: v + k is free */
        c.vA = v; c.vB = NULL; c.uA = v + k;
        info->seconds_split += ozb_now() - t0;
    }
    c.capA = c.cfg.limit > 0 ? c.cfg.limit : h->slice_hint_a;
    c.capB = c.cfg.limit > 0 ? c.cfg.limit : h->slice_hint_b;

    const size_t limit = ozb_workspace_limit(h);
    ozblas_status_t st;
    int64_t mb = m, nb = n;
    if (n <= 8) {
        /* a row panel's slices stay in the core's cache; every unit has its own buffers */
        int64_t rows = ((int64_t)1 << 20) / (8 * (int64_t)(c.capA + 1) * c.kb);
        mb = rows < 8 ? 8 : rows;
        for (;;) {
            double words = (double)c.nt * (c.capA + 1) * mb * c.kb + (double)c.nt * (c.capB + 1) * n * c.kb
                         + (double)((m + mb - 1) / mb) * c.nkb * (mb * c.capA) * (n * c.capB);
            if (words * 8.0 <= (double)limit || mb == 1) break;
            mb = (mb + 1) / 2;
        }
        if (mb > m) mb = m;
        st = run_units(&c, mb);
        nb = n;
    } else {
        for (;;) {
            double words = (double)(c.capA + 1) * mb * c.kb + (double)(c.capB + 1) * nb * c.kb
                         + (double)c.nkb * (mb * c.capA) * (nb * c.capB);
            if (words * 8.0 <= (double)limit || (mb == 1 && nb == 1)) break;
            if (mb >= nb && mb > 1) mb = (mb + 1) / 2; else nb = (nb + 1) / 2;
        }
        st = run_tiles(&c, mb, nb);
    }
    if (st != OZBLAS_STATUS_SUCCESS) return st;
    if (c.cfg.limit == 0) {              /* remember capacities so later calls allocate once */
        h->slice_hint_a = c.capA;
        h->slice_hint_b = c.capB;
    }
    info->slices_a = c.smaxA;
    info->slices_b = c.smaxB;
    info->fast_mode = c.cfg.fast;
    info->split_count = c.cfg.criterion ? (c.smaxA > c.smaxB ? c.smaxA : c.smaxB) : (c.cfg.fast ? c.cfg.dfixed : 0);
    info->gemm_calls = c.pst.calls;
    info->slice_products = c.pst.pairs;
    info->gemm_flops = c.pst.flops;
    info->block_m = mb; info->block_n = nb; info->block_k = c.kb;
    info->exact_fallbacks = c.fallbacks;
    info->lazy_fixups = c.lazy_fixups;
    info->seconds_total = ozb_now() - t_start;
    return OZBLAS_STATUS_SUCCESS;
}

/* Correctly rounded DOT and GEMV go to the fused kernels (src/fused) first; the rows they
 * cannot certify (special values, extreme ranges, undecided roundings) are computed here,
 * in runs of consecutive rows.  Both give RN(exact), so which path a row takes never
 * changes a bit. */
static ozblas_status_t run(ozblas_handle_t h, const ozb_problem *pr)
{
    /* CRT_INT8: FIXED and DOUBLE through the scheme (INT8 slices where it does not reach);
     * CORRECTLY_ROUNDED GEMM through it too, DOT/GEMV through the fused FP64 kernels, which
     * are faster for one column (the bits are the same) */
    const int crt_cr = h->run_mode == OZBLAS_MODE_CORRECTLY_ROUNDED && pr->n > 8;
    /* CORRECTLY_ROUNDED GEMM with the default FP64 format also goes through the CRT where
     * oneDNN is built in: the result is unique, and from 64^3 on it is faster than the lazy
     * FP64 slices (measured: 300^3 9.2 against 20.6 ms, 2048^3 0.80 against 2.34 s).
     * OZBLAS_NO_CRT=1 keeps the slices (a test knob: both paths must give the same bits). */
    const int crt_default_cr = crt_cr && h->engine == OZBLAS_ENGINE_FP64 && ozb_format_for(h, OZBLAS_ENGINE_INT8) && ozb_int8_fast(h) &&
                               (double)pr->m * (double)pr->n * (double)pr->k >= 262144.0 && !h->knobs.no_crt;
    if ((h->engine == OZBLAS_ENGINE_CRT_INT8 && (h->run_mode != OZBLAS_MODE_CORRECTLY_ROUNDED || crt_cr)) || crt_default_cr) {
        int nt = ozb_threads(h);
        if ((double)pr->m * (double)pr->n * (double)pr->k < 65536.0) nt = 1;
        const double t0 = ozb_now();
        ozblas_status_t st = crt_cr ? ozb_crt_cr_run(h, pr, nt) : ozb_crt_run(h, pr, nt);
        h->info.seconds_total = ozb_now() - t0;
        if (st != OZBLAS_STATUS_NOT_SUPPORTED) return st;
        if (!crt_cr) h->run_engine = OZBLAS_ENGINE_INT8;   /* out of the scheme's reach: INT8 slices */
    }
    if (!ozb_fused_eligible(h, pr)) return run_pipeline(h, pr);
    const double t_start = ozb_now();
    int nt = ozb_threads(h);
    if ((double)pr->m * (double)pr->n * (double)pr->k < 65536.0) nt = 1;
    const uint8_t *fail;
    int64_t nfail;
    ozblas_status_t st = ozb_fused_cr(h, pr, nt, &fail, &nfail);
    if (st != OZBLAS_STATUS_SUCCESS) return st;
    ozblas_info_t fi = h->info;
    for (int64_t i = 0; i < pr->m && nfail > 0; i++) {
        if (!fail[i]) continue;
        int64_t j = i;
        while (j < pr->m && fail[j]) j++;
        ozb_problem sub = *pr;
        sub.m = j - i;
        sub.a.p += i * pr->a.rs;
        sub.c += i * pr->crs;
        st = run_pipeline(h, &sub);
        if (st != OZBLAS_STATUS_SUCCESS) return st;
        fi.gemm_calls += h->info.gemm_calls;
        fi.slice_products += h->info.slice_products;
        fi.gemm_flops += h->info.gemm_flops;
        fi.exact_fallbacks += h->info.exact_fallbacks;
        fi.slices_a = fi.slices_a > h->info.slices_a ? fi.slices_a : h->info.slices_a;
        fi.slices_b = fi.slices_b > h->info.slices_b ? fi.slices_b : h->info.slices_b;
        fi.seconds_split += h->info.seconds_split;
        fi.seconds_multiply += h->info.seconds_multiply;
        fi.seconds_sum += h->info.seconds_sum;
        i = j;
    }
    fi.seconds_total = ozb_now() - t_start;
    h->info = fi;
    return OZBLAS_STATUS_SUCCESS;
}

/* DOUBLE mode for DOT and GEMV (one output column) with FP64 slices is computed correctly
 * rounded: the fused kernels do that with the same four slices per side that Algorithm 3
 * picked for these shapes, in a third to a half of the time of the GEMM-ized DOUBLE path
 * (bench/results), and a correctly rounded result meets DOUBLE's bound.  Every path
 * (fused, pipeline) then computes the same unique value, so DOUBLE results stay identical
 * across paths, threads and backends.  The other formats keep Algorithm 3. */
static ozblas_mode_t effective_mode(ozblas_handle_t h, const ozb_problem *pr)
{
    if (h->mode == OZBLAS_MODE_DOUBLE && h->engine == OZBLAS_ENGINE_FP64 && pr->n == 1)
        return OZBLAS_MODE_CORRECTLY_ROUNDED;
    return h->mode;
}

/* The slice format a call computes with: the handle's, except that CORRECTLY_ROUNDED with
 * CRT_INT8 runs the FP64 slices where the CRT does not (DOT/GEMV shapes, spans beyond the
 * moduli table, Inf/NaN): the result is unique, so the bits are the same. */
static ozblas_engine_t effective_engine(ozblas_handle_t h)
{
    if (h->engine == OZBLAS_ENGINE_CRT_INT8 && h->run_mode == OZBLAS_MODE_CORRECTLY_ROUNDED) return OZBLAS_ENGINE_FP64;
    return h->engine;
}

static ozblas_status_t run_host(ozblas_handle_t h, const ozb_problem *pr)
{
    h->run_mode = effective_mode(h, pr);
    h->run_engine = effective_engine(h);
    return run(h, pr);
}

/* A device handle computes on the device where the resident engine can (src/cuda/resident.c);
 * elsewhere its operands are brought to the host around the same computation as a CPU
 * handle's (src/cuda/stage.c), with the products on the device. */
ozblas_status_t ozb_run(ozblas_handle_t h, const ozb_problem *pr)
{
    if (!h->dev) return run_host(h, pr);
    /* the device-resident engine first (cuda/resident.c); what it does not take is staged */
    h->run_mode = effective_mode(h, pr);
    h->run_engine = effective_engine(h);
    ozblas_status_t st = OZBLAS_STATUS_NOT_SUPPORTED;
    if (h->run_engine == OZBLAS_ENGINE_CRT_INT8) {            /* FIXED, DOUBLE (CR runs FP64 slices) */
        int to_int8 = 0;
        st = ozb_resident_crt_run(h, pr, &to_int8);
        if (st == OZBLAS_STATUS_NOT_SUPPORTED && to_int8) h->run_engine = OZBLAS_ENGINE_INT8;   /* as run() */
    }
    if (st == OZBLAS_STATUS_NOT_SUPPORTED && h->run_engine != OZBLAS_ENGINE_CRT_INT8) st = ozb_resident_run(h, pr);
    return st == OZBLAS_STATUS_NOT_SUPPORTED ? ozb_stage_run(h, pr, run_host) : st;
}

void ozb_info_reset(ozblas_handle_t h)
{
    memset(&h->info, 0, sizeof h->info);
    h->info.mode = h->mode;
}

ozblas_status_t ozb_scale_c(ozblas_handle_t h, double *c, int64_t crs, int64_t ccs, int64_t m, int64_t n, double beta)
{
    ozb_info_reset(h);
    if (h->dev) {
        const int tok = ozb_dev_enter(h->dev);
        const int rc = ozb_dev_scale(h->dev, c, crs, ccs, m, n, beta);
        ozb_dev_leave(h->dev, tok);
        return rc ? OZBLAS_STATUS_EXECUTION_FAILED : OZBLAS_STATUS_SUCCESS;
    }
    if (beta == 1.0) return OZBLAS_STATUS_SUCCESS;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            double *p = c + i * crs + j * ccs;
            *p = beta == 0.0 ? 0.0 : beta * *p;
        }
    return OZBLAS_STATUS_SUCCESS;
}
