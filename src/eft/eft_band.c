/* A strip of eight rows of a banded GEMV: its window of the band packed by the caller as the
 * GEMV-N strips are ([column][8], zeros outside the band), or read where it lies with the
 * lanes outside the band masked to the same zeros (ozb_eft_band_strip_direct), then the GEMV-N
 * strip's running split over blocks of at most BLN columns and its certificates (eft_gemv_n.c;
 * method and bit budget: eft_kern.h), and for the rows those leave the deep sums on the packed
 * strip (their budget: eft_deep_kern.h).  The zeros add nothing to the sums and the bounds
 * count them as terms, so the budgets are the GEMV-N's on a w-column matrix.  Compiled with
 * -ffp-contract=off. */
#include "eft/eft_band.h"
#include "eft/eft_kern.h"
#include "eft/eft_deep.h"
#include "eft/eft_scaled.h"
#include "core/ozb_internal.h"
#include <math.h>

int ozb_eft_band_applies(ozblas_handle_t h, double alpha, double beta)
{
#ifdef EFT_AVX2
    return !h->knobs.no_dot2 && isfinite(alpha) && isfinite(beta);
#else
    (void)h; (void)alpha; (void)beta;
    return 0;
#endif
}

#ifdef EFT_AVX2
/* the largest lane of v (lanes >= 0: fmax's value for finite lanes, in registers; a NaN lane
 * may be dropped, as fmax drops it: the kernel refuses non-finite products itself) */
static double hmax(__m256d v)
{
    const __m128d h = _mm_max_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    return _mm_cvtsd_f64(_mm_max_sd(h, _mm_unpackhi_pd(h, h)));
}

/* The strip's one-level sums on its window, column j's lanes at a + j ld (and-ed with mk[8 j ..
 * 8 j + 7] where mk is given: zeros outside the band): the certified rows written, the others
 * returned as bits; WHOLE where nothing is written and the caller takes the strip whole (Inf,
 * NaN or a product beyond the kernels' range), with *scale = s where instead every product is
 * tiny (below 2^-900, some nonzero: matrices scaled toward underflow, as LAPACK's tests make
 * them, whose products fall below the kernels' range) and the window times 2^s (s = -ilogb of
 * the largest product bound) stays below 2^990 */
enum { WHOLE = 1u << 9 };
static inline __attribute__((always_inline)) unsigned strip_sums(const double *a, int64_t ld, const double *mk,
                                                                 const double *xs, int64_t w, int rows, double alpha,
                                                                 double beta, double *y, int64_t incy, int *scale)
{
    row4_t st[2];
    const __m256d z = _mm256_setzero_pd();
    for (int v = 0; v < 2; v++) st[v].t.s = st[v].t.c = st[v].t.a = st[v].t.g = st[v].g = z;
    /* the first block's sigma from a bound on every product of the lane, max|P| max|x| (as the
     * GEMM's a-priori bounds, eft_gemm.c): a lane's first columns are often zeros outside the
     * band, where the strip's own first guess (its first products) would be too small and the
     * block summed twice.  The kernel still checks the budget it proves. */
    __m256d a0 = _mm256_setzero_pd(), a1 = a0, xv = a0;
    if (mk) {
        /* |lane| where it holds a term, +0 elsewhere: one and with the masks' magnitude half */
        const double *mka = mk + 8 * w;
        for (int64_t j = 0; j < w; j++) {
            a0 = _mm256_max_pd(a0, _mm256_and_pd(_mm256_loadu_pd(a + j * ld), _mm256_loadu_pd(mka + 8 * j)));
            a1 = _mm256_max_pd(a1, _mm256_and_pd(_mm256_loadu_pd(a + j * ld + 4), _mm256_loadu_pd(mka + 8 * j + 4)));
        }
    } else
        for (int64_t j = 0; j < w; j++) {
            a0 = OZB_MAXABS4(a0, _mm256_loadu_pd(a + j * ld));
            a1 = OZB_MAXABS4(a1, _mm256_loadu_pd(a + j * ld + 4));
        }
    /* max|x| four at a time, in every lane (the products' bound needs only its value) */
    int64_t j = 0;
    for (; j + 4 <= w; j += 4) xv = OZB_MAXABS4(xv, _mm256_loadu_pd(xs + j));
    for (; j < w; j++) xv = OZB_MAXABS4(xv, _mm256_broadcast_sd(xs + j));
    const __m256d xm = _mm256_set1_pd(hmax(xv));
    const __m256d m0 = _mm256_mul_pd(a0, xm), m1 = _mm256_mul_pd(a1, xm);
    if (!in_range(m0) || !in_range(m1)) return WHOLE;      /* Inf, NaN or beyond the range: the caller's sums */
    const double M = hmax(_mm256_max_pd(m0, m1));
    if (M > 0.0 && M < 0x1p-900) {
        const int s = -ilogb(M);                            /* 901 <= s <= 1074 */
        if (ilogb(hmax(_mm256_max_pd(a0, a1))) + s <= 989) *scale = s;
        return WHOLE;
    }
    st[0].g = sigma_for(m0);
    st[1].g = sigma_for(m1);
    for (int64_t l0 = 0; l0 < w; l0 += BLN) {
        const int64_t nb = w - l0 < BLN ? w - l0 : BLN;
        if (!(mk ? ozb_eft_strip_block_masked(a + l0 * ld, ld, mk + 8 * l0, xs + l0, nb, st)
                 : ozb_eft_strip_block(a + l0 * ld, ld, xs + l0, nb, st, 0, 0)))
            return WHOLE;
    }
    const ozb_problem pr = { .m = rows, .n = 1, .k = w, .alpha = alpha, .beta = beta, .c = y, .crs = incy, .ccs = 0,
                             .kblock = OZB_KBLOCK_DOT, .c_host = 1 };
    uint8_t fail[8] = { 0 };
    const ozb_eft_t e = { &pr, fail, NULL, NULL, 1, 0.0, 0 };
    (void)ozb_eft_strip_put(&e, 0, st, 0);
    unsigned left = 0;
    for (int r = 0; r < rows; r++) left |= (unsigned)(fail[r] != 0) << r;
    return left;
}

