/* The error-free GEMM's operands (eft_gemm.c): op(A) packed into strips of 8 rows with each
 * row's maxima per sub-block of SBL products and per block of BL, op(B)'s columns' maxima
 * alike.  Data movement and maxima only (no rounding): the maxima do not depend on the order
 * of their elements, NaN kept wherever one is met. */
#include "fused/eft_kern.h"

#ifdef EFT_AVX2
/* max(m, |v|) per lane, with *nan collecting the lanes where some v was NaN (max_pd alone
 * would drop a NaN met before a number) */
static inline __m256d absmax_acc(__m256d m, __m256d v, __m256d *nan)
{
    *nan = _mm256_or_pd(*nan, _mm256_cmp_pd(v, v, _CMP_UNORD_Q));
    return _mm256_max_pd(m, _mm256_and_pd(v, ABSMASK));
}
static inline __m256d with_nan(__m256d m, __m256d nan) { return _mm256_blendv_pd(m, _mm256_set1_pd(NAN), nan); }

/* the strips of column-major op(A) (rs == 1), full strips of 8 rows: two loads per column, the
 * same values and maxima as the element loop below */
static void pack_full_strip(const ozb_problem *pr, int64_t b, double *s, double *mA, int64_t ns)
{
    const int64_t k = pr->k;
    for (int64_t q = 0; q < ns; q++) {
        __m256d m0 = _mm256_setzero_pd(), m1 = m0, n0 = m0, n1 = m0;
        for (int64_t l = q * SBL; l < k && l < (q + 1) * SBL; l++) {
            const double *src = pr->a.p + 8 * b + l * pr->a.cs;
            const __m256d v0 = _mm256_loadu_pd(src), v1 = _mm256_loadu_pd(src + 4);
            _mm256_storeu_pd(s + 8 * l, v0);
            _mm256_storeu_pd(s + 8 * l + 4, v1);
            m0 = absmax_acc(m0, v0, &n0);
            m1 = absmax_acc(m1, v1, &n1);
        }
        if (mA) {
            _mm256_storeu_pd(mA + 8 * (b * ns + q), with_nan(m0, n0));
            _mm256_storeu_pd(mA + 8 * (b * ns + q) + 4, with_nan(m1, n1));
        }
    }
}
#endif

#ifdef EFT_AVX2
/* The same for op(A) with contiguous rows (a.cs == 1: a transposed A, LAPACK's and NumPy's TN
 * products), full strips: four elements of each of the 8 rows loaded at a time and transposed
 * in registers, instead of the element loop below (CR DGEMM TN 64^3 ~15 % slower than NN with
 * it).  The same values and maxima: a maximum does not depend on the order of its elements
 * (NaN kept as in absmax_acc). */
static void pack_full_strip_t(const ozb_problem *pr, int64_t b, double *s, double *mA, int64_t ns)
{
    const int64_t k = pr->k, rs = pr->a.rs;
    const double *a = pr->a.p + 8 * b * rs;
    for (int64_t q = 0; q < ns; q++) {
        __m256d m0 = _mm256_setzero_pd(), m1 = m0, n0 = m0, n1 = m0;
        const int64_t l0 = q * SBL, l1 = l0 + SBL < k ? l0 + SBL : k;
        int64_t l = l0;
        for (; l + 4 <= l1; l += 4) {
            __m256d v[8];
            for (int r = 0; r < 8; r++) v[r] = _mm256_loadu_pd(a + r * rs + l);
            for (int h = 0; h < 2; h++) {          /* rows 4h..4h+3: a 4 x 4 transpose */
                const __m256d t0 = _mm256_unpacklo_pd(v[4 * h], v[4 * h + 1]), t1 = _mm256_unpackhi_pd(v[4 * h], v[4 * h + 1]);
                const __m256d t2 = _mm256_unpacklo_pd(v[4 * h + 2], v[4 * h + 3]), t3 = _mm256_unpackhi_pd(v[4 * h + 2], v[4 * h + 3]);
                const __m256d c[4] = { _mm256_permute2f128_pd(t0, t2, 0x20), _mm256_permute2f128_pd(t1, t3, 0x20),
                                       _mm256_permute2f128_pd(t0, t2, 0x31), _mm256_permute2f128_pd(t1, t3, 0x31) };
                for (int e = 0; e < 4; e++) {
                    _mm256_storeu_pd(s + 8 * (l + e) + 4 * h, c[e]);
                    if (h) m1 = absmax_acc(m1, c[e], &n1);
                    else m0 = absmax_acc(m0, c[e], &n0);
                }
            }
        }
        for (; l < l1; l++) {
            double col[8];
            for (int r = 0; r < 8; r++) col[r] = a[r * rs + l];
            const __m256d c0 = _mm256_loadu_pd(col), c1 = _mm256_loadu_pd(col + 4);
            _mm256_storeu_pd(s + 8 * l, c0);
            _mm256_storeu_pd(s + 8 * l + 4, c1);
            m0 = absmax_acc(m0, c0, &n0);
            m1 = absmax_acc(m1, c1, &n1);
        }
        if (mA) {
            _mm256_storeu_pd(mA + 8 * (b * ns + q), with_nan(m0, n0));
            _mm256_storeu_pd(mA + 8 * (b * ns + q) + 4, with_nan(m1, n1));
        }
    }
}
#endif

