/* FIXED-mode DOT without stored slices (issue 16): the fused kernels (fused_kern_d.inc)
 * compute, in registers, the same digits and the same exact pair sums that the GEMM-ized
 * pipeline (src/scheme1) stores as slices and multiplies by DGEMM, and the terms go to the
 * same summation in the same order.  So the result is the configuration's defined one, bit
 * for bit, at the cost of one read of x and y (the block maximum first, then the block again
 * from cache).
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
 * as s1_element lists them; pairs the pipeline leaves out are those with a digit beyond a
 * block's slice count, whose sums are zero here, and both summations skip zero terms
 * (ozb_sum_double explicitly; ozb_sum_nearest returns RN of the exact sum, unique).
 *
 * What it does not take (NOT_SUPPORTED, before anything is written; the pipeline computes
 * it): Inf/NaN in x or y, blocks whose scale is not a normal double, split counts above
 * OZB_FZ_FIXED_MAX, other formats, a CPU without the kernels, OZBLAS_NO_FUSED.
 *
 * Compiled with -ffp-contract=off; the kernels' FMAs are explicit and exact. */
#include "fused/fixed_dot.h"
#include "fused/fused_kern.h"
#include "core/format.h"
#include "core/info.h"
#include "core/par.h"
#include "core/ozb_internal.h"
#include "sum/sum.h"
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <string.h>

#define E_ZERO INT32_MIN      /* the block is zero: no terms */
#define E_BAD  INT32_MAX      /* Inf/NaN, or a scale outside the normal range */

typedef struct {
    const ozb_problem *pr;
    void (*kern)(const double *, const double *, int64_t, double, double, double, double *);
    const ozb_fz_kernels *K;
    int64_t kb, nkb;
    int beta, np;
    double *P;                /* P[kk * np + p] */
    int32_t *ex, *ey;         /* block exponents */
    double *gather;           /* per thread: 2 kb doubles for strided operands */
} fx_t;

static int32_t block_exp(int64_t mxbits, int beta)
{
    if (mxbits == 0) return E_ZERO;
    if ((uint64_t)mxbits >= 0x7ff0000000000000ull) return E_BAD;
    double m;
    memcpy(&m, &mxbits, sizeof m);
    const int e = ozb_ilogb(m) + 1;
    return (beta - e >= -1022 && beta - e <= 1022) ? e : E_BAD;
}

static int usable(int32_t e) { return e != E_ZERO && e != E_BAD; }

/* a block of a strided vector copied to buf; its largest |bits| */
static int64_t gather_max(const double *x, int64_t inc, int64_t n, double *buf)
{
    int64_t mx = 0;
    for (int64_t l = 0; l < n; l++) {
        const double v = x[l * inc];
        buf[l] = v;
        const int64_t b = (int64_t)(ozb_bits(v) & 0x7fffffffffffffffull);
        mx = b > mx ? b : mx;
    }
    return mx;
}

/* blocks lo..hi-1: exponents and pair sums; returns the blocks out of the kernels' reach */
static int64_t blocks(void *ctx, int64_t lo, int64_t hi)
{
    const fx_t *f = ctx;
    const ozb_problem *pr = f->pr;
    double *xb = f->gather + 2 * f->kb * (int64_t)omp_get_thread_num(), *yb = xb + f->kb;
    int64_t bad = 0;
    for (int64_t kk = lo; kk < hi; kk++) {
        const int64_t l0 = kk * f->kb, n = f->kb < pr->k - l0 ? f->kb : pr->k - l0;
        const double *x = pr->a.p + l0 * pr->a.cs, *y = pr->b.p + l0 * pr->b.cs;
        const int64_t mx = pr->a.cs == 1 ? f->K->maxbits(x, n) : gather_max(x, pr->a.cs, n, xb);
        const int64_t my = pr->b.cs == 1 ? f->K->maxbits(y, n) : gather_max(y, pr->b.cs, n, yb);
        if (pr->a.cs != 1) x = xb;
        if (pr->b.cs != 1) y = yb;
        const int32_t ex = block_exp(mx, f->beta), ey = block_exp(my, f->beta);
        f->ex[kk] = ex;
        f->ey[kk] = ey;
        if (ex == E_BAD || ey == E_BAD) { bad++; continue; }
        double *Pk = f->P + kk * f->np;
        if (usable(ex) && usable(ey))
            f->kern(x, y, n, ozb_pow2(f->beta - ex), ozb_pow2(f->beta - ey), ozb_pow2(f->beta), Pk);
        else
            for (int p = 0; p < f->np; p++) Pk[p] = 0.0;
    }
    return bad;
}