/* The strip at once (ozb_eft_band_strip's work) on P: the one-level sums, the deep sums for
 * the rows they leave; where every product is tiny, *scale as strip_sums sets it and nothing
 * done */
static unsigned strip_at(const double *P, const double *xs, int64_t w, int rows, double alpha, double beta, double *y,
                         int64_t incy, int32_t *lsb, int *scale)
{
    const unsigned all = (1u << rows) - 1, left = strip_sums(P, 8, NULL, xs, w, rows, alpha, beta, y, incy, scale);
    if (left == WHOLE) return all;
    return left ? ozb_eft_deep_strip(P, xs, w, left, alpha, beta, y, incy, lsb) : 0;
}
#endif

unsigned ozb_eft_band_strip(double *P, const double *xs, int64_t w, int rows, double alpha, double beta, double *y,
                            int64_t incy, int32_t *lsb)
{
    const unsigned all = (1u << rows) - 1;
#ifdef EFT_AVX2
    if (w <= 0 || w > ((int64_t)1 << 32)) return all;      /* the margin on G (blocks <= 2^32) */
    int s = 0;
    const unsigned left = strip_at(P, xs, w, rows, alpha, beta, y, incy, lsb, &s);
    if (!s) return left;
    /* every product tiny: the strip again with P and y times 2^s (exact: scaled up, no
     * overflow), whose certified results are RN(2^s exact), scaled back (ozb_unscale) */
    double ys[8] = { 0 }, g[2];
    ozb_pow2_pair(s, g);                                   /* 2^s in two exact steps up */
    for (int r = 0; r < rows && beta != 0.0; r++) {
        if (!(fabs(y[r * incy]) <= ozb_pow2(989 - s))) return all;
        ys[r] = y[r * incy] * g[0] * g[1];
    }
    for (int64_t i = 0; i < 8 * w; i++) P[i] = P[i] * g[0] * g[1];
    int s2 = 0;
    const unsigned l2 = strip_at(P, xs, w, rows, alpha, beta, ys, 1, lsb, &s2);
    const ozb_unscale_t un = ozb_unscale_for(s);
    unsigned out = 0;
    for (int r = 0; r < rows; r++) {
        double v;
        if (!(l2 >> r & 1) && ozb_unscale(&un, ys[r], &v)) y[r * incy] = v;
        else out |= 1u << r;
    }
    return out;
#else
    (void)P; (void)xs; (void)w; (void)alpha; (void)beta; (void)y; (void)incy; (void)lsb;
    return all;
#endif
}

int ozb_eft_band_strip_direct(const double *a, int64_t ld, const double *mk, const double *xs, int64_t w, double alpha,
                              double beta, double *y, int64_t incy, unsigned *left)
{
#ifdef EFT_AVX2
    if (w <= 0 || w > ((int64_t)1 << 32)) return 0;
    int s = 0;
    const unsigned l = strip_sums(a, ld, mk, xs, w, 8, alpha, beta, y, incy, &s);
    if (l == WHOLE) return 0;
    *left = l;
    return 1;
#else
    (void)a; (void)ld; (void)mk; (void)xs; (void)w; (void)alpha; (void)beta; (void)y; (void)incy; (void)left;
    return 0;
#endif
}

unsigned ozb_eft_band_deep(const double *P, const double *xs, int64_t w, unsigned rows, double alpha, double beta,
                           double *y, int64_t incy, int32_t *lsb)
{
#ifdef EFT_AVX2
    return ozb_eft_deep_strip(P, xs, w, rows, alpha, beta, y, incy, lsb);
#else
    (void)P; (void)xs; (void)w; (void)alpha; (void)beta; (void)y; (void)incy; (void)lsb;
    return rows;
#endif
}
