/* DTBSV by columns (band_cols.h).  Compiled with -ffp-contract=off: every FMA is explicit.
 *
 * Lane i of the vectors holds position q + 1 + i while column q (the value of position q)
 * updates it: hi + lo = c - sum t x over the terms of its current part so far, sa the floating
 * sum of |c| + sum |t x|, as exact/residual.h keeps them for one row; each term enters by a
 * product, its FMA error and a Fast2Sum on the larger and smaller magnitudes (the error terms
 * and bound of exact/residual.h, which hold for any order of terms and any mix of TwoSum and
 * Fast2Sum).  After column q, lane 0 is complete: position q + 1 is finished by
 * ozb_resid_finish, divided, and its value updates the next column; the lanes move down one
 * and position q + 1 + 4 NV enters at the top with no term.  Where position q + 1 starts a
 * block, every lane with terms before the block (i < k) is finished first (the rule's first
 * rounding) and starts its part in the block from that value.  Lanes past k meet no term: a
 * partial vector's terms load as zeros (an Inf or NaN value makes their products NaN, which
 * only sends those positions' parts to fix).  The bits are those of exact/residual.h's
 * row-by-row rule: each certified part is RN(exact), what it leaves goes to fix. */
#include "exact/band_cols.h"
#include "exact/residual.h"
#include <immintrin.h>
#include <math.h>
#include <stdint.h>

typedef struct {
    __m256i mask;       /* the last vector's lanes within the band (all where k = 4 NV) */
    __m256i rmask, all;  /* the mask reversed, every lane */
    __m256i idx[2];      /* lane l's term at l ts from the diagonal */
    __m256i lane[2];     /* l */
    int partial;
} lanes_t;

/* Positions ahead whose lines the walk prefetches (the line of the band's column at its
 * diagonal, which holds most of a contiguous column's terms, and x's element; a transposed
 * band's terms lie in other columns and are not): each step waits on its row's chain (a
 * division among it), so the out-of-order window reaches a few columns ahead only, and a band
 * beyond the caches would arrive a memory latency per line.  Any distance from 16 to 256 did
 * as well as 64 on a band of 2^20 columns.  A prefetch changes no value. */
#define PF_AHEAD 64
static double *x_at(const ozb_band_cols_t *b, int64_t p) { return b->x + p * b->xst; }
static const double *col_at(const ozb_band_cols_t *b, int64_t p) { return b->col + p * b->cstep; }

/* column q's terms for lanes 4 j .. 4 j + 3 (positions q + 1 + 4 j ..), zero past k: loaded
 * where the column is contiguous (ts = +-1; the reversed column's address formed as an integer,
 * since it may lie before the band where every lane it covers there is masked off), gathered
 * where not */
static inline __m256d col_terms(const ozb_band_cols_t *b, int64_t q, int j, int last, const lanes_t *L)
{
    const double *c = col_at(b, q);
    const int part = last && L->partial;
    if (b->ts == 1) {
        const double *a = c + 1 + 4 * j;
        return part ? _mm256_maskload_pd(a, L->mask) : _mm256_loadu_pd(a);
    }
    if (b->ts == -1) {
        const double *a = (const double *)((uintptr_t)c - sizeof(double) * (uintptr_t)(4 * j + 4));
        const __m256d v = part ? _mm256_maskload_pd(a, L->rmask) : _mm256_loadu_pd(a);
        return _mm256_permute4x64_pd(v, 0x1B);
    }
    /* and only positions before n: op(T)'s column there runs off the band's storage */
    const __m256i in = _mm256_cmpgt_epi64(_mm256_set1_epi64x(b->n - q), L->lane[j]);
    const __m256i m = _mm256_and_si256(part ? L->mask : L->all, in);
    return _mm256_mask_i64gather_pd(_mm256_setzero_pd(), c, L->idx[j], _mm256_castsi256_pd(m), 8);
}

/* lanes down one: [a1, a2, a3, b0] */
static inline __m256d down(__m256d a, __m256d b)
{
    return _mm256_shuffle_pd(a, _mm256_permute2f128_pd(a, b, 0x21), 0x5);
}

/* position p's value as it enters the lanes.  Its part before its block may have no term
 * (p - k >= its block's start): that part keeps the value, a zero as +0 (band_solve.c's rule),
 * and the part after it, with terms, is an exact sum whose zero is +0 whatever the sign it
 * starts from, so the value enters as it is. */
static inline double enter(const ozb_band_cols_t *b, int64_t p) { return *x_at(b, p); }

/* the first rounding at the block starting at p: lanes i < min(k, n - p) finished and
 * restarted from their values (their elements hold them, for fix); the others keep theirs */
static inline int block_start(const ozb_band_cols_t *b, int64_t p, __m256d *hi, __m256d *lo, __m256d *sa, int nv)
{
    double h[8], l[8], s[8], cur[8];
    for (int j = 0; j < nv; j++) {
        _mm256_storeu_pd(h + 4 * j, hi[j]);
        _mm256_storeu_pd(l + 4 * j, lo[j]);
        _mm256_storeu_pd(s + 4 * j, sa[j]);
    }
    const int64_t lim = b->n - p < b->k ? b->n - p : b->k;
    for (int i = 0; i < 4 * nv; i++) {
        cur[i] = h[i];
        if (i >= lim) continue;
        const ozb_resid_t r = { h[i], l[i], s[i] };
        if (ozb_resid_finish(&r, &cur[i])) {
            *x_at(b, p + i) = cur[i];
            continue;
        }
        const int st = b->fix(b->ctx, p, p + i, 0);
        if (st) return st;
        cur[i] = *x_at(b, p + i);
    }
    const __m256d sign = _mm256_set1_pd(-0.0);
    for (int j = 0; j < nv; j++) {
        hi[j] = _mm256_loadu_pd(cur + 4 * j);
        lo[j] = _mm256_setzero_pd();
        sa[j] = _mm256_andnot_pd(sign, hi[j]);
    }
    return 0;
}

