/* The deep error-free sums' rounding: a row's terms s, c, d rounded to RN(alpha sum + beta c)
 * where the bound (or exactness) certifies it, four rows at once where alpha = +-1.  Method and
 * bit budget: eft_deep_kern.h.  Compiled with -ffp-contract=off: the FMAs are explicit. */
#include "eft/eft_deep_kern.h"
#include "eft/eft_cert4.h"
#include "sum/sum.h"

#ifdef EFT_AVX2
/* N = 3 nblocks + 2 terms in d and a */
int ozb_deep_round(const ozb_problem *pr, const deep_row *st, int lo, int hi, int64_t nblocks, double cval, double *out)
{
    double v[5][8];
    for (int q = 0; q < 2; q++) {
        _mm256_storeu_pd(v[0] + 4 * q, st->t[q].s); _mm256_storeu_pd(v[1] + 4 * q, st->t[q].c);
        _mm256_storeu_pd(v[2] + 4 * q, st->t[q].d); _mm256_storeu_pd(v[3] + 4 * q, st->t[q].a);
        _mm256_storeu_pd(v[4] + 4 * q, st->t[q].g);
    }
    const int use_c = pr->beta != 0.0;
    if (pr->alpha == 0.0 || (use_c && !isfinite(cval))) return 0;
    double A = 0.0, G = 0.0;
    int exact = 1;
    for (int r = lo; r < hi; r++) {
        for (int w = 0; w < 3; w++)
            if (!(fabs(v[w][r]) <= 0x1p1000)) return 0;          /* overflow or NaN */
        if (st->inexact[r] || !(v[3][r] == 0.0 || (st->gmin[r] < 960 && v[3][r] * (1.0 + 0x1p-20) < ozb_pow2(53 + st->gmin[r]))))
            exact = 0;
        A += v[3][r];
        G += v[4][r];
    }
    const double N = 3.0 * (double)nblocks + 2.0;
    const double B = ((N * 0x1p-52) * A + EBD * G) * (1.0 + 0x1p-40) + 0x1p-1000;
    if (!(B <= 0x1p1000)) return 0;
    if (pr->alpha == 1.0 || pr->alpha == -1.0) {
        /* the lanes' terms times +-1 are exact doubles already: Sum2 over them (alpha s first,
         * then beta c, which a residual cancels against them, then the small terms), certified
         * against Sum2's own bound plus the lanes' (none where they are the exact sum: sum.c's
         * argument).  Most rows end here; the rest (exact midpoints, results that cancel
         * beyond Sum2) go on to NearSum on the terms as integers below. */
        double T[3 * 8 + 2];
        int m = 0;
        for (int r = lo; r < hi; r++) T[m++] = pr->alpha * v[0][r];
        if (use_c && !ozb_two_product(pr->beta, cval, &T[m], &T[m + 1])) goto nearsum;
        if (use_c) m += 2;
        for (int r = lo; r < hi; r++) { T[m++] = pr->alpha * v[1][r]; T[m++] = pr->alpha * v[2][r]; }
        if (ozb_sum2_certify(T, m, exact ? 0.0 : B, out)) return 1;
        if (exact) {
            /* T sums exactly to the result, which Sum2 could not round: a residual's exact
             * value often has 54 bits, a midpoint.  NearSum rounds T itself (ties to even,
             * under underflow too; |T_i| <= 2^1000, few terms: its preconditions), after a
             * VecSum pass that mostly leaves one IEEE addition to do it (ozb_nearsum_vec); an
             * exact zero is +0, as ozb_sum_nearest returns it */
            const double x = ozb_nearsum_vec(T, m);
            *out = x == 0.0 ? 0.0 : x;
            return 1;
        }
    }
nearsum:;
    double P[24], scratch[2 * 24 + 4];   /* frame_terms: 2 n + 2, and the residual's -x */
    int32_t E[24];
    int n = 0;
    for (int r = lo; r < hi; r++)
        for (int w = 0; w < 3; w++) {
            int ex;
            const double f = frexp(v[w][r], &ex);
            P[n] = f * 0x1p53;                                    /* an integer, |P| < 2^53 */
            E[n++] = ex - 53;
        }
    if (exact) {             /* the terms are the exact sum: NearSum's RN, no bound */
        *out = ozb_sum_nearest(P, E, n, pr->alpha, pr->beta, cval, use_c, scratch, NULL);
        return 1;
    }
    int be;
    const double bm = frexp(B, &be);
    return ozb_sum_nearest_bounded(P, E, n, pr->alpha, pr->beta, cval, use_c, bm, be, scratch, out);
}

/* Four rows at once where alpha = +-1: Sum2 of (alpha s, beta c, alpha c', alpha d, the
 * TwoProduct error of beta c) in that order (alpha s and beta c, which cancel in a residual,
 * first: their TwoSum is then exact), certified against Sum2's bound plus delta (the row's
 * bound, 0 where its terms are exact; sum/sum.c's argument, lane by lane).  Returns the rows
 * certified (bit r: row r, RN(exact) in y[r]); the rest go through deep_round. */
