/* The error-free GEMV on one stored triangle (eft_symv.h).  Each row's sum is the fold of
 * its two parts (eft_kern.h: S exact, C a summation tree with A bounding its terms, G the
 * blocks' sigmas):
 *   part_n  the GEMV-N strips' lanes (ozb_eft_strip_block), one lane per row, over the
 *           triangle's columns in blocks of BLN (BLN / 4 from n = 2048 on, parts), two
 *           whole strips at once where they share their columns (pair_n); a strip's eight
 *           diagonal columns (in full storage: the rest of their block is a block of its own),
 *           a packed strip's block that crosses them, and the last strip's missing rows go
 *           through a copy with the elements outside the part set to zero (exact zero
 *           products) and a unit diagonal set to 1;
 *   part_t  a DOT down column i: one split with a single sigma up to SPLIT1_MAX products
 *           (eft_dot_small.h: S, R, G; R enters the tree as one term of magnitude |R|), the
 *           DOT lanes beyond (ozb_eft_dot_fold);
 *   a unit diagonal in part_t: x_i itself, an exact term.
 * The folds are joined by fold_add (a TwoSum of the S, the error and the other C into C, their
 * magnitudes into A, the G added): one partition's fold and part_t make a tree over at most
 * n + 3 + 8 (2 + 2) + 4 terms, within ozb_eft_terms(n, LANES, 3), and each further partition
 * one term more (below), so ozb_eft_put's bound and certificate hold as for one fold.
 * The threads share the triangle by columns: partition t holds a range of column blocks of
 * about equal area (a lower triangle's column j has n - j elements, an upper one's j + 1),
 * computes part_n over those columns for every strip into its own partial lanes, column block
 * by column block down the strips (each column read down in a stream), and right after each
 * block the part_t DOTs of the block's rows, down the columns it has just read: every element
 * is read once, by one core.  Then, by strips, each row's partial folds are joined in
 * partition order with its part_t (fold_add) and the row rounded or flagged.  A partition's
 * lane is a fold like any other, and joining at most SYMV_PARTS of them adds that many terms
 * to the tree, which ozb_eft_terms(n, LANES, 3 + SYMV_PARTS) counts (the bound is the same
 * for every thread count).  Which partials a row has depends on the threads; a certified
 * row is RN(exact) whatever they are, and a row left goes to the caller's exact sums: no bit
 * depends on the threads.  Compiled with -ffp-contract=off: the FMAs are explicit. */
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

/* partitions of the columns at most (threads beyond share them) */
#define SYMV_PARTS 64

typedef struct {
    const ozb_symv_t *s;
    const ozb_eft_t *e;
    int wide;
    int64_t nparts;
    const int64_t *cut;       /* partition t: columns cut[t] .. cut[t + 1] - 1 (multiples of BLN) */
    row4_t *st;               /* partition t's lanes of strip b at st + 2 (t nstrip + b) */
    uint8_t *bad;             /* partition t's strip b out of range: bad[t nstrip + b] */
    fold_t *tf;               /* row i's part_t at tf[i] */
} symv_ctx;

/* the address of the triangle's (0, j), its (i, j) at that plus i (for (i, j) in the stored
 * triangle) */
static inline const double *col0(const ozb_symv_t *s, int64_t j)
{
    return s->packed ? s->A + ozb_packed_at(s->n, s->lower, 0, j) : s->A + j * s->lda;
}

/* is (i, j) in part_n, and its value there */
static inline double part_n_elem(const ozb_symv_t *s, int64_t i, int64_t j)
{
    if (i >= s->n || (s->lower ? j > i : j < i)) return 0.0;
    if (i == j) return s->diag_t ? 0.0 : s->unit ? 1.0 : col0(s, j)[i];
    return col0(s, j)[i];
}

/* strip b's part_n columns in the block [l0, l0 + bln) (lower: 0..8b+7, upper: 8b..n-1):
 * [*j0, *j1), *first where they start the lanes of the partition whose columns start at
 * `from`; returns 1 where the block goes through the copy (it crosses the diagonal block
 * r0..r0+7, or the strip has rows beyond n) */