ozblas_status_t ozb_fixed_dot(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *plan, int nt)
{
    if (plan->mode != OZBLAS_MODE_FIXED || plan->engine != OZBLAS_ENGINE_FP64 || pr->m != 1 || pr->n != 1 ||
        h->knobs.no_fused)
        return OZBLAS_STATUS_NOT_SUPPORTED;
    const int L = h->split_count, fast = h->fast_mode;
    const ozb_fz_kernels *K = ozb_fz_kernels_for(h);
    if (!K || L < 1 || L > OZB_FZ_FIXED_MAX || !K->fdot[fast ? 0 : 1][L]) return OZBLAS_STATUS_NOT_SUPPORTED;
    /* what s1_element hands to its special-value path; alpha = 0 never reaches a method */
    const int use_c = pr->beta != 0.0;
    if (!isfinite(pr->alpha) || pr->alpha == 0.0 || (use_c && (!isfinite(pr->beta) || !isfinite(*pr->c))))
        return OZBLAS_STATUS_NOT_SUPPORTED;
    ozb_format fmt;
    if (!ozb_format_for(h, OZBLAS_ENGINE_FP64, &fmt)) return OZBLAS_STATUS_NOT_SUPPORTED;
    const int timed = ozb_timed((double)pr->k);
    const double t0 = ozb_now_if(timed);
    /* the pipeline's blocking (scheme1/pipeline.c): kb and beta from the routine's block and k */
    const int64_t kblock = pr->kblock < fmt.kblock_max ? pr->kblock : fmt.kblock_max;
    fx_t f = {0};
    f.pr = pr;
    f.K = K;
    f.kern = K->fdot[fast ? 0 : 1][L];
    f.kb = kblock < pr->k ? kblock : pr->k;
    f.nkb = (pr->k + f.kb - 1) / f.kb;
    f.beta = fmt.bits(f.kb);
    f.np = fast ? L * (L + 1) / 2 : L * L;
    const size_t nterm = (size_t)f.nkb * (size_t)f.np;
    const int strided = pr->a.cs != 1 || pr->b.cs != 1;
    const size_t gather = strided ? 2 * (size_t)f.kb * (size_t)(nt > 0 ? nt : 1) : 0;
    /* P, then TP (a copy in term order), scratch (2 nterm + 2), gather; TE, ex, ey */
    const size_t dbl = nterm + nterm + (2 * nterm + 2) + gather;
    char *buf = ozb_buf_get(h, OZB_BUF_FZ_TERMS, dbl * sizeof(double) + (nterm + 2 * (size_t)f.nkb) * sizeof(int32_t));
    if (!buf) return OZBLAS_STATUS_ALLOC_FAILED;
    f.P = (double *)buf;
    double *TP = f.P + nterm, *scratch = TP + nterm;
    f.gather = scratch + 2 * nterm + 2;
    int32_t *TE = (int32_t *)(f.gather + gather);
    f.ex = TE + nterm;
    f.ey = f.ex + f.nkb;
    if (ozb_par_for(nt > 1 && f.nkb > 1, nt, f.nkb, blocks, &f) > 0) return OZBLAS_STATUS_NOT_SUPPORTED;
    const double t1 = ozb_now_if(timed);
    /* the terms in s1_element's order: block, then t, then u */
    int64_t n = 0;
    int smax = 0;
    for (int64_t kk = 0; kk < f.nkb; kk++) {
        if (!usable(f.ex[kk]) || !usable(f.ey[kk])) continue;
        const double *Pk = f.P + kk * f.np;
        int p = 0;
        for (int t = 0; t < L; t++)
            for (int u = 0; u < (fast ? L - t : L); u++, p++) {
                if (Pk[p] == 0.0) continue;
                TP[n] = Pk[p];
                TE[n] = (f.ex[kk] - (t + 1) * f.beta) + (f.ey[kk] - (u + 1) * f.beta);
                n++;
                smax = t + 1 > smax ? t + 1 : smax;
                smax = u + 1 > smax ? u + 1 : smax;
            }
    }
    const double cval = use_c ? *pr->c : 0.0;
    int64_t fb = 0;
    *pr->c = h->summation == OZBLAS_SUM_NEARSUM ? ozb_sum_nearest(TP, TE, n, pr->alpha, pr->beta, cval, use_c, scratch, &fb)
                                                : ozb_sum_double(TP, TE, n, pr->alpha, pr->beta, cval, use_c);
    ozblas_info_t *info = ozb_info_begin(h, h->summation, f.beta);
    info->slices_a = info->slices_b = smax;
    info->split_count = fast ? L : 0;
    info->fast_mode = fast;
    info->slice_products = (int64_t)nterm;
    info->blocks = f.nkb;
    info->block_m = 1; info->block_n = 1; info->block_k = f.kb;
    info->exact_fallbacks = fb;
    info->seconds_multiply = t1 - t0;
    info->seconds_sum = ozb_now_if(timed) - t1;
    info->seconds_total = ozb_now_if(timed) - t0;
    info->fused = 1;
    return OZBLAS_STATUS_SUCCESS;
}
