/* The error-free sums on a problem scaled by a power of two (eft_scaled.h): one operand (the
 * one with fewer elements, if it stays below 2^990) and C are multiplied by 2^s, which is exact
 * (scaling up loses no bit, even of a subnormal), so the scaled call's exact results are 2^s
 * times the call's.  A certified scaled result r' is RN(2^s exact); 2^-s r' is RN(exact)
 * wherever it is a normal number (no bit is lost scaling it back).  A subnormal one is rounded
 * again, to the subnormal grid scaled, q = 2^(s-1074): |2^s exact| < 2^(s-1022) there (RN is
 * monotone), where the doubles' spacing is at most q/2, so every midpoint of the q grid is a
 * double; where r' is not one, 2^s exact lies on r''s side of every midpoint (r' between them,
 * RN monotone) and rounds to r''s nearest multiple of q: RN(exact) = 2^-s times it, on
 * 2^-1074's grid (a signed zero below 2^-1075).  An r' on a midpoint may be a double rounding
 * and is left to the next method (LAPACK's LU of matrices scaled toward underflow: trailing
 * updates whose results are subnormal). */
#include "eft/eft_scaled.h"
#include "eft/eft_dot.h"
#include "eft/eft_deep.h"
#include <math.h>
#include <stdint.h>
#include <string.h>

static size_t up64(size_t b) { return (b + 63) & ~(size_t)63; }

/* max |v(i, l)| over rows x k; -1 where some element is not finite; or, once a line of v (a
 * column or row as it lies in memory) shows an element above `stop`, the largest so far (the
 * caller then scales nothing whatever the rest holds, and a non-finite element leads it to the
 * same: this check runs on every call the first level left undecided, and on the common data
 * the first line decides it).  Lines in memory order, on the magnitudes' bit patterns: for
 * nonnegative doubles the integer order is the numeric order, and a pattern from
 * 0x7ff0000000000000 on is an Inf or NaN; integer operations, which the compiler vectorizes
 * where this library's floating-point flags keep comparisons scalar. */
static double view_max(const ozb_view *v, int64_t rows, int64_t k, double stop)
{
    const int by_l = v->rs == 1;                 /* lines along i (contiguous where rs = 1) */
    const int64_t nline = by_l ? k : rows, len = by_l ? rows : k, step = by_l ? v->rs : v->cs;
    const uint64_t mag = 0x7fffffffffffffffull, inf = 0x7ff0000000000000ull;
    double mx = 0.0;
    for (int64_t q = 0; q < nline; q++) {
        const double *p = v->p + q * (by_l ? v->cs : v->rs);
        uint64_t lm = 0;
        for (int64_t t = 0; t < len; t++) {
            uint64_t b;
            memcpy(&b, &p[t * step], sizeof b);
            b &= mag;
            lm = b > lm ? b : lm;
        }
        if (lm >= inf) return -1.0;
        double l;
        memcpy(&l, &lm, sizeof l);
        if (l > mx) mx = l;
        if (mx > stop) return mx;
    }
    return mx;
}

/* max |c| over C, -1 where some element is not finite: view_max on C^T's view (element (j, i)
 * is C(i, j)), whose lines are C's columns where its rows are contiguous (crs = 1) */
static double c_max(const ozb_problem *pr)
{
    const ozb_view cv = { pr->c, pr->ccs, pr->crs };
    return view_max(&cv, pr->n, pr->m, INFINITY);
}

/* s and the side it scales (0: op(A), 1: op(B)); s = 0: none */
static int plan(ozblas_handle_t h, const ozb_problem *pr, int *side)
{
    /* the operand with fewer elements whole, then the other until an element shows the
     * products within the sums' range (ea + eb > -900) */
    const int a_first = (double)pr->m <= (double)pr->n;
    const double m1 = a_first ? view_max(&pr->a, pr->m, pr->k, INFINITY) : view_max(&pr->b, pr->n, pr->k, INFINITY);
    if (!(m1 > 0.0)) return 0;                                 /* zero products, Inf/NaN */
    const double stop = ldexp(1.0, -899 - ilogb(m1));          /* 2^(-899 - e1): ilogb above it is > -900 - e1 */
    const double m2 = a_first ? view_max(&pr->b, pr->n, pr->k, stop) : view_max(&pr->a, pr->m, pr->k, stop);
    const double ma = a_first ? m1 : m2, mb = a_first ? m2 : m1;
    if (!(ma > 0.0) || !(mb > 0.0)) return 0;                 /* zero products, Inf/NaN */
    const int ea = ilogb(ma), eb = ilogb(mb);
    if (ea + eb > -900) return 0;               /* products within the sums' range */
    const int s = -(ea + eb);
    /* the side with fewer elements, where it stays below 2^990 */
    const int first = (double)pr->m > (double)pr->n;          /* 1: op(B) is smaller */
    *side = -1;
    for (int q = 0; q < 2 && *side < 0; q++) {
        const int sd = q ? !first : first;
        if ((sd ? eb : ea) + s <= 990) *side = sd;
    }
    if (*side < 0) return 0;
    if (pr->beta != 0.0) {
        const double mc = c_max(pr);
        if (mc < 0.0 || (mc > 0.0 && ilogb(mc) + s > 990)) return 0;
    }
    const size_t mn = (size_t)pr->m * (size_t)pr->n;
    const size_t bytes = up64(mn + 8) + 2 * up64(mn * sizeof(double)) + up64((size_t)(*side ? pr->n : pr->m) * (size_t)pr->k * sizeof(double));
    return bytes <= ozb_workspace_limit(h) ? s : 0;
}

