/* The in-block forward substitution on eight lanes (eft_subst.h).  Row i's sum over the rows
 * before it (fewer than OZB_SUBST_ROWS products a lane) is first a running split from an
 * a-priori bound, with its certificate (row_chain, bit budget there).  A row with a lane it
 * leaves is computed again as a GEMV-N strip: its eight lanes are the right-hand sides, its
 * columns the rows l < i of the block (buf, eight doubles apart), its vector row i of the
 * triangle; so the strip's split and certificate (ozb_eft_strip_block, ozb_eft_strip_put:
 * eft_kern.h's budget for one block of at most OZB_SUBST_ROWS < BLN products a lane) give
 * RN(exact) or flag the lane, and a lane whose every product is exactly zero (a zero factor
 * times a finite one) gets the zero-products value.  Both give RN(exact) where they certify
 * it: the same bits.  The division is IEEE division, lane by lane the same as the scalar one.
 * Compiled with -ffp-contract=off: the FMAs are explicit. */
#include "eft/eft_subst.h"
#include "eft/eft_kern.h"
#include "exact/zero_products.h"
#include <math.h>
#include <string.h>

int ozb_eft_subst_applies(ozblas_handle_t h)
{
#ifdef EFT_AVX2
    return !h->knobs.no_dot2;
#else
    (void)h;
    return 0;
#endif
}

#ifdef EFT_AVX2
_Static_assert(OZB_SUBST_ROWS <= BLN, "one strip block per row");

/* whether every product of lane q in row i is exactly zero: one factor zero and the other
 * finite (the strip's range test alone does not prove the other finite: its running maximum
 * can drop a NaN product that a later finite one follows) */
static int zero_products(const double *t, const double *buf, int64_t i, int q)
{
    for (int64_t l = 0; l < i; l++) {
        const double u = t[l], v = buf[8 * l + q];
        if (!((u == 0.0 && isfinite(v)) || (v == 0.0 && isfinite(u)))) return 0;
    }
    return 1;
}

/* Row i's eight lanes c := RN(c - sum_{l < i} t_l x_l) (x_l at buf + 8 l) where all of them
 * are certified (returns 1; else 0, the row untouched).  xmax: per lane the largest |x_l|.
 * Bit budget, per lane (u = 2^-53, n = i <= 15 products):
 *   - M = RN(tmax xmax) <= 2^990 (else no lane is taken), sigma = sigma_for(M) > 2^9 M, a
 *     power of two in [2^-960, 2^1000]: every |x_l t_l| <= M (1 + u) <= 2^-9 sigma (1 + u);
 *   - the products by CHAIN4 (eft_kern.h) on two chains, l even and l odd, each from tau =
 *     sigma, with one R: each chain's sum S_c = tau_c - sigma is exact and a multiple of u
 *     sigma below sigma / 4, so S = S_0 + S_1 is exact; R sums n errors each below (1 + u) u
 *     sigma, so sum -t_l x_l = S + R + D1, |D1| <= n^2 u^2 sigma (1 + 2^-40) + n 2^-1075
 *     (CHAIN4's budget for one block of n products);
 *   - |c| <= 2^1000 (checked): (y1, z1) = TwoSum(c, S), w = RN(z1 + R), (y, z) = TwoSum(y1, w),
 *     so c - sum t_l x_l = y + z + D, |D| <= |D1| + u |w| <= b = 2^-106 n^2 sigma (1 + 2^-30)
 *     + 2^-52 |w| + 2^-1000 as computed (its roundings, underflow included, within the margins);
 *   - RN(exact) = y where every value within b of y + z rounds to y (ozb_cert_ok4, for 2^-960
 *     <= |y| <= 2^1010).  An Inf or NaN x_l or t_l makes tau, and so y, Inf or NaN (additions
 *     never make them finite): the certificate fails there.
 * Lanes from `lanes` on hold zeros and are not tested (they stay zero). */
