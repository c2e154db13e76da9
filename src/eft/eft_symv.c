/* The error-free GEMV on one stored triangle (eft_symv.h).  Each row's sum is the fold of
 * its two parts (eft_kern.h: S exact, C a summation tree with A bounding its terms, G the
 * blocks' sigmas):
 *   part_n  the GEMV-N strips' lanes (ozb_eft_strip_block), one lane per row, over the
 *           triangle's columns in blocks of BLN; a block that crosses the diagonal, or the
 *           last strip's missing rows, goes through a copy with the elements outside the
 *           part set to zero (exact zero products) and a unit diagonal set to 1;
 *   part_t  a DOT down column i: one split with a single sigma up to SPLIT1_MAX products
 *           (eft_dot_small.h: S, R, G; R enters the tree as one term of magnitude |R|), the
 *           DOT lanes beyond (ozb_eft_dot_fold);
 *   a unit diagonal in part_t: x_i itself, an exact term.
 * The folds are joined by fold_add (a TwoSum of the S, the error and the other C into C, their
 * magnitudes into A, the G added): a tree over at most n + 3 + 8 (2 + 2) + 4 terms, within
 * ozb_eft_terms(n, LANES, 3), so ozb_eft_put's bound and certificate hold as for one fold.
 * Rows are computed by units of two strips, b and the last but b (the triangle's rows get
 * longer down a lower one: a pair has about the same work as any other), each unit on one
 * thread, every row of it written (or flagged) there: no bit depends on the threads.  A
 * thread's part_n runs column block by column block over its strips, so that each column is
 * read down in a stream (strip by strip, each column would be read 64 bytes a page apart).
 * Compiled with -ffp-contract=off: the FMAs are explicit. */
#include "eft/eft_symv.h"
#include "eft/eft_dot.h"
#include "eft/eft_kern.h"
#include "eft/eft_dot_small.h"
#include "core/par.h"
#include <math.h>
#include <string.h>

int ozb_eft_symv_applies(ozblas_handle_t h, double alpha, double beta, int64_t n)
{
#ifdef EFT_AVX2
    return !h->knobs.no_dot2 && isfinite(alpha) && isfinite(beta) && n <= ((int64_t)1 << 32);
#else
    (void)h; (void)alpha; (void)beta; (void)n;
    return 0;
#endif
}

#ifdef EFT_AVX2
/* part_t's DOTs up to this many products by one split with a guessed sigma, longer ones by
 * the DOT lanes (their sigma follows the products block by block: one pass where the split's
 * bounded sigma reads the column twice) */
#define SPLIT1_MAX 256
/* part_n prefetches the strip this many below the one it computes, in the same column block
 * (128 rows, some microseconds ahead): 16 against 2, 4, 8, 32, 64 on DSYMV n = 700 to 3000
 * (AVX2 Zen 3, interleaved) was best or within the noise.  From n = PF_MIN_N on, where the
 * triangle (4 MiB there) is beyond the L2: below it they cost some 5 %. */
#define PF_STRIPS 16
#define PF_MIN_N 1024

typedef struct {
    const ozb_symv_t *s;
    const ozb_eft_t *e;
    int wide;
    row4_t *st;               /* strip b's lanes at st + 2 b */
    uint8_t *bad;             /* strip b out of range */
    fold_t *tf;               /* row i's part_t at tf[i], where computed beside part_n */
} symv_ctx;

/* is (i, j) in part_n, and its value there */
static inline double part_n_elem(const ozb_symv_t *s, int64_t i, int64_t j)
{
    if (i >= s->n || (s->lower ? j > i : j < i)) return 0.0;
    if (i == j) return s->diag_t ? 0.0 : s->unit ? 1.0 : s->A[i + j * s->lda];
    return s->A[i + j * s->lda];
}

/* strip b's part_n over its columns in [l0, l0 + BLN) (lower: 0..8b+7, upper: 8b..n-1) into
 * st; 0 where a product is out of the kernels' range */
