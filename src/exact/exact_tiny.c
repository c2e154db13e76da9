/* Tiny inner dimensions rounded exactly, four rows at a time (exact_tiny.h).  Bit budget
 * (u = 2^-53), per lane (one element of C):
 *   - terms: for l < k, p = RN(x y) and e = x y - p by one FMA, exact where |p| lies in
 *     [2^-969, 2^1000] or a factor is zero (sum/eft.h: TwoProduct's range), negated for
 *     alpha = -1 (exact); beta c split alike.  m = 2k (+ 2) doubles of magnitude <= 2^1000
 *     whose sum is exactly alpha sum x y + beta c.  A lane out of range is left to the caller.
 *   - passes of VecSum: for q = 1..m-1, (t_q, t_(q-1)) = TwoSum(t_q, t_(q-1)); each TwoSum
 *     is exact (no sum reaches 2^1006: at most 34 terms of 2^1000), so the terms' sum never
 *     changes; after a pass t_(m-1) holds the sum rounded and the others what is left (Sum2),
 *     after two (Sum3) what is left is about 2^-53 of that again.  One pass, certified as below,
 *     decides what does not cancel; a group with a lane left takes the second pass and is
 *     certified again (and a third for k > 4).
 *   - R: the lower terms t_0..t_(m-2) by a chain of TwoSums, whose errors e_q make
 *     R + sum e_q = sum t_q exactly; (y, z) = TwoSum(t_(m-1), R), so the element is y + z + d
 *     with d = sum e_q.
 *   - where every e_q is zero (residuals of a few products usually: their exact values have
 *     few bits, and are often ties), y + z is the exact value and y = RN(t_(m-1) + R), the
 *     IEEE addition, is RN(exact): ties to even, subnormal results and exact zeros (+0)
 *     included;
 *   - elsewhere |d| <= b = E (1 + 2^-40) + 2^-1000 with E = fl(sum |e_q|) (within
 *     gamma_(m-2) < 2^-45 of the true sum; subnormal sums are exact), and RN(exact) = y where
 *     every value within b of y + z rounds to y (ozb_cert_ok4, for 2^-960 <= |y| <= 2^1010).
 * Everything else (ties, subnormal results, spans beyond TwoProduct's range, Inf and NaN) is
 * flagged for the caller's next method; the bits are RN(exact) on every path.
 * Compiled with -ffp-contract=off: the FMAs are explicit. */
#include "exact/exact_tiny.h"
#include "exact/zero_products.h"
#include "sum/eft4.h"
#include "core/info.h"
#include "sum/eft.h"
#include <math.h>
#include "core/par.h"
#include <string.h>

#define TERMS (2 * OZB_EXACT_TINY_CANCEL_K + 2)

int ozb_exact_tiny_eligible(const ozb_problem *pr)
{
#ifdef EFT_AVX2
    return pr->k <= OZB_EXACT_TINY_CANCEL_K && (pr->alpha == 1.0 || pr->alpha == -1.0);
#else
    (void)pr;
    return 0;
#endif
}

int ozb_exact_tiny_first(const ozb_problem *pr)
{
    return ozb_exact_tiny_eligible(pr) && pr->k <= OZB_EXACT_TINY_K && (pr->m < 8 || pr->k == 1 || (pr->n == 1 && pr->k == 2 && pr->m <= 64));
}

#ifdef EFT_AVX2
/* the problem and its flags: element (i, j)'s at fail[i fi + j fj] (the caller's column-major
 * m n flags, also where the kernel works on the transposed problem) */
typedef struct { const ozb_problem *pr; uint8_t *fail; int64_t fi, fj; int two; } tiny_t;   /* two: both passes at once */

/* rows i..i+nr-1 (nr <= 4) of column l of a view, zeros beyond */
static inline __m256d rows4(const ozb_view *v, int64_t i, int64_t l, int64_t nr)
{
    if (v->rs == 1) return ozb_first4(v->p + i + l * v->cs, nr);
    double t[4] = {0.0, 0.0, 0.0, 0.0};
    for (int64_t r = 0; r < nr; r++) t[r] = ozb_view_at(v, i + r, l);
    return _mm256_loadu_pd(t);
}

