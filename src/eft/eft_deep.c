/* The deep error-free DOT, GEMV and GEMM: operands into lanes (op(A) in strips of 8 rows,
 * a DOT's vectors in lanes l mod 8), the lowest set bit of every operand, the (strip, column)
 * loop and its units.  Method and bit budget: eft_deep_kern.h. */
#include "eft/eft_deep.h"
#include "eft/eft_dot.h"
#include "eft/eft_deep_kern.h"
#include "core/info.h"
#include "core/par.h"
#include <stdatomic.h>
#include <string.h>

static int64_t nblocks(int64_t steps) { return (steps + BL - 1) / BL; }

#ifdef EFT_AVX2
typedef struct {
    const ozb_problem *pr;
    const double *P;          /* op(A) in strips */
    int32_t *lA;              /* the strips' lowest bits (ozb_deep_lsb), laid out as P */
    const double *Bx;         /* column j of op(B) at Bx + j ldx, contiguous */
    int64_t ldx;
    const int32_t *lX;        /* column j's lowest bits at lX + j k */
    const int64_t *spA;       /* strip b's span (span_of) at spA + 3 b */
    const int64_t *spX;       /* column j's at spX + 3 j */
    int64_t nq;
    uint8_t *fail;            /* m n flags, column-major */
    int lazy;                 /* lA found per strip where the bound leaves rows (one column) */
    atomic_int *eager;        /* lazy: 1 once a strip has needed its lA (see strip_column) */
    int wide;                 /* the blocks' sums by the 512-bit loop (ozb_eft_wide) */
} deep_t;

/* The steps [sp[0], sp[1]) that hold v's nonzeros ([0, 0) for none) and sp[2] = 1 where all
 * of v (steps of w = 1 or 8 values, w apart) is finite; NaN counts as nonzero */
static void span_of(const double *v, int64_t w, int64_t k, int64_t sp[3])
{
    sp[0] = k; sp[1] = 0; sp[2] = 1;
    const __m256d zero = _mm256_setzero_pd(), big = _mm256_set1_pd(0x1.fffffffffffffp1023);
    __m256d fin = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
    if (w == 8) {
        for (int64_t l = 0; l < k; l++) {
            const __m256d v0 = _mm256_loadu_pd(v + 8 * l), v1 = _mm256_loadu_pd(v + 8 * l + 4);
            fin = _mm256_and_pd(fin, _mm256_and_pd(_mm256_cmp_pd(_mm256_and_pd(v0, ABSMASK), big, _CMP_LE_OQ),
                                                   _mm256_cmp_pd(_mm256_and_pd(v1, ABSMASK), big, _CMP_LE_OQ)));
            if (_mm256_movemask_pd(_mm256_or_pd(_mm256_cmp_pd(v0, zero, _CMP_NEQ_UQ), _mm256_cmp_pd(v1, zero, _CMP_NEQ_UQ)))) {
                if (sp[0] == k) sp[0] = l;
                sp[1] = l + 1;
            }
        }
        sp[2] = _mm256_movemask_pd(fin) == 0xf;
        return;
    }
    int64_t l = 0;
    for (; l + 4 <= k; l += 4) {
        const __m256d x = _mm256_loadu_pd(v + l);
        fin = _mm256_and_pd(fin, _mm256_cmp_pd(_mm256_and_pd(x, ABSMASK), big, _CMP_LE_OQ));
        const int nz = _mm256_movemask_pd(_mm256_cmp_pd(x, zero, _CMP_NEQ_UQ));
        if (nz) {
            if (sp[0] == k) sp[0] = l + __builtin_ctz((unsigned)nz);
            sp[1] = l + 32 - __builtin_clz((unsigned)nz);
        }
    }
    sp[2] = _mm256_movemask_pd(fin) == 0xf;
    for (; l < k; l++) {
        const double x = v[l];
        if (x != 0.0) { if (sp[0] == k) sp[0] = l; sp[1] = l + 1; }
        if (!(fabs(x) <= 0x1.fffffffffffffp1023)) sp[2] = 0;
    }
}

/* Rows `rows` (bit r: lane r) of the eight lanes a[8 l + r] times x[l], l < steps, rounded
 * into c[r crs] (read where beta != 0) where the deep sums certify them: RN(alpha sum + beta
 * c_r) with pr's alpha and beta.  la = NULL: without the lowest bits (the bound alone
 * certifies).  Returns the rows left (bit r as rows), c unwritten there. */
