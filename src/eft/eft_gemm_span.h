/* The GEMM strips' spans along k (eft_gemm.c): the steps outside which a strip's products with
 * some columns are all exact zeros, from the spans eft_cr.c's preparation finds in the
 * operands' sub-block maxima. */
#ifndef OZB_EFT_GEMM_SPAN_H
#define OZB_EFT_GEMM_SPAN_H
#include "eft/eft_kern.h"

#ifdef EFT_AVX2
/* The steps [*lo, *hi) of strip b times columns j..j+nc-1 outside which every product is an
 * exact zero: a zero of op(A) times a finite column, or a zero of the columns times a finite
 * strip (a triangular or trapezoidal operand: about half a DTRMM's products).  Zero products
 * add nothing to a lane's sums, and fewer products only tighten its bound (the terms counted
 * and the blocks' sigmas), so the certificates hold as they stand.  Where no product can be
 * nonzero, all of them, [0, k). */
static inline void strip_span(const ozb_eft_gemm_t *g, int64_t b, int64_t j, int nc, int64_t *lo, int64_t *hi)
{
    const int64_t k = g->pr->k;
    int64_t l = 0, h = k;
    int xfin = 1;
    for (int c = 0; c < nc; c++) xfin &= g->zX[j + c] >> 1 & 1;
    if (xfin) { l = SBL * (int64_t)g->spA[2 * b]; h = SBL * (int64_t)g->spA[2 * b + 1]; }
    if (g->zA[b] >> 1 & 1) {
        int64_t xl = g->ns, xh = 0;
        for (int c = 0; c < nc; c++) {
            const int32_t *sx = g->spX + 2 * (j + c);
            if (sx[0] < sx[1]) { xl = sx[0] < xl ? sx[0] : xl; xh = sx[1] > xh ? sx[1] : xh; }
        }
        l = l > SBL * xl ? l : SBL * xl;
        h = h < SBL * xh ? h : SBL * xh;
    }
    if (h > k) h = k;
    if (l >= h) { l = 0; h = k; }
    *lo = l;
    *hi = h;
}

/* Block q's part of the span [lo, hi) (blocks of BL steps from 0, as the a-priori bounds'):
 * its first step into *l0, its step count returned.  The blocks from q = lo / BL while
 * q BL < hi each hold a step at least. */
static inline int64_t span_block(int64_t q, int64_t lo, int64_t hi, int64_t *l0)
{
    *l0 = q * BL > lo ? q * BL : lo;
    return (hi < (q + 1) * BL ? hi : (q + 1) * BL) - *l0;
}
#endif
#endif
