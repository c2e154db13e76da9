/* A strip of eight rows of a banded GEMV: its window of the band packed by the caller as the
 * GEMV-N strips are ([column][8], zeros outside the band), then the GEMV-N strip's running
 * split over blocks of at most BLN columns and its certificates (eft_gemv_n.c; method and bit
 * budget: eft_kern.h), and for the rows those leave the deep sums on the same strip (their
 * budget: eft_deep_kern.h).  The zeros add nothing to the sums and the bounds count them as
 * terms, so the budgets are the GEMV-N's on a w-column matrix.  Compiled with -ffp-contract=off. */
#include "eft/eft_band.h"
#include "eft/eft_kern.h"
#include "eft/eft_deep.h"
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

unsigned ozb_eft_band_strip(const double *P, const double *xs, int64_t w, int rows, double alpha, double beta, double *y,
                            int64_t incy, int32_t *lsb)
{
    const unsigned all = (1u << rows) - 1;
#ifdef EFT_AVX2
    if (w <= 0 || w > ((int64_t)1 << 32)) return all;      /* the margin on G (blocks <= 2^32) */
    row4_t st[2];
    const __m256d z = _mm256_setzero_pd();
    for (int v = 0; v < 2; v++) st[v].t.s = st[v].t.c = st[v].t.a = st[v].t.g = st[v].g = z;
    /* the first block's sigma from a bound on every product of the lane, max|P| max|x| (as the
     * GEMM's a-priori bounds, eft_gemm.c): a lane's first columns are often zeros outside the
     * band, where the strip's own first guess (its first products) would be too small and the
     * block summed twice.  The kernel still checks the budget it proves. */
    __m256d a0 = _mm256_setzero_pd(), a1 = a0, xm = a0;
    for (int64_t j = 0; j < w; j++) {
        a0 = OZB_MAXABS4(a0, _mm256_loadu_pd(P + 8 * j));
        a1 = OZB_MAXABS4(a1, _mm256_loadu_pd(P + 8 * j + 4));
        xm = OZB_MAXABS4(xm, _mm256_broadcast_sd(xs + j));
    }
    const __m256d m0 = _mm256_mul_pd(a0, xm), m1 = _mm256_mul_pd(a1, xm);
    if (!in_range(m0) || !in_range(m1)) return all;        /* Inf, NaN or beyond the range: the caller's sums */
    st[0].g = sigma_for(m0);
    st[1].g = sigma_for(m1);
    for (int64_t l0 = 0; l0 < w; l0 += BLN)
        if (!ozb_eft_strip_block(P + 8 * l0, 8, xs + l0, w - l0 < BLN ? w - l0 : BLN, st, 0)) return all;
    const ozb_problem pr = { .m = rows, .n = 1, .k = w, .alpha = alpha, .beta = beta, .c = y, .crs = incy, .ccs = 0,
                             .kblock = OZB_KBLOCK_DOT, .c_host = 1 };
    uint8_t fail[8] = { 0 };
    const ozb_eft_t e = { &pr, fail, NULL, NULL, 1, 0.0, 0 };
    (void)ozb_eft_strip_put(&e, 0, st, 0);
    unsigned left = 0;
    for (int r = 0; r < rows; r++) left |= (unsigned)(fail[r] != 0) << r;
    return left ? ozb_eft_deep_strip(P, xs, w, left, alpha, beta, y, incy, lsb) : 0;
#else
    (void)P; (void)xs; (void)w; (void)alpha; (void)beta; (void)y; (void)incy; (void)lsb;
    return all;
#endif
}
