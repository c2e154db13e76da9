/* The error-free GEMM's block of one strip times two columns (eft_gemm.c's block_two) with
 * 512-bit vectors: built with -mavx512f -mavx512dq and called only where the handle's kernel
 * set is the 512-bit one (ozb_eft_wide).  A strip's eight rows are one vector, the two
 * 256-bit halves of block_two's side by side, and every lane goes through the running split
 * (CHAIN4, eft_kern.h) in its order: the same S and R, bit for bit, so the same results.
 * Why: two chains of four operations per eight-row step where the 256-bit code runs four;
 * on cores with two 512-bit FMA units (Sapphire Rapids) that is the GEMM's speed (at 256
 * bits its adds wait for ports), and elsewhere fewer instructions for the same work.
 * Bit budget: eft_kern.h.  Compiled with -ffp-contract=off: the FMAs are explicit. */
#include "eft/eft_kern.h"
#include "sum/eft8.h"

#if defined(EFT_AVX2) && defined(__AVX512F__) && defined(__AVX512DQ__)
static inline __m512d join(__m256d lo, __m256d hi) { return _mm512_insertf64x4(_mm512_castpd256_pd512(lo), hi, 1); }

void ozb_eft_block_two512(const double *ab, const double *x0, const double *x1, int64_t nb, const __m256d gs[4],
                          __m256d S[4], __m256d R[4])
{
    const __m512d g0 = join(gs[0], gs[1]), g1 = join(gs[2], gs[3]);
    __m512d T0 = g0, T1 = g1, R0 = _mm512_setzero_pd(), R1 = R0;
    for (int64_t l = 0; l < nb; l++) {
        const __m512d a = _mm512_loadu_pd(ab + 8 * l);
        const __m512d xv = _mm512_set1_pd(x0[l]), xw = _mm512_set1_pd(x1[l]);
        const __m512d t0 = _mm512_fmadd_pd(a, xv, T0), t1 = _mm512_fmadd_pd(a, xw, T1);
        R0 = _mm512_add_pd(R0, _mm512_fmsub_pd(a, xv, _mm512_sub_pd(t0, T0)));
        R1 = _mm512_add_pd(R1, _mm512_fmsub_pd(a, xw, _mm512_sub_pd(t1, T1)));
        T0 = t0;
        T1 = t1;
    }
    /* S = tau - sigma, exact (Sterbenz, as block_two) */
    const __m512d S0 = _mm512_sub_pd(T0, g0), S1 = _mm512_sub_pd(T1, g1);
    S[0] = _mm512_castpd512_pd256(S0); S[1] = _mm512_extractf64x4_pd(S0, 1);
    S[2] = _mm512_castpd512_pd256(S1); S[3] = _mm512_extractf64x4_pd(S1, 1);
    R[0] = _mm512_castpd512_pd256(R0); R[1] = _mm512_extractf64x4_pd(R0, 1);
    R[2] = _mm512_castpd512_pd256(R1); R[3] = _mm512_extractf64x4_pd(R1, 1);
}
#endif

#if defined(EFT_AVX2) && defined(__AVX512F__) && defined(__AVX512DQ__)
/* ---- four columns at a time (eft_gemm.c's strip_quad): the same lanes, the same bits ----
 * tot: the four columns' running totals, column c's s, c, a, G at tot + 32 c + 8 {0, 1, 2, 3}
 * (eight rows each): eft_kern.h's tot4 of both halves side by side. */

/* One block of the strip times four columns x[0..3] with sigmas gs (column c's halves at
 * gs[2c], gs[2c+1]): the running split of block_two (CHAIN4) on four chains at once, which
 * keeps both FMA units busy past the chains' latency, then the block's S and R into the
 * totals as tot_first (first) or tot_add does, lane by lane. */
