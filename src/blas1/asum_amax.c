/* ozblas_dasum: RN(sum |x_i|) in every mode; ozblas_idamax: the reference BLAS's scan.
 * incx <= 0: 0 for both, as the reference BLAS. */
#include "shapes/shapes.h"
#include "dispatch/dispatch.h"
#include "core/backend.h"
#include "core/fpenv.h"
#include "core/par.h"
#include "sum/sum.h"
#include "sum/eft.h"
#include "sum/longacc.h"
#include <immintrin.h>   /* AVX2: the library's baseline (x86-64-v3) */
#include <math.h>

/* Sum2 in 8 fixed lanes over |x_i| (every term >= 0: no cancellation), in parts of PART
 * elements (a fixed size: the parts never depend on the threads), then all the parts' partial
 * values rounded once by ozb_sum2_certify, whose bound takes the lanes' error terms' own
 * roundings: a lane takes k <= min(n, PART) / 8 + 7 terms, its s never decreases, so each
 * TwoSum error is at most u s_l, each running c_j at most j u s_l (1 + u), each addition to c
 * loses at most u |c_j|, and the lane's c is within k^2 u^2 s_l / 2 (1 + 2u) of its errors'
 * exact sum: k^2 2^-106 sum s_l over every part's lanes bounds them all with a factor 2 to
 * spare (the final c can be far smaller than its running values: errors of both signs).  0
 * where that does not certify or the range does not allow it (terms beyond 2^1000 / n, a sum
 * below 2^-900, where the bound's product would be subnormal).  A certified result is RN(exact), so the parts and the threads
 * that take them change no bit.  Parts run on the handle's threads from 2^16 elements: one
 * core does not stream a long vector as fast as the machine's memory can (one core of a
 * 2-core Xeon: about 6 GB/s). */
enum { L = 8, PART = 1 << 15 };
typedef struct { double s[L], c[L], m[L]; } lanes_t;

/* one part's lanes: x[0..n) (stride inc) into *v */
static void lanes_part(const double *x, int64_t n, int64_t inc, lanes_t *v)
{
    double *s = v->s, *c = v->c, *m8 = v->m;
    for (int l = 0; l < L; l++) s[l] = c[l] = m8[l] = 0.0;
    double mx = 0.0;
    int64_t i = 0;
    if (inc == 1) {   /* contiguous: the same lanes, two AVX2 registers of four */
        const __m256d sign = _mm256_set1_pd(-0.0);
        __m256d s0 = _mm256_setzero_pd(), s1 = s0, c0 = s0, c1 = s0, m0 = s0, m1 = s0;
        for (; i + L <= n; i += L) {
            const __m256d a0 = _mm256_andnot_pd(sign, _mm256_loadu_pd(x + i));
            const __m256d a1 = _mm256_andnot_pd(sign, _mm256_loadu_pd(x + i + 4));
            const __m256d t0 = _mm256_add_pd(s0, a0), t1 = _mm256_add_pd(s1, a1);
            const __m256d b0 = _mm256_sub_pd(t0, s0), b1 = _mm256_sub_pd(t1, s1);
            c0 = _mm256_add_pd(c0, _mm256_add_pd(_mm256_sub_pd(s0, _mm256_sub_pd(t0, b0)), _mm256_sub_pd(a0, b0)));
            c1 = _mm256_add_pd(c1, _mm256_add_pd(_mm256_sub_pd(s1, _mm256_sub_pd(t1, b1)), _mm256_sub_pd(a1, b1)));
            s0 = t0;
            s1 = t1;
            m0 = _mm256_max_pd(m0, a0);   /* a NaN a: m0 (the second operand) is kept ... */
            m1 = _mm256_max_pd(m1, a1);
        }
        _mm256_storeu_pd(s, s0); _mm256_storeu_pd(s + 4, s1);
        _mm256_storeu_pd(c, c0); _mm256_storeu_pd(c + 4, c1);
        _mm256_storeu_pd(m8, m0); _mm256_storeu_pd(m8 + 4, m1);
        /* ... but the sums carry it: s is NaN, and the range test below fails */
        for (int l = 0; l < L; l++) m8[l] = isnan(s[l]) ? NAN : m8[l];
    }
    for (; i + L <= n; i += L)
        for (int l = 0; l < L; l++) {
            const double a = fabs(x[(i + l) * inc]), t = s[l] + a, bb = t - s[l];
            c[l] += (s[l] - (t - bb)) + (a - bb);
            s[l] = t;
            m8[l] = a > m8[l] ? a : m8[l];
        }
    for (; i < n; i++) {
        const double a = fabs(x[i * inc]), t = s[0] + a, bb = t - s[0];
        c[0] += (s[0] - (t - bb)) + (a - bb);
        s[0] = t;
        mx = a > mx ? a : mx;
    }
    m8[0] = mx > m8[0] || isnan(mx) ? mx : m8[0];
}