/* the larger of c and |v| >= 0, NaN kept once met */
static inline double max_keep_nan(double c, double v) { return v > c || isnan(v) ? v : c; }

#ifdef EFT_AVX2
/* The larger of a and b per lane, for values >= 0, +Inf or NaN of sign 0 (maxima of |v|): as
 * integers these are ordered as the values with NaN above Inf, so a NaN is kept */
static inline __m256d imax4(__m256d a, __m256d b)
{
    return _mm256_blendv_pd(a, b, _mm256_castsi256_pd(_mm256_cmpgt_epi64(_mm256_castpd_si256(b), _mm256_castpd_si256(a))));
}
static inline double imax_lanes(__m256d a)
{
    a = imax4(a, _mm256_permute2f128_pd(a, a, 1));
    return _mm256_cvtsd_f64(imax4(a, _mm256_permute_pd(a, 5)));
}
#endif

/* strip b's block maxima from its sub-blocks' */
static void strip_coarse(const double *mA, double *mAc, int64_t b, int64_t ns, int64_t nq)
{
    for (int64_t q = 0; q < nq; q++) {
        const int64_t s0 = q * (BL / SBL), s1 = s0 + BL / SBL < ns ? s0 + BL / SBL : ns;
#ifdef EFT_AVX2
        __m256d c0 = _mm256_setzero_pd(), c1 = c0;
        for (int64_t s = s0; s < s1; s++) {
            c0 = imax4(c0, _mm256_loadu_pd(mA + 8 * (b * ns + s)));
            c1 = imax4(c1, _mm256_loadu_pd(mA + 8 * (b * ns + s) + 4));
        }
        _mm256_storeu_pd(mAc + 8 * (b * nq + q), c0);
        _mm256_storeu_pd(mAc + 8 * (b * nq + q) + 4, c1);
#else
        for (int r = 0; r < 8; r++) {
            double c = 0.0;
            for (int64_t s = s0; s < s1; s++) c = max_keep_nan(c, mA[8 * (b * ns + s) + r]);
            mAc[8 * (b * nq + q) + r] = c;
        }
#endif
    }
}

void ozb_eft_pack_strips(const ozb_problem *pr, double *P, double *mA, double *mAc)
{
    const int64_t m = pr->m, k = pr->k, ns = (k + SBL - 1) / SBL, nq = (k + BL - 1) / BL;
    for (int64_t b = 0; b < (m + 7) / 8; b++) {
        double *s = P + 8 * k * b;
        const int rows = (int)(m - 8 * b < 8 ? m - 8 * b : 8);
#ifdef EFT_AVX2
        if (rows == 8 && (pr->a.rs == 1 || pr->a.cs == 1)) {
            if (pr->a.rs == 1) pack_full_strip(pr, b, s, mA, ns);
            else pack_full_strip_t(pr, b, s, mA, ns);
            if (mA) strip_coarse(mA, mAc, b, ns, nq);
            continue;
        }
#endif
        for (int64_t q = 0; q < ns; q++) {
            double mx[8] = {0, 0, 0, 0, 0, 0, 0, 0};
            for (int64_t l = q * SBL; l < k && l < (q + 1) * SBL; l++) {
                const double *src = pr->a.p + 8 * b * pr->a.rs + l * pr->a.cs;
                for (int r = 0; r < 8; r++) {
                    const double v = r < rows ? src[r * pr->a.rs] : 0.0;
                    s[8 * l + r] = v;
                    mx[r] = max_keep_nan(mx[r], fabs(v));   /* NaN kept: out of range */
                }
            }
            if (mA)
                for (int r = 0; r < 8; r++) mA[8 * (b * ns + q) + r] = mx[r];
        }
        if (mA) strip_coarse(mA, mAc, b, ns, nq);
    }
}

