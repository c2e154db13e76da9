/* The error-free GEMM's operands (eft_gemm.c): op(A) packed into strips of 8 rows with each
 * row's maxima per sub-block of SBL products and per block of BL, op(B)'s columns' maxima
 * alike.  Data movement and maxima only (no rounding): the maxima do not depend on the order
 * of their elements, NaN kept wherever one is met. */
#include "eft/eft_kern.h"
#include "core/par.h"

#ifdef EFT_AVX2
/* max(m, |v|) per lane, with *nan collecting the lanes where some v was NaN (max_pd alone
 * would drop a NaN met before a number) */
static inline __m256d absmax_acc(__m256d m, __m256d v, __m256d *nan)
{
    *nan = _mm256_or_pd(*nan, _mm256_cmp_pd(v, v, _CMP_UNORD_Q));
    return _mm256_max_pd(m, _mm256_and_pd(v, ABSMASK));
}
static inline __m256d with_nan(__m256d m, __m256d nan) { return _mm256_blendv_pd(m, _mm256_set1_pd(NAN), nan); }

/* column l of a strip (its rows 0-3 in v0, 4-7 in v1) into s, their maxima into m, n (as
 * absmax_acc) */
static inline void put_col(double *s, int64_t l, __m256d v0, __m256d v1, __m256d m[2], __m256d n[2])
{
    _mm256_storeu_pd(s + 8 * l, v0);
    _mm256_storeu_pd(s + 8 * l + 4, v1);
    m[0] = absmax_acc(m[0], v0, &n[0]);
    m[1] = absmax_acc(m[1], v1, &n[1]);
}

/* a sub-block's maxima of the strip's 8 rows at mA (NaN where one was met) */
static inline void put_maxima(double *mA, const __m256d m[2], const __m256d n[2])
{
    _mm256_storeu_pd(mA, with_nan(m[0], n[0]));
    _mm256_storeu_pd(mA + 4, with_nan(m[1], n[1]));
}

/* c[e] = [v0[e], v1[e], v2[e], v3[e]]: a 4 x 4 transpose in registers */
static inline void transpose4(__m256d v0, __m256d v1, __m256d v2, __m256d v3, __m256d c[4])
{
    const __m256d t0 = _mm256_unpacklo_pd(v0, v1), t1 = _mm256_unpackhi_pd(v0, v1);
    const __m256d t2 = _mm256_unpacklo_pd(v2, v3), t3 = _mm256_unpackhi_pd(v2, v3);
    c[0] = _mm256_permute2f128_pd(t0, t2, 0x20);
    c[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
    c[2] = _mm256_permute2f128_pd(t0, t2, 0x31);
    c[3] = _mm256_permute2f128_pd(t1, t3, 0x31);
}

/* the strips of column-major op(A) (rs == 1), full strips of 8 rows: two loads per column, the
 * same values and maxima as the element loop below */
static void pack_full_strip(const ozb_problem *pr, int64_t b, double *s, double *mA, int64_t ns)
{
    const int64_t k = pr->k;
    for (int64_t q = 0; q < ns; q++) {
        __m256d m[2] = { _mm256_setzero_pd(), _mm256_setzero_pd() }, n[2] = { m[0], m[0] };
        for (int64_t l = q * SBL; l < k && l < (q + 1) * SBL; l++) {
            const double *src = pr->a.p + 8 * b + l * pr->a.cs;
            put_col(s, l, _mm256_loadu_pd(src), _mm256_loadu_pd(src + 4), m, n);
        }
        if (mA) put_maxima(mA + 8 * (b * ns + q), m, n);
    }
}

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
        __m256d m[2] = { _mm256_setzero_pd(), _mm256_setzero_pd() }, n[2] = { m[0], m[0] };
        const int64_t l1 = (q + 1) * SBL < k ? (q + 1) * SBL : k;
        int64_t l = q * SBL;
        for (; l + 4 <= l1; l += 4) {
            __m256d lo[4], hi[4];        /* rows 0-3 and 4-7 at l .. l + 3 */
            transpose4(_mm256_loadu_pd(a + l), _mm256_loadu_pd(a + rs + l), _mm256_loadu_pd(a + 2 * rs + l),
                       _mm256_loadu_pd(a + 3 * rs + l), lo);
            transpose4(_mm256_loadu_pd(a + 4 * rs + l), _mm256_loadu_pd(a + 5 * rs + l), _mm256_loadu_pd(a + 6 * rs + l),
                       _mm256_loadu_pd(a + 7 * rs + l), hi);
            for (int e = 0; e < 4; e++) put_col(s, l + e, lo[e], hi[e], m, n);
        }
        for (; l < l1; l++) {
            double col[8];
            for (int r = 0; r < 8; r++) col[r] = a[r * rs + l];
            put_col(s, l, _mm256_loadu_pd(col), _mm256_loadu_pd(col + 4), m, n);
        }
        if (mA) put_maxima(mA + 8 * (b * ns + q), m, n);
    }
}
#endif

