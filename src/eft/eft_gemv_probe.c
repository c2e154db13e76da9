/* The error-free GEMV's probe for residuals (ozb_eft_gemv_probed, eft_kern.h). */
#include "eft/eft_kern.h"
#include "core/par.h"
#include <string.h>

#ifdef EFT_AVX2
/* units off.. of a GEMV's walk (rows or strips of 8): the second share of a probed call */
typedef struct { const ozb_eft_t *e; int64_t off; int64_t (*body)(void *, int64_t, int64_t); } shifted_t;
static int64_t shifted(void *ctx, int64_t lo, int64_t hi)
{
    const shifted_t *s = ctx;
    return s->body((void *)s->e, lo + s->off, hi + s->off);
}

/* A GEMV whose rows cancel far below their products (a residual b - A x) leaves nearly every
 * row to the deep sums: 8 rows in the middle (unit p0..p1-1 of nu; rows r0..r0+7), computed
 * first, tell that beforehand (at least 6 of them left: every other row is flagged at once,
 * as the GEMM's probe does, ozb_eft_cr's probe_fails).  The probed rows are the call's own:
 * written where certified, flagged where not; the main pass takes the other units.  Only
 * from 32 rows (the probe at most a quarter of the call) and not where pr->want names the
 * rows to compute. */
int64_t ozb_eft_gemv_probed(const ozb_eft_t *e, int par, int nt, int64_t nu, int64_t p0, int64_t p1, int64_t r0,
                            int64_t (*body)(void *, int64_t, int64_t))
{
    const ozb_problem *pr = e->pr;
    if (pr->m < 32 || pr->want) return ozb_par_for(par, nt, nu, body, (void *)e);
    int64_t left = body((void *)e, p0, p1);
    if (left >= 6) {
        memset(e->fail, 1, (size_t)r0);
        memset(e->fail + r0 + 8, 1, (size_t)(pr->m - r0 - 8));
        return left + pr->m - 8;
    }
    const shifted_t tail = { e, p1, body };
    return left + ozb_par_for(par, nt, p0, body, (void *)e) + ozb_par_for(par, nt, nu - p1, shifted, (void *)&tail);
}
#endif
