/* NearSum: the sum of a vector of doubles rounded to nearest, from
 * S.M. Rump, T. Ogita, S. Oishi, "Accurate floating-point summation part II:
 * sign, K-fold faithful and rounding to nearest", SIAM J. Sci. Comput. 31(2), 2008
 * (Algorithm 7.3 with Transform, Algorithm 4.1 of part I / 3.3 of part II, and TransformK,
 * Algorithm 6.2).  Compiled with -ffp-contract=off: every line below is an error-free
 * transformation or a rounding the proofs account for; contraction would break them. */
#include "sum/sum.h"
#include "sum/eft.h"
#include "core/ozb_internal.h"
#include <string.h>
#include <float.h>
#include <math.h>
#if defined(__AVX2__)
#include <immintrin.h>
#endif

#define U_HALF_EPS 0x1p-53   /* u = eps/2 */

/* 2^ceil(log2|x|) for finite x != 0, from the bits where x is normal and the result is
 * below 2^1023 (no libm call: NearSum runs per element of the short exact sums) */
static double next_pow2(double x)
{
    const uint64_t b = ozb_bits(x) & 0x7fffffffffffffffull;
    const int e = (int)(b >> 52);
    if (e >= 1 && e <= 2045) return (b & 0x000fffffffffffffull) == 0 ? fabs(x) : ozb_pow2(e - 1022);
    int f;
    double m = frexp(fabs(x), &f);   /* |x| = m 2^f, m in [0.5, 1) */
    return m == 0.5 ? fabs(x) : ldexp(1.0, f);
}

/* the neighbours of a finite nonzero x (nextafter toward -Inf and +Inf) by its bits: the
 * integer order of the bits is the order of magnitudes, so one step in the bits is one ulp
 * (into and out of the subnormals, and up to Inf from DBL_MAX, alike) */
static double step_bits(double x, int up)
{
    uint64_t b = ozb_bits(x);
    const int away = (x > 0.0) == (up != 0);       /* toward larger magnitude */
    b = away ? b + 1 : b - 1;
    double r;
    memcpy(&r, &b, sizeof r);
    return r;
}

#if defined(__AVX2__)
static inline double hsum4(__m256d v)
{
    const __m128d s = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
}
#endif

/* max |p_i| (p finite) */
static double absmax(const double *p, int64_t n)
{
    int64_t i = 0;
    double mu = 0.0;
#if defined(__AVX2__)
    if (n >= 8) {
        const __m256d am = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffll));
        __m256d m0 = _mm256_setzero_pd(), m1 = m0;
        for (; i + 8 <= n; i += 8) {
            m0 = _mm256_max_pd(m0, _mm256_and_pd(_mm256_loadu_pd(p + i), am));
            m1 = _mm256_max_pd(m1, _mm256_and_pd(_mm256_loadu_pd(p + i + 4), am));
        }
        double t[4];
        _mm256_storeu_pd(t, _mm256_max_pd(m0, m1));
        for (int l = 0; l < 4; l++) mu = t[l] > mu ? t[l] : mu;
    }
#endif
    for (; i < n; i++) { const double a = fabs(p[i]); mu = a > mu ? a : mu; }
    return mu;
}

/* ExtractVector(sigma, p): q_i = (sigma + p_i) - sigma, p_i -= q_i (both exact), and the sum
 * of the q_i, exact in any order.  Bit budget: transform's sigma is Ms 2^ceil(log2 max|p|)
 * with Ms >= n + 2 (or Ms eps times the last sigma, after which every |p_i| <= eps sigma_last =
 * sigma / Ms), so |p_i| <= sigma / Ms, every q_i is a multiple of eps sigma with
 * |q_i| <= |p_i| + eps sigma, and the magnitudes of the q_i add up to at most
 * n (1 / (n + 2) + eps) sigma < sigma = 2^52 eps sigma: every partial sum of any subset, in any
 * order, is a double.  Eight lanes at a time where AVX2 is there. */
