/* Certificates of the error-free sums inline: one row's where alpha = 1, beta c unused
 * (ozb_eft_finish_unit), and four rows' from their totals (eft_kern.h's tot4) for the GEMV-N
 * strips (eft_gemv_n.c) and the GEMM's whole strips (eft_gemm.c). */
#ifndef OZB_EFT_CERT4_H
#define OZB_EFT_CERT4_H
#include "eft/eft_kern.h"
#include "sum/sum.h"

/* ozb_eft_finish (eft_dot.c) where alpha = 1 and beta c is not used, inline: S + C = y + z
 * exactly (TwoSum; |S| <= 2^1000: no overflow), the row's sum y + z + D within |z| + B of y,
 * certified by ozb_round_certified_z (its common case inline).  The short DOT's path */
static inline int ozb_eft_finish_unit(double S, double C, double B, double *out)
{
    if (!isfinite(S) || !isfinite(C) || !isfinite(B) || !(fabs(S) <= 0x1p1000)) return 0;
    double y, z;
    ozb_two_sum(S, C, &y, &z);
    return ozb_round_certified_z_inline(y, z, B, out);
}

#ifdef EFT_AVX2
/* Sum2 (sum/sum.c) lane by lane over T[0..m-1] (its first TwoSum, 0 + T[0], is exactly
 * (T[0], 0)): (y, z) = TwoSum of the cascaded sum and the sum of its errors, ra the sum of the
 * errors' magnitudes (the certificates' bounds are multiples of it) */
static inline void ozb_sum2_4(const __m256d *T, int m, __m256d *y, __m256d *z, __m256d *ra)
{
    __m256d s = T[0], r = _mm256_setzero_pd(), a = r;
    for (int i = 1; i < m; i++) {
        __m256d er;
        ozb_two_sum4(s, T[i], &s, &er);
        r = _mm256_add_pd(r, er);
        a = _mm256_add_pd(a, _mm256_and_pd(er, ABSMASK));
    }
    ozb_two_sum4(s, r, y, z);
    *ra = a;
}

/* Four rows' bound on |D| from their totals (eft_kern.h's head: N 2^-52 A, at least 2^-1000
 * where A > 0, plus G EBC and 2^-1000, A and G raised to BOUND_A_MIN and BOUND_G_MIN), lane by
 * lane */
static inline __m256d ozb_eft_bound4(const tot4 *t, double N)
{
    const __m256d tiny = _mm256_set1_pd(0x1p-1000), zero = _mm256_setzero_pd();
    const __m256d apos = _mm256_cmp_pd(t->a, zero, _CMP_GT_OQ), amin = _mm256_set1_pd(BOUND_A_MIN), gmin = _mm256_set1_pd(BOUND_G_MIN);
    const __m256d a = _mm256_blendv_pd(t->a, amin, _mm256_and_pd(apos, _mm256_cmp_pd(t->a, amin, _CMP_LT_OQ)));
    const __m256d g = _mm256_blendv_pd(t->g, gmin, _mm256_and_pd(_mm256_cmp_pd(t->g, zero, _CMP_GT_OQ),
                                                                 _mm256_cmp_pd(t->g, gmin, _CMP_LT_OQ)));
    __m256d B = _mm256_mul_pd(a, _mm256_set1_pd(N * 0x1p-52));
    B = _mm256_blendv_pd(B, tiny, _mm256_and_pd(apos, _mm256_cmp_pd(B, tiny, _CMP_LT_OQ)));
    return _mm256_add_pd(_mm256_add_pd(B, _mm256_mul_pd(g, _mm256_set1_pd(EBC))), tiny);
}

/* Four rows' certificate at once where alpha = +-1 (alpha S and alpha C exact): the same
 * arithmetic as finish() and ozb_sum2_certify in eft_dot.c and sum.c, lane by lane, on the
 * terms alpha S, alpha C and TwoProduct(beta, c).  Returns the lanes certified (bit q: row q,
 * its RN(exact) in y[q]); *inrange: the lanes whose values were all within the ranges
 * checked (so that a bound too wide for them is the answer finish() would reach too: its
 * bound is the same up to a few units of 2^-50 of it).  one_block: the totals are a row's
 * single block under an a-priori bound (eft_gemm.c: |S| <= 2^-2 sigma (1 + 2^-40), |C| = A
 * <= 2^-45 sigma, G = sigma <= 2^1000, all finite), so the range test is left out: it fails
 * only at sigma = 2^1000, where Sum2's arithmetic on such S and C still cannot overflow (the
 * values stay below 2^1001 and the bound is computed as always). */