typedef struct { const double *x; int64_t n, inc; lanes_t *v; } asum_t;
static int64_t parts_body(void *ctx, int64_t lo, int64_t hi)
{
    const asum_t *a = ctx;
    for (int64_t q = lo; q < hi; q++) {
        const int64_t i0 = q * PART, len = a->n - i0 < PART ? a->n - i0 : PART;
        lanes_part(a->x + i0 * a->inc, len, a->inc, &a->v[q]);
    }
    return 0;
}

static int lanes_sum(ozblas_handle_t h, const double *x, int64_t n, int64_t inc, int one_thread, double *out)
{
    const int64_t np = (n + PART - 1) / PART;
    /* one part on the stack; more in the handle's buffer: the parts' lanes, then their terms */
    lanes_t one;
    double pt[2 * L];
    double *buf = np == 1 ? NULL : ozb_buf_get(h, OZB_BUF_SHAPE_P, (sizeof(lanes_t) + sizeof pt) * (size_t)np);
    if (np > 1 && !buf) return 0;                         /* (the exact sum: the same bits) */
    lanes_t *v = np == 1 ? &one : (lanes_t *)buf;
    double *t = np == 1 ? pt : buf + (sizeof(lanes_t) / sizeof(double)) * (size_t)np;
    const asum_t a = { x, n, inc, v };
    (void)ozb_par_for(1, one_thread ? 1 : ozb_threads_for(h, (double)n), np, parts_body, (void *)&a);
    double mx = 0.0, ssum = 0.0;
    for (int64_t q = 0; q < np; q++)
        for (int l = 0; l < L; l++) {
            mx = v[q].m[l] > mx || isnan(v[q].m[l]) ? v[q].m[l] : mx;
            t[2 * L * q + l] = v[q].s[l];
            t[2 * L * q + L + l] = v[q].c[l];
            ssum += v[q].s[l];
        }
    if (!(mx * (double)(n + 1) <= 0x1p1000)) return 0;   /* NaN, Inf, or a sum near overflow */
    if (!(ssum >= 0x1p-900)) return 0;
    const double k = (double)((n < PART ? n : PART) / L + L);  /* (+ L: the tail's up to 7 on lane 0) */
    return ozb_sum2_certify(t, 2 * L * np, k * k * 0x1p-106 * ssum, out);
}

/* Short sums (n <= SHORT): the terms |x_i| distilled by passes of VecSum ((t_q, t_(q-1)) =
 * TwoSum(t_q, t_(q-1)) for q = 1..n-1, each exact, the sum of the terms unchanged), after each
 * pass the lower terms summed by a chain of TwoSums, R + sum e_q = sum_(q < n-1) t_q exactly,
 * and (y, z) = TwoSum(t_(n-1), R): the exact sum is y + z + sum e_q.  Where every e_q is zero,
 * y + z is the exact sum and y = RN(t_(n-1) + R), one IEEE addition, is RN(exact) itself: ties
 * (two or three terms of one binade sum to a tie half the time, which no bound decides) and
 * subnormal results included.  Elsewhere |sum e_q| <= E (1 + 2^-40) + 2^-1000, E = fl(sum |e_q|),
 * and the certified rounding decides (ozb_round_certified_z).  Terms at most 2^996 (n <= 16: no
 * sum exceeds 2^1000); NaN, Inf and larger terms are left to the exact sum, as is a sum three
 * passes do not decide.  1 and *out where decided. */
