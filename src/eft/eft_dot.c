/* CORRECTLY_ROUNDED DOT and GEMV by streaming error-free transformations (issues 14, 16): the
 * method and its bit budget are described in eft_kern.h.  This file: DOT and GEMV with rows
 * of op(A) contiguous (one DOT per row), the certificate, the orchestration.
 * Compiled with -ffp-contract=off: the FMAs are explicit. */
#include "eft/eft_dot.h"
#include "eft/eft_dot_small.h"
#include "eft/eft_kern.h"
#include "eft/eft_cert4.h"
#include "eft/eft_rows4.h"
#include "eft/ozblas_parts.h"
#include "core/info.h"
#include "core/par.h"
#include "sum/sum.h"
#include <string.h>
#include "core/gather.h"

#ifdef EFT_AVX2
/* DOT lanes: x, y contiguous, n8 chunks of 8 products, into t[2]; g[2] the lanes' sigma
 * (*have_g = 0: none yet).  0 where a product's magnitude is out of range or non-finite. */
int ozb_eft_dot_run256(const double *x, const double *y, int64_t n8, tot4 t[2], __m256d g[2], int *have_g)
{
    for (int64_t j0 = 0; j0 < n8; j0 += BL) {
        const int64_t nb = n8 - j0 < BL ? n8 - j0 : BL;
        const double *xb = x + 8 * j0, *yb = y + 8 * j0;
        if (!*have_g) {           /* the first block's sigma: FIRST_PEEK (eft_kern.h) */
            __m256d m0 = _mm256_setzero_pd(), m1 = m0;
            for (int64_t j = 0; j < nb && j < FIRST_PEEK; j++) {
                m0 = _mm256_max_pd(m0, _mm256_and_pd(_mm256_mul_pd(_mm256_loadu_pd(xb + 8 * j), _mm256_loadu_pd(yb + 8 * j)), ABSMASK));
                m1 = _mm256_max_pd(m1, _mm256_and_pd(_mm256_mul_pd(_mm256_loadu_pd(xb + 8 * j + 4), _mm256_loadu_pd(yb + 8 * j + 4)), ABSMASK));
            }
            m0 = _mm256_max_pd(m0, m1);
            m0 = _mm256_max_pd(m0, _mm256_permute4x64_pd(m0, 0x4e));
            m0 = _mm256_max_pd(m0, _mm256_permute_pd(m0, 0x5));    /* every lane: the max of all */
            if (!in_range(m0)) return 0;
            g[0] = g[1] = first_sigma(m0);
            *have_g = 1;
        }
        for (;;) {
            __m256d S0 = _mm256_setzero_pd(), S1 = S0, R0 = S0, R1 = S0, M0 = S0, M1 = S0;
            const __m256d g0 = g[0], g1 = g[1];
            for (int64_t j = 0; j < nb; j++) {
                SPLIT4(S0, R0, M0, _mm256_loadu_pd(xb + 8 * j), _mm256_loadu_pd(yb + 8 * j), g0);
                SPLIT4(S1, R1, M1, _mm256_loadu_pd(xb + 8 * j + 4), _mm256_loadu_pd(yb + 8 * j + 4), g1);
            }
            if (!in_range(M0) || !in_range(M1)) return 0;
            const int ok = fits(M0, g0) && fits(M1, g1);
            if (ok) {
                tot_add(&t[0], S0, R0, g0);
                tot_add(&t[1], S1, R1, g1);
            }
            /* the next block's sigma (or this one's again): never below what this one needs */
            g[0] = next_sigma(M0); g[1] = next_sigma(M1);
            if (!ok) { g[0] = _mm256_max_pd(g[0], g0); g[1] = _mm256_max_pd(g[1], g1); continue; }
            break;
        }
    }
    return 1;
}

/* DOT state of one row (or piece); wide: the lanes by the 512-bit loop */
typedef struct { tot4 t[2]; __m256d g[2]; int have_g, bad, wide; } dot_t;

