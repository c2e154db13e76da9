/* CORRECTLY_ROUNDED GEMM with a small inner dimension by error-free dot products (issue 14).
 *
 * Each product a_il b_jl is split exactly by TwoProduct into h + l (one FMA), alpha times each
 * part likewise, and beta c too; Sum2 (sum/sum.c) then rounds the sum of these exact doubles,
 * with its error bound as the certificate.  Elements it cannot certify (a sum within its error
 * bound of a rounding boundary), or whose operands leave the range where TwoProduct is exact
 * (Inf/NaN, products below 2^-969 or above 2^1000), are left to Scheme I.  The result is
 * RN(exact) either way, the same bits as every other CORRECTLY_ROUNDED path; for small k it
 * costs a few operations per product instead of a NearSum over every slice pair.
 *
 * Bit budget: a TwoProduct a b = h + l is error-free when |a b| >= 2^-969 (the exact product is
 * a multiple of 2^(ea + eb - 104) >= 2^-1074, so l is representable) and |a b| <= 2^1000 (no
 * overflow); at most 4 k + 2 <= 258 terms below 2^1001 keep every Sum2 step finite.
 * Compiled with -ffp-contract=off: fma() below is the explicit TwoProduct. */
#include "fused/cr_dot2.h"
#include "core/info.h"
#include "core/par.h"
#include "sum/sum.h"
#include <math.h>

int ozb_dot2_eligible(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *plan)
{
    if (plan->mode != OZBLAS_MODE_CORRECTLY_ROUNDED || h->knobs.no_dot2) return 0;
    if (plan->engine != OZBLAS_ENGINE_FP64) return 0;
    return pr->n > 1 && pr->k <= OZB_DOT2_KMAX && (double)pr->m * (double)pr->n * (double)pr->k <= OZB_DOT2_WORK_MAX &&
           isfinite(pr->alpha) && isfinite(pr->beta);
}

/* h + l = a b exactly, or 0 where that is not guaranteed (see the bit budget) */
static int two_product(double a, double b, double *h, double *l)
{
    const double p = a * b, ap = fabs(p);
    if (!(ap >= 0x1p-969 && ap <= 0x1p1000)) return 0;
    *h = p;
    *l = fma(a, b, -p);
    return 1;
}

/* the terms of alpha x (x exact, nonzero) into T; 0 where not exact */
static int scaled(double alpha, double x, double *T, int *n)
{
    if (alpha == 1.0) { T[(*n)++] = x; return 1; }
    double h, l;
    if (!two_product(alpha, x, &h, &l)) return 0;
    T[(*n)++] = h;
    if (l != 0.0) T[(*n)++] = l;
    return 1;
}

/* RN(alpha sum_l a_il b_jl + beta c) into *out, or 0 */
static int element(const ozb_problem *pr, int64_t i, int64_t j, double *T, double *out)
{
    int n = 0;
    for (int64_t l = 0; l < pr->k; l++) {
        const double a = ozb_view_at(&pr->a, i, l), b = ozb_view_at(&pr->b, j, l);
        if (!isfinite(a) || !isfinite(b)) return 0;
        if (a == 0.0 || b == 0.0) continue;
        double h, lo;
        if (!two_product(a, b, &h, &lo)) return 0;
        if (!scaled(pr->alpha, h, T, &n)) return 0;
        if (lo != 0.0 && !scaled(pr->alpha, lo, T, &n)) return 0;
    }
    if (pr->beta != 0.0) {
        const double c = pr->c[i * pr->crs + j * pr->ccs];
        if (!isfinite(c)) return 0;
        if (c != 0.0) {
            double h, lo;
            if (!two_product(pr->beta, c, &h, &lo)) return 0;
            T[n++] = h;
            if (lo != 0.0) T[n++] = lo;
        }
    }
    return ozb_sum2_rn(T, n, out);
}

/* Four consecutive rows i0..i0+3 of one column at once: the same operations as element(), in
 * four independent lanes that the compiler keeps in one AVX2 register each (zero products and
 * zero low parts are added too: adding an exact zero changes no TwoSum, and they only loosen
 * the bound, which counts every term).  ok[q] = 0 where lane q is left to the caller. */
