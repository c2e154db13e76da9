/* The deep error-free sums' kernels: a block's two extraction levels and the cascade across
 * blocks.  Method and bit budget: eft_deep_kern.h.  Compiled with -ffp-contract=off: the FMAs
 * are explicit. */
#include "eft/eft_deep_kern.h"
#include <string.h>

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

/* The split of four products.  Six of its sixteen operations go to the multiply pipes: the
 * product, TwoProduct's FMA, and four additions written as FMAs with a factor of one (fma(a,
 * 1, b) = RN(a + b), fnmadd(b, 1, a) = RN(a - b): the same values), where plain additions put
 * fourteen on the two add pipes; the additions on the longest chain within a step (p, q1, r1,
 * qa) stay additions, an FMA's latency being longer.  (On cores whose vector units are 128
 * bits wide, as Zen 1's, the FMA form of additions measured slower.)  Each sum takes one addition per step on its chain (S2 += qa + qb,
 * R2 += (r1 - qa) + (e - qb)): S1 and S2 are exact in any order, and R2's bound
 * (eft_deep_kern.h) holds for any order of its terms. */
#define ADD1(a, b) _mm256_fmadd_pd(a, one_, b)       /* RN(a + b) */
#define SUB1(a, b) _mm256_fnmadd_pd(b, one_, a)      /* RN(a - b) */
#define DEEP4(S1, S2, R2, x, y, g, h) do {                                                 \
        const __m256d one_ = _mm256_set1_pd(1.0);                                          \
        const __m256d p_ = _mm256_mul_pd(x, y), e_ = _mm256_fmsub_pd(x, y, p_);            \
        const __m256d q1_ = _mm256_sub_pd(_mm256_add_pd(p_, g), g), r1_ = _mm256_sub_pd(p_, q1_);   \
        const __m256d qa_ = _mm256_sub_pd(_mm256_add_pd(r1_, h), h), qb_ = _mm256_sub_pd(ADD1(e_, h), h); \
        S1 = ADD1(q1_, S1);                                                                \
        S2 = _mm256_add_pd(S2, _mm256_add_pd(qa_, qb_));                                   \
        R2 = _mm256_add_pd(R2, _mm256_add_pd(SUB1(r1_, qa_), SUB1(e_, qb_)));              \
    } while (0)

/* A lane's block grid against its R2 bound (eft_deep_kern.h): 1 where R2 is exact.  g: the
 * lowest bit of the lane's products (at least OZB_LSB_NONE: every product zero). */
static inline int block_grid(int32_t g, double sigma2, int32_t *gmin)
{
    if (g >= OZB_LSB_NONE) return 1;
    if (g < *gmin) *gmin = g;
    /* sigma2 is a normal power of two (at least 2^-1003): its exponent from its bits */
    uint64_t b;
    memcpy(&b, &sigma2, 8);
    return g >= -1074 && g >= (int32_t)(b >> 52) - 1023 - 98;      /* 2 nb u sigma2 <= 2^(8 - 53) sigma2 */
}

/* nb steps of 8 lanes: a[8 l + r] times x[l] (xstep 1: broadcast) or x[8 l + r] (xstep 8),
 * la and lx their lowest bits alike (NULL: not known, every lane then counted inexact).  0
 * where some lane's products are out of range. */
static int deep_block(const double *a, const double *x, int xstep, int64_t nb, const int32_t *la, const int32_t *lx,
                      deep_row *st, int wide)
{
    const __m256d z = _mm256_setzero_pd();
    __m256d M0 = z, M1 = z;
    __m256i G = _mm256_set1_epi32(2 * OZB_LSB_NONE);
    if (wide) {   /* the same maxima and bits where no product is NaN (eft_deep512.c) */
        __m256d M[2];
        ozb_deep_max512(a, x, xstep, nb, la, lx, M, &G);
        M0 = M[0];
        M1 = M[1];
    }
    for (int64_t l = 0; !wide && l < nb; l++) {
        const double *xl = x + xstep * l;
        const __m256d x0 = xstep == 1 ? _mm256_broadcast_sd(xl) : _mm256_loadu_pd(xl);
        const __m256d x1 = xstep == 1 ? x0 : _mm256_loadu_pd(xl + 4);
        M0 = _mm256_max_pd(M0, _mm256_and_pd(_mm256_mul_pd(_mm256_loadu_pd(a + 8 * l), x0), ABSMASK));
        M1 = _mm256_max_pd(M1, _mm256_and_pd(_mm256_mul_pd(_mm256_loadu_pd(a + 8 * l + 4), x1), ABSMASK));
        if (la) {
            const __m256i gx = xstep == 1 ? _mm256_set1_epi32(lx[l]) : _mm256_loadu_si256((const __m256i *)(lx + 8 * l));
            G = _mm256_min_epi32(G, _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(la + 8 * l)), gx));
        }
    }
    /* (max_pd returns its second operand where either is NaN: a NaN product is kept only where
     * it is a lane's last, and M may miss it; its lane's sums are NaN then, which the rounding
     * refuses) */
    if (!in_range(M0) || !in_range(M1)) return 0;
    const __m256d g0 = sigma_for(M0), g1 = sigma_for(M1), s2 = _mm256_set1_pd(0x1p-43);
    const __m256d h0 = _mm256_mul_pd(g0, s2), h1 = _mm256_mul_pd(g1, s2);
    if (wide) {   /* both halves in one pass, the same sums (eft_deep512.c) */
        const __m256d gs[2] = { g0, g1 }, hs[2] = { h0, h1 };
        __m256d S1[2], S2[2], R2[2];
        ozb_deep_sums512(a, x, xstep, nb, gs, hs, S1, S2, R2);
        for (int v = 0; v < 2; v++) deep_add(&st->t[v], S1[v], S2[v], R2[v], hs[v]);
    }
    /* each half of the lanes in its own pass: the sums of both in one loop take more
     * registers than AVX2 has, and a spilled sum adds a store and a load to its chain */
    for (int v = 0; !wide && v < 2; v++) {
        const __m256d g = v ? g1 : g0, h = v ? h1 : h0;
        __m256d S1 = z, S2 = z, R2 = z;
        for (int64_t l = 0; l < nb; l++) {
            const double *xl = x + xstep * l;
            const __m256d xv = xstep == 1 ? _mm256_broadcast_sd(xl) : _mm256_loadu_pd(xl + 4 * v);
            DEEP4(S1, S2, R2, _mm256_loadu_pd(a + 8 * l + 4 * v), xv, g, h);
        }
        deep_add(&st->t[v], S1, S2, R2, h);
    }
    double h[8];
    int32_t g[8];
    _mm256_storeu_pd(h, h0); _mm256_storeu_pd(h + 4, h1);
    _mm256_storeu_si256((__m256i *)g, G);
    for (int r = 0; r < 8; r++)
        if (!la || !block_grid(g[r], h[r], &st->gmin[r])) st->inexact[r] = 1;
    return 1;
}