enum { SHORT = 16 };
static int short_sum(const double *x, int64_t n, int64_t inc, double *out)
{
    double t[SHORT];
    int ok = 1;
    for (int64_t i = 0; i < n; i++) {
        t[i] = fabs(x[i * inc]);
        ok &= t[i] <= 0x1p996;
    }
    if (!ok) return 0;
    for (int pass = 0; pass < 3; pass++) {
        for (int64_t q = 1; q < n; q++) ozb_two_sum(t[q], t[q - 1], &t[q], &t[q - 1]);
        double R = 0.0, E = 0.0;
        for (int64_t q = 0; q < n - 1; q++) {
            double e;
            ozb_two_sum(R, t[q], &R, &e);
            E += fabs(e);
        }
        double y, z;
        ozb_two_sum(t[n - 1], R, &y, &z);
        if (E == 0.0) {
            *out = y;
            return 1;
        }
        if (ozb_round_certified_z(y, z, E * (1.0 + 0x1p-40) + 0x1p-1000, out)) return 1;
    }
    return 0;
}

/* the exact sum (any range), or IEEE's NaN / Inf where x holds them */
static double exact_sum(const double *x, int64_t n, int64_t inc)
{
    int nan = 0, inf = 0;
    for (int64_t i = 0; i < n; i++) { nan |= isnan(x[i * inc]); inf |= isinf(x[i * inc]); }
    if (nan || inf) return nan ? NAN : INFINITY;
    ozb_longacc acc;
    ozb_la_init(&acc);
    for (int64_t i = 0; i < n; i++) ozb_la_add_product(&acc, fabs(x[i * inc]), 1.0);
    int sign;
    return ozb_la_round(&acc, &sign);
}

ozblas_status_t ozblas_dasum(ozblas_handle_t h, int64_t n, const double *x, int64_t incx, double *result)
{
    if (!h || !result || (n > 0 && !x)) return OZBLAS_STATUS_INVALID_VALUE;
    if (!ozb_host_operands(h)) return OZBLAS_STATUS_NOT_SUPPORTED;
    ozb_info_reset(h);
    if (n <= 0 || incx <= 0) {
        *result = 0.0;
        return OZBLAS_STATUS_SUCCESS;
    }
    ozb_fpenv_t env;   /* the error-free steps need CONTRACT §1's rounding */
    const int changed = ozb_fpenv_enter(&env);
    double r;
    if (!(n <= SHORT ? short_sum(x, n, incx, &r) : lanes_sum(h, x, n, incx, changed, &r))) r = exact_sum(x, n, incx);
    ozb_fpenv_leave(env, changed);
    *result = r;
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozblas_idamax(ozblas_handle_t h, int64_t n, const double *x, int64_t incx, int64_t *result)
{
    if (!h || !result || (n > 0 && incx > 0 && !x)) return OZBLAS_STATUS_INVALID_VALUE;
    if (!ozb_host_operands(h)) return OZBLAS_STATUS_NOT_SUPPORTED;
    ozb_info_reset(h);
    if (n <= 0 || incx <= 0) {
        *result = 0;
        return OZBLAS_STATUS_SUCCESS;
    }
    /* the reference's scan (strictly greater, from x_1) finds the first element of the largest
     * non-NaN magnitude, or x_1 itself where it is NaN: a max pass, then a search */
    double m = fabs(x[0]);
    int64_t best = 0;
    if (!isnan(m)) {
        double m8[L] = { m, m, m, m, m, m, m, m };   /* L: the sums' 8 lanes, the same count */
        int64_t i = 1;
        if (incx == 1)   /* contiguous: the lanes in vector registers */
            for (; i + L <= n; i += L)
                for (int l = 0; l < L; l++) m8[l] = fabs(x[i + l]) > m8[l] ? fabs(x[i + l]) : m8[l];
        for (; i < n; i++) m8[0] = fabs(x[i * incx]) > m8[0] ? fabs(x[i * incx]) : m8[0];
        for (int l = 0; l < L; l++) m = m8[l] > m ? m8[l] : m;
        while (fabs(x[best * incx]) != m) best++;
    }
    *result = best + 1;
    return OZBLAS_STATUS_SUCCESS;
}
