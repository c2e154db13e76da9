/* The error-free GEMV with columns of op(A) contiguous (GEMV-N): one lane per row, blocks of
 * BLN columns over every strip of 8 rows in turn, as a GEMV-N streams A.  Method and bit
 * budget: eft_kern.h.  Compiled with -ffp-contract=off: the FMAs are explicit. */
#include "eft/eft_kern.h"
#include "eft/eft_cert4.h"
#include "eft/eft_dot.h"
#include "eft/cpu_dq.h"
#include <stdlib.h>
#include <string.h>

#ifdef EFT_AVX2
/* ozb_eft_strip_block with column j at a + j lda, or at cols[j] where cols is given, its lanes
 * and-ed with mk[8 j .. 8 j + 7] where mk is given (the instances below, each with its
 * addressing fixed at compile time) */
static inline __attribute__((always_inline)) int strip_block_at(const double *a, int64_t lda, const double *const *cols,
                                                                const double *mk, const double *xs, int64_t nb,
                                                                row4_t st[2], int first)
{
#define COL(j) (cols ? cols[j] : a + (j) * lda)
#define LD(j, h) (mk ? _mm256_and_pd(_mm256_loadu_pd(COL(j) + (h)), _mm256_loadu_pd(mk + 8 * (j) + (h))) \
                     : _mm256_loadu_pd(COL(j) + (h)))
    if (first) {
        __m256d m0 = _mm256_setzero_pd(), m1 = m0;
        for (int64_t j = 0; j < nb && j < FIRST_PEEK; j++) {
            const __m256d xb = _mm256_broadcast_sd(xs + j);
            m0 = _mm256_max_pd(m0, _mm256_and_pd(_mm256_mul_pd(LD(j, 0), xb), ABSMASK));
            m1 = _mm256_max_pd(m1, _mm256_and_pd(_mm256_mul_pd(LD(j, 4), xb), ABSMASK));
        }
        if (!in_range(m0) || !in_range(m1)) return 0;
        st[0].g = first_sigma(m0); st[1].g = first_sigma(m1);
    }
    for (;;) {
        __m256d S0 = _mm256_setzero_pd(), S1 = S0, R0 = S0, R1 = S0, M0 = S0, M1 = S0;
        const __m256d g0 = st[0].g, g1 = st[1].g;
        for (int64_t j = 0; j < nb; j++) {
            const __m256d xb = _mm256_broadcast_sd(xs + j);
            SPLIT4(S0, R0, M0, LD(j, 0), xb, g0);
            SPLIT4(S1, R1, M1, LD(j, 4), xb, g1);
        }
        if (!in_range(M0) || !in_range(M1)) return 0;
        const int ok = fits(M0, g0) && fits(M1, g1);
        if (ok) {
            tot_add(&st[0].t, S0, R0, g0);
            tot_add(&st[1].t, S1, R1, g1);
        }
        st[0].g = next_sigma(M0); st[1].g = next_sigma(M1);
        if (!ok) { st[0].g = _mm256_max_pd(st[0].g, g0); st[1].g = _mm256_max_pd(st[1].g, g1); continue; }
        return 1;
    }
#undef LD
#undef COL
}

int ozb_eft_strip_block(const double *a, int64_t lda, const double *xs, int64_t nb, row4_t st[2], int first, int wide)
{
    return wide ? ozb_eft_strip_block512(a, lda, NULL, xs, nb, st, first) : strip_block_at(a, lda, NULL, NULL, xs, nb, st, first);
}

int ozb_eft_strip_block_masked(const double *a, int64_t lda, const double *mk, const double *xs, int64_t nb, row4_t st[2])
{
    return strip_block_at(a, lda, NULL, mk, xs, nb, st, 0);
}

int ozb_eft_strip_block_cols(const double *const *cols, const double *xs, int64_t nb, row4_t st[2], int first, int wide)
{
    return wide ? ozb_eft_strip_block512(NULL, 0, cols, xs, nb, st, first) : strip_block_at(NULL, 0, cols, NULL, xs, nb, st, first);
}

#define STRIP2 strip_block2
#define STRIP2_TARGET
#define STRIP2_MAXABS OZB_MAXABS4
#include "eft/eft_strip_block2.inc"
/* the same with AVX-512 DQ and VL: five operations per four products where CHAIN4_MAX takes six */
#define STRIP2 strip_block2_dq
#define STRIP2_TARGET OZB_DQ_TARGET
#define STRIP2_MAXABS OZB_MAXABS4_DQ
#include "eft/eft_strip_block2.inc"