static int row_chain(const double *t, const double *buf, int64_t i, double tmax, const __m256d xmax[2],
                     const __m256d lanes_ok[2], double *row)
{
    const __m256d z = _mm256_setzero_pd(), absm = ABSMASK, big = _mm256_set1_pd(0x1p1000);
    const __m256d c1 = _mm256_set1_pd((double)(i * i) * 0x1p-106 * (1.0 + 0x1p-30));
    __m256d sg[2], T0[2], T1[2], R[2] = { z, z }, ok[2];
    for (int v = 0; v < 2; v++) {
        const __m256d M = _mm256_mul_pd(_mm256_set1_pd(tmax), xmax[v]);
        ok[v] = _mm256_and_pd(_mm256_cmp_pd(M, _mm256_set1_pd(0x1p990), _CMP_LE_OQ),
                              _mm256_cmp_pd(_mm256_and_pd(_mm256_loadu_pd(row + 4 * v), absm), big, _CMP_LE_OQ));
        sg[v] = T0[v] = T1[v] = sigma_for(M);
    }
    if ((_mm256_movemask_pd(_mm256_or_pd(ok[0], lanes_ok[0])) & _mm256_movemask_pd(_mm256_or_pd(ok[1], lanes_ok[1]))) != 0xf)
        return 0;
    int64_t l = 0;
    for (; l + 2 <= i; l += 2) {
        const __m256d ta = _mm256_set1_pd(-t[l]), tb = _mm256_set1_pd(-t[l + 1]);
        for (int v = 0; v < 2; v++) {
            CHAIN4(T0[v], R[v], _mm256_loadu_pd(buf + 8 * l + 4 * v), ta);
            CHAIN4(T1[v], R[v], _mm256_loadu_pd(buf + 8 * l + 8 + 4 * v), tb);
        }
    }
    if (l < i) {
        const __m256d ta = _mm256_set1_pd(-t[l]);
        for (int v = 0; v < 2; v++) CHAIN4(T0[v], R[v], _mm256_loadu_pd(buf + 8 * l + 4 * v), ta);
    }
    __m256d y[2];
    int all = 0;
    for (int v = 0; v < 2; v++) {
        const __m256d S = _mm256_add_pd(_mm256_sub_pd(T0[v], sg[v]), _mm256_sub_pd(T1[v], sg[v]));
        __m256d y1, z1, zz;
        ozb_two_sum4(_mm256_loadu_pd(row + 4 * v), S, &y1, &z1);
        const __m256d w = _mm256_add_pd(z1, R[v]);
        ozb_two_sum4(y1, w, &y[v], &zz);
        const __m256d b = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(c1, sg[v]),
                                                      _mm256_mul_pd(_mm256_and_pd(w, absm), _mm256_set1_pd(0x1p-52))),
                                        _mm256_set1_pd(0x1p-1000));
        const __m256d ay = _mm256_and_pd(y[v], absm);
        ok[v] = _mm256_and_pd(ok[v], _mm256_and_pd(_mm256_cmp_pd(ay, _mm256_set1_pd(0x1p-960), _CMP_GE_OQ),
                                                   _mm256_cmp_pd(ay, _mm256_set1_pd(0x1p1010), _CMP_LE_OQ)));
        ok[v] = _mm256_and_pd(ok[v], _mm256_cmp_pd(b, big, _CMP_LE_OQ));
        all |= _mm256_movemask_pd(_mm256_or_pd(ozb_cert_ok4(ok[v], y[v], zz, b), lanes_ok[v])) << (4 * v);
    }
    if (all != 0xff) return 0;
    for (int v = 0; v < 2; v++)   /* (the lanes beyond `lanes` keep their zeros) */
        _mm256_storeu_pd(row + 4 * v, _mm256_andnot_pd(lanes_ok[v], y[v]));
    return 1;
}

/* the row's largest |t_l| (a NaN may be passed over: a NaN t_l makes its products NaN, and
 * with them y, so the certificate fails there all the same) */
static double row_tmax(const double *t, int64_t i)
{
    double m = 0.0;
    for (int64_t l = 0; l < i; l++) m = fabs(t[l]) > m ? fabs(t[l]) : m;
    return m;
}