static inline __attribute__((always_inline)) int ozb_eft_cert4(const tot4 *t, int one_block, double N, double alpha, int use_c,
                                                               double beta, const double c0[4], double y[4], int *inrange)
{
    const __m256d absm = ABSMASK, zero = _mm256_setzero_pd();
    const __m256d big = _mm256_set1_pd(0x1p1000), tiny = _mm256_set1_pd(0x1p-1000);
    __m256d ok = one_block ? _mm256_castsi256_pd(_mm256_set1_epi64x(-1))
                           : _mm256_and_pd(_mm256_cmp_pd(_mm256_and_pd(t->s, absm), big, _CMP_LE_OQ),
                                           _mm256_cmp_pd(_mm256_add_pd(_mm256_and_pd(t->c, absm), _mm256_add_pd(t->a, t->g)),
                                                         big, _CMP_LE_OQ));   /* finite, Sum2's range */
    const __m256d B = ozb_eft_bound4(t, N);
    if (alpha == 1.0 && !use_c) {
        /* S + C alone (a BLAS call's alpha = 1, beta = 0): finish()'s own arithmetic, lane by
         * lane: (y, z) = TwoSum(S, C) exactly, the row's sum within |z| + B of y */
        __m256d yy, z;
        ozb_two_sum4(t->s, t->c, &yy, &z);
        ok = _mm256_and_pd(ok, _mm256_cmp_pd(_mm256_and_pd(yy, absm), _mm256_set1_pd(0x1p-960), _CMP_GE_OQ));
        *inrange = _mm256_movemask_pd(ok);
        ok = ozb_cert_ok4(ok, yy, z, B);
        _mm256_storeu_pd(y, yy);
        return _mm256_movemask_pd(ok);
    }
    const __m256d al = _mm256_set1_pd(alpha);
    __m256d T[4] = { _mm256_mul_pd(al, t->s), _mm256_mul_pd(al, t->c), zero, zero };
    int m = 2;
    if (use_c) {
        const __m256d bt = _mm256_set1_pd(beta), c = _mm256_loadu_pd(c0);
        const __m256d h = _mm256_mul_pd(bt, c), l = _mm256_fmsub_pd(bt, c, h), ah = _mm256_and_pd(h, absm);
        /* exact where c = 0 or 2^-969 <= |beta c| <= 2^1000 (sum/eft.h) */
        ok = _mm256_and_pd(ok, _mm256_or_pd(_mm256_cmp_pd(c, zero, _CMP_EQ_OQ),
                                            _mm256_and_pd(_mm256_cmp_pd(ah, _mm256_set1_pd(0x1p-969), _CMP_GE_OQ),
                                                          _mm256_cmp_pd(ah, big, _CMP_LE_OQ))));
        T[2] = h; T[3] = l; m = 4;
    }
    __m256d yy, z, ra;
    ozb_sum2_4(T, m, &yy, &z, &ra);
    __m256d Bs = _mm256_mul_pd(ra, _mm256_set1_pd((double)m * 0x1p-52));
    Bs = _mm256_blendv_pd(Bs, tiny, _mm256_and_pd(_mm256_cmp_pd(ra, zero, _CMP_GT_OQ), _mm256_cmp_pd(Bs, tiny, _CMP_LT_OQ)));
    ok = _mm256_and_pd(ok, _mm256_cmp_pd(_mm256_and_pd(yy, absm), _mm256_set1_pd(0x1p-960), _CMP_GE_OQ));
    *inrange = _mm256_movemask_pd(ok);
    ok = ozb_cert_ok4(ok, yy, z, _mm256_add_pd(Bs, B));
    _mm256_storeu_pd(y, yy);
    return _mm256_movemask_pd(ok);
}

