/* The in-block substitution's certified rows with 512-bit vectors (eft_subst.h): built with
 * -mavx512f -mavx512dq and called only where the handle's kernel set is the 512-bit one.  A
 * row's eight lanes are one vector where eft_subst.c's row_chain takes two of four: each lane
 * goes through row_chain's operations in row_chain's order (the same sigma from the same M,
 * the same two CHAIN4 chains and R, the same TwoSums, bound b and certificate), so it
 * certifies what row_chain certifies, and every value it writes is RN(exact), as there (bit
 * budget: row_chain's).  The rows run from r0 while every lane is certified; the first row
 * with a lane left is left to ozb_eft_subst8, which computes it again and takes its other
 * paths.  Compiled with -ffp-contract=off: the FMAs are the explicit ones. */
#include "eft/eft_subst.h"
#include "sum/eft8.h"
#include <math.h>

#if defined(__AVX512F__) && defined(__AVX512DQ__)
#include <immintrin.h>

/* the largest of two vectors of magnitudes by their bits, a NaN kept (ozb_imax4) */
static inline __m512d imax8(__m512d a, __m512d b)
{
    return _mm512_mask_blend_pd(_mm512_cmpgt_epi64_mask(_mm512_castpd_si512(b), _mm512_castpd_si512(a)), a, b);
}

/* sigma_for lane by lane: 2^(floor(log2 m) + 10), at least 2^-960 */
static inline __m512d sigma8(__m512d m)
{
    const __m512i e = _mm512_and_si512(_mm512_castpd_si512(m), _mm512_set1_epi64(0x7ff0000000000000ll));
    const __m512d g = _mm512_castsi512_pd(_mm512_add_epi64(e, _mm512_set1_epi64(10ll << 52)));
    return _mm512_max_pd(g, _mm512_set1_pd(0x1p-960));
}

/* CHAIN4 (eft_kern.h) lane by lane: tau' = RN(x t + tau), R += RN(x t - (tau' - tau)) */
static inline void chain8(__m512d *T, __m512d *R, __m512d x, __m512d t)
{
    const __m512d u = _mm512_fmadd_pd(x, t, *T);
    *R = _mm512_add_pd(*R, _mm512_fmsub_pd(x, t, _mm512_sub_pd(u, *T)));
    *T = u;
}

/* row_chain (eft_subst.c) on nv vectors (one lane group each, buf[v]): row i's lanes :=
 * RN(row - sum_{l < i} t_l x_l) where all lanes of every group are certified (1), else 0 and
 * the rows untouched; pad[v]: group v's lanes beyond its `lanes`.  Two groups side by side
 * give the out-of-order core two independent chains: a row's latency (its sums, the
 * certificate, the division that the next row's products wait for) bounds the loop. */
static inline __attribute__((always_inline)) int rows_nv(int nv, const double *t, double *const buf[2], int64_t i, double tmax,
                                                         const __m512d xmax[2], const __mmask8 pad[2])
{
    const __m512d big = _mm512_set1_pd(0x1p1000);
    const __m512d c1 = _mm512_set1_pd((double)(i * i) * 0x1p-106 * (1.0 + 0x1p-30));
    __m512d r0[2], sg[2], T0[2], T1[2], R[2], y[2];
    __mmask8 ok[2];
    int bad = 0;
    for (int v = 0; v < nv; v++) {
        r0[v] = _mm512_loadu_pd(buf[v] + 8 * i);
        const __m512d M = _mm512_mul_pd(_mm512_set1_pd(tmax), xmax[v]);
        ok[v] = _mm512_cmp_pd_mask(M, _mm512_set1_pd(0x1p990), _CMP_LE_OQ) & _mm512_cmp_pd_mask(ozb_abs8(r0[v]), big, _CMP_LE_OQ);
        bad |= (__mmask8)(ok[v] | pad[v]) != 0xff;
        sg[v] = T0[v] = T1[v] = sigma8(M);
        R[v] = _mm512_setzero_pd();
    }
    if (bad) return 0;
    int64_t l = 0;
    for (; l + 2 <= i; l += 2) {
        const __m512d ta = _mm512_set1_pd(-t[l]), tb = _mm512_set1_pd(-t[l + 1]);
        for (int v = 0; v < nv; v++) {
            chain8(&T0[v], &R[v], _mm512_loadu_pd(buf[v] + 8 * l), ta);
            chain8(&T1[v], &R[v], _mm512_loadu_pd(buf[v] + 8 * l + 8), tb);
        }
    }
    if (l < i) {
        const __m512d ta = _mm512_set1_pd(-t[l]);
        for (int v = 0; v < nv; v++) chain8(&T0[v], &R[v], _mm512_loadu_pd(buf[v] + 8 * l), ta);
    }
    for (int v = 0; v < nv; v++) {
        const __m512d S = _mm512_add_pd(_mm512_sub_pd(T0[v], sg[v]), _mm512_sub_pd(T1[v], sg[v]));
        __m512d y1, z1, zz;
        ozb_two_sum8(r0[v], S, &y1, &z1);
        const __m512d w = _mm512_add_pd(z1, R[v]);
        ozb_two_sum8(y1, w, &y[v], &zz);
        const __m512d b = _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(c1, sg[v]), _mm512_mul_pd(ozb_abs8(w), _mm512_set1_pd(0x1p-52))),
                                        _mm512_set1_pd(0x1p-1000));
        const __m512d ay = ozb_abs8(y[v]);
        ok[v] &= _mm512_cmp_pd_mask(ay, _mm512_set1_pd(0x1p-960), _CMP_GE_OQ) &
                 _mm512_cmp_pd_mask(ay, _mm512_set1_pd(0x1p1010), _CMP_LE_OQ) & _mm512_cmp_pd_mask(b, big, _CMP_LE_OQ);
        bad |= (__mmask8)(ozb_cert_ok8(ok[v], y[v], zz, b) | pad[v]) != 0xff;
    }
    if (bad) return 0;
    for (int v = 0; v < nv; v++)   /* (the lanes beyond `lanes` keep their zeros) */
        _mm512_storeu_pd(buf[v] + 8 * i, _mm512_maskz_mov_pd((__mmask8)~pad[v], y[v]));
    return 1;
}

