/* Short correctly rounded DOTs and GEMV-T rows (n <= OZB_DOT_ONE_SIGMA): the split of
 * eft_kern.h with a single sigma for every product, and none of the streaming machinery
 * (blocks, lane totals, folds).  Why: the fixed cost of the short DOTs LAPACK
 * and iterative solvers make by the million.
 *
 * Bit budget (u = 2^-53).  sigma a power of two, every |q| <= sigma / 2^9 (checked after the
 * pass, 2^11 beyond 256 products; then every |x y| <= sigma / 2), per product
 *     q = RN(x y + sigma) - sigma,   r = RN(x y - q):
 *   - x y + sigma lies in [sigma/2, 3 sigma/2]: its rounding h is a multiple of u sigma and q = h - sigma
 *     is exact (Sterbenz), a multiple of u sigma with |x y - q| <= u sigma;
 *   - n <= 256 products with every |q| <= sigma / 2^9, or n <= 1024 with every |q| <= sigma / 2^11:
 *     every partial sum of the q in any order is at most sigma / 2 < 2^53 u sigma, a multiple
 *     of u sigma: S is exact, whatever the lanes and the order of the horizontal adds;
 *   - r errs by at most u |x y - q| <= u^2 sigma (2^-1075 where it is subnormal), and R, a
 *     floating-point sum of n terms of magnitude <= u sigma, by at most gamma_(n-1) n u sigma:
 *     |S + R - sum x y| <= (n + n^2) u^2 sigma (1 + 2^-40) + n 2^-1075 =: B.
 * Non-finite or overflowing products make S or R non-finite (or m out of range): the call is
 * left to the general path, as is one the certificate cannot decide.
 * Compiled with -ffp-contract=off: the FMAs are explicit. */
#include "eft/eft_dot_small.h"
#include "exact/exact_small.h"
#include "eft/eft_kern.h"
#include "eft/eft_cert4.h"
#include "sum/sum.h"
#include "eft/cpu_dq.h"
#include <math.h>

#ifdef EFT_AVX2
static inline double hsum(__m256d v)
{
    const __m128d s = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
}

#define ONE_SIGMA one_sigma
#define ONE_SIGMA_TARGET __attribute__((always_inline))
#define ONE_SIGMA_MAXABS OZB_MAXABS4
#include "eft/eft_one_sigma.inc"
/* the same where the CPU has AVX-512 DQ and VL (one operation fewer per four products: DOT 100
 * -4 %, 1000 -7 %, AVX512 EPYC); only ozb_eft_dot_unit calls it, after asking the CPU */
#define ONE_SIGMA one_sigma_dq
#define ONE_SIGMA_TARGET __attribute__((always_inline)) OZB_DQ_TARGET
#define ONE_SIGMA_MAXABS OZB_MAXABS4_DQ
#include "eft/eft_one_sigma.inc"
#include "core/gather.h"
#endif

/* DOTs of at most four products, alpha = 1, beta = 0 (LAPACK makes millions): the products
 * split exactly by TwoProduct, p_l + e_l = x_l y_l, and their eight parts summed by a tree of
 * TwoSums rather than a chain (a chain of seven waits on each one's latency):
 *     (s_0, t_0) = TwoSum(p_0, p_2), (s_1, t_1) = TwoSum(p_1, p_3), (u, v) = TwoSum(s_0, s_1),
 * all exact, so the exact sum is u + v + t_0 + t_1 + sum e_l.  The seven error parts summed in
 * floating point, r = fl(v + t_0 + t_1 + sum e_l), err by at most gamma_6 of their absolute
 * sum a; (y, z) = TwoSum(u, r) is exact, so the exact sum lies within B = 2^-49 a (at least
 * 2^-1000 where a > 0, as sum.c's Sum2 bound) of y + z, which the certified rounding decides.
 * B covers gamma_6 a with the roundings of a itself (a is a sum of 7 terms, within gamma_6 of
 * the true one) many times over.  Every part is at most 2^1000 (TwoProduct's range, each product
 * checked), so no sum overflows.  One product: RN(x y) is the IEEE product itself where it is
 * a normal number.  Zero, subnormal, non-finite and uncertified results are left to the split
 * below (the same bits: they are RN(exact) either way). */
