/* Elements of C whose products are all exactly zero: their exact value is alpha 0 + beta c =
 * beta c, and RN of that is one multiplication (IEEE multiplication is correctly rounded,
 * subnormal results included).  A pair (x, y) contributes exactly zero when x = 0 and y is
 * finite or y = 0 and x is finite (0 Inf is NaN).  Where op(A)'s rows are contiguous each
 * flagged element reads its row and column until the first pair of nonzero factors; where its
 * columns are (GEMV N, GEMM N: a.rs = 1) a column of C keeps a list of candidate rows and
 * walks l once, reading each column of op(A) at the candidates only. */
#include "fused/zero_products.h"
#include <math.h>

enum { CAND = 256 };          /* candidate rows per pass of a column (on the stack) */

/* 1 when the pair contributes exactly zero */
static inline int zero_pair(double x, double y) { return (x == 0.0 && isfinite(y)) || (y == 0.0 && isfinite(x)); }

static int zero_row(const ozb_problem *pr, int64_t i, int64_t j)
{
    const double *a = pr->a.p + i * pr->a.rs, *b = pr->b.p + j * pr->b.rs;
    for (int64_t l = 0; l < pr->k; l++)
        if (!zero_pair(a[l * pr->a.cs], b[l * pr->b.cs])) return 0;
    return 1;
}

/* C(i, j) = RN(beta c) and its flag cleared, or left (c not finite, beta c out of range) */
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

/* column j's flagged rows from i0 on, CAND at a time: the candidates surviving every l */
static int64_t by_column(const ozb_problem *pr, int64_t j, uint8_t *fail)
{
    const double *b = pr->b.p + j * pr->b.rs;
    int64_t cleared = 0, cand[CAND];
    for (int64_t i0 = 0; i0 < pr->m;) {
        int64_t nc = 0;
        for (; i0 < pr->m && nc < CAND; i0++)
            if (fail[i0 + j * pr->m]) cand[nc++] = i0;
        for (int64_t l = 0; l < pr->k && nc > 0; l++) {
            const double y = b[l * pr->b.cs], *al = pr->a.p + l * pr->a.cs;
            int64_t w = 0;
            if (y == 0.0) {
                for (int64_t q = 0; q < nc; q++) if (isfinite(al[cand[q]])) cand[w++] = cand[q];
            } else if (isfinite(y)) {
                for (int64_t q = 0; q < nc; q++) if (al[cand[q]] == 0.0) cand[w++] = cand[q];
            }
            nc = w;
        }
        for (int64_t q = 0; q < nc; q++) cleared += put_zero(pr, cand[q], j, fail);
    }
    return cleared;
}

int64_t ozb_zero_products(const ozb_problem *pr, uint8_t *fail)
{
    /* alpha 0 is NaN for alpha = Inf or NaN, and beta c is NaN for beta = Inf with c = 0: the
     * special-value rules of the later methods decide those */
    if (!isfinite(pr->alpha) || (pr->beta != 0.0 && !isfinite(pr->beta))) return 0;
    int64_t cleared = 0;
    for (int64_t j = 0; j < pr->n; j++) {
        if (pr->a.rs == 1 && pr->m > 1) {
            cleared += by_column(pr, j, fail);
            continue;
        }
        for (int64_t i = 0; i < pr->m; i++)
            if (fail[i + j * pr->m] && zero_row(pr, i, j)) cleared += put_zero(pr, i, j, fail);
    }
    return cleared;
}