/* TwoProduct lane by lane into T[0], T[1], negated where neg; the lanes where it is exact
 * (|p| in [2^-969, 2^1000], or a zero factor) */
static inline __m256d split(__m256d x, __m256d y, int neg, __m256d *T)
{
    const __m256d z = _mm256_setzero_pd(), p = _mm256_mul_pd(x, y), ap = _mm256_and_pd(p, ABSMASK);
    const __m256d e = _mm256_fmsub_pd(x, y, p);
    const __m256d sgn = neg ? _mm256_set1_pd(-0.0) : z;
    T[0] = _mm256_xor_pd(p, sgn);
    T[1] = _mm256_xor_pd(e, sgn);
    const __m256d in = _mm256_and_pd(_mm256_cmp_pd(ap, _mm256_set1_pd(0x1p-969), _CMP_GE_OQ),
                                     _mm256_cmp_pd(ap, _mm256_set1_pd(0x1p1000), _CMP_LE_OQ));
    /* a zero factor: p = 0 and e = 0 where the other factor is finite (else p is NaN, and
     * the sums' NaN fails the certificate) */
    return _mm256_or_pd(in, _mm256_or_pd(_mm256_cmp_pd(x, z, _CMP_EQ_OQ), _mm256_cmp_pd(y, z, _CMP_EQ_OQ)));
}

/* One VecSum pass over the terms of both groups: (t_q, t_(q-1)) = TwoSum(t_q, t_(q-1)) for
 * q = 1..m-1, exact (no sum reaches 2^1006), the terms' sum unchanged */
static inline __attribute__((always_inline)) void vecsum_pass(__m256d T[2][TERMS], const int m)
{
    for (int q = 1; q < m; q++)
        for (int h = 0; h < 2; h++) ozb_two_sum4(T[h][q], T[h][q - 1], &T[h][q], &T[h][q - 1]);
}

/* Both groups' y and the lanes certified (mask), from the terms as they stand: the lower terms
 * by a TwoSum chain, R + sum e_q = sum t_q exactly; where every e_q is zero, R is exact and so
 * y = RN(t_(m-1) + R) is RN(exact) itself (ties, subnormal results and zeros included);
 * elsewhere E = fl(sum |e_q|) bounds the rest (the file's head) */
static inline __attribute__((always_inline)) void certify(__m256d T[2][TERMS], const int m, const __m256d ok[2],
                                                          __m256d y[2], int mask[2])
{
    const __m256d zero = _mm256_setzero_pd();
    __m256d R[2] = {zero, zero}, E[2] = {zero, zero};
    for (int q = 0; q < m - 1; q++)
        for (int h = 0; h < 2; h++) {
            __m256d e;
            ozb_two_sum4(R[h], T[h][q], &R[h], &e);
            E[h] = _mm256_add_pd(E[h], _mm256_and_pd(e, ABSMASK));
        }
    for (int h = 0; h < 2; h++) {
        __m256d zz;
        ozb_two_sum4(T[h][m - 1], R[h], &y[h], &zz);
        const __m256d pos = _mm256_cmp_pd(E[h], zero, _CMP_GT_OQ);
        const __m256d b = _mm256_add_pd(_mm256_mul_pd(E[h], _mm256_set1_pd(1.0 + 0x1p-40)), _mm256_and_pd(pos, _mm256_set1_pd(0x1p-1000)));
        const __m256d ay = _mm256_and_pd(y[h], ABSMASK);
        const __m256d range = _mm256_and_pd(_mm256_cmp_pd(ay, _mm256_set1_pd(0x1p-960), _CMP_GE_OQ),
                                            _mm256_cmp_pd(ay, _mm256_set1_pd(0x1p1010), _CMP_LE_OQ));
        const __m256d exact = _mm256_and_pd(_mm256_cmp_pd(E[h], zero, _CMP_EQ_OQ), _mm256_cmp_pd(ay, _mm256_set1_pd(0x1p1010), _CMP_LE_OQ));
        mask[h] = _mm256_movemask_pd(_mm256_and_pd(ok[h], _mm256_or_pd(exact, ozb_cert_ok4(range, y[h], zz, b))));
    }
}