int ozb_eft_dot_tiny(const double *x, int64_t xs, const double *y, int64_t ys, int64_t n, double *out)
{
    if (n == 1) {
        const double p = x[0] * y[0], ap = fabs(p);
        if (!(ap >= 0x1p-1022 && ap <= 0x1.fffffffffffffp1023)) return 0;
        *out = p;
        return 1;
    }
#ifdef EFT_AVX2
    /* the lanes from registers (n >= 2; zeros beyond n): a vector load of scalars just stored
     * would wait on failed store forwarding */
    const __m256d X = _mm256_setr_pd(x[0], x[xs], n > 2 ? x[2 * xs] : 0.0, n > 3 ? x[3 * xs] : 0.0);
    const __m256d Y = _mm256_setr_pd(y[0], y[ys], n > 2 ? y[2 * ys] : 0.0, n > 3 ? y[3 * ys] : 0.0), z = _mm256_setzero_pd();
    const __m256d P = _mm256_mul_pd(X, Y), E = _mm256_fmsub_pd(X, Y, P), aP = _mm256_and_pd(P, ABSMASK);
    /* TwoProduct's range (sum/eft.h: ozb_two_product), lane by lane: |p| in [2^-969, 2^1000], or
     * a zero factor with the other finite (then p and e are zeros: an exact zero sum is +0
     * whatever their signs, ozb_round_certified_z) */
    const __m256d fin = _mm256_and_pd(_mm256_cmp_pd(_mm256_and_pd(X, ABSMASK), _mm256_set1_pd(0x1.fffffffffffffp1023), _CMP_LE_OQ),
                                      _mm256_cmp_pd(_mm256_and_pd(Y, ABSMASK), _mm256_set1_pd(0x1.fffffffffffffp1023), _CMP_LE_OQ));
    const __m256d zero_f = _mm256_and_pd(fin, _mm256_or_pd(_mm256_cmp_pd(X, z, _CMP_EQ_OQ), _mm256_cmp_pd(Y, z, _CMP_EQ_OQ)));
    const __m256d in = _mm256_and_pd(_mm256_cmp_pd(aP, _mm256_set1_pd(0x1p-969), _CMP_GE_OQ),
                                     _mm256_cmp_pd(aP, _mm256_set1_pd(0x1p1000), _CMP_LE_OQ));
    if (_mm256_movemask_pd(_mm256_or_pd(in, zero_f)) != 0xf) return 0;
    /* (s_0, s_1, t_0, t_1) = TwoSum of the products' halves */
    const __m128d p01 = _mm256_castpd256_pd128(P), p23 = _mm256_extractf128_pd(P, 1);
    const __m128d s = _mm_add_pd(p01, p23), bb = _mm_sub_pd(s, p01);
    const __m128d t = _mm_add_pd(_mm_sub_pd(p01, _mm_sub_pd(s, bb)), _mm_sub_pd(p23, bb));
    const double s0 = _mm_cvtsd_f64(s), s1 = _mm_cvtsd_f64(_mm_unpackhi_pd(s, s));
    double u, v, yy, zz;
    ozb_two_sum(s0, s1, &u, &v);
    /* the seven error parts: e_0..e_3 and t_0, t_1 by lanes, then v */
    const __m128d e01 = _mm256_castpd256_pd128(E), e23 = _mm256_extractf128_pd(E, 1);
    const __m128d am = _mm_castsi128_pd(_mm_set1_epi64x(0x7fffffffffffffffll));
    const __m128d w = _mm_add_pd(_mm_add_pd(e01, e23), t);
    const __m128d wa = _mm_add_pd(_mm_add_pd(_mm_and_pd(e01, am), _mm_and_pd(e23, am)), _mm_and_pd(t, am));
    const double r = (_mm_cvtsd_f64(w) + _mm_cvtsd_f64(_mm_unpackhi_pd(w, w))) + v;
    const double a = (_mm_cvtsd_f64(wa) + _mm_cvtsd_f64(_mm_unpackhi_pd(wa, wa))) + fabs(v);
    ozb_two_sum(u, r, &yy, &zz);
    /* a nonzero bound never underflows; below 2^-951 a 2^-49 would be under 2^-1000, so the
     * floor is taken without the product, which below 2^-973 would be subnormal (eft_kern.h,
     * BOUND_A_MIN: such products cost Intel cores a microcode assist) */
    double B = a > 0.0 && a < 0x1p-951 ? 0x1p-1000 : a * 0x1p-49;
    if (a > 0.0 && B < 0x1p-1000) B = 0x1p-1000;
    return ozb_round_certified_z_inline(yy, zz, B, out);
#else
    double T[8];
    for (int64_t l = 0; l < n; l++)
        if (!ozb_two_product(x[l * xs], y[l * ys], &T[l], &T[n + l])) return 0;
    return ozb_sum2_certify(T, 2 * n, 0.0, out);
#endif
}