int ozb_eft_strip_pair(const double *a, int64_t lda, const double *xs, int64_t nb, row4_t st[4], int first, int wide)
{
    return wide && ozb_cpu_dq() ? strip_block2_dq(a, lda, xs, nb, st, first) : strip_block2(a, lda, xs, nb, st, first);
}

/* Strip b (rows 8b..8b+7 of m, column-major A) over columns l0..l0+nb-1 into st: the last
 * strip's missing rows read as zeros from pad (8 BLN doubles) */
static int strip_block_of(const double *A, int64_t lda, int64_t m, int64_t b, int64_t l0, int64_t nb, const double *x,
                          row4_t st[2], double *pad)
{
    const double *a = A + 8 * b + l0 * lda;
    int64_t ld = lda;
    if (8 * b + 8 > m) {
        const int rows = (int)(m - 8 * b);
        for (int64_t j = 0; j < nb; j++)
            for (int r = 0; r < 8; r++) pad[8 * j + r] = r < rows ? a[j * lda + r] : 0.0;
        a = pad;
        ld = 8;
    }
    /* (the 256-bit strips: the 512-bit ones were 6 % slower on GEMV-N 2048, 2 threads, and
     * within 5 % elsewhere: the 2-core Xeon VM with a 480 MiB L3, interleaved) */
    return ozb_eft_strip_block(a, ld, x + l0, nb, st, l0 == 0, 0);
}

/* GEMV with columns of op(A) contiguous (a.rs == 1): strips lo..hi-1 of 8 rows, column block
 * by column block over all of them (BLN streams of A at a time, as a GEMV-N reads). */
int64_t ozb_eft_gemv_n_strips(void *ctx, int64_t lo, int64_t hi)
{
    const ozb_eft_t *e = ctx;
    const ozb_problem *pr = e->pr;
    const int64_t m = pr->m, k = pr->k, lda = pr->a.cs;
    row4_t *st = (row4_t *)e->state;                        /* two per strip */
    uint8_t *bad = e->fail;                                  /* per strip first, per row at the end */
    double pad[8 * BLN];
    /* Strips in pairs (strip_block2), except where the columns lie a multiple of 2048 doubles
     * (16 KiB) apart: there the single strips are faster, the pairs slower (1 thread, AVX512
     * EPYC, interleaved A/B: lda 2048, 4096, 6144, 8192 +13, +15, +9, +20 %; lda 64..1024,
     * 2000, 2056, 3000, 4104 -13 to -39 %).  A choice by the shape: the bits are the same. */
    const int pairs = lda % 2048 != 0;
    const __m256d z = _mm256_setzero_pd();
    for (int64_t b = lo; b < hi; b++) {
        for (int v = 0; v < 2; v++) st[2 * b + v].t.s = st[2 * b + v].t.c = st[2 * b + v].t.a = st[2 * b + v].t.g = st[2 * b + v].g = z;
        bad[b * 8] = 0;
    }
    /* Column blocks of BLN, or BLN / 4 for columns of 2048 rows and more: a block then streams
     * eight columns of A at once (32 columns of 2048 rows are 512 KiB, half a Zen 4 L2), which
     * the prefetchers follow and the L1's ways hold where the columns lie a power of two apart;
     * with fewer rows (the matrix within the L3) the whole blocks are faster.  A choice by the
     * shape: the budget holds for any block of at most BLN products per lane, and the bits are
     * RN(exact). */
    const int64_t bln = m >= 2048 ? BLN / 4 : BLN;
    for (int64_t l0 = 0; l0 < k; l0 += bln) {
        const int64_t nb = k - l0 < bln ? k - l0 : bln;
        for (int64_t b = lo; b < hi; b++) {
            if (bad[b * 8]) continue;
            /* two whole strips at once where both are in range; else (and for a last odd or
             * partial strip) one */
            if (pairs && b + 1 < hi && !bad[(b + 1) * 8] && 8 * b + 16 <= m &&
                ozb_eft_strip_pair(pr->a.p + 8 * b + l0 * lda, lda, e->x + l0, nb, &st[2 * b], l0 == 0, e->wide)) {
                b++;
                continue;
            }
            if (!strip_block_of(pr->a.p, lda, m, b, l0, nb, e->x, &st[2 * b], pad)) bad[b * 8] = 1;
        }
    }
    int64_t left = 0;
    for (int64_t b = lo; b < hi; b++) left += ozb_eft_strip_put(e, b, &st[2 * b], bad[b * 8]);
    return left;
}

/* Rows i0 .. i0 + 4 nv - 1 (rows beyond m ignored) from their totals t0, t1 and the outcome of
 * their certificates (okm, inrange per group of four, y the certified values: ozb_eft_cert4's;
 * unit: alpha = +-1, so that y holds the certificates' sums): each row written or flagged. */