static void quad(const ozb_problem *pr, int64_t i0, int64_t j, double out[4], int ok[4])
{
    double s[4] = {0, 0, 0, 0}, r[4] = {0, 0, 0, 0}, ra[4] = {0, 0, 0, 0};
    int bad[4] = {0, 0, 0, 0};
    const double alpha = pr->alpha;
    const int one = alpha == 1.0;
    int64_t nterm = 0;
#define OZB_TWOSUM_ADD(q, x) do { const double a_ = s[q], b_ = (x); s[q] = a_ + b_;                        \
        const double bb_ = s[q] - a_, e_ = (a_ - (s[q] - bb_)) + (b_ - bb_); r[q] += e_; ra[q] += fabs(e_); } while (0)
    for (int64_t l = 0; l < pr->k; l++) {
        const double b = ozb_view_at(&pr->b, j, l);
        const int bfin = isfinite(b);
        for (int q = 0; q < 4; q++) {
            const double a = ozb_view_at(&pr->a, i0 + q, l);
            const double p = a * b, lo = fma(a, b, -p), ap = fabs(p);
            bad[q] |= (!(bfin && isfinite(a))) | ((a != 0.0 && b != 0.0) & !(ap >= 0x1p-969 && ap <= 0x1p1000));
            if (one) {
                OZB_TWOSUM_ADD(q, p);
                OZB_TWOSUM_ADD(q, lo);
            } else {
                const double h1 = alpha * p, l1 = fma(alpha, p, -h1), h2 = alpha * lo, l2 = fma(alpha, lo, -h2);
                const double a1 = fabs(h1), a2 = fabs(h2);
                bad[q] |= (p != 0.0 && !(a1 >= 0x1p-969 && a1 <= 0x1p1000)) | (lo != 0.0 && !(a2 >= 0x1p-969 && a2 <= 0x1p1000));
                OZB_TWOSUM_ADD(q, h1);
                OZB_TWOSUM_ADD(q, l1);
                OZB_TWOSUM_ADD(q, h2);
                OZB_TWOSUM_ADD(q, l2);
            }
        }
        nterm += one ? 2 : 4;
    }
    if (pr->beta != 0.0) {
        for (int q = 0; q < 4; q++) {
            const double c = pr->c[(i0 + q) * pr->crs + j * pr->ccs];
            const double h = pr->beta * c, lo = fma(pr->beta, c, -h), ah = fabs(h);
            bad[q] |= (!isfinite(c)) | (c != 0.0 && !(ah >= 0x1p-969 && ah <= 0x1p1000));
            OZB_TWOSUM_ADD(q, h);
            OZB_TWOSUM_ADD(q, lo);
        }
        nterm += 2;
    }
#undef OZB_TWOSUM_ADD
    for (int q = 0; q < 4; q++) {
        ok[q] = !bad[q] && ozb_sum2_finish(s[q], r[q], ra[q], nterm, &out[q]);
    }
}

typedef struct { const ozb_problem *pr; uint8_t *fail; } cols_t;

/* columns lo..hi-1; returns the elements left */
static int64_t columns(void *ctx, int64_t lo, int64_t hi)
{
    const cols_t *c = ctx;
    const ozb_problem *pr = c->pr;
    double T[4 * OZB_DOT2_KMAX + 2];
    int64_t left = 0;
    for (int64_t j = lo; j < hi; j++) {
        int64_t i = 0;
        for (; i + 4 <= pr->m; i += 4) {
            double r[4];
            int ok[4];
            quad(pr, i, j, r, ok);
            for (int q = 0; q < 4; q++) {
                if (ok[q]) pr->c[(i + q) * pr->crs + j * pr->ccs] = r[q];
                c->fail[i + q + j * pr->m] = (uint8_t)!ok[q];
                left += !ok[q];
            }
        }
        for (; i < pr->m; i++) {
            double r;
            const int ok = element(pr, i, j, T, &r);
            if (ok) pr->c[i * pr->crs + j * pr->ccs] = r;
            c->fail[i + j * pr->m] = (uint8_t)!ok;
            left += !ok;
        }
    }
    return left;
}

ozblas_status_t ozb_dot2_cr(ozblas_handle_t h, const ozb_problem *pr, int nt, const uint8_t **fail, int64_t *nfail)
{
    const double t0 = ozb_now();
    uint8_t *f = ozb_buf_get(h, OZB_BUF_FZ_DIGITS, (size_t)pr->m * (size_t)pr->n);
    if (!f) return OZBLAS_STATUS_ALLOC_FAILED;
    cols_t c = { pr, f };
    *nfail = ozb_par_for(nt > 1 && (double)pr->m * (double)pr->n * (double)pr->k >= 65536.0, nt, pr->n, columns, &c);
    *fail = f;
    ozblas_info_t *info = ozb_info_begin(h, OZBLAS_SUM_NEARSUM, 53);
    info->slices_a = info->slices_b = 1;      /* the operands themselves, 53 bits */
    info->exact_fallbacks = *nfail;
    info->blocks = 1;
    info->block_m = pr->m; info->block_n = pr->n; info->block_k = pr->k;
    info->seconds_sum = ozb_now() - t0;
    return OZBLAS_STATUS_SUCCESS;
}