#ifdef EFT_AVX2
static double absmax(const double *x, int64_t n);

/* The bound on |S + R - sum x y| for one_sigma's split of n products with its sigma.
 * n^2 + n < 2^21 is exact, so is t = (n^2 + n) sigma (sigma <= 2^1008) and its product by
 * 2^-106 (at least 2^-1066 with at most 21 bits: a multiple of 2^-1074); the margin's rounding
 * errs upward of what the 2^-40 needs.  Where t 2^-106 would be subnormal (t < 2^-916) the
 * bound is 2^-1000 + 2^-1021 instead, at least the formula's (t 2^-106 (1 + 2^-40) rounds to at
 * most 2^-1022 + 2^-1062 there), without its subnormal products (eft_kern.h, BOUND_A_MIN: such
 * products cost Intel cores a microcode assist) */
static inline double one_sigma_bound(int64_t n, double sigma)
{
    const double nn = (double)n, t = (nn * nn + nn) * sigma;
    if (t > 0.0 && t < 0x1p-916) return 0x1p-1000 + 0x1p-1021;
    return t * 0x1p-106 * (1.0 + 0x1p-40) + 0x1p-1000;
}

/* v 2^-s into out, 1 where every element stays exact: each nonzero |v| at least 2^(s - 1022)
 * (then v 2^-s is a normal number, no bit lost) and finite */
static int scale_down(const double *v, int64_t n, int s, double *out)
{
    const double f = ldexp(1.0, -s), lo = ldexp(1.0, s - 1022);
    int ok = 1;
    for (int64_t l = 0; l < n; l++) {
        const double a = fabs(v[l]);
        ok &= a == 0.0 || (a >= lo && a <= 0x1.fffffffffffffp1023);
        out[l] = v[l] * f;
    }
    return ok;
}

/* The split refused (a product beyond 2^990: LAPACK's SVD tests scale matrices near overflow,
 * DOTs of 16-47 products up to 2^1013 would take the exact short sum, 0.35 us): the same split on
 * the DOT with its larger vector and c scaled by 2^-s, s bringing every product below 2^980.
 * Exact where no scaled element falls below 2^-1022 (scale_down), so the scaled exact value
 * is 2^-s times the DOT's, and its certified RN, r, times 2^s is RN(exact) wherever |r| >
 * 2^-1022 (then the scaled value was normal too, and scaling it commutes with rounding) and
 * r 2^s is finite.  0 elsewhere: the caller's general path finds the same bits. */
