/* Short inner dimensions rounded exactly (exact_small.h).  Bit budget: x = mx 2^(ex - 53) and
 * y = my 2^(ey - 53) with integers 2^52 <= |mx|, |my| < 2^53 (frexp, subnormals included), so
 * x y = mx my 2^(ex + ey - 106) with 2^104 <= |mx my| < 2^106: hi = RN(mx my) and
 * lo = mx my - hi (one FMA) are exact, and far from underflow; each is an integer of at most
 * 53 bits times a power of two, the terms ozb_sum_nearest takes.  It rounds
 * alpha sum + beta c once: NearSum in a scaled frame, the long accumulator where that frame
 * would leave the normal range (results in or below the subnormal range). */
#include "fused/exact_small.h"
#include "core/info.h"
#include "sum/sum.h"
#include <math.h>
#include <string.h>

/* the integer term of v = P 2^E (v != 0): |P| < 2^53 */
static inline void term(double v, int shift, double *P, int32_t *E)
{
    int e;
    *P = frexp(v, &e) * 0x1p53;
    *E = e - 53 + shift;
}

/* element (i, j) into *out, or 0 where some factor or c is not finite */
static int element(const ozb_problem *pr, int64_t i, int64_t j, double *out, int64_t *fallbacks)
{
    double P[2 * OZB_EXACT_SMALL_K], scratch[2 * 2 * OZB_EXACT_SMALL_K + 4];
    int32_t E[2 * OZB_EXACT_SMALL_K];
    int n = 0;
    for (int64_t l = 0; l < pr->k; l++) {
        const double x = ozb_view_at(&pr->a, i, l), y = ozb_view_at(&pr->b, j, l);
        if (!isfinite(x) || !isfinite(y)) return 0;
        if (x == 0.0 || y == 0.0) continue;
        int ex, ey;
        const double mx = frexp(x, &ex) * 0x1p53, my = frexp(y, &ey) * 0x1p53;
        const double hi = mx * my, lo = fma(mx, my, -hi);
        term(hi, ex + ey - 106, &P[n], &E[n]);
        n++;
        if (lo != 0.0) { term(lo, ex + ey - 106, &P[n], &E[n]); n++; }
    }
    const int use_c = pr->beta != 0.0;
    const double c = use_c ? pr->c[i * pr->crs + j * pr->ccs] : 0.0;
    if (!isfinite(c)) return 0;
    *out = ozb_sum_nearest(P, E, n, pr->alpha, pr->beta, c, use_c, scratch, fallbacks);
    return 1;
}

ozblas_status_t ozb_exact_small(ozblas_handle_t h, const ozb_problem *pr, int nt, uint8_t **failp, int64_t *nfail)
{
    (void)nt;
    const size_t mn = (size_t)pr->m * (size_t)pr->n;
    uint8_t *fail = ozb_buf_get(h, OZB_BUF_SMALL, mn + 8);
    if (!fail) return OZBLAS_STATUS_ALLOC_FAILED;
    int64_t left = 0, fallbacks = 0;
    for (int64_t j = 0; j < pr->n; j++)
        for (int64_t i = 0; i < pr->m; i++) {
            double r;
            const int ok = pr->k <= OZB_EXACT_SMALL_K && isfinite(pr->alpha) && isfinite(pr->beta) && element(pr, i, j, &r, &fallbacks);
            if (ok) pr->c[i * pr->crs + j * pr->ccs] = r;
            fail[i + j * pr->m] = (uint8_t)!ok;
            left += !ok;
        }
    ozblas_info_t *info = ozb_info_begin(h, OZBLAS_SUM_NEARSUM, 53);
    info->slices_a = info->slices_b = 1;
    info->exact_fallbacks = fallbacks;
    info->blocks = 1;
    info->block_m = pr->m; info->block_n = pr->n; info->block_k = pr->k;
    *failp = fail;
    *nfail = left;
    return OZBLAS_STATUS_SUCCESS;
}