void ozb_eft_block_four512(const double *ab, const double *const x[4], int64_t nb, const __m256d gs[8], double *tot, int first)
{
    __m512d g[4], T[4], R[4];
    for (int c = 0; c < 4; c++) {
        g[c] = join(gs[2 * c], gs[2 * c + 1]);
        T[c] = g[c];
        R[c] = _mm512_setzero_pd();
    }
    const double *x0 = x[0], *x1 = x[1], *x2 = x[2], *x3 = x[3];
    for (int64_t l = 0; l < nb; l++) {
        const __m512d a = _mm512_loadu_pd(ab + 8 * l);
        const __m512d v0 = _mm512_set1_pd(x0[l]), v1 = _mm512_set1_pd(x1[l]);
        const __m512d v2 = _mm512_set1_pd(x2[l]), v3 = _mm512_set1_pd(x3[l]);
        const __m512d t0 = _mm512_fmadd_pd(a, v0, T[0]), t1 = _mm512_fmadd_pd(a, v1, T[1]);
        const __m512d t2 = _mm512_fmadd_pd(a, v2, T[2]), t3 = _mm512_fmadd_pd(a, v3, T[3]);
        R[0] = _mm512_add_pd(R[0], _mm512_fmsub_pd(a, v0, _mm512_sub_pd(t0, T[0])));
        R[1] = _mm512_add_pd(R[1], _mm512_fmsub_pd(a, v1, _mm512_sub_pd(t1, T[1])));
        R[2] = _mm512_add_pd(R[2], _mm512_fmsub_pd(a, v2, _mm512_sub_pd(t2, T[2])));
        R[3] = _mm512_add_pd(R[3], _mm512_fmsub_pd(a, v3, _mm512_sub_pd(t3, T[3])));
        T[0] = t0; T[1] = t1; T[2] = t2; T[3] = t3;
    }
    const __m512d absm = _mm512_castsi512_pd(_mm512_set1_epi64(0x7fffffffffffffffll));
    for (int c = 0; c < 4; c++) {
        double *t = tot + 32 * c;
        const __m512d S = _mm512_sub_pd(T[c], g[c]);      /* exact (Sterbenz, as block_two) */
        if (first) {
            _mm512_storeu_pd(t, S);
            _mm512_storeu_pd(t + 8, R[c]);
            _mm512_storeu_pd(t + 16, _mm512_and_pd(R[c], absm));
            _mm512_storeu_pd(t + 24, g[c]);
            continue;
        }
        /* tot_add: the Dot2 step with S as the summand and R as its error */
        const __m512d s0 = _mm512_loadu_pd(t), s1 = _mm512_add_pd(s0, S), bb = _mm512_sub_pd(s1, s0);
        const __m512d e = _mm512_add_pd(_mm512_sub_pd(s0, _mm512_sub_pd(s1, bb)), _mm512_sub_pd(S, bb));
        const __m512d w = _mm512_add_pd(e, R[c]);
        _mm512_storeu_pd(t, s1);
        _mm512_storeu_pd(t + 8, _mm512_add_pd(_mm512_loadu_pd(t + 8), w));
        _mm512_storeu_pd(t + 16, _mm512_add_pd(_mm512_loadu_pd(t + 16), _mm512_and_pd(w, absm)));
        _mm512_storeu_pd(t + 24, _mm512_add_pd(_mm512_loadu_pd(t + 24), g[c]));
    }
}

/* ozb_eft_cert4's arithmetic on eight rows (eft_cert4.h, lane by lane: the range tests, the
 * bound, Sum2 over alpha S, alpha C and TwoProduct(beta, c)), certified by the symmetric test
 * alone ((|z| + b)(1 + 2^-50) below y's smaller half-gap: what ozb_cert_ok4 certifies first).
 * A lane this leaves is left to eft_gemm.c's strip_put, which runs the whole certificate on
 * the same totals; a certified lane is RN(exact) either way. */