static int short_scaled(const ozb_problem *pr, const double *x, const double *y, int64_t n)
{
    const double xm = absmax(x, n), ym = absmax(y, n);
    if (!(xm > 0.0 && xm <= 0x1.fffffffffffffp1023 && ym > 0.0 && ym <= 0x1.fffffffffffffp1023)) return 0;
    const int s = ilogb(xm) + ilogb(ym) + 2 - 980;      /* every |x y| < 2^(ilogb xm + ilogb ym + 2) */
    if (s <= 0) return 0;                               /* not too large: refused for another reason */
    double vb[OZB_DOT_ONE_SIGMA];
    const int sx = xm >= ym;                             /* the larger vector is scaled */
    if (!scale_down(sx ? x : y, n, s, vb)) return 0;
    const int use_c = pr->beta != 0.0;
    double c = 0.0;
    if (use_c && !scale_down(pr->c, 1, s, &c)) return 0;
    double S, R, sigma;
    if (!one_sigma(sx ? vb : x, sx ? y : vb, n, &S, &R, &sigma)) return 0;
    double r;
    if (!ozb_eft_finish(S, R, one_sigma_bound(n, sigma), pr->alpha, pr->beta, c, use_c, &r)) {
        /* the scaled sum cancels beyond the split's bound: the exact short sum on the scaled
         * DOT, whose products are now within TwoProduct's range (the same RN(2^-s exact)) */
        ozb_problem sp = *pr;
        const ozb_view vx = { sx ? vb : x, 1, 1 }, vy = { sx ? y : vb, 1, 1 };
        sp.a = vx; sp.b = vy; sp.c = &c;
        if (!ozb_exact_small_value(&sp, &r)) return 0;
    }
    /* above 2^-1022 strictly: r = 2^-1022 may be a subnormal scaled value rounded up on the
     * subnormal grid, coarser than the grid of the unscaled (normal) value */
    if (!(fabs(r) > 0x1p-1022)) return 0;
    const double out = ldexp(r, s);
    if (!isfinite(out)) return 0;
    *pr->c = out;
    return 1;
}
#endif

#ifdef EFT_AVX2
static inline int dot_round(const ozb_problem *pr, double S, double R, double sigma);
static int dot_strided(const ozb_problem *pr);
#endif

int ozb_eft_dot_short(const ozb_problem *pr)
{
#ifdef EFT_AVX2
    const int64_t n = pr->k;
    if (n <= 0 || n > OZB_DOT_ONE_SIGMA) return 0;
    if (n <= 4 && pr->alpha == 1.0 && pr->beta == 0.0) {
        double r;
        if (ozb_eft_dot_tiny(pr->a.p, pr->a.cs, pr->b.p, pr->b.cs, n, &r)) {
            *pr->c = r;
            return 1;
        }
    }
    if (pr->a.cs != 1 || pr->b.cs != 1) return dot_strided(pr);
    double S, R, sigma;
    if (!one_sigma(pr->a.p, pr->b.p, n, &S, &R, &sigma)) return short_scaled(pr, pr->a.p, pr->b.p, n);
    return dot_round(pr, S, R, sigma);
#else
    (void)pr;
    return 0;
#endif
}

#ifdef EFT_AVX2
/* the split refused (out of its range): ozb_eft_dot_short's own next step, the split on the
 * DOT scaled */
static __attribute__((noinline)) int dot_unit_scaled(const double *x, const double *y, int64_t n, double *out)
{
    const ozb_problem pr = { .m = 1, .n = 1, .k = n, .a = { x, 0, 1 }, .b = { y, 0, 1 }, .alpha = 1.0, .beta = 0.0, .c = out };
    return short_scaled(&pr, x, y, n);
}

/* ozb_eft_dot_unit's split and rounding, with AVX2 or with AVX-512 DQ and VL; each a function
 * of its own, so that the choice between them costs the caller no frame (a tail jump) */
static __attribute__((noinline)) int dot_unit_avx2(const double *x, const double *y, int64_t n, double *out)
{
    double S, R, sigma;
    if (!one_sigma(x, y, n, &S, &R, &sigma)) return dot_unit_scaled(x, y, n, out);
    return ozb_eft_finish_unit(S, R, one_sigma_bound(n, sigma), out);
}
static __attribute__((noinline)) OZB_DQ_TARGET int dot_unit_dq(const double *x, const double *y, int64_t n, double *out)
{
    double S, R, sigma;
    if (!one_sigma_dq(x, y, n, &S, &R, &sigma)) return dot_unit_scaled(x, y, n, out);
    return ozb_eft_finish_unit(S, R, one_sigma_bound(n, sigma), out);
}