/* One right-hand side: row i's c := RN(c - sum_{l < i} t_l x_l) where certified (1), else 0
 * and c untouched.  The products four a vector, lane q taking l = 4 v + q (at most four a
 * lane, the lanes beyond i masked to zeros, whatever x holds there); each lane a CHAIN4 chain
 * from tau = sigma.  Bit budget (u = 2^-53, n = i <= 15 products), row_chain's with lanes
 * over l instead of right-hand sides:
 *   - M = RN(tmax xmax) <= 2^990, sigma = sigma_for(M) > 2^9 M: every |t_l x_l| <= M (1 + u)
 *     <= 2^-9 sigma (1 + u), so each chain (four products at most) keeps tau within
 *     [sigma / 2, 2 sigma) and its S_q = tau_q - sigma is exact, a multiple of u sigma below
 *     sigma / 4 in magnitude; their sum S, below sigma, is exact in any order;
 *   - R, a floating sum of the n errors r_l (four chains, then the lanes' sum: a summation
 *     tree over n terms below (1 + u) u sigma), with the r_l's own roundings: sum -t_l x_l =
 *     S + R + D1, |D1| <= n^2 u^2 sigma (1 + 2^-40) + n 2^-1075, CHAIN4's bound for n products;
 *   - from there on row_chain's finish: TwoSum(c, S) (|c| <= 2^1000), w, TwoSum again, the
 *     bound b and ozb_cert_ok4, lane 0 of four equal lanes. */
static int row_one(const double *t, const double *x, int64_t i, double xmax, double *c)
{
    const __m256d z = _mm256_setzero_pd(), absm = ABSMASK, sgn = _mm256_set1_pd(-0.0);
    const __m256i lane = _mm256_setr_epi64x(0, 1, 2, 3);
    const int64_t nv = (i + 3) / 4;
    __m256d tv[4], xv[4], tm = z;
    for (int64_t v = 0; v < nv; v++) {
        const __m256d keep = _mm256_castsi256_pd(_mm256_cmpgt_epi64(_mm256_set1_epi64x(i - 4 * v), lane));
        tv[v] = _mm256_xor_pd(_mm256_and_pd(_mm256_loadu_pd(t + 4 * v), keep), sgn);   /* -t_l */
        xv[v] = _mm256_and_pd(_mm256_loadu_pd(x + 4 * v), keep);
        tm = _mm256_max_pd(tm, _mm256_and_pd(tv[v], absm));
    }
    double tq[4];
    _mm256_storeu_pd(tq, tm);
    const double tmax = fmax(fmax(tq[0], tq[1]), fmax(tq[2], tq[3])), M = tmax * xmax;
    if (!(M <= 0x1p990) || !(fabs(*c) <= 0x1p1000)) return 0;      /* (NaN: no) */
    const __m256d sg = sigma_for(_mm256_set1_pd(M));
    __m256d T = sg, R = z;
    for (int64_t v = 0; v < nv; v++) CHAIN4(T, R, xv[v], tv[v]);
    double sq[4], rq[4];
    _mm256_storeu_pd(sq, _mm256_sub_pd(T, sg));
    _mm256_storeu_pd(rq, R);
    const __m256d S = _mm256_set1_pd((sq[0] + sq[1]) + (sq[2] + sq[3]));
    const __m256d Rs = _mm256_set1_pd((rq[0] + rq[1]) + (rq[2] + rq[3]));
    __m256d y1, z1, y, zz;
    ozb_two_sum4(_mm256_set1_pd(*c), S, &y1, &z1);
    const __m256d w = _mm256_add_pd(z1, Rs);
    ozb_two_sum4(y1, w, &y, &zz);
    const __m256d c1 = _mm256_set1_pd((double)(i * i) * 0x1p-106 * (1.0 + 0x1p-30));
    const __m256d b = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(c1, sg), _mm256_mul_pd(_mm256_and_pd(w, absm), _mm256_set1_pd(0x1p-52))),
                                    _mm256_set1_pd(0x1p-1000));
    const __m256d ay = _mm256_and_pd(y, absm);
    const __m256d ok = _mm256_and_pd(_mm256_and_pd(_mm256_cmp_pd(ay, _mm256_set1_pd(0x1p-960), _CMP_GE_OQ),
                                                   _mm256_cmp_pd(ay, _mm256_set1_pd(0x1p1010), _CMP_LE_OQ)),
                                     _mm256_cmp_pd(b, _mm256_set1_pd(0x1p1000), _CMP_LE_OQ));
    if (!(_mm256_movemask_pd(ozb_cert_ok4(ok, y, zz, b)) & 1)) return 0;
    *c = _mm256_cvtsd_f64(y);
    return 1;
}
#endif

