/* Error-free transformations four lanes at a time (AVX2): TwoSum and the rounding
 * certificates of sum/sum.c (Sum2's bound; the signed test against the half-gap on z's own
 * side of y), lane by lane, with the same bits as their scalar forms in sum/eft.h and
 * sum/sum.c.  EFT_AVX2 is defined where the build targets AVX2 and FMA (the library's
 * x86-64-v3 baseline); elsewhere the vector methods are not offered.
 * Callers are compiled with -ffp-contract=off. */
#ifndef OZB_SUM_EFT4_H
#define OZB_SUM_EFT4_H
#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#include <stdint.h>
#define EFT_AVX2 1

#define ABSMASK _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffll))

/* The first r elements at p (0 <= r <= 4) and zeros: nothing past p[r-1] is read, by plain
 * loads of one or two lanes, not lanes stored on the stack and loaded as a vector (which stall
 * on the store forwarding) nor a masked load (vmaskmovpd: some 10 ns on an earlier EPYC; on
 * Zen 4 a DROT tail by masked loads and stores measured the same as by these) */
static inline __m256d ozb_first4(const double *p, int64_t r)
{
    switch (r) {
    case 4: return _mm256_loadu_pd(p);
    case 3: return _mm256_insertf128_pd(_mm256_zextpd128_pd256(_mm_loadu_pd(p)), _mm_load_sd(p + 2), 1);
    case 2: return _mm256_zextpd128_pd256(_mm_loadu_pd(p));
    case 1: return _mm256_zextpd128_pd256(_mm_load_sd(p));
    default: return _mm256_setzero_pd();
    }
}

/* TwoSum lane by lane: s + e = a + b exactly (no overflow) */
static inline void ozb_two_sum4(__m256d a, __m256d b, __m256d *s, __m256d *e)
{
    const __m256d x = _mm256_add_pd(a, b), bb = _mm256_sub_pd(x, a);
    *e = _mm256_add_pd(_mm256_sub_pd(a, _mm256_sub_pd(x, bb)), _mm256_sub_pd(b, bb));
    *s = x;
}

/* Half the smaller gap next to y, lane by lane: 2^(e - 53), 2^(e - 54) where y is a power of
 * two (sum.c's half_gap, from y's bits); valid for |y| >= 2^-960, which the
 * certificates check beside it */
static inline __m256d ozb_half_gap4(__m256d y)
{
    const __m256i yb = _mm256_castpd_si256(y);
    const __m256i ex = _mm256_and_si256(yb, _mm256_set1_epi64x(0x7ff0000000000000ll));
    const __m256i pow2 = _mm256_cmpeq_epi64(_mm256_and_si256(yb, _mm256_set1_epi64x(0x000fffffffffffffll)), _mm256_setzero_si256());
    return _mm256_castsi256_pd(_mm256_sub_epi64(ex, _mm256_add_epi64(_mm256_set1_epi64x(53ll << 52),
                                                                   _mm256_and_si256(pow2, _mm256_set1_epi64x(1ll << 52)))));
}

/* The lanes (all bits set) where RN(v) = y for every v within b of y + z, z exact (TwoSum's
 * error), b >= 0: ozb_round_certified_z lane by lane, the sign of z used (above a power of two
 * y the gap away from zero is twice the gap toward it).  A finite y with |y| >= 2^-960 and
 * b <= 2^1000 are the caller's to check (every caller compares |y| with 2^-960, which an Inf or
 * NaN y from TwoSum fails, its z being NaN then too); a NaN z or b certifies nothing. */
static inline __m256d ozb_cert_z4(__m256d y, __m256d z, __m256d b)
{
    const __m256d hz = ozb_half_gap4(y);
    const __m256i yb = _mm256_castpd_si256(y);
    const __m256i pow2 = _mm256_cmpeq_epi64(_mm256_and_si256(yb, _mm256_set1_epi64x(0x000fffffffffffffll)), _mm256_setzero_si256());
    const __m256d ha = _mm256_add_pd(hz, _mm256_and_pd(_mm256_castsi256_pd(pow2), hz));
    const __m256d d = _mm256_xor_pd(z, _mm256_and_pd(y, _mm256_set1_pd(-0.0)));   /* z's part away from zero */
    const __m256d mg = _mm256_mul_pd(_mm256_add_pd(_mm256_and_pd(z, ABSMASK), b), _mm256_set1_pd(0x1p-50));
    return _mm256_and_pd(_mm256_cmp_pd(_mm256_add_pd(_mm256_add_pd(d, b), mg), ha, _CMP_LT_OQ),
                         _mm256_cmp_pd(_mm256_add_pd(_mm256_sub_pd(b, d), mg), hz, _CMP_LT_OQ));
}

/* The lanes certified by the symmetric test alone, (|z| + b)(1 + 2^-50) < hz (hz: y's smaller
 * half-gap, ozb_half_gap4): what ozb_cert_z4 certifies less the values beyond the smaller
 * half-gap on the wider side of a power of two, at a third of its operations; ozb_cert_z4
 * then runs only where this leaves an in-range lane (the certificates sit on the latency chain
 * of every small call: 16^3 GEMM 1.48 us, 1.68 us with ozb_cert_z4 alone) */
static inline __m256d ozb_cert_sym4(__m256d z, __m256d b, __m256d hz)
{
    const __m256d err = _mm256_mul_pd(_mm256_add_pd(_mm256_and_pd(z, ABSMASK), b), _mm256_set1_pd(1.0 + 0x1p-50));
    return _mm256_cmp_pd(err, hz, _CMP_LT_OQ);
}

/* ok and the certificate: the symmetric test, the signed one where it leaves a lane of ok */
static inline __m256d ozb_cert_ok4(__m256d ok, __m256d y, __m256d z, __m256d b)
{
    const __m256d c = _mm256_and_pd(ok, ozb_cert_sym4(z, b, ozb_half_gap4(y)));
    if (_mm256_movemask_pd(c) == _mm256_movemask_pd(ok)) return c;
    return _mm256_and_pd(ok, ozb_cert_z4(y, z, b));
}

#endif
#endif