static int deep_rows(const ozb_problem *pr, const double *a, const double *x, int64_t steps, const int32_t *la,
                     const int32_t *lx, double *c, int64_t crs, int rows, int wide)
{
    const int64_t nq = nblocks(steps);
    deep_row st;
    const int ok = ozb_deep_run(a, x, 1, steps, la, lx, &st, wide);
    int done = 0;            /* rows certified four at a time */
    double yv[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    if (ok && (pr->alpha == 1.0 || pr->alpha == -1.0)) {
        double dl[8];
        ozb_deep_lane_deltas(&st, nq, dl);
        for (int v = 0; v < 2; v++) {
            double c0[4] = {0, 0, 0, 0};
            int lanes = rows >> (4 * v) & 0xf;
            if (!lanes) continue;
            for (int r = 0; r < 4; r++) {
                if (!(lanes >> r & 1)) continue;
                if (pr->beta != 0.0) c0[r] = c[(4 * v + r) * crs];
                if (dl[4 * v + r] < 0.0) { dl[4 * v + r] = 0.0; lanes &= ~(1 << r); }
            }
            done |= (ozb_deep_cert4(&st.t[v], pr->alpha, pr->beta != 0.0, pr->beta, c0, dl + 4 * v, yv + 4 * v) & lanes) << (4 * v);
        }
    }
    int left = 0;
    for (int r = 0; r < 8; r++) {
        if (!(rows >> r & 1)) continue;
        double *cr = c + r * crs, y = yv[r];
        if ((done >> r & 1) || (ok && ozb_deep_round(pr, &st, r, r + 1, nq, pr->beta != 0.0 ? *cr : 0.0, &y)))
            *cr = y;
        else
            left |= 1 << r;
    }
    return left;
}

/* Rows `rows` of strip b times column j over steps lo..hi-1 (deep_rows), their flags set */
static int strip_rows(const deep_t *g, int64_t b, int64_t j, int64_t lo, int64_t hi, const int32_t *la,
                      const int32_t *lx, int rows)
{
    const ozb_problem *pr = g->pr;
    const int left = deep_rows(pr, g->P + 8 * (pr->k * b + lo), g->Bx + j * g->ldx + lo, hi - lo, la, lx,
                               pr->c + 8 * b * pr->crs + j * pr->ccs, pr->crs, rows, g->wide);
    for (int r = 0; r < 8; r++)
        if (rows >> r & 1) g->fail[8 * b + r + j * pr->m] = (uint8_t)(left >> r & 1);
    return left;
}

unsigned ozb_eft_deep_strip(const double *P, const double *x, int64_t w, unsigned rows, double alpha, double beta,
                            double *y, int64_t incy, int32_t *lsb)
{
    if (w <= 0 || w > ((int64_t)1 << 32)) return rows;
    ozb_deep_lsb_n(P, 8 * w, lsb);
    ozb_deep_lsb_n(x, w, lsb + 8 * w);
    const ozb_problem pr = { .m = 8, .n = 1, .k = w, .alpha = alpha, .beta = beta };
    return (unsigned)deep_rows(&pr, P, x, w, lsb, lsb + 8 * w, y, incy, (int)rows, 0);
}

/* strip b of op(A) times column j of op(B): its rows rounded into C or flagged.  Only the
 * steps where both factors may be nonzero: outside the strip's span its a are 0, so where the
 * column is finite those products are exactly 0, and the same the other way (a triangular or
 * banded operand, LAPACK's: half the products of a triangular one).  Zero products add
 * nothing to the sum nor to its grid, and fewer blocks only tighten the bound. */
static int64_t strip_column(const deep_t *g, int64_t b, int64_t j)
{
    const ozb_problem *pr = g->pr;
    if (pr->tri != OZB_TRI_ALL || pr->want) {      /* none of its rows kept: nothing to compute */
        int any = 0;
        for (int64_t i = 8 * b; i < pr->m && i < 8 * b + 8; i++) any |= ozb_kept(pr, i, j);
        if (!any) {
            for (int64_t i = 8 * b; i < pr->m && i < 8 * b + 8; i++) g->fail[i + j * pr->m] = 0;
            return 0;
        }
    }
    const int64_t *sa = g->spA + 3 * b, *sx = g->spX + 3 * j;
    int64_t lo = 0, hi = pr->k;
    if (sx[2]) { lo = sa[0]; hi = sa[1]; }
    if (sa[2]) { lo = lo > sx[0] ? lo : sx[0]; hi = hi < sx[1] ? hi : sx[1]; }
    if (lo >= hi) { lo = 0; hi = pr->k; }   /* no product can be nonzero: all of them, as before */
    const int rows = (int)(0xff >> (8 * b + 8 > pr->m ? 8 * b + 8 - pr->m : 0));
    const int32_t *lx = g->lX + j * pr->k + lo;
    int32_t *la = g->lA + 8 * (pr->k * b + lo);
    /* lazily (the strip's lowest bits only where the bound alone leaves rows) until a strip
     * has needed them: from then on (a residual: most strips do) at once, saving the second
     * pass.  Either way each row is RN(exact) or left; the flag is shared by the threads, and
     * whenever one sets it changes no bit. */
    const int eager = g->lazy && atomic_load_explicit(g->eager, memory_order_relaxed);
    if (eager) ozb_deep_lsb_n(g->P + 8 * (pr->k * b + lo), 8 * (hi - lo), la);
    int left = strip_rows(g, b, j, lo, hi, g->lazy && !eager ? NULL : la, lx, rows);
    if (left && g->lazy && !eager) {       /* the strip's lowest bits, only now: its exact sums */
        ozb_deep_lsb_n(g->P + 8 * (pr->k * b + lo), 8 * (hi - lo), la);
        left = strip_rows(g, b, j, lo, hi, la, lx, left);
        atomic_store_explicit(g->eager, 1, memory_order_relaxed);
    }
    return __builtin_popcount((unsigned)left);
}

/* Tiles lo..hi-1: tile u is strip u mod S (S strips) times column group u / S (OZB_EFT_NC
 * columns).  Tiles rather than whole strips or groups, so that a few hundred rows and columns
 * still make enough units for the threads, which take them in turn (ozb_par_for_dyn): a
 * residual's work is uneven (products skipped where a triangular factor is zero). */
static int64_t tiles(void *ctx, int64_t lo, int64_t hi)
{
    const deep_t *g = ctx;
    const int64_t S = (g->pr->m + 7) / 8, n = g->pr->n;
    int64_t left = 0;
    for (int64_t u = lo; u < hi; u++) {
        const int64_t b = u % S, j0 = u / S * OZB_EFT_NC, j1 = j0 + OZB_EFT_NC < n ? j0 + OZB_EFT_NC : n;
        for (int64_t j = j0; j < j1; j++) left += strip_column(g, b, j);
    }
    return left;
}
#else
unsigned ozb_eft_deep_strip(const double *P, const double *x, int64_t w, unsigned rows, double alpha, double beta,
                            double *y, int64_t incy, int32_t *lsb)
{
    (void)P; (void)x; (void)w; (void)alpha; (void)beta; (void)y; (void)incy; (void)lsb;
    return rows;
}
#endif

static size_t up64(size_t b) { return (b + 63) & ~(size_t)63; }
static int is_dot(const ozb_problem *pr) { return pr->m == 1 && pr->n == 1; }

static size_t bytes_needed(const ozb_problem *pr)
{
    const size_t flags = up64((size_t)pr->m * (size_t)pr->n + 8), k = (size_t)pr->k;
    if (is_dot(pr))        /* x, y in lanes and their lowest bits */
        return flags + 2 * up64((k + 8) * sizeof(double)) + 2 * up64((k + 8) * sizeof(int32_t));
    const size_t rows = 8 * (size_t)((pr->m + 7) / 8), n = (size_t)pr->n;
    return flags + up64(rows * k * sizeof(double)) + up64(rows * k * sizeof(int32_t)) + up64(n * k * sizeof(int32_t))
           + (pr->b.cs != 1 ? up64(k * n * sizeof(double)) : 0) + up64(3 * (rows / 8 + n) * sizeof(int64_t));
}

size_t ozb_eft_deep_bytes(ozblas_handle_t h, const ozb_problem *pr)
{
    (void)h;
    return bytes_needed(pr);
}

ozblas_status_t ozb_eft_deep_cr(ozblas_handle_t h, const ozb_problem *pr, int nt, uint8_t **failp, int64_t *nfail)
{
    const int timed = ozb_timed((double)pr->m * (double)pr->n * (double)pr->k);
    const double t0 = ozb_now_if(timed);
    char *buf = ozb_buf_get(h, OZB_BUF_DEEP, bytes_needed(pr));
    if (!buf) return OZBLAS_STATUS_ALLOC_FAILED;
    uint8_t *fail = (uint8_t *)buf;
    char *p = buf + up64((size_t)pr->m * (size_t)pr->n + 8);
    int64_t left = 0;
#ifdef EFT_AVX2
    const int64_t k = pr->k;
    if (is_dot(pr)) {
        /* the two vectors in lanes (element l in lane l mod 8), zero-padded to whole steps */
        const int64_t steps = (k + 7) / 8;
        double *x = (double *)p, *y = (double *)(p + up64(((size_t)k + 8) * sizeof(double)));
        int32_t *lx = (int32_t *)((char *)y + up64(((size_t)k + 8) * sizeof(double)));
        int32_t *ly = (int32_t *)((char *)lx + up64(((size_t)k + 8) * sizeof(int32_t)));
        for (int64_t l = 0; l < 8 * steps; l++) {
            x[l] = l < k ? pr->a.p[l * pr->a.cs] : 0.0;
            y[l] = l < k ? pr->b.p[l * pr->b.cs] : 0.0;
        }
        deep_row st;
        double yv;
        const double cv = pr->beta != 0.0 ? *pr->c : 0.0;
        /* first by the bound alone; the lowest bits (its exact sums) only where that fails */
        const int wide = ozb_eft_wide(h);
        int ok = ozb_deep_run(x, y, 8, steps, NULL, NULL, &st, wide) && ozb_deep_round(pr, &st, 0, 8, nblocks(steps), cv, &yv);
        if (!ok) {
            ozb_deep_lsb_n(x, 8 * steps, lx);
            ozb_deep_lsb_n(y, 8 * steps, ly);
            ok = ozb_deep_run(x, y, 8, steps, lx, ly, &st, wide) && ozb_deep_round(pr, &st, 0, 8, nblocks(steps), cv, &yv);
        }
        if (ok) *pr->c = yv;
        fail[0] = !ok;
        left = !ok;
    } else {
        const int64_t nq = nblocks(k), nstrips = (pr->m + 7) / 8;
        const size_t rows = 8 * (size_t)nstrips;
        double *P = (double *)p;
        int32_t *lA = (int32_t *)(p + up64(rows * (size_t)k * sizeof(double)));
        int32_t *lX = (int32_t *)((char *)lA + up64(rows * (size_t)k * sizeof(int32_t)));
        ozb_eft_pack_strips(pr, P, NULL, NULL);      /* no maxima: each block finds its largest product */
        /* the strips' lowest bits: at once where many columns share them; for one column
         * (GEMV) a strip's only where the bound leaves some of its rows (strip_column) */
        const int lazy = pr->n == 1;
        if (!lazy) ozb_deep_lsb_n(P, (int64_t)(rows * (size_t)k), lA);
        char *q = (char *)lX + up64((size_t)pr->n * (size_t)k * sizeof(int32_t));
        int64_t *spA = (int64_t *)q, *spX = spA + 3 * nstrips;
        q += up64(3 * (size_t)(nstrips + pr->n) * sizeof(int64_t));
        atomic_int eager;
        atomic_init(&eager, 0);
        deep_t g = { pr, P, lA, pr->b.p, pr->b.rs, lX, spA, spX, nq, fail, lazy, &eager, ozb_eft_wide(h) };
        if (pr->b.cs != 1) {
            double *Bp = (double *)q;
            for (int64_t j = 0; j < pr->n; j++)
                for (int64_t l = 0; l < k; l++) Bp[l + j * k] = pr->b.p[l * pr->b.cs + j * pr->b.rs];
            g.Bx = Bp;
            g.ldx = k;
        }
        for (int64_t j = 0; j < pr->n; j++) {
            ozb_deep_lsb_n(g.Bx + j * g.ldx, k, lX + j * k);
            span_of(g.Bx + j * g.ldx, 1, k, spX + 3 * j);
        }
        for (int64_t b = 0; b < nstrips; b++) span_of(P + 8 * k * b, 8, k, spA + 3 * b);
        const int64_t ntiles = nstrips * ((pr->n + OZB_EFT_NC - 1) / OZB_EFT_NC);
        left = ozb_par_for_dyn(nt > 1, nt, ntiles, 1, tiles, &g);
    }
#else
    (void)nt;
    memset(fail, 1, (size_t)pr->m * (size_t)pr->n);
    left = pr->m * pr->n;
#endif
    *failp = fail;
    *nfail = left;
    ozb_info_eft(h, pr, left, 3, ozb_now_if(timed) - t0);
    return OZBLAS_STATUS_SUCCESS;
}