static int strip_block_n(const ozb_symv_t *s, int64_t b, int64_t l0, row4_t st[2], double *pad)
{
    const int64_t n = s->n, r0 = 8 * b, c0 = s->lower ? 0 : r0, c1 = s->lower ? (r0 + 8 < n ? r0 + 8 : n) : n;
    const int64_t j0 = l0 > c0 ? l0 : c0, j1 = l0 + BLN < c1 ? l0 + BLN : c1;
    if (j0 >= j1) return 1;
    const int64_t nb = j1 - j0;
    const double *a = s->A + r0 + j0 * s->lda;
    /* the same columns of the strip PF_STRIPS below, which the walk reads soon: the
     * block's columns are BLN streams, more than the hardware prefetchers follow */
    if (n >= PF_MIN_N && r0 + 8 * PF_STRIPS < n)
        for (int64_t j = 0; j < nb; j++) _mm_prefetch((const char *)(a + 8 * PF_STRIPS + j * s->lda), _MM_HINT_T0);
    int64_t ld = s->lda;
    /* the diagonal block r0..r0+7 crossed, or rows beyond n: through the copy */
    if (r0 + 8 > n || (j0 < r0 + 8 && j1 > r0)) {
        for (int64_t j = 0; j < nb; j++)
            for (int r = 0; r < 8; r++) pad[8 * j + r] = part_n_elem(s, r0 + r, j0 + j);
        a = pad;
        ld = 8;
    }
    return ozb_eft_strip_block(a, ld, s->x + j0, nb, st, j0 == c0);
}

/* row i's part_t as a fold (S = NaN where out of range) */
static fold_t row_part_t(const symv_ctx *c, int64_t i)
{
    const ozb_symv_t *s = c->s;
    const int with_diag = s->diag_t && !s->unit;
    /* lower: column i from row i (i + 1 without the diagonal) to n; upper: rows 0..i (i - 1) */
    const int64_t l0 = s->lower ? (with_diag ? i : i + 1) : 0;
    const int64_t l1 = s->lower ? s->n : (with_diag ? i + 1 : i);
    const int64_t len = l1 - l0;
    const double *a = s->A + l0 + i * s->lda, *x = s->x + l0;
    fold_t f = {0.0, 0.0, 0.0, 0.0};
    if (len <= 0) return f;
    if (len > SPLIT1_MAX) return ozb_eft_dot_fold(a, 1, x, 1, len, c->wide);
    double S, R, G;
    const int ok = ozb_eft_split1(a, x, len, &S, &R, &G);
    if (!ok) { f.S = NAN; return f; }
    f.S = S; f.C = R; f.A = 0.0; f.G = G;
    return f;
}

/* the strip of unit u's q-th half (-1: none) */
static inline int64_t unit_strip(int64_t u, int q, int64_t nstrip)
{
    const int64_t b = q ? nstrip - 1 - u : u;
    return q && b == u ? -1 : b;
}

/* whether strip b is in units lo..hi-1 (unit u holds strips u and nstrip - 1 - u) */
static inline int owns(int64_t b, int64_t nstrip, int64_t lo, int64_t hi)
{
    const int64_t u = b < nstrip - 1 - b ? b : nstrip - 1 - b;
    return u >= lo && u < hi;
}

/* units lo..hi-1: part_n column block by column block over all their strips (each column
 * streams down the strips, as a GEMV-N reads), then row by row part_t and the rounding.
 * Where both parts run (DSYMV), a row's part_t, a DOT down column i of the triangle from the
 * diagonal, is computed as soon as the threads' part_n has passed column block i / BLN: those
 * columns were just read down the strips (this thread's and, at about the same time, the
 * others'), so the triangle comes from memory once instead of twice (from n = PF_MIN_N on,
 * where it is beyond the L2).  Each row's arithmetic is the same whenever it runs: the
 * schedule changes no bit and no flag. */
