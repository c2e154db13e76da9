/* The deep error-free sums' kernels: a block's two extraction levels and the cascade across
 * blocks.  Method and bit budget: eft_deep_kern.h.  Compiled with -ffp-contract=off: the FMAs
 * are explicit. */
#include "fused/eft_deep_kern.h"

#ifdef EFT_AVX2
static inline void deep_add(deep4 *t, __m256d S1, __m256d S2, __m256d R2, __m256d g2)
{
    __m256d e1, e2, e3;
    ozb_two_sum4(t->s, S1, &t->s, &e1);
    ozb_two_sum4(t->c, e1, &t->c, &e2);
    ozb_two_sum4(t->c, S2, &t->c, &e3);
    t->d = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(t->d, e2), e3), R2);
    t->a = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(t->a, _mm256_and_pd(e2, ABSMASK)), _mm256_and_pd(e3, ABSMASK)),
                         _mm256_and_pd(R2, ABSMASK));
    t->g = _mm256_add_pd(t->g, g2);
}

#define DEEP4(S1, S2, R2, x, y, g, h) do {                                                 \
        const __m256d p_ = _mm256_mul_pd(x, y), e_ = _mm256_fmsub_pd(x, y, p_);            \
        const __m256d q1_ = _mm256_sub_pd(_mm256_add_pd(p_, g), g), r1_ = _mm256_sub_pd(p_, q1_); \
        const __m256d qa_ = _mm256_sub_pd(_mm256_add_pd(r1_, h), h), qb_ = _mm256_sub_pd(_mm256_add_pd(e_, h), h); \
        S1 = _mm256_add_pd(S1, q1_);                                                       \
        S2 = _mm256_add_pd(_mm256_add_pd(S2, qa_), qb_);                                   \
        R2 = _mm256_add_pd(_mm256_add_pd(R2, _mm256_sub_pd(r1_, qa_)), _mm256_sub_pd(e_, qb_)); \
    } while (0)

/* A lane's block grid against its R2 bound (eft_deep_kern.h): 1 where R2 is exact.
 * mx, my: the smallest nonzero magnitudes (Inf: none, every product zero). */
static inline int block_grid(double mx, double my, double sigma2, int32_t *gmin)
{
    if (isinf(mx) || isinf(my)) return 1;
    const int32_t g = ilogb(mx) + ilogb(my) - 104;
    if (g < *gmin) *gmin = g;
    return g >= -1074 && g >= ilogb(sigma2) - 98;      /* 2 nb u sigma2 <= 2^(8 - 53) sigma2 */
}

/* nb steps of 8 lanes: a[8 l + r] times x[l] (xstep 1: broadcast) or x[8 l + r] (xstep 8);
 * ma[r], mx[r or 0]: the smallest nonzero magnitudes of the lanes' a and x in the block.
 * 0 where some lane's products are out of range. */
static int deep_block(const double *a, const double *x, int xstep, int64_t nb, const double *ma, const double *mx,
                      deep_row *st)
{
    const __m256d z = _mm256_setzero_pd();
    __m256d M0 = z, M1 = z;
    for (int64_t l = 0; l < nb; l++) {
        const double *xl = x + xstep * l;
        const __m256d x0 = xstep == 1 ? _mm256_broadcast_sd(xl) : _mm256_loadu_pd(xl);
        const __m256d x1 = xstep == 1 ? x0 : _mm256_loadu_pd(xl + 4);
        M0 = _mm256_max_pd(M0, _mm256_and_pd(_mm256_mul_pd(_mm256_loadu_pd(a + 8 * l), x0), ABSMASK));
        M1 = _mm256_max_pd(M1, _mm256_and_pd(_mm256_mul_pd(_mm256_loadu_pd(a + 8 * l + 4), x1), ABSMASK));
    }
    /* max_pd returns its second operand where either is NaN: a NaN product stays in M */
    if (!in_range(M0) || !in_range(M1)) return 0;
    const __m256d g0 = sigma_for(M0), g1 = sigma_for(M1), s2 = _mm256_set1_pd(0x1p-43);
    const __m256d h0 = _mm256_mul_pd(g0, s2), h1 = _mm256_mul_pd(g1, s2);
    __m256d S10 = z, S11 = z, S20 = z, S21 = z, R20 = z, R21 = z;
    for (int64_t l = 0; l < nb; l++) {
        const double *xl = x + xstep * l;
        const __m256d x0 = xstep == 1 ? _mm256_broadcast_sd(xl) : _mm256_loadu_pd(xl);
        const __m256d x1 = xstep == 1 ? x0 : _mm256_loadu_pd(xl + 4);
        DEEP4(S10, S20, R20, _mm256_loadu_pd(a + 8 * l), x0, g0, h0);
        DEEP4(S11, S21, R21, _mm256_loadu_pd(a + 8 * l + 4), x1, g1, h1);
    }
    deep_add(&st->t[0], S10, S20, R20, h0);
    deep_add(&st->t[1], S11, S21, R21, h1);
    double h[8];
    _mm256_storeu_pd(h, h0); _mm256_storeu_pd(h + 4, h1);
    for (int r = 0; r < 8; r++)
        if (!block_grid(ma[r], mx[xstep == 1 ? 0 : r], h[r], &st->gmin[r])) st->inexact[r] = 1;
    return 1;
}

void ozb_deep_lane_minima(const double *S, int64_t steps, double *mins)
{
    for (int64_t q = 0; q * BL < steps; q++)
        for (int r = 0; r < 8; r++) {
            double m = INFINITY;
            for (int64_t l = q * BL; l < steps && l < (q + 1) * BL; l++) {
                const double v = fabs(S[8 * l + r]);
                if (v != 0.0 && v < m) m = v;
            }
            mins[8 * q + r] = m;
        }
}

int ozb_deep_run(const double *a, const double *x, int xstep, int64_t k, const double *ma, const double *mx,
                 int64_t mxstep, deep_row *st)
{
    const __m256d z = _mm256_setzero_pd();
    for (int v = 0; v < 2; v++) st->t[v].s = st->t[v].c = st->t[v].d = st->t[v].a = st->t[v].g = z;
    for (int r = 0; r < 8; r++) { st->gmin[r] = INT32_MAX; st->inexact[r] = 0; }
    for (int64_t q = 0, l0 = 0; l0 < k; q++, l0 += BL)
        if (!deep_block(a + 8 * l0, x + xstep * l0, xstep, k - l0 < BL ? k - l0 : BL, ma + 8 * q, mx + mxstep * q, st))
            return 0;
    return 1;
}
#endif