/* Rows i..i+nr-1 (nr <= 8: two groups of four lanes, worked side by side so that their
 * dependency chains overlap) of column j, k products and (use_c) beta c each: certified lanes
 * written, the others flagged; returns those.  k and use_c are constants where it is
 * inlined, so that the terms stay in registers. */
static inline __attribute__((always_inline)) int64_t group_k(const tiny_t *t, int64_t i, int64_t nr, int64_t j,
                                                              const int k, const int use_c)
{
    const ozb_problem *pr = t->pr;
    const int neg = pr->alpha == -1.0, m = 2 * k + (use_c ? 2 : 0);
    const int64_t nh[2] = { nr < 4 ? nr : 4, nr > 4 ? nr - 4 : 0 };
    const __m256d zero = _mm256_setzero_pd();
    __m256d T[2][TERMS], ok[2];
    for (int h = 0; h < 2; h++) ok[h] = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
    for (int l = 0; l < k; l++) {
        const __m256d y = _mm256_set1_pd(ozb_view_at(&pr->b, j, l));
        for (int h = 0; h < 2; h++)
            ok[h] = _mm256_and_pd(ok[h], split(rows4(&pr->a, i + 4 * h, l, nh[h]), y, neg, &T[h][2 * l]));
    }
    if (use_c)
        for (int h = 0; h < 2; h++) {
            const ozb_view cv = { pr->c, pr->crs, pr->ccs };
            ok[h] = _mm256_and_pd(ok[h], split(_mm256_set1_pd(pr->beta), rows4(&cv, i + 4 * h, j, nh[h]), 0, &T[h][2 * k]));
        }
    /* one VecSum pass first: enough where little cancels; a second where some lane is left
     * (both at once where the caller knows the call cancels) */
    __m256d y[2];
    int mask[2];
    const int act[2] = { (1 << nh[0]) - 1, (1 << nh[1]) - 1 };     /* the lanes of rows below m */
    if (!((_mm256_movemask_pd(ok[0]) & act[0]) | (_mm256_movemask_pd(ok[1]) & act[1]))) {   /* every row out of range */
        for (int h = 0; h < 2; h++)
            for (int64_t r = 0; r < nh[h]; r++) t->fail[(i + 4 * h + r) * t->fi + j * t->fj] = 1;
        return nr;
    }
    vecsum_pass(T, m);
    if (t->two) vecsum_pass(T, m);
    certify(T, m, ok, y, mask);
    if (!t->two && ((mask[0] & act[0]) != act[0] || (mask[1] & act[1]) != act[1])) {
        vecsum_pass(T, m);
        certify(T, m, ok, y, mask);
    }
    /* longer sums (k > OZB_EXACT_TINY_K) may need a third pass to leave nothing */
    if (k > OZB_EXACT_TINY_K && ((mask[0] & act[0]) != act[0] || (mask[1] & act[1]) != act[1])) {
        vecsum_pass(T, m);
        certify(T, m, ok, y, mask);
    }
    int64_t left = 0;
    for (int h = 0; h < 2 && nh[h] > 0; h++) {
        double yv[4];
        _mm256_storeu_pd(yv, _mm256_and_pd(y[h], _mm256_cmp_pd(y[h], zero, _CMP_NEQ_UQ)));   /* exact zeros: +0 */
        const int64_t i0 = i + 4 * h;
        if (mask[h] == 0xf && nh[h] == 4 && pr->crs == 1 && t->fi == 1) {
            memcpy(pr->c + i0 + j * pr->ccs, yv, sizeof yv);
            memset(t->fail + i0 + j * t->fj, 0, 4);
            continue;
        }
        for (int64_t r = 0; r < nh[h]; r++) {
            const int done = mask[h] >> r & 1;
            if (done) pr->c[(i0 + r) * pr->crs + j * pr->ccs] = yv[r];
            t->fail[(i0 + r) * t->fi + j * t->fj] = (uint8_t)!done;
            left += !done;
        }
    }
    return left;
}

static int64_t group_sums(const tiny_t *t, int64_t i, int64_t nr, int64_t j);

/* k = 1 with beta = 0 or +-1 (LAPACK's rank-1 updates C - a b^T): alpha a b + beta c is
 * exactly a b' + beta c with b' = alpha b (a negation), which ozb_one_product rounds once
 * (exact/zero_products.h: its zeros and the results it leaves); the vectors below make its
 * decisions lane by lane.  What it leaves goes to the VecSum path. */