static inline __attribute__((always_inline)) int run(const ozb_band_cols_t *b, const lanes_t *L, const int nv)
{
    const int64_t n = b->n;
    const __m256d sign = _mm256_set1_pd(-0.0);
    __m256d hi[2], lo[2], sa[2];
    double x = *x_at(b, 0), cur[8];
    if (!b->unit) x /= *col_at(b, 0);
    *x_at(b, 0) = x;
    for (int i = 0; i < 4 * nv; i++) cur[i] = 1 + i < n ? enter(b, 1 + i) : 0.0;
    for (int j = 0; j < nv; j++) {
        hi[j] = _mm256_loadu_pd(cur + 4 * j);
        lo[j] = _mm256_setzero_pd();
        sa[j] = _mm256_andnot_pd(sign, hi[j]);
    }
    for (int64_t q = 0; q + 1 < n; q++) {
        if (q + PF_AHEAD < n) {
            _mm_prefetch((const char *)col_at(b, q + PF_AHEAD), _MM_HINT_T0);
            _mm_prefetch((const char *)x_at(b, q + PF_AHEAD), _MM_HINT_T0);
        }
        const __m256d xv = _mm256_set1_pd(x), ax = _mm256_andnot_pd(sign, xv);
        for (int j = 0; j < nv; j++) {
            const __m256d t = col_terms(b, q, j, j == nv - 1, L);
            const __m256d pp = _mm256_mul_pd(t, xv), pe = _mm256_fmsub_pd(t, xv, pp);
            /* hi - pp = sm + e2 by Fast2Sum: big the larger magnitude of hi and -pp */
            const __m256d mp = _mm256_xor_pd(pp, sign), sm = _mm256_add_pd(hi[j], mp);
            const __m256d first = _mm256_cmp_pd(_mm256_andnot_pd(sign, hi[j]), _mm256_andnot_pd(sign, pp), _CMP_GE_OQ);
            const __m256d big = _mm256_blendv_pd(mp, hi[j], first), small = _mm256_blendv_pd(hi[j], mp, first);
            const __m256d e2 = _mm256_sub_pd(small, _mm256_sub_pd(sm, big));
            lo[j] = _mm256_add_pd(_mm256_sub_pd(lo[j], pe), e2);
            sa[j] = _mm256_fmadd_pd(_mm256_andnot_pd(sign, t), ax, sa[j]);
            hi[j] = sm;
        }
        const int64_t p = q + 1, s = p - p % b->block;
        if (p == s) {
            const int st = block_start(b, p, hi, lo, sa, nv);
            if (st) return st;
        }
        const ozb_resid_t r = { _mm256_cvtsd_f64(hi[0]), _mm256_cvtsd_f64(lo[0]), _mm256_cvtsd_f64(sa[0]) };
        if (!ozb_resid_finish(&r, &x)) {
            const int st = b->fix(b->ctx, s, p, 1);
            if (st) return st;
            x = *x_at(b, p);
        }
        if (!b->unit) x /= *col_at(b, p);
        *x_at(b, p) = x;
        const double cn = p + 4 * nv < n ? enter(b, p + 4 * nv) : 0.0;
        const __m256d fh = _mm256_set1_pd(cn), fs = _mm256_andnot_pd(sign, fh), fl = _mm256_setzero_pd();
        for (int j = 0; j < nv; j++) {
            const int top = j == nv - 1;
            hi[j] = down(hi[j], top ? fh : hi[j + 1 < nv ? j + 1 : j]);
            lo[j] = down(lo[j], top ? fl : lo[j + 1 < nv ? j + 1 : j]);
            sa[j] = down(sa[j], top ? fs : sa[j + 1 < nv ? j + 1 : j]);
        }
    }
    return 0;
}

int ozb_band_cols(const ozb_band_cols_t *b)
{
    const int nv = b->k > 4 ? 2 : 1, used = b->k - 4 * (nv - 1);
    lanes_t L;
    L.partial = used < 4;
    L.mask = _mm256_set_epi64x(used > 3 ? -1 : 0, used > 2 ? -1 : 0, used > 1 ? -1 : 0, -1);
    L.rmask = _mm256_permute4x64_epi64(L.mask, 0x1B);
    L.all = _mm256_set1_epi64x(-1);
    for (int j = 0; j < 2; j++) {
        L.lane[j] = _mm256_set_epi64x(4 * j + 4, 4 * j + 3, 4 * j + 2, 4 * j + 1);
        L.idx[j] = _mm256_set_epi64x((4 * j + 4) * b->ts, (4 * j + 3) * b->ts, (4 * j + 2) * b->ts, (4 * j + 1) * b->ts);
    }
    return nv == 2 ? run(b, &L, 2) : run(b, &L, 1);
}
