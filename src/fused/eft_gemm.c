/* The error-free GEMM (m >= 8): op(A) packed once into strips of 8 rows (strip b holds rows
 * 8b..8b+7 as [column][8], missing rows zero), op(B)'s columns contiguous, then every (strip,
 * column) pair is one GEMV strip read sequentially: the strip stays in cache across the
 * columns of B.  Method and bit budget: eft_kern.h.
 *
 * Unlike a GEMV, a GEMM knows a bound on every product of a block before it reads it: the
 * largest |a| of the row in the block (computed once when A is packed, for all columns of
 * B) times the largest |x| of the column in the block (once per column, for all strips).
 * With M = RN(max|a| max|x|) and sigma = 2^(floor(log2 M) + 10) > 2^9 M: max|a x| <=
 * max|a| max|x| <= (1 + u) M < 2^-9 (1 + u) sigma, below sigma / (2 BL) with BL = 128, so
 * the budget holds by construction, with no largest |q| to keep and
 * no block summed again (five vector operations per four products instead of seven).  Where
 * M is above 2^990, Inf or NaN, the block takes sigma from its own products and checks it
 * (ozb_eft_strip_block, the GEMV kernel); rows whose products themselves are out of range,
 * Inf or NaN are left to the caller.  Compiled with -ffp-contract=off. */
#include "fused/eft_kern.h"
#include "fused/eft_dot_small.h"

#ifdef EFT_AVX2
/* strip b of op(A) times column j of op(B), rounded into C (or flagged) */
static int64_t strip_column(const ozb_eft_gemm_t *g, int64_t b, int64_t j)
{
    const ozb_problem *pr = g->pr;
    const int64_t k = pr->k;
    const __m256d z = _mm256_setzero_pd();
    row4_t st[2];
    for (int v = 0; v < 2; v++) st[v].t.s = st[v].t.c = st[v].t.a = st[v].t.g = st[v].g = z;
    const double *a = g->P + 8 * k * b, *x = g->Bx + j * g->ldx;
    const double *ma = g->mA + 8 * b * g->nq, *mx = g->mX + j * g->nq;
    int bad = 0;
    for (int64_t q = 0; q < g->nq && !bad; q++) {
        const int64_t l0 = q * BL, nb = k - l0 < BL ? k - l0 : BL;
        const __m256d xm = _mm256_broadcast_sd(mx + q);
        const __m256d m0 = _mm256_mul_pd(_mm256_loadu_pd(ma + 8 * q), xm), m1 = _mm256_mul_pd(_mm256_loadu_pd(ma + 8 * q + 4), xm);
        if (!in_range(m0) || !in_range(m1)) {
            /* the bound overflows (a large |a| and a large |x| at different l) or is NaN: the
             * block learns sigma from its own products instead, as a GEMV does */
            if (!ozb_eft_strip_block(a + 8 * l0, 8, x + l0, nb, st, 1)) bad = 1;
            continue;
        }
        const __m256d g0 = sigma_for(m0), g1 = sigma_for(m1);
        __m256d S0 = z, S1 = z, R0 = z, R1 = z;
        const double *ab = a + 8 * l0, *xb = x + l0;
        for (int64_t l = 0; l < nb; l++) {
            const __m256d xv = _mm256_broadcast_sd(xb + l);
            SPLIT4_NOMAX(S0, R0, _mm256_loadu_pd(ab + 8 * l), xv, g0);
            SPLIT4_NOMAX(S1, R1, _mm256_loadu_pd(ab + 8 * l + 4), xv, g1);
        }
        tot_add(&st[0].t, S0, R0, g0);
        tot_add(&st[1].t, S1, R1, g1);
    }
    ozb_problem pj = *pr;
    pj.n = 1;
    pj.c += j * pr->ccs;
    const ozb_eft_t e = { &pj, g->fail + j * pr->m, NULL, NULL, 1, 0.0, 0 };   /* no DOT lanes */
    return ozb_eft_strip_put(&e, b, st, bad);
}

static int64_t strip_column_v(const void *g, int64_t b, int64_t j) { return strip_column(g, b, j); }

int64_t ozb_eft_gemm_units(void *ctx, int64_t lo, int64_t hi)
{
    const ozb_eft_gemm_t *g = ctx;
    return ozb_eft_walk_units(g, g->pr->m, g->pr->n, g->by_strip, lo, hi, strip_column_v);
}
#endif

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
static void pack_full_strip(const ozb_problem *pr, int64_t b, double *s, double *mA, int64_t nq)
{
    const int64_t k = pr->k;
    for (int64_t q = 0; q < nq; q++) {
        __m256d m0 = _mm256_setzero_pd(), m1 = m0, n0 = m0, n1 = m0;
        for (int64_t l = q * BL; l < k && l < (q + 1) * BL; l++) {
            const double *src = pr->a.p + 8 * b + l * pr->a.cs;
            const __m256d v0 = _mm256_loadu_pd(src), v1 = _mm256_loadu_pd(src + 4);
            _mm256_storeu_pd(s + 8 * l, v0);
            _mm256_storeu_pd(s + 8 * l + 4, v1);
            m0 = absmax_acc(m0, v0, &n0);
            m1 = absmax_acc(m1, v1, &n1);
        }
        if (mA) {
            _mm256_storeu_pd(mA + 8 * (b * nq + q), with_nan(m0, n0));
            _mm256_storeu_pd(mA + 8 * (b * nq + q) + 4, with_nan(m1, n1));
        }
    }
}
#endif

void ozb_eft_pack_strips(const ozb_problem *pr, double *P, double *mA)
{
    const int64_t m = pr->m, k = pr->k, nq = (k + BL - 1) / BL;
    for (int64_t b = 0; b < (m + 7) / 8; b++) {
        double *s = P + 8 * k * b;
        const int rows = (int)(m - 8 * b < 8 ? m - 8 * b : 8);
#ifdef EFT_AVX2
        if (rows == 8 && pr->a.rs == 1) { pack_full_strip(pr, b, s, mA, nq); continue; }
#endif
        for (int64_t q = 0; q < nq; q++) {
            double mx[8] = {0, 0, 0, 0, 0, 0, 0, 0};
            for (int64_t l = q * BL; l < k && l < (q + 1) * BL; l++) {
                const double *src = pr->a.p + 8 * b * pr->a.rs + l * pr->a.cs;
                for (int r = 0; r < 8; r++) {
                    const double v = r < rows ? src[r * pr->a.rs] : 0.0;
                    s[8 * l + r] = v;
                    mx[r] = fabs(v) > mx[r] || isnan(v) ? fabs(v) : mx[r];   /* NaN kept: out of range */
                }
            }
            if (mA)
                for (int r = 0; r < 8; r++) mA[8 * (b * nq + q) + r] = mx[r];
        }
    }
}

void ozb_eft_column_maxima(const ozb_problem *pr, const double *x, int64_t ldx, double *mX)
{
    const int64_t k = pr->k, nq = (k + BL - 1) / BL;
    for (int64_t j = 0; j < pr->n; j++)
        for (int64_t q = 0; q < nq; q++) {
            const int64_t l0 = q * BL, nb = k - l0 < BL ? k - l0 : BL;
#ifdef EFT_AVX2
            mX[j * nq + q] = ozb_eft_absmax(x + j * ldx + l0, nb);     /* NaN where one is NaN */
#else
            double mx = 0.0;
            for (int64_t l = l0; l < l0 + nb; l++) {
                const double v = x[j * ldx + l];
                mx = fabs(v) > mx || isnan(v) ? fabs(v) : mx;
            }
            mX[j * nq + q] = mx;
#endif
        }
}