static __mmask8 cert8(const double *t, int one_block, double N, double alpha, int use_c, double beta, const double *c0,
                      __m512d *y)
{
    const __m512d absm = _mm512_castsi512_pd(_mm512_set1_epi64(0x7fffffffffffffffll)), zero = _mm512_setzero_pd();
    const __m512d big = _mm512_set1_pd(0x1p1000), tiny = _mm512_set1_pd(0x1p-1000);
    const __m512d s = _mm512_loadu_pd(t), cc = _mm512_loadu_pd(t + 8), a = _mm512_loadu_pd(t + 16), g = _mm512_loadu_pd(t + 24);
    __mmask8 ok = one_block ? 0xff
                            : (__mmask8)(_mm512_cmp_pd_mask(_mm512_and_pd(s, absm), big, _CMP_LE_OQ) &
                                         _mm512_cmp_pd_mask(_mm512_add_pd(_mm512_and_pd(cc, absm), _mm512_add_pd(a, g)), big,
                                                            _CMP_LE_OQ));
    /* the bound on |D|: ozb_eft_bound4 */
    const __m512d amin = _mm512_set1_pd(BOUND_A_MIN), gmin = _mm512_set1_pd(BOUND_G_MIN);
    const __mmask8 apos = _mm512_cmp_pd_mask(a, zero, _CMP_GT_OQ);
    const __m512d ar = _mm512_mask_blend_pd(apos & _mm512_cmp_pd_mask(a, amin, _CMP_LT_OQ), a, amin);
    const __m512d gr = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(g, zero, _CMP_GT_OQ) & _mm512_cmp_pd_mask(g, gmin, _CMP_LT_OQ), g, gmin);
    __m512d B = _mm512_mul_pd(ar, _mm512_set1_pd(N * 0x1p-52));
    B = _mm512_mask_blend_pd(apos & _mm512_cmp_pd_mask(B, tiny, _CMP_LT_OQ), B, tiny);
    B = _mm512_add_pd(_mm512_add_pd(B, _mm512_mul_pd(gr, _mm512_set1_pd(EBC))), tiny);
    __m512d yy, z;
    if (alpha == 1.0 && !use_c) ozb_two_sum8(s, cc, &yy, &z);
    else {
        const __m512d al = _mm512_set1_pd(alpha);
        __m512d T[4] = { _mm512_mul_pd(al, s), _mm512_mul_pd(al, cc), zero, zero };
        int m = 2;
        if (use_c) {
            const __m512d bt = _mm512_set1_pd(beta), c = _mm512_loadu_pd(c0);
            const __m512d h = _mm512_mul_pd(bt, c), l = _mm512_fmsub_pd(bt, c, h), ah = _mm512_and_pd(h, absm);
            ok &= (__mmask8)(_mm512_cmp_pd_mask(c, zero, _CMP_EQ_OQ) |
                             (_mm512_cmp_pd_mask(ah, _mm512_set1_pd(0x1p-969), _CMP_GE_OQ) & _mm512_cmp_pd_mask(ah, big, _CMP_LE_OQ)));
            T[2] = h; T[3] = l; m = 4;
        }
        /* Sum2 (ozb_sum2_4) */
        __m512d sum = T[0], r = zero, ra = zero;
        for (int i = 1; i < m; i++) {
            __m512d er;
            ozb_two_sum8(sum, T[i], &sum, &er);
            r = _mm512_add_pd(r, er);
            ra = _mm512_add_pd(ra, _mm512_and_pd(er, absm));
        }
        ozb_two_sum8(sum, r, &yy, &z);
        __m512d Bs = _mm512_mul_pd(ra, _mm512_set1_pd((double)m * 0x1p-52));
        Bs = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(ra, zero, _CMP_GT_OQ) & _mm512_cmp_pd_mask(Bs, tiny, _CMP_LT_OQ), Bs, tiny);
        B = _mm512_add_pd(Bs, B);
    }
    ok &= (__mmask8)_mm512_cmp_pd_mask(_mm512_and_pd(yy, absm), _mm512_set1_pd(0x1p-960), _CMP_GE_OQ);
    __mmask8 pow2;
    const __m512d hz = ozb_half_gap8(yy, &pow2);
    *y = yy;
    return ok & ozb_cert_sym8(z, B, hz);
}

int ozb_eft_quad_put512(const double *tot, int one_block, double N, double alpha, int use_c, double beta, double *c,
                        int64_t ccs)
{
    int done = 0;
    for (int q = 0; q < 4; q++) {
        __m512d y;
        if (cert8(tot + 32 * q, one_block, N, alpha, use_c, beta, c + q * ccs, &y) != 0xff) continue;
        _mm512_storeu_pd(c + q * ccs, y);
        done |= 1 << q;
    }
    return done;
}
#endif