static int block_cols(const ozb_symv_t *s, int64_t b, int64_t l0, int64_t bln, int64_t from, int64_t *j0, int64_t *j1,
                      int *first)
{
    const int64_t n = s->n, r0 = 8 * b, c0 = s->lower ? 0 : r0, c1 = s->lower ? (r0 + 8 < n ? r0 + 8 : n) : n;
    *j0 = l0 > c0 ? l0 : c0;
    *j1 = l0 + bln < c1 ? l0 + bln : c1;
    *first = *j0 == (from > c0 ? from : c0);
    return r0 + 8 > n || (*j0 < r0 + 8 && *j1 > r0);
}

/* the same columns of the strip PF_STRIPS below (the walk reads them soon: the block's
 * columns are bln streams, more than the hardware prefetchers follow), from n = PF_MIN_N on */
static inline void prefetch_below(const ozb_symv_t *s, const double *const *cols, const double *a, int64_t r0, int64_t nb)
{
    if (s->n < PF_MIN_N || r0 + 8 * PF_STRIPS >= s->n) return;
    for (int64_t j = 0; j < nb; j++)
        _mm_prefetch((const char *)((cols ? cols[j] : a + j * s->lda) + 8 * PF_STRIPS), _MM_HINT_T0);
}

/* strip b's part_n over its columns in the block [l0, l0 + bln) into st, a partition's lanes
 * whose columns start at `from` (packed: column l0 + j's (0, l0 + j) at cbase[j]); 0 where a
 * product is out of the kernels' range */
static int strip_block_n(const ozb_symv_t *s, int64_t b, int64_t l0, int64_t bln, int64_t from,
                         const double *const *cbase, row4_t st[2], double *pad, int wide)
{
    const int64_t r0 = 8 * b;
    int64_t j0, j1;
    int first;
    const int copy = block_cols(s, b, l0, bln, from, &j0, &j1, &first);
    if (j0 >= j1) return 1;
    if (copy && r0 + 8 <= s->n && !s->packed) {
        /* a whole strip crossing its diagonal block: the columns off it directly, as a block
         * of their own (every block holds a column at least: at most n blocks, the count the
         * bound allows), the diagonal block's eight through the copy */
        const int64_t d0 = j0 > r0 ? j0 : r0, d1 = j1 < r0 + 8 ? j1 : r0 + 8;
        const int64_t o0 = s->lower ? j0 : d1, o1 = s->lower ? d0 : j1;      /* the columns off it */
        if (o0 < o1 && s->lower && !ozb_eft_strip_block(s->A + r0 + o0 * s->lda, s->lda, s->x + o0, o1 - o0, st, first, wide))
            return 0;
        for (int64_t j = d0; j < d1; j++)
            for (int r = 0; r < 8; r++) pad[8 * (j - d0) + r] = part_n_elem(s, r0 + r, j);
        if (!ozb_eft_strip_block(pad, 8, s->x + d0, d1 - d0, st, first && !(o0 < o1 && s->lower), wide)) return 0;
        return !(o0 < o1 && !s->lower) || ozb_eft_strip_block(s->A + r0 + o0 * s->lda, s->lda, s->x + o0, o1 - o0, st, 0, wide);
    }
    const int64_t nb = j1 - j0;
    if (copy) {
        for (int64_t j = 0; j < nb; j++)
            for (int r = 0; r < 8; r++) pad[8 * j + r] = part_n_elem(s, r0 + r, j0 + j);
        return ozb_eft_strip_block(pad, 8, s->x + j0, nb, st, first, wide);
    }
    if (!s->packed) {
        const double *a = s->A + r0 + j0 * s->lda;
        prefetch_below(s, NULL, a, r0, nb);
        return ozb_eft_strip_block(a, s->lda, s->x + j0, nb, st, first, wide);
    }
    /* packed: the columns at no fixed distance, their starts found once per block */
    const double *cols[BLN];
    for (int64_t j = 0; j < nb; j++) cols[j] = cbase[j0 - l0 + j] + r0;
    prefetch_below(s, cols, NULL, r0, nb);
    return ozb_eft_strip_block_cols(cols, s->x + j0, nb, st, first, wide);
}

/* strips b and b + 1 together (ozb_eft_strip_pair: four chains where a strip has two) where
 * both are whole, off their diagonal blocks and over the same columns, in full storage whose
 * columns do not lie a multiple of 2048 doubles apart (there single strips are faster:
 * eft_gemv_n.c): 1 done; 0 not taken or a row out of range (each strip alone then, which
 * decides the same) */