/* n <= 4: the exact products first */
static __attribute__((noinline)) int dot_unit_tiny(const double *x, const double *y, int64_t n, int dq, double *out)
{
    if (ozb_eft_dot_tiny(x, 1, y, 1, n, out)) return 1;
    return dq ? dot_unit_dq(x, y, n, out) : dot_unit_avx2(x, y, n, out);
}
#endif

int ozb_eft_dot_unit(const double *x, const double *y, int64_t n, int wide, double *out)
{
#ifdef EFT_AVX2
    const int dq = wide && ozb_cpu_dq();
    if (n <= 4) return dot_unit_tiny(x, y, n, dq, out);
    return dq ? dot_unit_dq(x, y, n, out) : dot_unit_avx2(x, y, n, out);
#else
    (void)x; (void)y; (void)n; (void)wide; (void)out;
    return 0;
#endif
}

#ifdef EFT_AVX2
/* RN(alpha S + R + beta c) into C from one_sigma's split, 1 where certified */
static inline int dot_round(const ozb_problem *pr, double S, double R, double sigma)
{
    const int64_t n = pr->k;
    const int use_c = pr->beta != 0.0;
    double r;
    /* ozb_eft_finish, its case alpha = 1, beta = 0 inline (no call on a short DOT's path) */
    const double B = one_sigma_bound(n, sigma);
    if (!(pr->alpha == 1.0 && !use_c ? ozb_eft_finish_unit(S, R, B, &r)
                                      : ozb_eft_finish(S, R, B, pr->alpha, pr->beta, use_c ? *pr->c : 0.0, use_c, &r)))
        return 0;
    *pr->c = r;
    return 1;
}

/* A strided short DOT: the operands gathered into contiguous copies first (a function of its
 * own, so that the contiguous call's frame is not 16 KiB) */
static __attribute__((noinline)) int dot_strided(const ozb_problem *pr)
{
    const int64_t n = pr->k;
    const double *x = pr->a.p, *y = pr->b.p;
    double xb[OZB_DOT_ONE_SIGMA], yb[OZB_DOT_ONE_SIGMA];
    ozb_gather(x, n, pr->a.cs, xb);
    ozb_gather(y, n, pr->b.cs, yb);
    double S, R, sigma;
    if (!one_sigma(xb, yb, n, &S, &R, &sigma)) return short_scaled(pr, xb, yb, n);
    return dot_round(pr, S, R, sigma);
}

/* max |x_i| of x[0..n-1] (0 < n), NaN and Inf included as themselves (the caller's range check) */
static double absmax(const double *x, int64_t n)
{
    const int64_t n4 = n & ~(int64_t)3;
    __m256d m0 = _mm256_and_pd(ozb_first4(x + n4, n - n4), ABSMASK), m1 = _mm256_setzero_pd();
    /* max_pd returns its second operand where either is NaN, so a NaN in m is dropped by the
     * next element: the NaNs met are OR-ed into a flag instead */
    __m256d nan = _mm256_cmp_pd(m0, m0, _CMP_UNORD_Q);
    int64_t i = 0;
    for (; i + 8 <= n4; i += 8) {
        const __m256d v0 = _mm256_loadu_pd(x + i), v1 = _mm256_loadu_pd(x + i + 4);
        nan = _mm256_or_pd(nan, _mm256_cmp_pd(v0, v1, _CMP_UNORD_Q));
        m0 = _mm256_max_pd(m0, _mm256_and_pd(v0, ABSMASK));
        m1 = _mm256_max_pd(m1, _mm256_and_pd(v1, ABSMASK));
    }
    if (i < n4) {
        const __m256d v = _mm256_loadu_pd(x + i);
        nan = _mm256_or_pd(nan, _mm256_cmp_pd(v, v, _CMP_UNORD_Q));
        m1 = _mm256_max_pd(m1, _mm256_and_pd(v, ABSMASK));
    }
    m0 = _mm256_max_pd(m0, m1);
    m0 = _mm256_max_pd(m0, _mm256_permute4x64_pd(m0, 0x4e));
    m0 = _mm256_max_pd(m0, _mm256_permute_pd(m0, 0x5));
    return _mm256_movemask_pd(nan) ? NAN : _mm256_cvtsd_f64(m0);
}

