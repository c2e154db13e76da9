/* NearSum: the sum of a vector of doubles rounded to nearest, from
 * S.M. Rump, T. Ogita, S. Oishi, "Accurate floating-point summation part II:
 * sign, K-fold faithful and rounding to nearest", SIAM J. Sci. Comput. 31(2), 2008
 * (Algorithm 7.3 with Transform, Algorithm 4.1 of part I / 3.3 of part II, and TransformK,
 * Algorithm 6.2).  Compiled with -ffp-contract=off: every line below is an error-free
 * transformation or a rounding the proofs account for; contraction would break them. */
#include "sum/sum.h"
#include <float.h>
#include <math.h>

#define U_HALF_EPS 0x1p-53   /* u = eps/2 */

/* 2^ceil(log2|x|) for x != 0 */
static double next_pow2(double x)
{
    int e;
    double m = frexp(fabs(x), &e);   /* |x| = m 2^e, m in [0.5, 1) */
    return m == 0.5 ? fabs(x) : ldexp(1.0, e);
}

/* Error-free transformation rho + sum(p) = tau1 + tau2 + sum(p') (p overwritten by p').
 * With reuse, sigma and Ms come from an earlier call and extraction continues below it. */
static void transform(double *p, int64_t n, double rho, double *tau1, double *tau2,
                      double *sigma_io, double *Ms_io, int reuse)
{
    double sigma, Ms;
    if (!reuse) {
        double mu = 0.0;
        for (int64_t i = 0; i < n; i++) { double a = fabs(p[i]); mu = a > mu ? a : mu; }
        if (n == 0 || mu == 0.0) { *tau1 = rho; *tau2 = 0.0; *sigma_io = 0.0; *Ms_io = 0.0; return; }
        Ms = next_pow2((double)(n + 2));
        sigma = Ms * next_pow2(mu);
    } else {
        Ms = *Ms_io;
        sigma = Ms * U_HALF_EPS * *sigma_io;
    }
    const double phi = Ms * U_HALF_EPS;
    const double Phi = Ms * Ms * U_HALF_EPS;
    double t = rho;
    for (;;) {
        double tau = 0.0;
        for (int64_t i = 0; i < n; i++) {          /* ExtractVector(sigma, p) */
            double q = (sigma + p[i]) - sigma;
            tau += q;
            p[i] -= q;
        }
        double t1 = t + tau;
        if (fabs(t1) >= Phi * sigma || sigma <= DBL_MIN) {
            *tau1 = t1;
            *tau2 = tau - (t1 - t);                 /* FastTwoSum(t, tau) */
            *sigma_io = sigma;
            *Ms_io = Ms;
            return;
        }
        t = t1;
        if (t == 0.0) {                             /* accelerate the case sum(p) = 0 */
            transform(p, n, 0.0, tau1, tau2, sigma_io, Ms_io, 0);
            return;
        }
        sigma = phi * sigma;
    }
}

static double plain_sum(const double *p, int64_t n)
{
    double s = 0.0;
    for (int64_t i = 0; i < n; i++) s += p[i];
    return s;
}

/* TransformK: rho + sum(p) = res + R + sum(p'); only res is needed here. */
static double transform_k(double *p, int64_t n, double rho, double sigma, double Ms)
{
    double tau1, tau2;
    transform(p, n, rho, &tau1, &tau2, &sigma, &Ms, 1);
    return tau1 + (tau2 + plain_sum(p, n));
}

double ozb_nearsum(double *p, int64_t n)
{
    const double eta = 0x1p-1074;              /* succ(0) */
    double tau1, tau2, sigma, Ms;
    transform(p, n, 0.0, &tau1, &tau2, &sigma, &Ms, 0);
    double tau2s = tau2 + plain_sum(p, n);
    double res = tau1 + tau2s;
    double delta = tau2s - (res - tau1);        /* FastTwoSum: res + delta = tau1 + tau2s */
    if (delta == 0.0) return res;               /* res = fl(s) */
    double R = tau2 - (res - tau1);             /* s - res = R + sum(p) */
    if (delta < 0.0) {                          /* fl(s) in {pred(res), res} */
        double pr = nextafter(res, -INFINITY);
        double gamma = pr - res;
        if (gamma == -eta) return res;
        double deltas = gamma / 2.0;            /* res + deltas = midpoint below res */
        double dss = transform_k(p, n, R - deltas, sigma, Ms);
        if (dss > 0.0) return res;
        if (dss < 0.0) return pr;
        return res + deltas;                    /* exact midpoint: round to even */
    } else {                                    /* fl(s) in {res, succ(res)} */
        double su = nextafter(res, INFINITY);
        double gamma = su - res;
        if (gamma == eta) return res;
        double deltas = gamma / 2.0;
        double dss = transform_k(p, n, R - deltas, sigma, Ms);
        if (dss > 0.0) return su;
        if (dss < 0.0) return res;
        return res + deltas;
    }
}