static int pair_n(const ozb_symv_t *s, int64_t b, int64_t l0, int64_t bln, int64_t from, row4_t st[4], int wide)
{
    if (s->packed || s->lda % 2048 == 0 || 8 * b + 16 > s->n) return 0;
    int64_t j0, j1, k0, k1;
    int f0, f1;
    if (block_cols(s, b, l0, bln, from, &j0, &j1, &f0) || block_cols(s, b + 1, l0, bln, from, &k0, &k1, &f1) ||
        j0 >= j1 || j0 != k0 || j1 != k1 || f0 != f1)
        return 0;
    const double *a = s->A + 8 * b + j0 * s->lda;
    prefetch_below(s, NULL, a, 8 * b, j1 - j0);
    prefetch_below(s, NULL, a + 8, 8 * b + 8, j1 - j0);
    return ozb_eft_strip_pair(a, s->lda, s->x + j0, j1 - j0, st, f0, wide);
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
    const double *a = col0(s, i) + l0, *x = s->x + l0;
    fold_t f = {0.0, 0.0, 0.0, 0.0};
    if (len <= 0) return f;
    if (len > SPLIT1_MAX) return ozb_eft_dot_fold(a, 1, x, 1, len, c->wide);
    double S, R, G;
    const int ok = ozb_eft_split1(a, x, len, &S, &R, &G);
    if (!ok) { f.S = NAN; return f; }
    f.S = S; f.C = R; f.A = 0.0; f.G = G;
    return f;
}

/* Partitions lo..hi-1: part_n of every strip over the partition's columns, column block by
 * column block, each block's part_t DOTs right after it */
static int64_t parts(void *ctx, int64_t lo, int64_t hi)
{
    const symv_ctx *c = ctx;
    const ozb_symv_t *s = c->s;
    const int64_t n = s->n, nstrip = (n + 7) / 8;
    /* blocks of BLN / 4 columns from n = 2048 on: a block's columns (read by part_n, then
     * again by its rows' part_t) stay in a core's L2 (BLN = 32 columns of 3000 rows are
     * 750 KiB, the quarters 188 KiB), and the eight columns read at once stay within the
     * L1's ways where they lie a power of two apart (lda = 4096: 32 KiB, every column's line
     * in one set); below, the whole blocks are as fast or faster.  A choice by the shape: the
     * budget holds for any block of at most BLN columns, and the bits are RN(exact). */
    const int64_t bln = n >= 2048 ? BLN / 4 : BLN;
    double pad[8 * BLN];
    const __m256d z = _mm256_setzero_pd();
    for (int64_t t = lo; t < hi; t++) {
        row4_t *st = c->st + 2 * t * nstrip;
        uint8_t *bad = c->bad + t * nstrip;
        for (int64_t q = 0; q < 2 * nstrip; q++) st[q].t.s = st[q].t.c = st[q].t.a = st[q].t.g = st[q].g = z;
        memset(bad, 0, (size_t)nstrip);
        const int64_t from = c->cut[t], to = c->cut[t + 1];
        for (int64_t l0 = from; l0 < to; l0 += bln) {
            const double *cbase[BLN];
            for (int64_t j = 0; s->packed && j < bln && l0 + j < n; j++) cbase[j] = col0(s, l0 + j);
            /* the strips with columns in the block: lower, those from row l0 down; upper,
             * those down to row l0 + bln */
            const int64_t b0 = s->lower ? l0 / 8 : 0, b1 = s->lower ? nstrip : ((l0 + bln < n ? l0 + bln : n) + 7) / 8;
            for (int64_t b = b0; s->part_n && b < b1; b++) {
                if (bad[b]) continue;
                if (b + 1 < b1 && !bad[b + 1] && pair_n(s, b, l0, bln, from, st + 2 * b, c->wide)) { b++; continue; }
                if (!strip_block_n(s, b, l0, bln, from, cbase, st + 2 * b, pad, c->wide)) bad[b] = 1;
            }
            for (int64_t i = l0; s->part_t && i < l0 + bln && i < n; i++) c->tf[i] = row_part_t(c, i);
        }
    }
    return 0;
}

/* Strips lo..hi-1: each row's partial folds joined in partition order with its part_t, then
 * rounded into y or flagged */