static int64_t group_fma(const tiny_t *t, int64_t i, int64_t nr, int64_t j)
{
    const ozb_problem *pr = t->pr;
    const double b = ozb_view_at(&pr->b, j, 0) * pr->alpha;
    double y[8];
    int ok = 1;
    if (nr == 8 && pr->a.rs == 1 && pr->crs == 1 && t->fi == 1) {       /* contiguous rows: vectors */
        const __m256d bv = _mm256_set1_pd(b), big = _mm256_set1_pd(0x1.fffffffffffffp1023), z = _mm256_setzero_pd();
        double *c = pr->c + i + j * pr->ccs;
        const double *a = pr->a.p + i;
        __m256d y0, y1;
        if (pr->beta == 0.0) {
            y0 = _mm256_mul_pd(_mm256_loadu_pd(a), bv);
            y1 = _mm256_mul_pd(_mm256_loadu_pd(a + 4), bv);
        } else {
            const __m256d be = _mm256_set1_pd(pr->beta);
            y0 = _mm256_fmadd_pd(_mm256_loadu_pd(a), bv, _mm256_mul_pd(be, _mm256_loadu_pd(c)));
            y1 = _mm256_fmadd_pd(_mm256_loadu_pd(a + 4), bv, _mm256_mul_pd(be, _mm256_loadu_pd(c + 4)));
        }
        /* |y| <= max finite (NaN fails), and y != 0 or a zero that is exact (ozb_one_product's
         * rule) */
        const __m256d tiny = _mm256_set1_pd(0x1p-960);
        const __m256d bz = _mm256_castsi256_pd(_mm256_set1_epi64x(b == 0.0 ? -1 : 0));   /* all ones where b' = 0 */
        __m256d g[2];
        for (int h = 0; h < 2; h++) {
            const __m256d av = _mm256_loadu_pd(a + 4 * h), yv = h ? y1 : y0;
            const __m256d zero_ok = _mm256_or_pd(_mm256_or_pd(_mm256_cmp_pd(av, z, _CMP_EQ_OQ), bz),
                                                 _mm256_cmp_pd(_mm256_and_pd(_mm256_mul_pd(av, bv), ABSMASK), tiny, _CMP_GE_OQ));
            g[h] = _mm256_and_pd(_mm256_cmp_pd(_mm256_and_pd(yv, ABSMASK), big, _CMP_LE_OQ),
                                 _mm256_or_pd(_mm256_cmp_pd(yv, z, _CMP_NEQ_OQ), zero_ok));
        }
        if ((_mm256_movemask_pd(g[0]) & _mm256_movemask_pd(g[1])) != 0xf) return group_sums(t, i, nr, j);
        _mm256_storeu_pd(c, _mm256_add_pd(y0, z));
        _mm256_storeu_pd(c + 4, _mm256_add_pd(y1, z));
        memset(t->fail + i + j * t->fj, 0, 8);
        return 0;
    }
    for (int64_t r = 0; r < nr; r++)
        ok &= ozb_one_product(ozb_view_at(&pr->a, i + r, 0), b, pr->beta,
                              pr->beta != 0.0 ? pr->c[(i + r) * pr->crs + j * pr->ccs] : 0.0, &y[r]);
    /* a row left: the VecSum path for the whole group, C untouched (it writes every flag) */
    if (!ok) return group_sums(t, i, nr, j);
    for (int64_t r = 0; r < nr; r++) {
        pr->c[(i + r) * pr->crs + j * pr->ccs] = y[r];
        t->fail[(i + r) * t->fi + j * t->fj] = 0;
    }
    return 0;
}

static int64_t group(const tiny_t *t, int64_t i, int64_t nr, int64_t j)
{
    if (t->pr->k == 1 && ozb_one_product_beta(t->pr->beta)) return group_fma(t, i, nr, j);
    return group_sums(t, i, nr, j);
}

/* k in (OZB_EXACT_TINY_K, OZB_EXACT_TINY_CANCEL_K]: the same steps with k a variable (the
 * terms in memory rather than registers) */