int ozb_eft_scale_for(ozblas_handle_t h, const ozb_problem *pr)
{
    int side;
    return plan(h, pr, &side);
}

/* v 2^s, s > 0, in steps that stay exact (each product at most the final one) */
static double scale_up(double v, int s)
{
    for (; s > 0; s -= 1000) v *= ldexp(1.0, s < 1000 ? s : 1000);
    return v;
}

ozblas_status_t ozb_eft_scaled_cr(ozblas_handle_t h, const ozb_problem *pr, int nt, uint8_t **failp, int64_t *nfail)
{
    const int64_t m = pr->m, n = pr->n, k = pr->k;
    const size_t mn = (size_t)m * (size_t)n;
    int side = 0;
    const int s = plan(h, pr, &side);
    const int64_t rows = side ? n : m;
    char *buf = ozb_buf_get(h, OZB_BUF_SCALED, up64(mn + 8) + 2 * up64(mn * sizeof(double)) + up64((size_t)rows * (size_t)k * sizeof(double)));
    if (!buf) return OZBLAS_STATUS_ALLOC_FAILED;
    uint8_t *fail = (uint8_t *)buf;
    *failp = fail;
    memset(fail, 1, mn);
    *nfail = (int64_t)mn;
    if (s == 0) return OZBLAS_STATUS_SUCCESS;
    double *Cs = (double *)(buf + up64(mn + 8)), *Cs2 = (double *)((char *)Cs + up64(mn * sizeof(double)));
    double *P = (double *)((char *)Cs2 + up64(mn * sizeof(double)));
    const double f = ldexp(1.0, s < 1000 ? s : 1000);
    const ozb_view *v = side ? &pr->b : &pr->a;
    for (int64_t i = 0; i < rows; i++)
        for (int64_t l = 0; l < k; l++) {
            const double x = ozb_view_at(v, i, l);
            P[i * k + l] = s <= 1000 ? x * f : scale_up(x, s);
        }
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            const double c = pr->beta != 0.0 ? pr->c[i * pr->crs + j * pr->ccs] : 0.0;
            Cs[i + j * m] = s <= 1000 ? c * f : scale_up(c, s);
        }
    ozb_problem sp = *pr;
    const ozb_view pv = { P, k, 1 };
    if (side) sp.b = pv; else sp.a = pv;
    sp.c = Cs; sp.crs = 1; sp.ccs = m;
    uint8_t *f2;
    int64_t n2;
    if (pr->beta != 0.0) memcpy(Cs2, Cs, mn * sizeof(double));    /* the scaled C for the second level */
    ozblas_status_t st = ozb_eft_cr_in(h, &sp, nt, OZB_BUF_EFT2, &f2, &n2);
    if (st != OZBLAS_STATUS_SUCCESS) return st;
    /* what the first level leaves (results that cancel to about u of their terms: LAPACK's
     * trailing updates of matrices scaled toward underflow) by the deep sums on the scaled
     * problem, those elements alone (want), into the copy of C; the first level's are kept */
    if (n2 > 0 && !h->knobs.no_deep) {
        ozb_problem dp = sp;
        dp.c = Cs2;
        dp.want = f2;
        if (ozb_eft_deep_bytes(h, &dp) <= ozb_workspace_limit(h)) {
            uint8_t *f3;
            int64_t n3;
            /* a step that may be skipped: without its buffer the flags stay for the next method */
            if (ozb_eft_deep_cr(h, &dp, nt, &f3, &n3) == OZBLAS_STATUS_SUCCESS)
                for (size_t e = 0; e < mn; e++)
                    if (f2[e] && !f3[e]) {
                        Cs[e] = Cs2[e];
                        f2[e] = 0;
                    }
        }
    }
    int64_t left = 0;
    const ozb_unscale_t u = ozb_unscale_for(s);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            const size_t e = (size_t)(i + j * m);
            const double r = Cs[e];
            double back;
            /* outside what the caller keeps (ozb_kept), nothing is wanted; a result below the
             * normal range is taken back only from at most 2^1000 */
            if (!ozb_kept(pr, i, j))
                fail[e] = 0;
            else if (!f2[e] && (fabs(r) >= u.normal_from || fabs(r) <= 0x1p1000) && ozb_unscale(&u, r, &back)) {
                pr->c[i * pr->crs + j * pr->ccs] = back;
                fail[e] = 0;
            } else
                left++;
        }
    *nfail = left;
    return OZBLAS_STATUS_SUCCESS;
}
