/* Per-element summation of exact partial products, with alpha and beta.
 * Compiled with -ffp-contract=off; fma() below is an explicit TwoProduct. */
#include "sum/sum.h"
#include "sum/longacc.h"
#include "core/ozb_internal.h"
#include <limits.h>
#include <math.h>

static uint64_t mant_exp(double x, int *e, int *neg) { return ozb_op_mant_exp(x, e, neg); }
static double scale_pow2(double x, int e) { return ozb_op_scale_pow2(x, e); }

double ozb_sum_exact(const double *P, const int32_t *E, int64_t n, double alpha,
                     double beta, double c, int use_c)
{
    ozb_longacc acc;
    ozb_la_init(&acc);
    int ea, na;
    uint64_t ma = mant_exp(alpha, &ea, &na);
    for (int64_t t = 0; t < n; t++) {
        if (P[t] == 0.0) continue;
        uint64_t pm = (uint64_t)fabs(P[t]);           /* integer < 2^54: exact */
        ozb_la_add(&acc, na ^ (P[t] < 0.0), (ozb_u128)pm * ma, E[t] + ea);
    }
    if (use_c) ozb_la_add_product(&acc, beta, c);
    int sign;
    return ozb_la_round(&acc, &sign);
}

int ozb_sum_sign(const double *P, const int32_t *E, int64_t n)
{
    ozb_longacc acc;
    ozb_la_init(&acc);
    for (int64_t t = 0; t < n; t++)
        if (P[t] != 0.0) ozb_la_add(&acc, P[t] < 0.0, (ozb_u128)(uint64_t)fabs(P[t]), E[t]);
    int sign;
    (void)ozb_la_round(&acc, &sign);
    return sign;
}

/* Terms of alpha * sum_t P_t 2^E_t + beta*c in the frame 2^Fa, written to scratch.
 * Returns the term count, or -1 when the frame would leave the normal range (then only
 * the long accumulator is exact).  *F = INT_MIN when every P_t is zero.
 * Bit budget: P*2^(E-F) is an integer times 2^(E-F) >= 2^-1000, so the TwoProduct
 * h + l = ma * t is exact (the product's last bit is >= 2^-1054 > 2^-1074) and every term
 * is below 2^54, far from overflow inside NearSum. */
static int64_t frame_terms(const double *P, const int32_t *E, int64_t n, double alpha, double beta,
                           double c, int use_c, double *scratch, int *Fout, int *Faout)
{
    int F = INT_MIN;
    for (int64_t t = 0; t < n; t++) if (P[t] != 0.0 && E[t] > F) F = E[t];
    *Fout = F;
    if (F == INT_MIN) return 0;
    int ea;
    double ma = frexp(alpha, &ea);
    int64_t m = 0;
    for (int64_t t = 0; t < n; t++) {
        if (P[t] == 0.0) continue;
        int d = E[t] - F;
        if (d < -1000) return -1;
        double tt = P[t] * ozb_pow2(d);
        double h = ma * tt, l = fma(ma, tt, -h);
        scratch[m++] = h;
        if (l != 0.0) scratch[m++] = l;      /* alpha a power of two: no low parts (half the work) */
    }
    const int Fa = F + ea;
    *Faout = Fa;
    if (use_c && c != 0.0) {
        int eb, ec;
        double mb = frexp(beta, &eb), mc = frexp(c, &ec);
        int G = eb + ec - Fa;
        if (G < -900 || G > 900) return -1;
        double h = mb * mc;                  /* exact TwoProduct of mantissas in [0.5,1) */
        double l = fma(mb, mc, -h);
        scratch[m++] = ldexp(h, G);          /* exact: |l 2^G| has its last bit >= 2^-1006 */
        if (l != 0.0) scratch[m++] = ldexp(l, G);
    }
    return m;
}

double ozb_sum_nearest(const double *P, const int32_t *E, int64_t n, double alpha,
                       double beta, double c, int use_c, double *scratch, int64_t *fallback)
{
    int F, Fa = 0;
    int64_t m = frame_terms(P, E, n, alpha, beta, c, use_c, scratch, &F, &Fa);
    if (m == 0 && F == INT_MIN) {            /* sum of products is exactly 0 */
        if (!use_c) return 0.0;
        double r = beta * c;                 /* one IEEE multiply: RN(beta*c) */
        return (c == 0.0) ? 0.0 : r;         /* exact zero -> +0 */
    }
    if (m >= 0) {
        double x = ozb_nearsum(scratch, m);
        if (x == 0.0) return 0.0;            /* exact zero (no term underflowed) */
        if (ozb_ilogb(x) + Fa >= -1022) return ldexp(x, Fa);   /* exact, or Inf when RN overflows */
    }
    if (fallback) (*fallback)++;             /* subnormal result or out-of-range frame */
    return ozb_sum_exact(P, E, n, alpha, beta, c, use_c);
}

int ozb_sum_nearest_bounded(const double *P, const int32_t *E, int64_t n, double alpha, double beta,
                            double c, int use_c, double bound, int bound_exp, double *scratch, double *result)
{
    int F, Fa = 0;
    int64_t m = frame_terms(P, E, n, alpha, beta, c, use_c, scratch, &F, &Fa);
    if (m <= 0) return 0;                    /* nothing computed or no usable frame */
    double x = ozb_nearsum(scratch, m);
    if (x == 0.0 || ozb_ilogb(x) + Fa < -1022) return 0;
    /* residual rho = RN(X - x) with X the exact sum of the computed terms */
    m = frame_terms(P, E, n, alpha, beta, c, use_c, scratch, &F, &Fa);
    scratch[m++] = -x;
    const double rho = ozb_nearsum(scratch, m);
    /* |alpha| * bound * 2^bound_exp in the frame 2^Fa = 2^(F + ea) */
    int ea;
    const double ma = frexp(fabs(alpha), &ea);
    const int de = bound_exp - F;
    double delta = de > 60 ? INFINITY : ldexp(ma * bound, de > -1000 ? de : -1000) * (1.0 + 0x1p-40);
    if (bound > 0.0 && delta < 0x1p-1000) delta = 0x1p-1000;   /* never let a nonzero bound underflow */
    const double glo = x - nextafter(x, -INFINITY), ghi = nextafter(x, INFINITY) - x;
    const double half = 0.5 * (glo < ghi ? glo : ghi);
    /* |X - x| <= |rho| (1 + 2^-53); strictly inside x's rounding interval: no tie possible */
    if (fabs(rho) * (1.0 + 0x1p-50) + delta < half) { *result = ldexp(x, Fa); return 1; }
    return 0;
}

double ozb_sum_double(const double *P, const int32_t *E, int64_t n, double alpha,
                      double beta, double c, int use_c)
{
    int F = INT_MIN;
    for (int64_t t = 0; t < n; t++) if (P[t] != 0.0 && E[t] > F) F = E[t];
    double s = 0.0;
    if (F != INT_MIN)
        for (int64_t t = n - 1; t >= 0; t--)         /* small pairs first */
            if (P[t] != 0.0) s += scale_pow2(P[t], E[t] - F);
    return ozb_op_sum_double_finish(s, F, alpha, beta, c, use_c);   /* kernels/ozb_sum_ops.h */
}