static __attribute__((noinline)) int64_t group_long(const tiny_t *t, int64_t i, int64_t nr, int64_t j)
{
    return group_k(t, i, nr, j, (int)t->pr->k, t->pr->beta != 0.0);
}

static int64_t group_sums(const tiny_t *t, int64_t i, int64_t nr, int64_t j)
{
    if (t->pr->k > OZB_EXACT_TINY_K) return group_long(t, i, nr, j);
    switch (t->pr->k * 2 + (t->pr->beta != 0.0)) {
    case 2: return group_k(t, i, nr, j, 1, 0);
    case 3: return group_k(t, i, nr, j, 1, 1);
    case 4: return group_k(t, i, nr, j, 2, 0);
    case 5: return group_k(t, i, nr, j, 2, 1);
    case 6: return group_k(t, i, nr, j, 3, 0);
    case 7: return group_k(t, i, nr, j, 3, 1);
    case 8: return group_k(t, i, nr, j, 4, 0);
    default: return group_k(t, i, nr, j, 4, 1);
    }
}

/* columns lo..hi-1 */
static int64_t columns(void *ctx, int64_t lo, int64_t hi)
{
    const tiny_t *t = ctx;
    int64_t left = 0;
    for (int64_t j = lo; j < hi; j++)
        for (int64_t i = 0; i < t->pr->m; i += 8)
            left += group(t, i, t->pr->m - i < 8 ? t->pr->m - i : 8, j);
    return left;
}
#endif

static ozblas_status_t tiny_run(ozblas_handle_t h, const ozb_problem *pr, int nt, int two, uint8_t **failp, int64_t *nfail)
{
    const size_t mn = (size_t)pr->m * (size_t)pr->n;
    uint8_t *fail = ozb_buf_get(h, OZB_BUF_TINY, mn + 8);
    if (!fail) return OZBLAS_STATUS_ALLOC_FAILED;
#ifdef EFT_AVX2
    /* lanes run down the columns of C, eight rows a group: a C of fewer rows than columns (a
     * row of C - a b^T), or one that takes fewer groups so (10 x 50: 70 groups, not 100), is
     * worked transposed, C^T = op(B) op(A)^T (element (i, j) is the same sum either way, and
     * each element's flag its own) */
    ozb_problem tp = *pr;
    tiny_t t = { pr, fail, 1, pr->m, two };
    if ((pr->m < 8 && pr->n > pr->m) || (pr->n + 7) / 8 * pr->m < (pr->m + 7) / 8 * pr->n) {
        tp.m = pr->n; tp.n = pr->m; tp.a = pr->b; tp.b = pr->a; tp.crs = pr->ccs; tp.ccs = pr->crs;
        t.pr = &tp; t.fi = pr->m; t.fj = 1;
    }
    /* op(A) with strided rows (A^T, or op(B)^T where C is worked transposed): copied once
     * column-major, so that every column of C reads its rows as vectors, not lane by lane
     * (the same values: the same bits) */
    enum { GATHER = 2048 };
    double acol[GATHER];
    ozb_problem gp;
    if (t.pr->a.rs != 1 && t.pr->m * t.pr->k <= GATHER) {
        gp = *t.pr;
        for (int64_t l = 0; l < gp.k; l++)
            for (int64_t i = 0; i < gp.m; i++) acol[i + l * gp.m] = ozb_view_at(&gp.a, i, l);
        gp.a.p = acol; gp.a.rs = 1; gp.a.cs = gp.m;
        t.pr = &gp;
    }
    *nfail = ozb_par_for(nt > 1, nt, t.pr->n, columns, &t);
#else
    (void)nt;
    memset(fail, 1, mn);
    *nfail = (int64_t)mn;
#endif
    *failp = fail;
    ozb_info_eft(h, pr, *nfail, 2, 0.0);      /* error-free dot products, certified: fused 2 */
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozb_exact_tiny(ozblas_handle_t h, const ozb_problem *pr, int nt, uint8_t **fail, int64_t *nfail)
{
    return tiny_run(h, pr, nt, 0, fail, nfail);
}

ozblas_status_t ozb_exact_tiny_cancel(ozblas_handle_t h, const ozb_problem *pr, int nt, uint8_t **fail, int64_t *nfail)
{
    return tiny_run(h, pr, nt, 1, fail, nfail);
}
