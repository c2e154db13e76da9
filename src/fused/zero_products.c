/* Elements of C whose products are all exactly zero: their exact value is alpha 0 + beta c =
 * beta c, and RN of that is one multiplication (IEEE multiplication is correctly rounded,
 * subnormal results included).  The test reads the element's row and column until the first
 * pair of nonzero factors, so an element with real products costs a step or two. */
#include "fused/zero_products.h"
#include <math.h>

/* 1 when op(A)(i, l) op(B)(l, j) is exactly zero for every l (0 Inf is NaN: not zero) */
static int zero_products(const ozb_problem *pr, int64_t i, int64_t j)
{
    const double *a = pr->a.p + i * pr->a.rs, *b = pr->b.p + j * pr->b.rs;
    for (int64_t l = 0; l < pr->k; l++) {
        const double x = a[l * pr->a.cs], y = b[l * pr->b.cs];
        if (!((x == 0.0 && isfinite(y)) || (y == 0.0 && isfinite(x)))) return 0;
    }
    return 1;
}

int64_t ozb_zero_products(const ozb_problem *pr, uint8_t *fail)
{
    int64_t cleared = 0;
    for (int64_t j = 0; j < pr->n; j++)
        for (int64_t i = 0; i < pr->m; i++) {
            if (!fail[i + j * pr->m] || !zero_products(pr, i, j)) continue;
            double *c = pr->c + i * pr->crs + j * pr->ccs, v = 0.0;
            if (pr->beta != 0.0) {                    /* beta = 0: C is not read (BLAS) */
                if (!isfinite(*c)) continue;
                if (*c != 0.0) {
                    v = pr->beta * *c;
                    if (v == 0.0 || !isfinite(v)) continue;   /* the sign of an underflow, overflow */
                }
            }
            *c = v;
            fail[i + j * pr->m] = 0;
            cleared++;
        }
    return cleared;
}
