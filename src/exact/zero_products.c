/* Elements of C whose products are all exactly zero: their exact value is alpha 0 + beta c =
 * beta c, and RN of that is one multiplication (IEEE multiplication is correctly rounded,
 * subnormal results included).  A pair (x, y) contributes exactly zero when x = 0 and y is
 * finite or y = 0 and x is finite (0 Inf is NaN).  Where op(A)'s rows are contiguous each
 * flagged element reads its row and column until the second pair of nonzero factors (the first
 * where one-product elements are not taken); where its
 * columns are (GEMV N, GEMM N: a.rs = 1) a column of C keeps a list of candidate rows and
 * walks l once, reading each column of op(A) at the candidates only.  An element with one
 * pair of nonzero finite factors (and zero pairs elsewhere) is alpha a b + beta c exactly,
 * which ozb_one_product rounds where alpha = +-1 and beta = 0 or +-1 (ones below). */
#include "exact/zero_products.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { CAND = 256 };          /* candidate rows per pass of a column (on the stack) */


/* whether elements with one nonzero product are taken (ozb_one_product's alpha and beta) */
static int ones(const ozb_problem *pr)
{
    return (pr->alpha == 1.0 || pr->alpha == -1.0) && ozb_one_product_beta(pr->beta);
}

/* element (i, j)'s pairs: -1 where every product is zero, l where the pair l alone has two
 * nonzero factors, both finite (and ones(pr)), -2 otherwise */
static int64_t pairs_of(const ozb_problem *pr, int64_t i, int64_t j)
{
    const double *a = pr->a.p + i * pr->a.rs, *b = pr->b.p + j * pr->b.rs;
    int64_t one = -1;
    for (int64_t l = 0; l < pr->k; l++) {
        const double x = a[l * pr->a.cs], y = b[l * pr->b.cs];
        if (ozb_zero_pair(x, y)) continue;
        if (one >= 0 || !ones(pr) || !isfinite(x) || !isfinite(y)) return -2;
        one = l;
    }
    return one;
}

/* C(i, j) = RN(beta c) and its flag cleared, or left (c not finite, beta c out of range) */
static int64_t put_zero(const ozb_problem *pr, int64_t i, int64_t j, uint8_t *fail);

int ozb_exact_zero_products_put(const ozb_problem *pr, int64_t i, int64_t j, uint8_t *fail)
{
    fail[i + j * pr->m] = 1;
    return (int)put_zero(pr, i, j, fail);
}

static int64_t put_zero(const ozb_problem *pr, int64_t i, int64_t j, uint8_t *fail)
{
    double *c = pr->c + i * pr->crs + j * pr->ccs, v = 0.0;
    if (pr->beta != 0.0) {                    /* beta = 0: C is not read (BLAS) */
        if (!isfinite(*c)) return 0;
        if (*c != 0.0) {
            v = pr->beta * *c;
            if (v == 0.0 || !isfinite(v)) return 0;   /* the sign of an underflow, overflow */
        }
    }
    *c = v;
    fail[i + j * pr->m] = 0;
    return 1;
}

/* C(i, j) = RN(alpha a b + beta c), a b = op(A)(i, l) op(B)(l, j) its one nonzero product
 * (both finite, ones(pr)): ozb_one_product (alpha b exact, a sign), its flag cleared; or left */
static int64_t put_one(const ozb_problem *pr, int64_t i, int64_t j, int64_t l, uint8_t *fail)
{
    double *c = pr->c + i * pr->crs + j * pr->ccs, v;
    if (!ozb_one_product(ozb_view_at(&pr->a, i, l), ozb_view_at(&pr->b, j, l) * pr->alpha, pr->beta,
                         pr->beta != 0.0 ? *c : 0.0, &v))
        return 0;
    *c = v;
    fail[i + j * pr->m] = 0;
    return 1;
}