#endif

double ozb_eft_absmax(const double *x, int64_t n)
{
#ifdef EFT_AVX2
    return n > 0 ? absmax(x, n) : 0.0;
#else
    (void)x; (void)n;
    return NAN;
#endif
}

/* With ymax >= max|y_i| known, sigma comes from max|x_i| ymax, before the pass: no largest |q|
 * to keep and no second pass.  Budget: with P = RN(xmax ymax), every |x_i y_i| <= xmax ymax
 * <= P (1 + u) < 2 P, so sigma_for(4P) (4P < 2^-9 sigma) gives |x y| < 2^-10 sigma and
 * |q| <= |x y| + u sigma < 2^-9 sigma: the conditions of the file's head (times 4, 2^-11 sigma,
 * beyond 256 products). */
int ozb_eft_split1_bounded(const double *x, const double *y, int64_t n, double ymax, double *S, double *R, double *G)
{
#ifdef EFT_AVX2
    if (n <= 0 || n > OZB_DOT_ONE_SIGMA || !(ymax <= 0x1p490)) return 0;
    const double xmax = absmax(x, n);
    if (!(xmax <= 0x1p490)) return 0;                       /* Inf, NaN, or products beyond 2^980 */
    __m256d g = sigma_for(_mm256_set1_pd(4.0 * (xmax * ymax)));
    if (n > 256) g = _mm256_mul_pd(g, _mm256_set1_pd(4.0));
    const int64_t n4 = n & ~(int64_t)3, r = n - n4;
    __m256d S0 = _mm256_setzero_pd(), S1 = S0, R0 = S0, R1 = S0;
    if (r) SPLIT4_NOMAX(S0, R0, ozb_first4(x + n4, r), ozb_first4(y + n4, r), g);
    int64_t i = 0;
    for (; i + 8 <= n4; i += 8) {
        SPLIT4_NOMAX(S0, R0, _mm256_loadu_pd(x + i), _mm256_loadu_pd(y + i), g);
        SPLIT4_NOMAX(S1, R1, _mm256_loadu_pd(x + i + 4), _mm256_loadu_pd(y + i + 4), g);
    }
    if (i < n4) SPLIT4_NOMAX(S1, R1, _mm256_loadu_pd(x + i), _mm256_loadu_pd(y + i), g);
    *S = hsum(_mm256_add_pd(S0, S1));
    *R = hsum(_mm256_add_pd(R0, R1));
    const double nn = (double)n, sigma = _mm256_cvtsd_f64(g);
    *G = ((nn * nn + nn) * sigma) * 0x1p-14;                 /* as ozb_eft_split1's */
    return 1;
#else
    (void)x; (void)y; (void)n; (void)ymax; (void)S; (void)R; (void)G;
    return 0;
#endif
}

int ozb_eft_split1(const double *x, const double *y, int64_t n, double *S, double *R, double *G)
{
#ifdef EFT_AVX2
    double sigma;
    if (n <= 0 || n > OZB_DOT_ONE_SIGMA || !one_sigma(x, y, n, S, R, &sigma)) return 0;
    const double nn = (double)n;
    /* (n^2 + n) sigma 2^-14: exact (at least 2^-974, at most 21 bits), and G EBC =
     * (n^2 + n) 2^-106 (1 + 2^-20) sigma covers B at the top with the margin to spare */
    *G = ((nn * nn + nn) * sigma) * 0x1p-14;
    return 1;
#else
    (void)x; (void)y; (void)n; (void)S; (void)R; (void)G;
    return 0;
#endif
}
