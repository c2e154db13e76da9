/* Per-element summation of exact partial products, with alpha and beta.
 * Compiled with -ffp-contract=off; fma() below is an explicit TwoProduct. */
#include "sum/sum.h"
#include "sum/longacc.h"
#include "sum/eft.h"
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

/* Sum2 of p[0..m) with its error bound: *y + *z + (a value within *b) is the exact sum.
 * The cascaded TwoSum keeps X = s + sum_i e_i exactly (each step is error-free, subnormal
 * sums included; the frame keeps every value below 2^60, far from overflow).
 * r = fl(sum e_i) is within gamma_(m-1) sum|e_i| of sum e_i, and gamma_(m-1) / (1 - gamma_(m-1))
 * < 2 m u bounds that by B = 2 m u fl(sum|e_i|) (the factor 2 covers the roundings of B itself
 * while m < 2^40).  With y + z = s + r exactly (TwoSum), X lies within |z| + B of y; *err is
 * that (z exactly, b as B). */
static void sum2(const double *p, int64_t m, double *y, double *zout, double *bout)
{
    double sum = 0.0, r = 0.0, ra = 0.0;
    for (int64_t i = 0; i < m; i++) {
        const double a = sum, b = p[i];
        sum = a + b;
        const double bb = sum - a, e = (a - (sum - bb)) + (b - bb);   /* TwoSum: a + b = sum + e */
        r += e;
        ra += fabs(e);
    }
    const double yy = sum + r, yb = yy - sum, z = (sum - (yy - yb)) + (r - yb);
    double B = ra * ((double)m * 0x1p-52);
    if (ra > 0.0 && B < 0x1p-1000) B = 0x1p-1000;      /* a nonzero bound never underflows */
    *y = yy;
    *zout = z;
    *bout = B;
}

/* Half the smaller gap next to a normal y >= 2^-1000 (ulp/2, or ulp/4 below a power of two):
 * a value strictly closer to y than that rounds to y, with no tie possible; 0 for other y. */
static double half_gap(double y)
{
    if (y == 0.0) return 0.0;
    const int e = ozb_ilogb(y);
    if (e < -1000) return 0.0;
    return ozb_pow2(e - 52) * ((ozb_bits(y) & 0x000fffffffffffffull) == 0 ? 0.25 : 0.5);
}

int ozb_sum2_rn(const double *p, int64_t m, double *out)
{
    return ozb_sum2_certify(p, m, 0.0, out);
}

int ozb_sum2_certify(const double *p, int64_t m, double extra, double *out)
{
    double y, z, b;
    sum2(p, m, &y, &z, &b);
    /* a nonzero bound that underflowed in the caller's arithmetic is still nonzero; the sum's
     * rounding (at most 2^-53 of it) is within ozb_round_certified_z's margin */
    if (extra != 0.0) b += extra < 0x1p-1000 ? 0x1p-1000 : extra;
    return ozb_round_certified_z(y, z, b, out);
}

int ozb_round_certified_z(double y, double z, double b, double *out)
{
    if (y == 0.0) {
        if (z != 0.0 || b != 0.0) return 0;
        *out = 0.0;                                       /* the terms cancel exactly */
        return 1;
    }
    const double hz = half_gap(y);                        /* toward zero */
    if (!isfinite(y) || !(hz > 0.0) || !isfinite(z) || !(b >= 0.0) || !(b <= 0x1p1000)) return 0;
    if ((fabs(z) + b) * (1.0 + 0x1p-50) < hz) {          /* the symmetric test: most calls */
        *out = y;
        return 1;
    }
    /* away from zero: the same but above a power of two, where the gap doubles */
    const double ha = (ozb_bits(y) & 0x000fffffffffffffull) == 0 ? 2.0 * hz : hz;
    const double d = y > 0.0 ? z : -z;                     /* z's part away from zero */
    /* the exact value lies in [y + z - b, y + z + b]: strictly inside (y - hz, y + ha) away
     * from zero's sign.  mg covers the roundings of d + b and b - d (each within 2^-53 of
     * |d| + b) and of mg itself, with room to spare */
    const double mg = (fabs(z) + b) * 0x1p-50;
    if (!((d + b) + mg < ha) || !((b - d) + mg < hz)) return 0;
    *out = y;
    return 1;
}

