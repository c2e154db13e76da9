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
#include "sum/eft.h"
#include <math.h>
#include <string.h>

/* the integer term of v = P 2^E (v != 0): |P| < 2^53 */
static inline void term(double v, int shift, double *P, int32_t *E)
{
    int e;
    *P = frexp(v, &e) * 0x1p53;
    *E = e - 53 + shift;
}

/* RN(alpha sum x y + beta c) of element (i, j) with every term a double already, where that is
 * exact: alpha = +-1 (negation is exact), each product split by TwoProduct and beta c too,
 * all within ozb_two_product's range (|RN(x y)| in [2^-969, 2^1000], or a zero factor).  The
 * terms, at most 2 OZB_EXACT_SMALL_K + 2 of magnitude <= 2^1000, meet ozb_nearsum's
 * precondition (2^1000 2^8 2 is finite), and NearSum rounds their sum to nearest, subnormal
 * results included: no frame, no frexp.  0 where some value is out of that range (the
 * framed path below takes it). */
static int element_direct(const ozb_problem *pr, int64_t i, int64_t j, double *out)
{
    if (pr->alpha != 1.0 && pr->alpha != -1.0) return 0;
    double T[2 * OZB_EXACT_SMALL_K + 2];
    int64_t m = 0;
    for (int64_t l = 0; l < pr->k; l++) {
        if (!ozb_two_product(ozb_view_at(&pr->a, i, l), ozb_view_at(&pr->b, j, l), &T[m], &T[m + 1])) return 0;
        m += 2;
    }
    if (pr->alpha == -1.0)
        for (int64_t t = 0; t < m; t++) T[t] = -T[t];
    if (pr->beta != 0.0) {
        if (!ozb_two_product(pr->beta, pr->c[i * pr->crs + j * pr->ccs], &T[m], &T[m + 1])) return 0;
        m += 2;
    }
    const double x = ozb_nearsum(T, m);
    *out = x == 0.0 ? 0.0 : x;                   /* an exact zero is +0, as on the framed path */
    return 1;
}

/* element (i, j) into *out, or 0 where some factor or c is not finite */
static int element(const ozb_problem *pr, int64_t i, int64_t j, double *out, int64_t *fallbacks)
{
    if (element_direct(pr, i, j, out)) return 1;
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

static void small_info(ozblas_handle_t h, const ozb_problem *pr, int64_t fallbacks)
{
    ozblas_info_t *info = ozb_info_begin(h, OZBLAS_SUM_NEARSUM, 53);
    info->slices_a = info->slices_b = 1;
    info->exact_fallbacks = fallbacks;
    info->blocks = 1;
    info->block_m = pr->m; info->block_n = pr->n; info->block_k = pr->k;
}

int ozb_exact_small_dot(ozblas_handle_t h, const ozb_problem *pr)
{
    double r;
    if (pr->m != 1 || pr->n != 1 || pr->k > OZB_EXACT_SMALL_K || !isfinite(pr->beta) || !element_direct(pr, 0, 0, &r))
        return 0;
    *pr->c = r;
    small_info(h, pr, 0);
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
    small_info(h, pr, fallbacks);
    *failp = fail;
    *nfail = left;
    return OZBLAS_STATUS_SUCCESS;
}