static inline int64_t put_rows(const ozb_eft_t *e, int64_t i0, const tot4 *t0, const tot4 *t1, int nv, const int okm[2],
                               const int inrange[2], const double y[8], int unit, double N)
{
    const ozb_problem *pr = e->pr;
    const int64_t rows = pr->m - i0 < 4 * nv ? pr->m - i0 : 4 * nv;
    const int contiguous = pr->crs == 1 && rows == 4 * nv;     /* whole groups of rows in a row */
    int64_t left = 0;
    for (int v = 0; v < nv; v++) {
        const tot4 *tv = v ? t1 : t0;
        const int ok = okm[v], in = inrange[v];
        if (ok == 0xf && contiguous) {           /* the common case: four rows certified */
            _mm256_storeu_pd(pr->c + i0 + 4 * v, _mm256_loadu_pd(y + 4 * v));
            memset(e->fail + i0 + 4 * v, 0, 4);
            continue;
        }
        double s[4], c[4], a[4], g[4];
        if (ok != 0xf) {
            _mm256_storeu_pd(s, tv->s); _mm256_storeu_pd(c, tv->c);
            _mm256_storeu_pd(a, tv->a); _mm256_storeu_pd(g, tv->g);
        }
        for (int r = 0; r < 4 && 4 * v + r < rows; r++) {
            const int64_t i = i0 + 4 * v + r;
            if (ok >> r & 1) {
                pr->c[i * pr->crs] = y[4 * v + r];
                e->fail[i] = 0;
            } else if ((in >> r & 1) || (unit && y[4 * v + r] == 0.0)) {
                /* a row that cancels beyond the bound (residuals): finish() would fail it
                 * too, so it goes straight to the caller's next method (the bits are
                 * RN(exact) on every path; only where finish()'s slightly different bound
                 * would have decided does this cost the next method's time).  A row
                 * whose sum is 0 (a structured zero: every product zero) likewise: finish()
                 * forms the same sum of the same terms and certifies no zero within a
                 * nonzero bound (ozb_exact_zero_products resolves it after this stage) */
                e->fail[i] = 1;
                left++;
            } else {
                const fold_t f = {s[r], c[r], a[r], g[r]};
                left += ozb_eft_put(e, i, f, N);
            }
        }
    }
    return left;
}

/* Rows i0 .. i0 + 4 nv - 1 (nv = 1 or 2 groups of four; rows beyond m ignored) from their
 * totals t0, t1 (read in place: a copy made of 128-bit halves and read back whole stalls the
 * loads on store forwarding): the certificates of both groups are computed side by side (two
 * independent dependency chains: a certificate is one long chain of TwoSums, and one group
 * alone leaves the core waiting on it), then each row is written or flagged (put_rows). */
static inline __attribute__((always_inline)) int64_t put_groups(const ozb_eft_t *e, int64_t i0, const tot4 *t0,
                                                                 const tot4 *t1, int nv)
{
    const ozb_problem *pr = e->pr;
    const int use_c = pr->beta != 0.0;
    const double N = ozb_eft_terms(pr->k, 1, 1) > e->terms ? ozb_eft_terms(pr->k, 1, 1) : e->terms;
    double c0[8] = {0, 0, 0, 0, 0, 0, 0, 0}, y[8];
    int okm[2] = {0, 0}, inrange[2] = {0, 0};
    const int64_t rows = pr->m - i0 < 4 * nv ? pr->m - i0 : 4 * nv;
    const int contiguous = pr->crs == 1 && rows == 4 * nv;
    const int unit = pr->alpha == 1.0 || pr->alpha == -1.0;
    if (unit) {
        if (use_c && contiguous)
            for (int v = 0; v < nv; v++) _mm256_storeu_pd(c0 + 4 * v, _mm256_loadu_pd(pr->c + i0 + 4 * v));
        else if (use_c)
            for (int64_t r = 0; r < rows; r++) c0[r] = pr->c[(i0 + r) * pr->crs];
        /* an update y := y -+ A x (beta = 1): the bracketing certificate first
         * (ozb_eft_cert4_upd, a third of Sum2's operations), Sum2's where it leaves a row of the
         * group (each certifies only RN(exact)) */
        for (int v = 0; v < nv; v++) {
            const tot4 *tv = v ? t1 : t0;
            if (pr->beta == 1.0 && ozb_eft_cert4_upd(tv, N, pr->alpha, c0 + 4 * v, y + 4 * v) == 0xf) okm[v] = 0xf;
            else okm[v] = ozb_eft_cert4(tv, 0, N, pr->alpha, use_c, pr->beta, c0 + 4 * v, y + 4 * v, &inrange[v]);
        }
    }
    return put_rows(e, i0, t0, t1, nv, okm, inrange, y, unit, N);
}

