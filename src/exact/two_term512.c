/* The one-term loop of two_term.c (one1, the rank updates' a + x (uh + ul)) with 512-bit
 * vectors: built with -mavx512f -mavx512dq and called only where the handle's kernel set is
 * the 512-bit one.  Each element goes through one1's operations in one1's order (no contraction:
 * the FMAs are the explicit ones), so the decided elements and their flags are one1's, bit
 * for bit.  Why: GCC's 256-bit loop spends a third of its instructions moving the 64-bit
 * comparison masks between vector and integer form; here they stay in mask registers.
 * Compiled with -ffp-contract=off. */
#include "exact/two_term.h"

#if defined(__AVX512F__) && defined(__AVX512DQ__)
#include <immintrin.h>
#include <string.h>

/* fail[0..len) := the lanes of live that ok leaves; returns how many */
static inline int64_t put_flags(uint8_t *fail, __mmask8 ok, __mmask8 live, int64_t len)
{
    if (ok == live) {
        if (len == 8) {
            const uint64_t z = 0;              /* one store, not a call */
            memcpy(fail, &z, 8);
        } else
            memset(fail, 0, (size_t)len);
        return 0;
    }
    int64_t nf = 0;
    for (int64_t l = 0; l < len; l++) {
        const int bad = !((ok >> l) & 1);
        fail[l] = (uint8_t)bad;
        nf += bad;
    }
    return nf;
}

int64_t ozb_one_term512(int64_t m, const double *a, const double *x, double uh, double ul, double *out, int safe,
                        uint8_t *fail)
{
    const __m512d vuh = _mm512_set1_pd(uh), vul = _mm512_set1_pd(ul), zero = _mm512_setzero_pd();
    const __m512d big = _mm512_set1_pd(0x1.fffffffffffffp1023), tiny = _mm512_set1_pd(0x1p-960);
    const __m512d b50 = _mm512_set1_pd(0x1p-50), b1069 = _mm512_set1_pd(0x1p-1069);
    const int fma_only = ul == 0.0;
    const __mmask8 keep_range = (safe || uh == 0.0) ? 0xff : 0x00;
    int64_t nf = 0;
    for (int64_t i = 0; i < m; i += 8) {
        const __mmask8 live = m - i >= 8 ? 0xff : (__mmask8)((1u << (m - i)) - 1u);
        const int whole = m - i >= 8;
        const __m512d va = whole ? _mm512_loadu_pd(a + i) : _mm512_maskz_loadu_pd(live, a + i);
        const __m512d vx = whole ? _mm512_loadu_pd(x + i) : _mm512_maskz_loadu_pd(live, x + i);
        __m512d r;
        __mmask8 ok;
        if (fma_only) {
            const __m512d f = _mm512_fmadd_pd(vx, vuh, va);
            const __mmask8 range = keep_range | _mm512_cmp_pd_mask(_mm512_abs_pd(_mm512_mul_pd(vx, vuh)), tiny, _CMP_GE_OQ) |
                                   _mm512_cmp_pd_mask(vx, zero, _CMP_EQ_OQ);
            ok = (_mm512_cmp_pd_mask(f, zero, _CMP_NEQ_UQ) | range) & _mm512_cmp_pd_mask(_mm512_abs_pd(f), big, _CMP_LE_OQ);
            r = _mm512_add_pd(f, zero);
        } else {
            const __m512d p = _mm512_mul_pd(vx, vuh), pe = _mm512_fmsub_pd(vx, vuh, p);
            const __m512d s = _mm512_add_pd(va, p), b = _mm512_sub_pd(s, va);
            const __m512d e1 = _mm512_add_pd(_mm512_sub_pd(va, _mm512_sub_pd(s, b)), _mm512_sub_pd(p, b));
            const __m512d w = _mm512_mul_pd(vx, vul), e = _mm512_add_pd(_mm512_add_pd(e1, pe), w);
            const __m512d sum = _mm512_add_pd(_mm512_add_pd(_mm512_abs_pd(e1), _mm512_abs_pd(pe)), _mm512_abs_pd(w));
            const __mmask8 pos = _mm512_cmp_pd_mask(sum, zero, _CMP_GT_OQ);
            const __m512d B = _mm512_add_pd(_mm512_mul_pd(b50, sum), _mm512_maskz_mov_pd(pos, b1069));
            const __m512d lo = _mm512_add_pd(s, _mm512_sub_pd(e, B)), hi = _mm512_add_pd(s, _mm512_add_pd(e, B));
            const __mmask8 range = keep_range | _mm512_cmp_pd_mask(_mm512_abs_pd(p), tiny, _CMP_GE_OQ) |
                                   _mm512_cmp_pd_mask(vx, zero, _CMP_EQ_OQ);
            ok = range & _mm512_cmp_pd_mask(lo, hi, _CMP_EQ_OQ) & _mm512_cmp_pd_mask(_mm512_abs_pd(lo), big, _CMP_LE_OQ);
            r = lo;
        }
        ok &= live;
        if (ok == 0xff) _mm512_storeu_pd(out + i, r);
        else _mm512_mask_storeu_pd(out + i, ok, r);
        nf += put_flags(fail + i, ok, live, m - i >= 8 ? 8 : m - i);
    }
    return nf;
}
#endif