static int64_t strips(void *ctx, int64_t lo, int64_t hi)
{
    const symv_ctx *c = ctx;
    const ozb_symv_t *s = c->s;
    const int64_t n = s->n, nstrip = (n + 7) / 8;
    const double N = ozb_eft_terms(n, LANES, 3 + SYMV_PARTS);
    int64_t left = 0;
    for (int64_t b = lo; b < hi; b++) {
        fold_t f[8] = {{0}};
        for (int64_t t = 0; s->part_n && t < c->nparts; t++) {
            const row4_t *st = c->st + 2 * (t * nstrip + b);
            double sn[8], cn[8], an[8], gn[8];
            for (int v = 0; v < 2; v++) {
                _mm256_storeu_pd(sn + 4 * v, st[v].t.s); _mm256_storeu_pd(cn + 4 * v, st[v].t.c);
                _mm256_storeu_pd(an + 4 * v, st[v].t.a); _mm256_storeu_pd(gn + 4 * v, st[v].t.g);
            }
            if (c->bad[t * nstrip + b]) for (int r = 0; r < 8; r++) sn[r] = NAN;
            for (int r = 0; r < 8; r++) fold_add(&f[r], sn[r], cn[r], an[r], gn[r]);
        }
        for (int r = 0; r < 8 && 8 * b + r < n; r++) {
            const int64_t i = 8 * b + r;
            if (s->part_t) {
                const fold_t t = c->tf[i];
                fold_add(&f[r], t.S, t.C, t.A + fabs(t.C), t.G);
            }
            if (s->part_t && s->diag_t && s->unit) fold_add(&f[r], s->x[i], 0.0, 0.0, 0.0);
            left += ozb_eft_put(c->e, i, f[r], N);
        }
    }
    return left;
}

/* the partitions' first columns for np partitions (cut[np] = n): multiples of BLN splitting
 * the triangle's area evenly (lower: column j holds n - j elements, upper: j + 1) */
static void cuts(int64_t n, int lower, int64_t np, int64_t *cut)
{
    const double total = (double)n * (double)(n + 1) / 2.0;
    int64_t j = 0;
    double area = 0.0;
    cut[0] = 0;
    for (int64_t t = 1; t < np; t++) {
        while (j < n && area < total * (double)t / (double)np) {
            const int64_t e = j + BLN < n ? j + BLN : n;
            for (; j < e; j++) area += lower ? (double)(n - j) : (double)(j + 1);
        }
        cut[t] = j;
    }
    cut[np] = n;
}
#endif

static int64_t parts_for(int nt) { return nt < 1 ? 1 : nt > SYMV_PARTS ? SYMV_PARTS : nt; }

size_t ozb_eft_symv_state_bytes(int64_t n, int nt)
{
    const size_t np = (size_t)parts_for(nt), nstrip = (size_t)n / 8 + 1;
    return np * nstrip * (2 * sizeof(row4_t) + 1) + (size_t)n * sizeof(fold_t) + (np + 1) * sizeof(int64_t) + 96;
}

int64_t ozb_eft_symv(ozblas_handle_t h, const ozb_symv_t *s, uint8_t *fail, void *state, int nt)
{
#ifdef EFT_AVX2
    const ozb_problem pr = { .m = s->n, .n = 1, .k = s->n, .alpha = s->alpha, .beta = s->beta, .c = s->y,
                             .crs = s->incy, .ccs = 0 };
    const ozb_eft_t e = { &pr, fail, NULL, NULL, 1, 0.0, ozb_eft_wide(h) };
    const int64_t nstrip = (s->n + 7) / 8, np = parts_for(nt);
    row4_t *st = (row4_t *)state;                               /* 32-byte aligned */
    fold_t *tf = (fold_t *)(st + 2 * np * nstrip);
    int64_t *cut = (int64_t *)(tf + s->n);
    uint8_t *bad = (uint8_t *)(cut + np + 1);
    cuts(s->n, s->lower, np, cut);
    const symv_ctx c = { s, &e, e.wide, np, cut, st, bad, tf };
    (void)ozb_par_for(nt > 1, nt, np, parts, (void *)&c);
    return ozb_par_for(nt > 1, nt, nstrip, strips, (void *)&c);
#else
    (void)h; (void)s; (void)nt; (void)state;
    memset(fail, 1, (size_t)s->n);
    return s->n;
#endif
}