/* Four rows' certificate where alpha = +-1 and beta = 1 (an update C := C -+ A B, as LAPACK's
 * blocked algorithms make it), by bracketing instead of Sum2.  With T = s + c + D the row's
 * sum (|D| <= B, ozb_eft_bound4) and V = c0 + alpha T its exact result:
 *   c0 + alpha s = y + e exactly (TwoSum: |c0|, |s| <= 2^1000, no overflow);
 *   w = RN(e + alpha c), off e + alpha c by at most 2^-52 |w| + 2^-1075;
 *   so V = y + w + d with |d| <= E = 2^-52 |w| + 2^-1074 + B, and Bt >= 2 E (computed with a
 *   margin of 2^-50 for its own roundings);
 *   RN(w - Bt) <= w - E and RN(w + Bt) >= w + E: each rounding moves by at most
 *   2^-53 (|w| + Bt) + 2^-1075, which Bt - E covers (E >= 2^-52 |w| and 2^-1074);
 * so V lies between y + RN(w - Bt) and y + RN(w + Bt), and where those two sums round alike
 * (RN is monotone) that is RN(V), subnormal results included (an IEEE addition rounds them
 * once).  A zero is not certified (its sign is the exact sums' to decide), nor an overflow,
 * nor anything not finite (NaN compares unequal).  (B >= 2^-1000 dwarfs the subnormal terms.)
 * Returns the lanes certified, their RN(V) in y.  Some fifteen operations where Sum2's
 * certificate takes about forty-five. */
static inline __attribute__((always_inline)) int ozb_eft_cert4_upd(const tot4 *t, double N, double alpha,
                                                                   const double c0[4], double y[4])
{
    const __m256d absm = ABSMASK, big = _mm256_set1_pd(0x1p1000), al = _mm256_set1_pd(alpha);
    const __m256d c = _mm256_loadu_pd(c0), B = ozb_eft_bound4(t, N);
    const __m256d in = _mm256_and_pd(_mm256_cmp_pd(_mm256_and_pd(t->s, absm), big, _CMP_LE_OQ),
                                     _mm256_cmp_pd(_mm256_and_pd(c, absm), big, _CMP_LE_OQ));
    __m256d yy, e;
    ozb_two_sum4(c, _mm256_mul_pd(al, t->s), &yy, &e);
    const __m256d w = _mm256_add_pd(e, _mm256_mul_pd(al, t->c));
    const __m256d E = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(_mm256_and_pd(w, absm), _mm256_set1_pd(0x1p-52)), B),
                                    _mm256_set1_pd(0x1p-1074));
    const __m256d Bt = _mm256_mul_pd(E, _mm256_set1_pd(2.0 + 0x1p-49));
    const __m256d lo = _mm256_add_pd(yy, _mm256_sub_pd(w, Bt)), hi = _mm256_add_pd(yy, _mm256_add_pd(w, Bt));
    const __m256d fin = _mm256_cmp_pd(_mm256_and_pd(lo, absm), _mm256_set1_pd(0x1.fffffffffffffp1023), _CMP_LE_OQ);
    const __m256d ok = _mm256_and_pd(_mm256_and_pd(in, _mm256_cmp_pd(lo, hi, _CMP_EQ_OQ)),
                                     _mm256_and_pd(fin, _mm256_cmp_pd(lo, _mm256_setzero_pd(), _CMP_NEQ_OQ)));
    _mm256_storeu_pd(y, lo);
    return _mm256_movemask_pd(ok);
}

/* The certificates of nv vectors of totals t[v] (column v / 2 of a strip, rows 4 (v % 2) on:
 * c + (v / 2) ccs + 4 (v % 2)) with no branch between them, so that their chains of dependent
 * operations overlap: upd, ozb_eft_cert4_upd (alpha = +-1, beta = 1); else alpha = 1, beta = 0
 * and every vector a single block under its bound: TwoSum(s, c) and the symmetric test (a
 * subset of what ozb_eft_cert4 accepts there, with the same y).  Returns 0xf where every
 * lane of every vector is certified, their RN(exact) in y[v]. */
static inline __attribute__((always_inline)) int ozb_eft_cert4_cols(const tot4 *t, int nv, double N, double alpha, int upd,
                                                                    const double *c, int64_t ccs, double (*y)[4])
{
    int all = 0xf;
    if (upd) {
        for (int v = 0; v < nv; v++) all &= ozb_eft_cert4_upd(&t[v], N, alpha, c + (v >> 1) * ccs + 4 * (v & 1), y[v]);
        return all;
    }
    __m256d ok = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
    for (int v = 0; v < nv; v++) {
        __m256d yy, z;
        ozb_two_sum4(t[v].s, t[v].c, &yy, &z);
        const __m256d in = _mm256_cmp_pd(_mm256_and_pd(yy, ABSMASK), _mm256_set1_pd(0x1p-960), _CMP_GE_OQ);
        ok = _mm256_and_pd(ok, _mm256_and_pd(in, ozb_cert_sym4(z, ozb_eft_bound4(&t[v], N), ozb_half_gap4(yy))));
        _mm256_storeu_pd(y[v], yy);
    }
    return _mm256_movemask_pd(ok);
}

#endif
#endif