/* element (i, j) by its pairs (pairs_of): put_zero, put_one, or left */
static int64_t put_pairs(const ozb_problem *pr, int64_t i, int64_t j, int64_t one, uint8_t *fail)
{
    return one == -1 ? put_zero(pr, i, j, fail) : one >= 0 ? put_one(pr, i, j, one, fail) : 0;
}

int64_t ozb_exact_zero_products_put_column(const ozb_problem *pr, int64_t j, uint8_t *fail)
{
    int64_t left = 0;
    for (int64_t i = 0; i < pr->m; i++) {
        fail[i + j * pr->m] = 1;
        left += !put_zero(pr, i, j, fail);
    }
    return left;
}

/* 1 where v[0..n) is all finite: no exponent field all ones (integer operations, which the
 * compiler vectorizes where this library's floating-point flags keep comparisons scalar) */
static int all_finite(const double *v, int64_t n)
{
    const uint64_t ex = 0x7ff0000000000000ull;
    uint64_t bad = 0;
    for (int64_t l = 0; l < n; l++) {
        uint64_t b;
        memcpy(&b, &v[l], sizeof b);
        bad |= (b & ex) == ex;
    }
    return !bad;
}

/* column j's flagged rows from i0 on, CAND at a time: the candidates surviving every l, each
 * with the l of its one pair of nonzero factors (one[q] = -1 for none yet; a second drops it) */
static int64_t by_column(const ozb_problem *pr, int64_t j, uint8_t *fail)
{
    const double *b = pr->b.p + j * pr->b.rs;
    const int take_one = ones(pr);
    int64_t cleared = 0, cand[CAND], one[CAND];
    for (int64_t i0 = 0; i0 < pr->m;) {
        int64_t nc = 0;
        for (; i0 < pr->m && nc < CAND; i0++)
            if (fail[i0 + j * pr->m] == 1) { one[nc] = -1; cand[nc++] = i0; }
        for (int64_t l = 0; l < pr->k && nc > 0; l++) {
            const double y = b[l * pr->b.cs], *al = pr->a.p + l * pr->a.cs;
            int64_t w = 0;
            if (y == 0.0) {
                /* a column of op(A) finite throughout keeps every candidate (one pass over
                 * the column where the candidates are many, rather than one a candidate) */
                if (4 * nc >= pr->m && all_finite(al, pr->m)) continue;
                for (int64_t q = 0; q < nc; q++)
                    if (isfinite(al[cand[q]])) { cand[w] = cand[q]; one[w++] = one[q]; }
            } else if (isfinite(y)) {
                for (int64_t q = 0; q < nc; q++) {
                    const double x = al[cand[q]];
                    if (x == 0.0) { cand[w] = cand[q]; one[w++] = one[q]; }
                    else if (take_one && one[q] < 0 && isfinite(x)) { cand[w] = cand[q]; one[w++] = l; }
                }
            }
            nc = w;
        }
        for (int64_t q = 0; q < nc; q++) cleared += put_pairs(pr, cand[q], j, one[q], fail);
    }
    return cleared;
}

/* The span of a vector's nonzeros: sp[0] the first, sp[1] the last index (sp[0] = n, sp[1] = -1
 * for none), sp[2] = 1 where every element is finite */
static void span_of(const double *v, int64_t inc, int64_t n, int64_t sp[3])
{
    /* the first and last nonzeros from either end (dense operands stop at once), then
     * finiteness over all of v without a branch an element (a NaN is nonzero and not finite) */
    int64_t f = 0, e = n - 1;
    while (f < n && v[f * inc] == 0.0) f++;
    while (e > f && v[e * inc] == 0.0) e--;
    sp[0] = f;
    sp[1] = f < n ? e : -1;
    int fin = 1;
    for (int64_t l = 0; l < n; l++) fin &= fabs(v[l * inc]) <= 0x1.fffffffffffffp1023;
    sp[2] = fin;
}