void ozb_eft_column_maxima(const ozb_problem *pr, const double *x, int64_t ldx, double *mX, double *mXc)
{
    const int64_t k = pr->k, ns = (k + SBL - 1) / SBL, nq = (k + BL - 1) / BL;
    for (int64_t j = 0; j < pr->n; j++) {
        const double *xj = x + j * ldx;
        int64_t s = 0;
#ifdef EFT_AVX2
        for (; s < k / SBL; s++) {           /* full sub-blocks: NaN (of sign 0) where one is NaN */
            const __m256d v0 = _mm256_and_pd(_mm256_loadu_pd(xj + SBL * s), ABSMASK);
            const __m256d v1 = _mm256_and_pd(_mm256_loadu_pd(xj + SBL * s + 4), ABSMASK);
            mX[j * ns + s] = imax_lanes(imax4(v0, v1));
        }
#endif
        for (; s < ns; s++) {
            double mx = 0.0;
            for (int64_t l = s * SBL; l < k && l < (s + 1) * SBL; l++) mx = max_keep_nan(mx, fabs(xj[l]));
            mX[j * ns + s] = mx;
        }
        /* per block: its maxima where its sub-blocks' are flat (all within FLAT_X of the
         * largest, none zero), NaN where one is NaN, else -1 (the sub-blocks' bound) */
        for (int64_t q = 0; q < nq; q++) {
            double hi = 0.0, lo = INFINITY;
            for (s = q * (BL / SBL); s < ns && s < (q + 1) * (BL / SBL); s++) {
                const double v = mX[j * ns + s];
                hi = max_keep_nan(hi, v);
                lo = v < lo ? v : lo;
            }
            mXc[j * nq + q] = isnan(hi) || (lo > 0.0 && hi <= FLAT_X * lo) ? hi : -1.0;
        }
    }
}

void ozb_eft_pack_columns(const ozb_problem *pr, double *Bp)
{
    const int64_t n = pr->n, k = pr->k, cs = pr->b.cs, rs = pr->b.rs;
    const double *b = pr->b.p;
    int64_t j = 0;
#ifdef EFT_AVX2
    if (rs == 1)                  /* columns j..j+3 of op(B) side by side in memory: 4 x 4 transposes */
        for (; j + 4 <= n; j += 4) {
            int64_t l = 0;
            for (; l + 4 <= k; l += 4) {
                const __m256d v0 = _mm256_loadu_pd(b + l * cs + j), v1 = _mm256_loadu_pd(b + (l + 1) * cs + j);
                const __m256d v2 = _mm256_loadu_pd(b + (l + 2) * cs + j), v3 = _mm256_loadu_pd(b + (l + 3) * cs + j);
                const __m256d t0 = _mm256_unpacklo_pd(v0, v1), t1 = _mm256_unpackhi_pd(v0, v1);
                const __m256d t2 = _mm256_unpacklo_pd(v2, v3), t3 = _mm256_unpackhi_pd(v2, v3);
                _mm256_storeu_pd(Bp + l + j * k, _mm256_permute2f128_pd(t0, t2, 0x20));
                _mm256_storeu_pd(Bp + l + (j + 1) * k, _mm256_permute2f128_pd(t1, t3, 0x20));
                _mm256_storeu_pd(Bp + l + (j + 2) * k, _mm256_permute2f128_pd(t0, t2, 0x31));
                _mm256_storeu_pd(Bp + l + (j + 3) * k, _mm256_permute2f128_pd(t1, t3, 0x31));
            }
            for (; l < k; l++)
                for (int64_t c = 0; c < 4; c++) Bp[l + (j + c) * k] = b[l * cs + j + c];
        }
#endif
    for (; j < n; j++)
        for (int64_t l = 0; l < k; l++) Bp[l + j * k] = b[l * cs + j * rs];
}