int64_t ozb_eft_subst8(const double *tb, const double *d, int64_t bs, int64_t r0, int lanes, double *buf,
                       uint8_t fail[8], int wide)
{
#ifdef EFT_AVX2
    if (wide) {   /* the certified rows on one vector; a row it leaves is computed again below */
        r0 = ozb_eft_subst8_512(tb, d, bs, r0, lanes, buf);
        if (r0 == bs) {
            memset(fail, 0, 8);
            return bs;
        }
    }
    ozb_problem pr = { .m = lanes, .n = 1, .alpha = -1.0, .beta = 1.0, .crs = 1, .ccs = 0, .kblock = OZB_KBLOCK_MAX };
    const ozb_eft_t e = { .pr = &pr, .fail = fail };
    const __m256d z = _mm256_setzero_pd();
    /* the lanes beyond `lanes` (all bits set): not tested by row_chain */
    const __m256i lane = _mm256_setr_epi64x(0, 1, 2, 3);
    __m256d pad[2], xmax[2] = { z, z };
    for (int v = 0; v < 2; v++)
        pad[v] = _mm256_castsi256_pd(_mm256_cmpgt_epi64(_mm256_add_epi64(lane, _mm256_set1_epi64x(4 * v + 1)),
                                                        _mm256_set1_epi64x(lanes)));
    /* the largest |x_l| of the rows before r0, per lane (ozb_imax4 keeps a NaN, so a lane
     * that met one is never in range again) */
    for (int64_t l = 0; l < r0; l++)
        for (int v = 0; v < 2; v++) xmax[v] = ozb_imax4(xmax[v], _mm256_and_pd(_mm256_loadu_pd(buf + 8 * l + 4 * v), ABSMASK));
    memset(fail, 0, 8);
    for (int64_t i = r0; i < bs; i++) {
        double *row = buf + 8 * i;
        if (i > 0 && !row_chain(tb + OZB_SUBST_ROWS * i, buf, i, row_tmax(tb + OZB_SUBST_ROWS * i, i), xmax, pad, row)) {
            const double *t = tb + OZB_SUBST_ROWS * i;
            row4_t st[2];
            for (int v = 0; v < 2; v++) st[v].t.s = st[v].t.c = st[v].t.a = st[v].t.g = st[v].g = z;
            pr.k = i;
            pr.c = row;
            if (!ozb_eft_strip_block(buf, 8, t, i, st, 1, 0)) {
                memset(fail, 1, (size_t)lanes);   /* a product or row out of range */
                return i;
            }
            if (ozb_eft_strip_put(&e, 0, st, 0) != 0) {
                int left = 0;
                for (int q = 0; q < lanes; q++)
                    if (fail[q] && !(zero_products(t, buf, i, q) && ozb_exact_zero_products_put(&pr, q, 0, fail)))
                        left++;
                if (left) return i;
            }
        }
        if (d) {
            const __m256d dv = _mm256_set1_pd(d[i]);
            _mm256_storeu_pd(row, _mm256_div_pd(_mm256_loadu_pd(row), dv));
            _mm256_storeu_pd(row + 4, _mm256_div_pd(_mm256_loadu_pd(row + 4), dv));
            for (int q = lanes; q < 8; q++) row[q] = 0.0;   /* 0 / d may be NaN */
        }
        for (int v = 0; v < 2; v++) xmax[v] = ozb_imax4(xmax[v], _mm256_and_pd(_mm256_loadu_pd(row + 4 * v), ABSMASK));
    }
    return bs;
#else
    (void)tb; (void)d; (void)bs; (void)buf; (void)wide;   /* not offered (ozb_eft_subst_applies) */
    memset(fail, 0, 8);
    memset(fail, 1, (size_t)lanes);
    return r0;
#endif
}

int64_t ozb_eft_subst1(const double *tb, const double *d, int64_t bs, int64_t r0, double *x)
{
#ifdef EFT_AVX2
    double xmax = 0.0;            /* the largest |x_l| of the rows before; a NaN kept */
    for (int64_t l = 0; l < r0; l++) xmax = fabs(x[l]) > xmax || isnan(x[l]) ? fabs(x[l]) : xmax;
    for (int64_t i = r0; i < bs; i++) {
        if (i > 0 && !row_one(tb + OZB_SUBST_ROWS * i, x, i, xmax, &x[i])) return i;
        if (d) x[i] /= d[i];
        xmax = fabs(x[i]) > xmax || isnan(x[i]) ? fabs(x[i]) : xmax;
    }
    return bs;
#else
    (void)tb; (void)d; (void)bs; (void)x;   /* not offered (ozb_eft_subst_applies) */
    return r0;
#endif
}