/* Triangular and banded operands (LAPACK's): where the nonzeros of row i of op(A) and of column
 * j of op(B) lie in disjoint spans and both are finite, every product is zero.  And where one
 * factor at the first nonzero of the other is nonzero, that pair is not zero (neither factor
 * is), so the element is not all zeros: marked 2 (still flagged), the walks below skip it.
 * The spans are found once per call (one read of each operand) and decide nearly every
 * flagged element of such a call without the walk along l that each would otherwise take (a
 * residual of dense op(A) times triangular op(B), all flagged: the walk cost a quarter of
 * the deep sums' time).  Only where many elements are flagged (the spans cost m k + k n
 * reads). */
static int64_t by_spans(const ozb_problem *pr, uint8_t *fail)
{
    int64_t *sa = malloc(sizeof(int64_t) * 3 * (size_t)(pr->m + pr->n));
    if (!sa) return 0;
    int64_t *sb = sa + 3 * pr->m, cleared = 0;
    const int take_one = ones(pr);
    for (int64_t i = 0; i < pr->m; i++) span_of(pr->a.p + i * pr->a.rs, pr->a.cs, pr->k, sa + 3 * i);
    for (int64_t j = 0; j < pr->n; j++) span_of(pr->b.p + j * pr->b.rs, pr->b.cs, pr->k, sb + 3 * j);
    for (int64_t j = 0; j < pr->n; j++) {
        const int64_t *b = sb + 3 * j;
        const double *bj = pr->b.p + j * pr->b.rs;
        for (int64_t i = 0; i < pr->m; i++) {
            const int64_t *a = sa + 3 * i;
            uint8_t *f = fail + i + j * pr->m;
            if (!*f) continue;
            if (b[2] && a[2] && (a[1] < b[0] || b[1] < a[0])) { cleared += put_zero(pr, i, j, fail); continue; }
            /* one nonzero in the column of op(B) or the row of op(A) (an identity or diagonal
             * operand): at most that product is nonzero */
            if (b[2] && a[2] && take_one && (b[0] == b[1] || a[0] == a[1])) {
                const int64_t l = b[0] == b[1] ? b[0] : a[0];
                cleared += put_one(pr, i, j, l, fail);
                if (*f) *f = 2;
                continue;
            }
            const double *ai = pr->a.p + i * pr->a.rs;
            if (a[1] >= 0 && b[1] >= 0 && (bj[a[0] * pr->b.cs] != 0.0 || ai[b[0] * pr->a.cs] != 0.0)) *f = 2;
        }
    }
    free(sa);
    return cleared;
}

int64_t ozb_exact_zero_products(const ozb_problem *pr, uint8_t *fail)
{
    /* alpha 0 is NaN for alpha = Inf or NaN, and beta c is NaN for beta = Inf with c = 0: the
     * special-value rules of the later methods decide those */
    if (!isfinite(pr->alpha) || (pr->beta != 0.0 && !isfinite(pr->beta))) return 0;
    int64_t cleared = 0;
    if (pr->k > 8 && pr->m > 1 && pr->n > 1) {
        int64_t flagged = 0;
        for (int64_t q = 0; q < pr->m * pr->n; q++) flagged += fail[q] != 0;
        if (flagged > pr->m + pr->n) cleared = by_spans(pr, fail);
    }
    for (int64_t j = 0; j < pr->n; j++) {
        if (pr->a.rs == 1 && pr->m > 1) {
            cleared += by_column(pr, j, fail);
            continue;
        }
        /* the column's elements still flagged 1 (most are 2 after by_spans: found by memchr,
         * not a branch a byte) */
        const uint8_t *col = fail + j * pr->m, *end = col + pr->m;
        for (const uint8_t *q = memchr(col, 1, (size_t)pr->m); q; q = memchr(q + 1, 1, (size_t)(end - q - 1)))
            cleared += put_pairs(pr, q - col, j, pairs_of(pr, q - col, j), fail);
    }
    return cleared;
}
