/* Error-free transformations eight lanes at a time (AVX-512 F and DQ): sum/eft4.h's TwoSum,
 * half-gap and rounding certificate, lane by lane with the same operations, so the same bits
 * and decisions.  For the files built with -mavx512f -mavx512dq (called only where the
 * handle's kernel set is the 512-bit one); empty elsewhere.  Callers are compiled with
 * -ffp-contract=off. */
#ifndef OZB_SUM_EFT8_H
#define OZB_SUM_EFT8_H
#if defined(__AVX512F__) && defined(__AVX512DQ__)
#include <immintrin.h>

static inline __m512d ozb_abs8(__m512d v)
{
    return _mm512_castsi512_pd(_mm512_and_si512(_mm512_castpd_si512(v), _mm512_set1_epi64(0x7fffffffffffffffll)));
}

static inline void ozb_two_sum8(__m512d a, __m512d b, __m512d *s, __m512d *e)
{
    const __m512d x = _mm512_add_pd(a, b), bb = _mm512_sub_pd(x, a);
    *e = _mm512_add_pd(_mm512_sub_pd(a, _mm512_sub_pd(x, bb)), _mm512_sub_pd(b, bb));
    *s = x;
}

/* y's smaller half-gap (ozb_half_gap4): 2^(e - 53), 2^(e - 54) where y is a power of two
 * (*pow2: those lanes) */
static inline __m512d ozb_half_gap8(__m512d y, __mmask8 *pow2)
{
    const __m512i yb = _mm512_castpd_si512(y);
    const __m512i ex = _mm512_and_si512(yb, _mm512_set1_epi64(0x7ff0000000000000ll));
    *pow2 = _mm512_cmpeq_epi64_mask(_mm512_and_si512(yb, _mm512_set1_epi64(0x000fffffffffffffll)), _mm512_setzero_si512());
    const __m512i sub = _mm512_mask_add_epi64(_mm512_set1_epi64(53ll << 52), *pow2, _mm512_set1_epi64(53ll << 52),
                                              _mm512_set1_epi64(1ll << 52));
    return _mm512_castsi512_pd(_mm512_sub_epi64(ex, sub));
}

/* The symmetric test alone (ozb_cert_sym4): (|z| + b)(1 + 2^-50) < hz */
static inline __mmask8 ozb_cert_sym8(__m512d z, __m512d b, __m512d hz)
{
    const __m512d err = _mm512_mul_pd(_mm512_add_pd(ozb_abs8(z), b), _mm512_set1_pd(1.0 + 0x1p-50));
    return _mm512_cmp_pd_mask(err, hz, _CMP_LT_OQ);
}

/* ozb_cert_ok4: ok and the certificate, the symmetric test, the signed one (ozb_cert_z4: above
 * a power of two the gap away from zero is twice the gap toward it) where it leaves a lane */
static inline __mmask8 ozb_cert_ok8(__mmask8 ok, __m512d y, __m512d z, __m512d b)
{
    __mmask8 pow2;
    const __m512d hz = ozb_half_gap8(y, &pow2);
    const __mmask8 c = ok & ozb_cert_sym8(z, b, hz);
    if (c == ok) return c;
    const __m512d ha = _mm512_add_pd(hz, _mm512_maskz_mov_pd(pow2, hz));
    const __m512d d = _mm512_xor_pd(z, _mm512_and_pd(y, _mm512_set1_pd(-0.0)));
    const __m512d mg = _mm512_mul_pd(_mm512_add_pd(ozb_abs8(z), b), _mm512_set1_pd(0x1p-50));
    return ok & _mm512_cmp_pd_mask(_mm512_add_pd(_mm512_add_pd(d, b), mg), ha, _CMP_LT_OQ) &
           _mm512_cmp_pd_mask(_mm512_add_pd(_mm512_sub_pd(b, d), mg), hz, _CMP_LT_OQ);
}

#endif
#endif