static void dot_init(dot_t *d, int wide)
{
    d->wide = wide;
    const __m256d z = _mm256_setzero_pd();
    d->t[0].s = d->t[0].c = d->t[0].a = d->t[0].g = z;
    d->t[1] = d->t[0];
    d->g[0] = d->g[1] = z;
    d->have_g = d->bad = 0;
}

/* the lanes of n8 steps into d, by the 256-bit or the 512-bit loop */
static inline int run(dot_t *d, const double *x, const double *y, int64_t n8)
{
    if (d->wide) return ozb_eft_dot_run512(x, y, n8, d->t, d->g, &d->have_g);
    return ozb_eft_dot_run256(x, y, n8, d->t, d->g, &d->have_g);
}

/* dst[0..7] = src[0..r-1] and zeros (0 < r < 8), by masked loads: nothing past src[r-1] is
 * read, and no library call on small DOTs */
static inline void load_tail(double *dst, const double *src, int64_t r)
{
    const __m256i idx = _mm256_setr_epi64x(0, 1, 2, 3);
    _mm256_storeu_pd(dst, _mm256_maskload_pd(src, _mm256_cmpgt_epi64(_mm256_set1_epi64x(r), idx)));
    _mm256_storeu_pd(dst + 4, _mm256_maskload_pd(src + 4, _mm256_cmpgt_epi64(_mm256_set1_epi64x(r - 4), idx)));
}

/* n contiguous products; a tail below 8 zero-padded (a zero product adds exact zeros) */
static void dot_contig(dot_t *d, const double *x, const double *y, int64_t n)
{
    if (d->bad) return;
    const int64_t n8 = n / 8;
    if (!run(d, x, y, n8)) { d->bad = 1; return; }
    if (n % 8) {
        double xt[8], yt[8];
        load_tail(xt, x + 8 * n8, n % 8);
        load_tail(yt, y + 8 * n8, n % 8);
        if (!run(d, xt, yt, 1)) d->bad = 1;
    }
}

/* any strides: gathered CHUNK at a time, the last gather zero-padded to a multiple of 8 */
static void dot_strided(dot_t *d, const double *x, int64_t incx, const double *y, int64_t incy, int64_t n)
{
    if (incx == 1 && incy == 1) { dot_contig(d, x, y, n); return; }
    double xb[CHUNK], yb[CHUNK];
    for (int64_t l0 = 0; l0 < n && !d->bad; l0 += CHUNK) {
        const int64_t len = n - l0 < CHUNK ? n - l0 : CHUNK, len8 = (len + 7) & ~(int64_t)7;
        ozb_gather(x + l0 * incx, len, incx, xb);
        ozb_gather(y + l0 * incy, len, incy, yb);
        for (int64_t l = len; l < len8; l++) xb[l] = yb[l] = 0.0;
        if (!run(d, xb, yb, len8 / 8)) d->bad = 1;
    }
}

static fold_t dot_fold(const dot_t *d)
{
    fold_t f = {0.0, 0.0, 0.0, 0.0};
    tot4 t = d->t[0];
    /* the second vector's lanes into the first's: TwoSum of the s's, the rest added (its
     * c and a as terms of the tree, as fold_add does lane by lane) */
    const __m256d s1 = _mm256_add_pd(t.s, d->t[1].s), bb = _mm256_sub_pd(s1, t.s);
    const __m256d e = _mm256_add_pd(_mm256_sub_pd(t.s, _mm256_sub_pd(s1, bb)), _mm256_sub_pd(d->t[1].s, bb));
    t.s = s1;
    t.c = _mm256_add_pd(t.c, _mm256_add_pd(e, d->t[1].c));
    t.a = _mm256_add_pd(t.a, _mm256_add_pd(_mm256_and_pd(e, ABSMASK), d->t[1].a));
    t.g = _mm256_add_pd(t.g, d->t[1].g);
    tot_fold(&t, &f);
    if (d->bad) f.S = NAN;          /* finish() leaves the row to the caller */
    return f;
}