int ozb_deep_cert4(const deep4 *t, double alpha, int use_c, double beta, const double c0[4], const double delta[4],
                   double y[4])
{
    const __m256d absm = ABSMASK, zero = _mm256_setzero_pd(), big = _mm256_set1_pd(0x1p1000);
    const __m256d al = _mm256_set1_pd(alpha);
    __m256d T[5] = { _mm256_mul_pd(al, t->s), zero, _mm256_mul_pd(al, t->c), _mm256_mul_pd(al, t->d), zero };
    __m256d ok = _mm256_and_pd(_mm256_cmp_pd(_mm256_and_pd(t->s, absm), big, _CMP_LE_OQ),
                               _mm256_cmp_pd(_mm256_add_pd(_mm256_and_pd(t->c, absm), _mm256_and_pd(t->d, absm)), big, _CMP_LE_OQ));
    if (use_c) {
        const __m256d bt = _mm256_set1_pd(beta), c = _mm256_loadu_pd(c0);
        const __m256d h = _mm256_mul_pd(bt, c), ah = _mm256_and_pd(h, absm);
        /* TwoProduct exact where c = 0 or 2^-969 <= |beta c| <= 2^1000 (sum/eft.h) */
        ok = _mm256_and_pd(ok, _mm256_or_pd(_mm256_cmp_pd(c, zero, _CMP_EQ_OQ),
                                            _mm256_and_pd(_mm256_cmp_pd(ah, _mm256_set1_pd(0x1p-969), _CMP_GE_OQ),
                                                          _mm256_cmp_pd(ah, big, _CMP_LE_OQ))));
        T[1] = h;
        T[4] = _mm256_fmsub_pd(bt, c, h);
    }
    __m256d yy, z, ra;
    ozb_sum2_4(T, 5, &yy, &z, &ra);
    /* an exact zero (a residual of exact data: C - I B with C = B), which no bound certifies:
     * where the terms are the row's exact sum (delta 0) and Sum2 added them without an error
     * (ra, the sum of the errors' magnitudes, 0), yy is that sum; yy = 0 is +0, as the exact
     * sums give it */
    const __m256d dl = _mm256_loadu_pd(delta);
    const __m256d zero_ok = _mm256_and_pd(ok, _mm256_and_pd(_mm256_cmp_pd(dl, zero, _CMP_EQ_OQ),
                                                            _mm256_and_pd(_mm256_cmp_pd(ra, zero, _CMP_EQ_OQ),
                                                                          _mm256_cmp_pd(yy, zero, _CMP_EQ_OQ))));
    /* |exact - (yy + z)| <= 10 u ra (ra's tree of 4 errors) + delta */
    const __m256d b = _mm256_add_pd(_mm256_mul_pd(ra, _mm256_set1_pd(10 * 0x1p-53)), dl);
    ok = _mm256_and_pd(ok, _mm256_cmp_pd(_mm256_and_pd(yy, absm), _mm256_set1_pd(0x1p-960), _CMP_GE_OQ));
    ok = _mm256_and_pd(ok, _mm256_cmp_pd(_mm256_and_pd(yy, absm), big, _CMP_LE_OQ));
    ok = _mm256_and_pd(ok, _mm256_cmp_pd(b, big, _CMP_LE_OQ));
    ok = _mm256_or_pd(ozb_cert_ok4(ok, yy, z, b), zero_ok);
    _mm256_storeu_pd(y, _mm256_andnot_pd(zero_ok, yy));     /* (+0 in the zero lanes) */
    return _mm256_movemask_pd(ok);
}

/* Every lane's bound for ozb_deep_cert4: 0 where its terms are its exact sum, else its bound
 * (eft_deep_kern.h); -1 where it is not finite. */
void ozb_deep_lane_deltas(const deep_row *st, int64_t nblocks, double dl[8])
{
    double a[8], g[8];
    _mm256_storeu_pd(a, st->t[0].a); _mm256_storeu_pd(a + 4, st->t[1].a);
    _mm256_storeu_pd(g, st->t[0].g); _mm256_storeu_pd(g + 4, st->t[1].g);
    const double nb = (3.0 * (double)nblocks + 2.0) * 0x1p-52;
    for (int r = 0; r < 8; r++) {
        if (!st->inexact[r] && (a[r] == 0.0 || (st->gmin[r] < 960 && a[r] * (1.0 + 0x1p-20) < ozb_pow2(53 + st->gmin[r])))) {
            dl[r] = 0.0;
            continue;
        }
        const double B = (nb * a[r] + EBD * g[r]) * (1.0 + 0x1p-40) + 0x1p-1000;
        dl[r] = B <= 0x1p1000 ? B : -1.0;
    }
}

#endif