/* RN(alpha sum_t P_t 2^E_t + beta c) without the frame, where every term is a double already:
 * P_t 2^E_t is exact for -1022 <= E_t <= 940 (|P_t| < 2^53: its last bit is 2^E_t, it stays
 * below 2^993), alpha times it exact for alpha = +-1 and split exactly by TwoProduct otherwise
 * (ozb_two_product's range), beta c likewise; Sum2 then certifies the rounding or declines
 * (results below 2^-1000, ties, sums Sum2 cannot resolve).  1 with *out set, or 0 for the
 * framed path below.  The result, where given, is RN(exact): the bits of that path. */
static int sum_nearest_direct(const double *P, const int32_t *E, int64_t n, double alpha, double beta, double c,
                              int use_c, double *scratch, double *out)
{
    const int unit = alpha == 1.0 || alpha == -1.0;
    int64_t m = 0;
    for (int64_t t = 0; t < n; t++) {
        if (P[t] == 0.0) continue;
        if (E[t] < -1022 || E[t] > 940) return 0;
        const double v = P[t] * ozb_pow2(E[t]);
        if (unit) scratch[m++] = alpha * v;
        else {
            if (!ozb_two_product(alpha, v, &scratch[m], &scratch[m + 1])) return 0;
            m += 2;
        }
    }
    if (use_c && c != 0.0) {
        if (!ozb_two_product(beta, c, &scratch[m], &scratch[m + 1])) return 0;
        m += 2;
    }
    if (m == 0) return 0;              /* every term zero: the framed path's rules for the zero */
    return ozb_sum2_certify(scratch, m, 0.0, out);
}

double ozb_sum_nearest(const double *P, const int32_t *E, int64_t n, double alpha,
                       double beta, double c, int use_c, double *scratch, int64_t *fallback)
{
    {
        double x;
        if (sum_nearest_direct(P, E, n, alpha, beta, c, use_c, scratch, &x)) return x;
    }
    int F, Fa = 0;
    int64_t m = frame_terms(P, E, n, alpha, beta, c, use_c, scratch, &F, &Fa);
    if (m == 0 && F == INT_MIN) {            /* sum of products is exactly 0 */
        if (!use_c) return 0.0;
        double r = beta * c;                 /* one IEEE multiply: RN(beta*c) */
        return (c == 0.0) ? 0.0 : r;         /* exact zero -> +0 */
    }
    if (m > 0) {
        double x;
        if (ozb_sum2_rn(scratch, m, &x)) {
            if (x == 0.0) return 0.0;        /* exact zero */
            if (ozb_ilogb(x) + Fa >= -1022) return ldexp(x, Fa);
        }
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
    /* |alpha| * bound * 2^bound_exp in the frame 2^Fa = 2^(F + ea) */
    int ea;
    const double ma = frexp(fabs(alpha), &ea);
    const int de = bound_exp - F;
    double delta = de > 60 ? INFINITY : ldexp(ma * bound, de > -1000 ? de : -1000) * (1.0 + 0x1p-40);
    if (bound > 0.0 && delta < 0x1p-1000) delta = 0x1p-1000;   /* never let a nonzero bound underflow */
    {   /* Sum2 first: certified with the skipped terms' bound, no NearSum needed */
        double y, z, b, r;
        sum2(scratch, m, &y, &z, &b);
        if (y != 0.0 && ozb_round_certified_z(y, z, b + delta, &r) && ozb_ilogb(y) + Fa >= -1022) {
            *result = ldexp(y, Fa);
            return 1;
        }
    }
    double x = ozb_nearsum(scratch, m);
    if (x == 0.0 || ozb_ilogb(x) + Fa < -1022) return 0;
    /* residual rho = RN(X - x) with X the exact sum of the computed terms */
    m = frame_terms(P, E, n, alpha, beta, c, use_c, scratch, &F, &Fa);
    scratch[m++] = -x;
    const double rho = ozb_nearsum(scratch, m);
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