fold_t ozb_eft_dot_fold(const double *x, int64_t incx, const double *y, int64_t incy, int64_t n, int wide)
{
    dot_t d;
    dot_init(&d, wide);
    if (n > 0) dot_strided(&d, x, incx, y, incy, n);
    return dot_fold(&d);
}
#endif

double ozb_eft_fold_bound(fold_t f, double N)
{
    if (!isfinite(f.S) || !isfinite(f.C) || !isfinite(f.A) || !isfinite(f.G)) return NAN;
    double B = (f.A > 0.0 && f.A < BOUND_A_MIN ? BOUND_A_MIN : f.A) * (N * 0x1p-52);
    if (f.A > 0.0 && B < 0x1p-1000) B = 0x1p-1000;     /* a nonzero bound never underflows */
    B += (f.G > 0.0 && f.G < BOUND_G_MIN ? BOUND_G_MIN : f.G) * EBC;
    /* (A and G raised to eft_kern.h's minima: no product is subnormal) n 2^-1074 (n <= 2^32),
     * the products' losses below the subnormal grid, with a normal number */
    B += 0x1p-1000;
    return B;
}

/* RN(alpha (S + C + D) + beta c0) for every D within the bound at the top, or 0. */
static int finish(fold_t f, double N, double alpha, double beta, double c0, int use_c, double *out)
{
    const double B = ozb_eft_fold_bound(f, N);
    return !isnan(B) && ozb_eft_finish(f.S, f.C, B, alpha, beta, c0, use_c, out);
}

int ozb_eft_dot_parts(int64_t n, const double *x, int64_t incx, const double *y, int64_t incy, double *S, double *C,
                      double *B)
{
#ifdef EFT_AVX2
    if (n <= 0) { *S = *C = *B = 0.0; return 1; }
    if (n > ((int64_t)1 << 32)) return 0;              /* the margin on G (blocks <= 2^32) */
    const fold_t f = ozb_eft_dot_fold(x + (incx < 0 ? (n - 1) * -incx : 0), incx, y + (incy < 0 ? (n - 1) * -incy : 0),
                                      incy, n, ozb_eft_cpu_wide());
    const double b = ozb_eft_fold_bound(f, ozb_eft_terms(n, LANES, 1));
    if (isnan(b) || !isfinite(b)) return 0;
    *S = f.S;
    *C = f.C;
    *B = b;
    return 1;
#else
    (void)n; (void)x; (void)incx; (void)y; (void)incy; (void)S; (void)C; (void)B;
    return 0;
#endif
}
/* libozblas_mpi's door (eft/ozblas_parts.h): the library exports ozblas_* alone */
int ozblas_internal_dot_parts(int64_t n, const double *x, int64_t incx, const double *y, int64_t incy, double *S,
                              double *C, double *B) { return ozb_eft_dot_parts(n, x, incx, y, incy, S, C, B); }
int ozblas_internal_gemv_n_parts(int64_t m, int64_t k, const double *A, int64_t lda, const double *x, double *parts)
{ return ozb_eft_gemv_n_parts(m, k, A, lda, x, parts); }
int ozblas_internal_sum2_certify(const double *p, int64_t m, double extra, double *out) { return ozb_sum2_certify(p, m, extra, out); }