static double extract(double *p, int64_t n, double sigma)
{
    int64_t i = 0;
    double tau = 0.0;
#if defined(__AVX2__)
    if (n >= 8) {
        const __m256d s = _mm256_set1_pd(sigma);
        __m256d t0 = _mm256_setzero_pd(), t1 = t0;
        for (; i + 8 <= n; i += 8) {
            const __m256d a = _mm256_loadu_pd(p + i), b = _mm256_loadu_pd(p + i + 4);
            const __m256d qa = _mm256_sub_pd(_mm256_add_pd(s, a), s), qb = _mm256_sub_pd(_mm256_add_pd(s, b), s);
            t0 = _mm256_add_pd(t0, qa);
            t1 = _mm256_add_pd(t1, qb);
            _mm256_storeu_pd(p + i, _mm256_sub_pd(a, qa));
            _mm256_storeu_pd(p + i + 4, _mm256_sub_pd(b, qb));
        }
        tau = hsum4(_mm256_add_pd(t0, t1));
    }
#endif
    for (; i < n; i++) {
        const double q = (sigma + p[i]) - sigma;
        tau += q;
        p[i] -= q;
    }
    return tau;
}

/* Error-free transformation rho + sum(p) = tau1 + tau2 + sum(p') (p overwritten by p').
 * With reuse, sigma and Ms come from an earlier call and extraction continues below it. */
static void transform(double *p, int64_t n, double rho, double *tau1, double *tau2,
                      double *sigma_io, double *Ms_io, int reuse)
{
    double sigma, Ms;
    if (!reuse) {
        const double mu = absmax(p, n);
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
        const double tau = extract(p, n, sigma);
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

/* fl(sum p_i) in a fixed order (eight lanes, then the tail).  The faithfulness of res in
 * ozb_nearsum and transform_k rests only on |fl(sum p') - sum p'| <= gamma_(n-1) sum |p'|,
 * which holds for every order and summation tree; the result, RN(sum), is the same whatever
 * the order. */
static double plain_sum(const double *p, int64_t n)
{
    int64_t i = 0;
    double s = 0.0;
#if defined(__AVX2__)
    if (n >= 8) {
        __m256d s0 = _mm256_setzero_pd(), s1 = s0;
        for (; i + 8 <= n; i += 8) {
            s0 = _mm256_add_pd(s0, _mm256_loadu_pd(p + i));
            s1 = _mm256_add_pd(s1, _mm256_loadu_pd(p + i + 4));
        }
        s = hsum4(_mm256_add_pd(s0, s1));
    }
#endif
    for (; i < n; i++) s += p[i];
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
        double pr = step_bits(res, 0);
        double gamma = pr - res;
        if (gamma == -eta) return res;
        double deltas = gamma / 2.0;            /* res + deltas = midpoint below res */
        double dss = transform_k(p, n, R - deltas, sigma, Ms);
        if (dss > 0.0) return res;
        if (dss < 0.0) return pr;
        return res + deltas;                    /* exact midpoint: round to even */
    } else {                                    /* fl(s) in {res, succ(res)} */
        double su = step_bits(res, 1);
        double gamma = su - res;
        if (gamma == eta) return res;
        double deltas = gamma / 2.0;
        double dss = transform_k(p, n, R - deltas, sigma, Ms);
        if (dss > 0.0) return su;
        if (dss < 0.0) return res;
        return res + deltas;
    }
}

/* VecSum (Ogita, Rump, Oishi 2005): (p_i, p_(i-1)) = TwoSum(p_i, p_(i-1)) for i = 1..n-1, each
 * exact (|p| <= 2^1000 and n <= 32: no partial sum reaches 2^1006; an addition's error is
 * representable, underflow included), so the p still sum to the same value, p_(n-1) = s
 * their floating sum and p_0..p_(n-2) its errors.  Where those errors sum without a rounding
 * error (each TwoSum of their running sum leaves zero: a residual whose terms cancel in
 * order, with one inexact addition, leaves one nonzero error), E is their exact sum, and the
 * value is s + E exactly: its RN is the IEEE addition s + E (ties to even, a subnormal result
 * exact, an exact zero +0).  Else NearSum on the transformed terms, whose sum is unchanged
 * (each at most 2^1006: NearSum's precondition holds for n <= 32). */
double ozb_nearsum_vec(double *p, int64_t n)
{
    if (n <= 0) return 0.0;
    if (n > 32) return ozb_nearsum(p, n);
    for (int64_t i = 1; i < n; i++) ozb_two_sum(p[i], p[i - 1], &p[i], &p[i - 1]);
    double E = 0.0;
    for (int64_t i = 0; i + 1 < n; i++) {
        double e;
        ozb_two_sum(E, p[i], &E, &e);
        if (e != 0.0) return ozb_nearsum(p, n);
    }
    const double r = p[n - 1] + E;
    return r == 0.0 ? 0.0 : r;
}