int32_t ozb_deep_lsb(double v)
{
    uint64_t b;
    memcpy(&b, &v, 8);
    const int e = (int)(b >> 52 & 0x7ff);
    uint64_t mant = b & 0x000fffffffffffffull;
    if (e == 0x7ff) return -4 * OZB_LSB_NONE;           /* Inf/NaN: the block is out of range anyway */
    if (e == 0 && mant == 0) return OZB_LSB_NONE;        /* zero: no bit */
    if (e != 0) mant |= 1ull << 52;
    return (e == 0 ? -1074 : e - 1075) + __builtin_ctzll(mant);
}

/* ozb_deep_lsb of v[0..n-1], four at a time: the lowest set bit of the significand m (the
 * implicit 2^52 included for normal numbers) is m & -m = 2^t, t <= 52.  The bits
 * 0x4340000000000000 | 2^t are the double 2^53 + 2^(t+1) (2^t < 2^52: a significand bit, worth
 * 2 ulp(2^53) = 2 each; 2^t = 2^52: the exponent's low bit, making 2^54), so subtracting 2^53
 * leaves 2^(t+1) exactly, whose exponent field is t + 1024. */
void ozb_deep_lsb_n(const double *v, int64_t n, int32_t *out)
{
    int64_t i = 0;
    const __m256i emask = _mm256_set1_epi64x(0x7ff), mmask = _mm256_set1_epi64x(0x000fffffffffffffll);
    const __m256i hidden = _mm256_set1_epi64x(1ll << 52), magic = _mm256_set1_epi64x(0x4340000000000000ll);
    const __m256i zero = _mm256_setzero_si256();
    const __m256i none = _mm256_set1_epi64x(OZB_LSB_NONE), nonfinite = _mm256_set1_epi64x(-4 * OZB_LSB_NONE);
    const __m256i pack = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    for (; i + 4 <= n; i += 4) {
        const __m256i b = _mm256_castpd_si256(_mm256_loadu_pd(v + i));
        const __m256i e = _mm256_and_si256(_mm256_srli_epi64(b, 52), emask);
        const __m256i sub = _mm256_cmpeq_epi64(e, zero);                   /* zero or subnormal */
        const __m256i m = _mm256_or_si256(_mm256_and_si256(b, mmask), _mm256_andnot_si256(sub, hidden));
        const __m256i low = _mm256_and_si256(m, _mm256_sub_epi64(zero, m));
        const __m256d p2 = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(low, magic)), _mm256_set1_pd(0x1p53));
        const __m256i t = _mm256_sub_epi64(_mm256_srli_epi64(_mm256_castpd_si256(p2), 52), _mm256_set1_epi64x(1024));
        /* (e == 0 ? -1074 : e - 1075) + t */
        const __m256i base = _mm256_blendv_epi8(_mm256_sub_epi64(e, _mm256_set1_epi64x(1075)), _mm256_set1_epi64x(-1074), sub);
        __m256i r = _mm256_add_epi64(base, t);
        r = _mm256_blendv_epi8(r, none, _mm256_cmpeq_epi64(m, zero));                         /* zero */
        r = _mm256_blendv_epi8(r, nonfinite, _mm256_cmpeq_epi64(e, emask));                   /* Inf, NaN */
        _mm_storeu_si128((__m128i *)(out + i), _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(r, pack)));
    }
    for (; i < n; i++) out[i] = ozb_deep_lsb(v[i]);
}

int ozb_deep_run(const double *a, const double *x, int xstep, int64_t k, const int32_t *la, const int32_t *lx,
                 deep_row *st, int wide)
{
    const __m256d z = _mm256_setzero_pd();
    for (int v = 0; v < 2; v++) st->t[v].s = st->t[v].c = st->t[v].d = st->t[v].a = st->t[v].g = z;
    for (int r = 0; r < 8; r++) { st->gmin[r] = INT32_MAX; st->inexact[r] = 0; }
    for (int64_t l0 = 0; l0 < k; l0 += BL)
        if (!deep_block(a + 8 * l0, x + xstep * l0, xstep, k - l0 < BL ? k - l0 : BL, la ? la + 8 * l0 : NULL,
                        la ? lx + xstep * l0 : NULL, st, wide))
            return 0;
    return 1;
}
#endif