int ozb_eft_finish(double S, double C, double B, double alpha, double beta, double c0, int use_c, double *out)
{
    if (alpha == 1.0 && !use_c) return ozb_eft_finish_unit(S, C, B, out);
    if (!isfinite(S) || !isfinite(C) || !isfinite(B)) return 0;
    const fold_t f = {S, C, 0.0, 0.0};
    double T[6];
    int m = 0;
    if (alpha == 1.0) {
        if (!(fabs(f.S) <= 0x1p1000)) return 0;         /* Sum2's range */
        T[m++] = f.S;
        T[m++] = f.C;
    } else {
        if (!ozb_two_product(alpha, f.S, &T[m], &T[m + 1])) return 0;
        m += 2;
        if (!ozb_two_product(alpha, f.C, &T[m], &T[m + 1])) return 0;
        m += 2;
        B *= fabs(alpha);                                /* its rounding: the 2^-50 margin */
        if (!(B <= 0x1p1000)) return 0;
        /* a bound that underflows to zero would certify a tiny exact value as +0 (alpha 2^-1010
         * times products below 2^-1075, whose RN(exact) is -0): never below 2^-1000 */
        if (B < 0x1p-1000) B = 0x1p-1000;
    }
    if (use_c) {
        if (!ozb_two_product(beta, c0, &T[m], &T[m + 1])) return 0;
        m += 2;
    }
    return ozb_sum2_certify(T, m, B, out);
}

/* One row's result into C (or its fail flag); returns 1 when left to the caller. */
int64_t ozb_eft_put(const ozb_eft_t *e, int64_t i, fold_t f, double N)
{
    const ozb_problem *pr = e->pr;
    double *ci = pr->c + i * pr->crs;
    const int use_c = pr->beta != 0.0;
    double r;
    const int ok = finish(f, N, pr->alpha, pr->beta, use_c ? *ci : 0.0, use_c, &r);
    if (ok) *ci = r;
    e->fail[i] = (uint8_t)!ok;
    return !ok;
}

#ifdef EFT_AVX2
/* DOT: pieces lo..hi-1 of x^T y, each folded into state[4 piece ..] */
static int64_t dot_pieces(void *ctx, int64_t lo, int64_t hi)
{
    const ozb_eft_t *e = ctx;
    const ozb_problem *pr = e->pr;
    const int64_t n = pr->k, len = ((n + e->nchunk - 1) / e->nchunk + 7) & ~(int64_t)7;
    for (int64_t q = lo; q < hi; q++) {
        const int64_t l0 = q * len < n ? q * len : n, l1 = l0 + len < n ? l0 + len : n;
        const fold_t f = ozb_eft_dot_fold(pr->a.p + l0 * pr->a.cs, pr->a.cs, pr->b.p + l0 * pr->b.cs, pr->b.cs, l1 - l0, e->wide);
        memcpy(e->state + 4 * q, &f, sizeof f);
    }
    return 0;
}