static int64_t units(void *ctx, int64_t lo, int64_t hi)
{
    const symv_ctx *c = ctx;
    const ozb_symv_t *s = c->s;
    const int64_t n = s->n, nstrip = (n + 7) / 8;
    const double N = ozb_eft_terms(n, LANES, 3);
    double pad[8 * BLN];
    const __m256d z = _mm256_setzero_pd();
    for (int64_t u = lo; u < hi; u++)
        for (int q = 0; q < 2; q++) {
            const int64_t b = unit_strip(u, q, nstrip);
            if (b < 0) continue;
            row4_t *st = c->st + 2 * b;
            for (int v = 0; v < 2; v++) st[v].t.s = st[v].t.c = st[v].t.a = st[v].t.g = st[v].g = z;
            c->bad[b] = 0;
        }
    const int beside = s->part_n && s->part_t && n >= PF_MIN_N;
    for (int64_t l0 = 0; l0 < n && s->part_n; l0 += BLN) {
        for (int q = 0; q < 2; q++)
            for (int64_t u = q ? hi - 1 : lo; q ? u >= lo : u < hi; u += q ? -1 : 1) {
                const int64_t b = unit_strip(u, q, nstrip);
                if (b >= 0 && !c->bad[b] && !strip_block_n(s, b, l0, c->st + 2 * b, pad)) c->bad[b] = 1;
            }
        for (int64_t i = l0; beside && i < l0 + BLN && i < n; i++)
            if (owns(i / 8, nstrip, lo, hi)) c->tf[i] = row_part_t(c, i);
    }
    int64_t left = 0;
    for (int64_t u = lo; u < hi; u++)
        for (int q = 0; q < 2; q++) {
            const int64_t b = unit_strip(u, q, nstrip);
            if (b < 0) continue;
            double sn[8] = {0}, cn[8] = {0}, an[8] = {0}, gn[8] = {0};
            if (s->part_n) {
                const row4_t *st = c->st + 2 * b;
                for (int v = 0; v < 2; v++) {
                    _mm256_storeu_pd(sn + 4 * v, st[v].t.s); _mm256_storeu_pd(cn + 4 * v, st[v].t.c);
                    _mm256_storeu_pd(an + 4 * v, st[v].t.a); _mm256_storeu_pd(gn + 4 * v, st[v].t.g);
                }
                if (c->bad[b]) for (int r = 0; r < 8; r++) sn[r] = NAN;
            }
            for (int r = 0; r < 8 && 8 * b + r < n; r++) {
                const int64_t i = 8 * b + r;
                fold_t f = {sn[r], cn[r], an[r], gn[r]};
                if (s->part_t) {
                    const fold_t t = beside ? c->tf[i] : row_part_t(c, i);
                    fold_add(&f, t.S, t.C, t.A + fabs(t.C), t.G);
                }
                if (s->part_t && s->diag_t && s->unit) fold_add(&f, s->x[i], 0.0, 0.0, 0.0);
                left += ozb_eft_put(c->e, i, f, N);
            }
        }
    return left;
}
#endif

size_t ozb_eft_symv_state_bytes(int64_t n)
{
    return ((size_t)n / 8 + 1) * (2 * 5 * 32 + 1 + 8 * sizeof(fold_t)) + 32;
}

int64_t ozb_eft_symv(ozblas_handle_t h, const ozb_symv_t *s, uint8_t *fail, void *state, int nt)
{
#ifdef EFT_AVX2
    const ozb_problem pr = { .m = s->n, .n = 1, .k = s->n, .alpha = s->alpha, .beta = s->beta, .c = s->y,
                             .crs = s->incy, .ccs = 0 };
    const ozb_eft_t e = { &pr, fail, NULL, NULL, 1, 0.0, ozb_eft_wide(h) };
    const int64_t nstrip = (s->n + 7) / 8;
    row4_t *st = (row4_t *)state;
    uint8_t *bad = (uint8_t *)(st + 2 * nstrip);
    const symv_ctx c = { s, &e, e.wide, st, bad, (fold_t *)(bad + ((nstrip + 31) & ~(int64_t)31)) };
    return ozb_par_for(nt > 1, nt, (nstrip + 1) / 2, units, (void *)&c);
#else
    (void)h; (void)s; (void)nt; (void)state;
    memset(fail, 1, (size_t)s->n);
    return s->n;
#endif
}
