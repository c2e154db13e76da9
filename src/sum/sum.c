/* Per-element summation of exact partial products, with alpha and beta.
 * Compiled with -ffp-contract=off; fma() below is an explicit TwoProduct. */
#include "sum/sum.h"
#include "sum/longacc.h"
#include "core/ozb_internal.h"
#include <limits.h>
#include <math.h>

/* |x| = M 2^e, M < 2^53 integer */
static uint64_t mant_exp(double x, int *e, int *neg)
{
    uint64_t b = ozb_bits(x);
    *neg = (int)(b >> 63);
    int ef = (int)((b >> 52) & 0x7ff);
    uint64_t m = b & 0xfffffffffffffull;
    if (ef) { m |= 1ull << 52; *e = ef - 1075; } else *e = -1074;
    return m;
}

static double scale_pow2(double x, int e)
{
    return (e >= -1022 && e <= 1023) ? x * ozb_pow2(e) : ldexp(x, e);
}

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

double ozb_sum_nearest(const double *P, const int32_t *E, int64_t n, double alpha,
                       double beta, double c, int use_c, double *scratch, int64_t *fallback)
{
    int F = INT_MIN;
    for (int64_t t = 0; t < n; t++) if (P[t] != 0.0 && E[t] > F) F = E[t];
    if (F == INT_MIN) {                      /* sum of products is exactly 0 */
        if (!use_c) return 0.0;
        double r = beta * c;                 /* one IEEE multiply: RN(beta*c) */
        return (c == 0.0) ? 0.0 : r;         /* exact zero -> +0 */
    }
    /* Frame 2^(F+ea): terms alpha*P*2^E become (ma * P*2^(E-F)) with ma in [0.5,1).
     * Bit budget: P*2^(E-F) is an integer times 2^(E-F) >= 2^-1000, so the TwoProduct
     * h + l = ma * t is exact (the product's last bit is >= 2^-1054 > 2^-1074) and
     * every term is below 2^54, far from overflow inside NearSum. */
    int ea;
    double ma = frexp(alpha, &ea);
    int64_t m = 0;
    for (int64_t t = 0; t < n; t++) {
        if (P[t] == 0.0) continue;
        int d = E[t] - F;
        if (d < -1000) goto exact;
        double tt = P[t] * ozb_pow2(d);
        double h = ma * tt, l = fma(ma, tt, -h);
        scratch[m++] = h;
        if (l != 0.0) scratch[m++] = l;      /* alpha a power of two: no low parts (half the work) */
    }
    const int Fa = F + ea;
    if (use_c && c != 0.0) {
        int eb, ec;
        double mb = frexp(beta, &eb), mc = frexp(c, &ec);
        int G = eb + ec - Fa;
        if (G < -900 || G > 900) goto exact;
        double h = mb * mc;                  /* exact TwoProduct of mantissas in [0.5,1) */
        double l = fma(mb, mc, -h);
        scratch[m++] = ldexp(h, G);          /* exact: |l 2^G| has its last bit >= 2^-1006 */
        if (l != 0.0) scratch[m++] = ldexp(l, G);
    }
    {
        double x = ozb_nearsum(scratch, m);
        if (x == 0.0) return 0.0;            /* exact zero (no term underflowed) */
        if (ozb_ilogb(x) + Fa < -1022) goto exact;   /* subnormal: would round twice */
        return ldexp(x, Fa);                 /* exact scaling, or Inf when RN overflows */
    }
exact:
    if (fallback) (*fallback)++;
    return ozb_sum_exact(P, E, n, alpha, beta, c, use_c);
}

/* frexp for finite x without a libm call on the common (normal) path */
static inline double split_pow2(double x, int *e)
{
    uint64_t b = ozb_bits(x);
    int ef = (int)((b >> 52) & 0x7ff);
    if (ef == 0 || ef == 0x7ff) return frexp(x, e);
    *e = ef - 1022;
    b = (b & 0x800fffffffffffffull) | (1022ull << 52);   /* mantissa in [0.5, 1) */
    double m; memcpy(&m, &b, sizeof m); return m;
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
    if (F == INT_MIN || s == 0.0) {
        if (!use_c) return 0.0;
        double r = beta * c;
        return (c == 0.0) ? 0.0 : r;
    }
    int ea;
    double a = s * split_pow2(alpha, &ea);
    int Fa = F + ea;
    if (!use_c || c == 0.0) return scale_pow2(a, Fa);
    int eb, ec;
    double bc = split_pow2(beta, &eb) * split_pow2(c, &ec);
    int Gc = eb + ec;
    int X = Fa > Gc ? Fa : Gc;                        /* common frame: nothing overflows early */
    double r = scale_pow2(a, Fa - X) + scale_pow2(bc, Gc - X);
    return scale_pow2(r, X);
}