/* 4 x 4 transpose: r[q] lane l <-> r[l] lane q */
static void transpose4(__m256d r[4])
{
    const __m256d t0 = _mm256_unpacklo_pd(r[0], r[1]), t1 = _mm256_unpackhi_pd(r[0], r[1]);
    const __m256d t2 = _mm256_unpacklo_pd(r[2], r[3]), t3 = _mm256_unpackhi_pd(r[2], r[3]);
    r[0] = _mm256_permute2f128_pd(t0, t2, 0x20);
    r[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
    r[2] = _mm256_permute2f128_pd(t0, t2, 0x31);
    r[3] = _mm256_permute2f128_pd(t1, t3, 0x31);
}

/* Four rows' DOT states folded at once: lane q of the result holds row q's (S, C, A, G), the
 * same fold as dot_fold (the second vector's lanes into the first's, then lane by lane). */
static tot4 fold4(const dot_t d[4])
{
    __m256d s[4], c[4], a[4], g[4];
    for (int q = 0; q < 4; q++) {
        const tot4 *t0 = &d[q].t[0], *t1 = &d[q].t[1];
        const __m256d s1 = _mm256_add_pd(t0->s, t1->s), bb = _mm256_sub_pd(s1, t0->s);
        const __m256d e = _mm256_add_pd(_mm256_sub_pd(t0->s, _mm256_sub_pd(s1, bb)), _mm256_sub_pd(t1->s, bb));
        s[q] = s1;
        c[q] = _mm256_add_pd(t0->c, _mm256_add_pd(e, t1->c));
        a[q] = _mm256_add_pd(t0->a, _mm256_add_pd(_mm256_and_pd(e, ABSMASK), t1->a));
        g[q] = _mm256_add_pd(t0->g, t1->g);
        if (d[q].bad) s[q] = _mm256_set1_pd(NAN);       /* the row is left to the caller */
    }
    transpose4(s); transpose4(c); transpose4(a); transpose4(g);   /* now [lane l], rows in lanes */
    tot4 f = { s[0], c[0], a[0], g[0] };
    for (int l = 1; l < 4; l++) {
        const __m256d s1 = _mm256_add_pd(f.s, s[l]), bb = _mm256_sub_pd(s1, f.s);
        const __m256d e = _mm256_add_pd(_mm256_sub_pd(f.s, _mm256_sub_pd(s1, bb)), _mm256_sub_pd(s[l], bb));
        f.s = s1;
        f.c = _mm256_add_pd(f.c, _mm256_add_pd(e, c[l]));
        f.a = _mm256_add_pd(f.a, _mm256_add_pd(_mm256_and_pd(e, ABSMASK), a[l]));
        f.g = _mm256_add_pd(f.g, g[l]);
    }
    return f;
}

/* GEMV with rows of op(A) contiguous (a.cs == 1): rows lo..hi-1, one DOT each, certified four
 * at a time */
static int64_t gemv_t_rows(void *ctx, int64_t lo, int64_t hi)
{
    const ozb_eft_t *e0 = ctx;
    const ozb_problem *pr = e0->pr;
    ozb_eft_t e = *e0;
    e.terms = ozb_eft_terms(pr->k, LANES, 1);
    int64_t left = 0, i = lo;
    if (pr->k <= OZB_DOT_ONE_SIGMA) {       /* short rows: one split each (eft_dot_small.c) */
        /* Rows one at a time (the last rows of a call, fewer than four): beyond 256 products
         * the guessed sigma leaves products only 2^6 of growth over the row's first four, and
         * sigma from max|a| max|x| is cheaper; up to 256 the guess stays (its sigma comes from
         * the products themselves: a tighter bound where big a meet small x). */
        const double xmax = ozb_eft_absmax(e.x, pr->k);
        /* whole groups of four rows side by side, sigma from max|a| max|x| (one pass, no largest
         * |q|), two groups where eight rows remain: independent chains of adds, certificates */
        for (int nv = i + 8 <= hi ? 2 : 1; i + 4 <= hi; i += 4 * nv, nv = i + 8 <= hi ? 2 : 1) {
            tot4 f[2];
            for (int v = 0; v < nv; v++) {
                const double *a = pr->a.p + (i + 4 * v) * pr->a.rs;
                if (!ozb_eft_split4_guess(a, pr->a.rs, e.x, pr->k, xmax, e.wide, &f[v]))
                    ozb_eft_split4_bounded(a, pr->a.rs, e.x, pr->k, xmax, &f[v]);
            }
            left += nv == 2 ? ozb_eft_put8(&e, i, &f[0], &f[1]) : ozb_eft_put4(&e, i, &f[0]);
        }
        for (; i < hi; i += 4) {
            double s[4] = {0, 0, 0, 0}, c[4] = {0, 0, 0, 0}, g[4] = {0, 0, 0, 0};
            const int rows = hi - i < 4 ? (int)(hi - i) : 4;
            for (int q = 0; q < rows; q++) {
                const double *a = pr->a.p + (i + q) * pr->a.rs;
                if (!(pr->k > 256 ? ozb_eft_split1_bounded(a, e.x, pr->k, xmax, &s[q], &c[q], &g[q])
                                  : ozb_eft_split1(a, e.x, pr->k, &s[q], &c[q], &g[q])))
                    s[q] = NAN;
            }
            if (rows == 4) {
                const tot4 f = {_mm256_loadu_pd(s), _mm256_loadu_pd(c), _mm256_setzero_pd(), _mm256_loadu_pd(g)};
                left += ozb_eft_put4(&e, i, &f);
            } else
                for (int q = 0; q < rows; q++) {
                    const fold_t f = {s[q], c[q], 0.0, g[q]};
                    left += ozb_eft_put(&e, i + q, f, e.terms);
                }
        }
        return left;
    }
    for (; i + 4 <= hi; i += 4) {
        dot_t d[4];
        for (int q = 0; q < 4; q++) {
            dot_init(&d[q], e.wide);
            dot_contig(&d[q], pr->a.p + (i + q) * pr->a.rs, e.x, pr->k);
        }
        const tot4 f = fold4(d);
        left += ozb_eft_put4(&e, i, &f);
    }
    for (; i < hi; i++) {
        dot_t d;
        dot_init(&d, e.wide);
        dot_contig(&d, pr->a.p + i * pr->a.rs, e.x, pr->k);
        left += ozb_eft_put(&e, i, dot_fold(&d), ozb_eft_terms(pr->k, LANES, 1));
    }
    return left;
}

#endif

int ozb_eft_dot_small(ozblas_handle_t h, const ozb_problem *pr)
{
#ifdef EFT_AVX2
    if (pr->m != 1 || pr->n != 1 || (double)pr->k >= OZB_PAR_WORK) return 0;
    if (!isfinite(pr->alpha) || !isfinite(pr->beta)) return 0;
    if (pr->k <= OZB_DOT_ONE_SIGMA) return ozb_eft_dot_short(pr);
    const int use_c = pr->beta != 0.0;
    double r;
    dot_t d;
    dot_init(&d, ozb_eft_wide(h));   /* (asked only here: two calls a short DOT need not make) */
    dot_strided(&d, pr->a.p, pr->a.cs, pr->b.p, pr->b.cs, pr->k);
    if (!finish(dot_fold(&d), ozb_eft_terms(pr->k, LANES, 1), pr->alpha, pr->beta, use_c ? *pr->c : 0.0, use_c, &r)) return 0;
    *pr->c = r;
    return 1;
#else
    (void)h; (void)pr;
    return 0;
#endif
}

int64_t ozb_eft_column(const ozb_eft_t *col, double *xbuf, double *state, double *pieces, int par, int nt)
{
#ifdef EFT_AVX2
    const ozb_problem *pr = col->pr;
    ozb_eft_t e = *col;
    if (pr->m == 1 && !par) {
        dot_t d;
        dot_init(&d, e.wide);
        dot_strided(&d, pr->a.p, pr->a.cs, pr->b.p, pr->b.cs, pr->k);
        return ozb_eft_put(&e, 0, dot_fold(&d), ozb_eft_terms(pr->k, LANES, 1));
    }
    if (pr->m == 1) {
        e.nchunk = NCHUNK_PAR;
        e.state = pieces;
        ozb_par_for(par, nt, e.nchunk, dot_pieces, &e);
        fold_t f = {0.0, 0.0, 0.0, 0.0};
        for (int64_t q = 0; q < e.nchunk; q++) fold_add(&f, pieces[4 * q], pieces[4 * q + 1], pieces[4 * q + 2], pieces[4 * q + 3]);
        return ozb_eft_put(&e, 0, f, ozb_eft_terms(pr->k, LANES, e.nchunk));
    }
    if (pr->b.cs != 1)
        ozb_gather(pr->b.p, pr->k, pr->b.cs, xbuf);
    e.x = pr->b.cs == 1 ? pr->b.p : xbuf;
    e.state = state;
    const int64_t ns = (pr->m + 7) / 8, mid = ns / 2;     /* the probe: strip mid, rows 8 mid .. 8 mid + 7 */
    if (pr->a.cs == 1) return ozb_eft_gemv_probed(&e, par, nt, pr->m, 8 * mid, 8 * mid + 8, 8 * mid, gemv_t_rows);
    return ozb_eft_gemv_probed(&e, par, nt, ns, mid, mid + 1, 8 * mid, ozb_eft_gemv_n_strips);
#else
    (void)col; (void)xbuf; (void)state; (void)pieces; (void)par; (void)nt;
    return 0;
#endif
}