/* rows r0 .. of nv groups while every lane is certified: the first row left, or bs */
static inline __attribute__((always_inline)) int64_t subst_nv(int nv, const double *tb, const double *d, int64_t bs, int64_t r0,
                                                              const int lanes[2], double *const buf[2])
{
    __m512d xmax[2];
    __mmask8 pad[2];
    for (int v = 0; v < nv; v++) {
        pad[v] = (__mmask8)(0xffu << lanes[v]);
        xmax[v] = _mm512_setzero_pd();
        for (int64_t l = 0; l < r0; l++) xmax[v] = imax8(xmax[v], ozb_abs8(_mm512_loadu_pd(buf[v] + 8 * l)));
    }
    for (int64_t i = r0; i < bs; i++) {
        if (i > 0) {
            const double *t = tb + OZB_SUBST_ROWS * i;
            double tmax = 0.0;   /* row_tmax's */
            for (int64_t l = 0; l < i; l++) tmax = fabs(t[l]) > tmax ? fabs(t[l]) : tmax;
            if (!rows_nv(nv, t, buf, i, tmax, xmax, pad)) return i;
        }
        for (int v = 0; v < nv; v++) {
            double *row = buf[v] + 8 * i;
            if (d) _mm512_storeu_pd(row, _mm512_maskz_div_pd((__mmask8)~pad[v], _mm512_loadu_pd(row), _mm512_set1_pd(d[i])));
            xmax[v] = imax8(xmax[v], ozb_abs8(_mm512_loadu_pd(row)));
        }
    }
    return bs;
}

int64_t ozb_eft_subst8_512(const double *tb, const double *d, int64_t bs, int64_t r0, int lanes, double *buf)
{
    const int ln[2] = { lanes, 8 };
    double *const b[2] = { buf, buf };
    return subst_nv(1, tb, d, bs, r0, ln, b);
}

int64_t ozb_eft_subst16_512(const double *tb, const double *d, int64_t bs, int lanes0, int lanes1, double *buf0, double *buf1)
{
    const int ln[2] = { lanes0, lanes1 };
    double *const b[2] = { buf0, buf1 };
    return subst_nv(2, tb, d, bs, 0, ln, b);
}
#else   /* not called without AVX-512: every row left to ozb_eft_subst8 */
int64_t ozb_eft_subst8_512(const double *tb, const double *d, int64_t bs, int64_t r0, int lanes, double *buf)
{
    (void)tb; (void)d; (void)bs; (void)lanes; (void)buf;
    return r0;
}

int64_t ozb_eft_subst16_512(const double *tb, const double *d, int64_t bs, int lanes0, int lanes1, double *buf0, double *buf1)
{
    (void)tb; (void)d; (void)bs; (void)lanes0; (void)lanes1; (void)buf0; (void)buf1;
    return 0;
}
#endif