/* the larger of c and |v| >= 0, NaN kept once met */
static inline double max_keep_nan(double c, double v) { return v > c || isnan(v) ? v : c; }

#ifdef EFT_AVX2
static inline double imax_lanes(__m256d a)
{
    a = ozb_imax4(a, _mm256_permute2f128_pd(a, a, 1));
    return _mm256_cvtsd_f64(ozb_imax4(a, _mm256_permute_pd(a, 5)));
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
            c0 = ozb_imax4(c0, _mm256_loadu_pd(mA + 8 * (b * ns + s)));
            c1 = ozb_imax4(c1, _mm256_loadu_pd(mA + 8 * (b * ns + s) + 4));
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

/* The largest and the smallest of v[0..n-1] (values >= 0, +Inf or NaN of sign 0): hi NaN
 * where one is NaN (then lo does not matter to the caller) */
static inline void hi_lo(const double *v, int64_t n, double *hi, double *lo)
{
    double h = 0.0, l = INFINITY;
    int64_t s = 0;
#ifdef EFT_AVX2
    if (n >= 4) {
        __m256d H = _mm256_setzero_pd(), L = _mm256_set1_pd(INFINITY);
        for (; s + 4 <= n; s += 4) {
            const __m256d x = _mm256_loadu_pd(v + s);
            H = ozb_imax4(H, x);
            L = _mm256_min_pd(L, x);
        }
        h = imax_lanes(H);
        L = _mm256_min_pd(L, _mm256_permute2f128_pd(L, L, 1));
        l = _mm256_cvtsd_f64(_mm256_min_pd(L, _mm256_permute_pd(L, 5)));
    }
#endif
    for (; s < n; s++) {
        h = max_keep_nan(h, v[s]);
        l = v[s] < l ? v[s] : l;
    }
    *hi = h;
    *lo = l;
}

void ozb_eft_column_maxima(const ozb_problem *pr, const double *x, int64_t ldx, double *mX, double *mXc)
{
    const int64_t k = pr->k, ns = (k + SBL - 1) / SBL, nq = (k + BL - 1) / BL;
    for (int64_t j = 0; j < pr->n; j++) {
        const double *xj = x + j * ldx;
        int64_t s = 0;
#ifdef EFT_AVX2
        for (; s + 4 <= k / SBL; s += 4) {   /* four full sub-blocks' maxima in one vector */
            __m256d v[4];
            for (int t = 0; t < 4; t++)
                v[t] = ozb_imax4(_mm256_and_pd(_mm256_loadu_pd(xj + SBL * (s + t)), ABSMASK),
                             _mm256_and_pd(_mm256_loadu_pd(xj + SBL * (s + t) + 4), ABSMASK));
            /* [a0 b0 a2 b2] and [a1 b1 a3 b3] -> a01 b01 a23 b23; then the halves of both */
            const __m256d ab = ozb_imax4(_mm256_unpacklo_pd(v[0], v[1]), _mm256_unpackhi_pd(v[0], v[1]));
            const __m256d cd = ozb_imax4(_mm256_unpacklo_pd(v[2], v[3]), _mm256_unpackhi_pd(v[2], v[3]));
            _mm256_storeu_pd(mX + j * ns + s, ozb_imax4(_mm256_permute2f128_pd(ab, cd, 0x20), _mm256_permute2f128_pd(ab, cd, 0x31)));
        }
        for (; s < k / SBL; s++) {           /* full sub-blocks: NaN (of sign 0) where one is NaN */
            const __m256d v0 = _mm256_and_pd(_mm256_loadu_pd(xj + SBL * s), ABSMASK);
            const __m256d v1 = _mm256_and_pd(_mm256_loadu_pd(xj + SBL * s + 4), ABSMASK);
            mX[j * ns + s] = imax_lanes(ozb_imax4(v0, v1));
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
            double hi, lo;
            const int64_t s0 = q * (BL / SBL);
            hi_lo(mX + j * ns + s0, (ns - s0 < BL / SBL ? ns : s0 + BL / SBL) - s0, &hi, &lo);
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
                __m256d c[4];
                transpose4(_mm256_loadu_pd(b + l * cs + j), _mm256_loadu_pd(b + (l + 1) * cs + j),
                           _mm256_loadu_pd(b + (l + 2) * cs + j), _mm256_loadu_pd(b + (l + 3) * cs + j), c);
                for (int e = 0; e < 4; e++) _mm256_storeu_pd(Bp + l + (j + e) * k, c[e]);
            }
            for (; l < k; l++)
                for (int64_t c = 0; c < 4; c++) Bp[l + (j + c) * k] = b[l * cs + j + c];
        }
#endif
    for (; j < n; j++)
        for (int64_t l = 0; l < k; l++) Bp[l + j * k] = b[l * cs + j * rs];
}

#ifdef EFT_AVX2
/* The sub-blocks [sp[0], sp[1]) outside which every maximum is zero ([0, 0): all zero); w
 * maxima per sub-block (a strip's 8 lanes, or a column's 1), ns sub-blocks.  NaN, kept by the
 * maxima, is nonzero. */
static void span_of(const double *mx, int w, int64_t ns, int32_t sp[2])
{
    sp[0] = sp[1] = 0;
    for (int64_t q = 0; q < ns; q++) {
        int nz = 0;
        for (int r = 0; r < w; r++) nz |= mx[w * q + r] != 0.0;
        if (!nz) continue;
        if (sp[1] == 0) sp[0] = (int32_t)q;
        sp[1] = (int32_t)q + 1;
    }
}

/* bit 0: every maximum zero, bit 1: every maximum finite */
static uint8_t zero_finite(const double *mx, int64_t n, int64_t stride)
{
    int z = 1, f = 2;
    for (int64_t q = 0; q < n; q++) {
        const double v = mx[q * stride];
        if (v != 0.0) z = 0;
        if (!(v <= 0x1.fffffffffffffp1023)) f = 0;
    }
    return (uint8_t)(z | f);
}

/* A column's zero_finite and span_of (w = 1) in one pass, four maxima a vector: the same
 * flags and span (v != 0.0 and v <= DBL_MAX as there: NaN counts as nonzero and not finite) */
static void column_flags(const double *mx, int64_t ns, uint8_t *zf, int32_t sp[2])
{
    const __m256d zero = _mm256_setzero_pd(), top = _mm256_set1_pd(0x1.fffffffffffffp1023);
    int64_t first = -1, last = -1, q = 0;
    int fin = 1;
    for (; q + 4 <= ns; q += 4) {
        const __m256d v = _mm256_loadu_pd(mx + q);
        const int nz = _mm256_movemask_pd(_mm256_cmp_pd(v, zero, _CMP_NEQ_UQ));
        fin &= _mm256_movemask_pd(_mm256_cmp_pd(v, top, _CMP_LE_OQ)) == 0xf;
        if (nz) {
            if (first < 0) first = q + __builtin_ctz((unsigned)nz);
            last = q + 31 - __builtin_clz((unsigned)nz);
        }
    }
    for (; q < ns; q++) {
        const double v = mx[q];
        if (v != 0.0) {
            if (first < 0) first = q;
            last = q;
        }
        if (!(v <= 0x1.fffffffffffffp1023)) fin = 0;
    }
    *zf = (uint8_t)((first < 0) | (fin << 1));
    sp[0] = first < 0 ? 0 : (int32_t)first;
    sp[1] = first < 0 ? 0 : (int32_t)last + 1;
}

/* The GEMM's preparation, unit u: strip u (u < nstrips: its copy, its rows' maxima, zA) or
 * column u - nstrips of op(B) (its copy where B is packed, its maxima, zX).  Each unit
 * writes only its own entries: any split among threads gives the same buffers. */
typedef struct {
    ozb_eft_gemm_t *s;
    double *P;                /* the strips (s->P, writable) */
    double *Bp;               /* op(B)'s packed columns, or NULL */
    int64_t nstrips;
    int64_t shares;           /* prepare_shares' */
} prep_t;

static int64_t prepare(void *ctx, int64_t lo, int64_t hi)
{
    const prep_t *pp = ctx;
    const ozb_eft_gemm_t *s = pp->s;
    const ozb_problem *pr = s->pr;
    const int64_t ns = s->ns, nq = s->nq, k = pr->k;
    const int64_t b0 = lo < pp->nstrips ? lo : pp->nstrips, b1 = hi < pp->nstrips ? hi : pp->nstrips;
    if (b0 < b1) {
        ozb_problem q = *pr;
        q.m = (8 * b1 < pr->m ? 8 * b1 : pr->m) - 8 * b0;
        q.a.p += 8 * b0 * pr->a.rs;
        double *mA = (double *)s->mA + 8 * b0 * ns, *mAc = (double *)s->mAc + 8 * b0 * nq;
        ozb_eft_pack_strips(&q, pp->P + 8 * k * b0, mA, mAc);
        for (int64_t b = b0; b < b1; b++) {
            ((uint8_t *)s->zA)[b] = zero_finite(s->mAc + 8 * b * nq, 8 * nq, 1);
            span_of(s->mA + 8 * b * ns, 8, ns, (int32_t *)s->spA + 2 * b);
        }
    }
    const int64_t j0 = (lo > pp->nstrips ? lo : pp->nstrips) - pp->nstrips, j1 = hi - pp->nstrips;
    if (j0 < j1) {
        ozb_problem q = *pr;
        q.n = j1 - j0;
        q.b.p += j0 * pr->b.rs;
        if (pp->Bp) ozb_eft_pack_columns(&q, pp->Bp + j0 * k);
        ozb_eft_column_maxima(&q, s->Bx + j0 * s->ldx, s->ldx, (double *)s->mX + j0 * ns, (double *)s->mXc + j0 * nq);
        for (int64_t j = j0; j < j1; j++) column_flags(s->mX + j * ns, ns, (uint8_t *)s->zX + j, (int32_t *)s->spX + 2 * j);
    }
    return 0;
}

/* Shares lo..hi-1 of pp->shares: share t prepares the t-th of that many equal parts of the
 * strips and the same part of the columns, so that a thread packs the strips and columns its
 * contiguous share of the walk then reads (walk_plan: by strip or by column group) and every
 * thread packs strips, the heavier units, alike */
static int64_t prepare_shares(void *ctx, int64_t lo, int64_t hi)
{
    const prep_t *pp = ctx;
    const int64_t S = pp->nstrips, n = pp->s->pr->n, N = pp->shares;
    for (int64_t t = lo; t < hi; t++) {
        prepare(ctx, t * S / N, (t + 1) * S / N);
        prepare(ctx, S + t * n / N, S + (t + 1) * n / N);
    }
    return 0;
}

void ozb_eft_gemm_prepare(ozb_eft_gemm_t *s, double *P, double *Bp, int nt)
{
    const prep_t pp = { s, P, Bp, (s->pr->m + 7) / 8, nt };
    (void)ozb_par_for(nt > 1, nt, pp.shares, prepare_shares, (void *)&pp);
}
#endif