int64_t ozb_eft_put_certified(const ozb_eft_t *e, int64_t i0, const tot4 *t0, const tot4 *t1, const int ok[2],
                              const int in[2], const double y[8])
{
    const ozb_problem *pr = e->pr;
    const double N = ozb_eft_terms(pr->k, 1, 1) > e->terms ? ozb_eft_terms(pr->k, 1, 1) : e->terms;
    return put_rows(e, i0, t0, t1, 2, ok, in, y, 1, N);
}

int64_t ozb_eft_put4(const ozb_eft_t *e, int64_t i0, const tot4 *t) { return put_groups(e, i0, t, t, 1); }
int64_t ozb_eft_put8(const ozb_eft_t *e, int64_t i0, const tot4 *t0, const tot4 *t1) { return put_groups(e, i0, t0, t1, 2); }

int64_t ozb_eft_strip_put(const ozb_eft_t *e, int64_t b, const row4_t st[2], int bad)
{
    const ozb_problem *pr = e->pr;
    int64_t left = 0;
    if (!bad) {
        return put_groups(e, 8 * b, &st[0].t, &st[1].t, 8 * b + 4 < pr->m ? 2 : 1);
    }
    for (int v = 0; v < 2; v++) {
        double s[4], c[4], a[4], g[4];
        _mm256_storeu_pd(s, st[v].t.s); _mm256_storeu_pd(c, st[v].t.c);
        _mm256_storeu_pd(a, st[v].t.a); _mm256_storeu_pd(g, st[v].t.g);
        for (int r = 0; r < 4; r++) {
            const int64_t i = 8 * b + 4 * v + r;
            if (i >= pr->m) break;
            fold_t f = {s[r], c[r], a[r], g[r]};
            if (bad) f.S = NAN;
            left += ozb_eft_put(e, i, f, ozb_eft_terms(pr->k, 1, 1));
        }
    }
    return left;
}
#endif

int ozb_eft_gemv_n_parts(int64_t m, int64_t k, const double *A, int64_t lda, const double *x, double *parts)
{
#ifdef EFT_AVX2
    if (m <= 0) return 1;
    if (k > ((int64_t)1 << 32)) return 0;                  /* the margin on G (blocks <= 2^32) */
    const int64_t nstrip = (m + 7) / 8;
    row4_t *st = aligned_alloc(32, sizeof(row4_t) * 2 * (size_t)nstrip);
    if (!st) return 0;
    const __m256d z = _mm256_setzero_pd();
    for (int64_t q = 0; q < 2 * nstrip; q++) st[q].t.s = st[q].t.c = st[q].t.a = st[q].t.g = st[q].g = z;
    double pad[8 * BLN];
    int ok = 1;
    /* as ozb_eft_gemv_n_strips: column block by column block over every strip */
    for (int64_t l0 = 0; l0 < k && ok; l0 += BLN) {
        const int64_t nb = k - l0 < BLN ? k - l0 : BLN;
        for (int64_t b = 0; b < nstrip && ok; b++) {
            ok = strip_block_of(A, lda, m, b, l0, nb, x, &st[2 * b], pad);
        }
    }
    /* each row's lane is its fold: S, C and the bound */
    const double N = ozb_eft_terms(k, 1, 1);
    for (int64_t b = 0; b < nstrip && ok; b++)
        for (int v = 0; v < 2; v++) {
            double s[4], c[4], a[4], g[4];
            _mm256_storeu_pd(s, st[2 * b + v].t.s); _mm256_storeu_pd(c, st[2 * b + v].t.c);
            _mm256_storeu_pd(a, st[2 * b + v].t.a); _mm256_storeu_pd(g, st[2 * b + v].t.g);
            for (int r = 0; r < 4 && 8 * b + 4 * v + r < m; r++) {
                const fold_t f = {s[r], c[r], a[r], g[r]};
                const double B = ozb_eft_fold_bound(f, N);
                if (isnan(B) || !isfinite(B)) { ok = 0; break; }
                double *p = parts + 3 * (8 * b + 4 * v + r);
                p[0] = f.S; p[1] = f.C; p[2] = B;
            }
        }
    free(st);
    return ok;
#else
    (void)m; (void)k; (void)A; (void)lda; (void)x; (void)parts;
    return 0;
#endif
}
