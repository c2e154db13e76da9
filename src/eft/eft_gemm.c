/* The error-free GEMM (m >= 8): op(A) packed once into strips of 8 rows (strip b holds rows
 * 8b..8b+7 as [column][8], missing rows zero), op(B)'s columns contiguous, then every (strip,
 * column) pair is one GEMV strip read sequentially: the strip stays in cache across the
 * columns of B.  Method and bit budget: eft_kern.h.
 *
 * Unlike a GEMV, a GEMM knows a bound on every product of a block before it reads it: per
 * sub-block s of SBL products, the largest |a| of the row there (computed once when A is
 * packed, for all columns of B) times the largest |x| of the column there (once per column,
 * for all strips).  With M = max_s RN(max_s|a| max_s|x|) and sigma = 2^(floor(log2 M) + 10)
 * > 2^9 M: for l in sub-block s, |a x| <= max_s|a| max_s|x| <= (1 + u) RN(max_s|a| max_s|x|)
 * <= (1 + u) M < 2^-9 (1 + u) sigma, below sigma / (2 BL) with BL = 128, so the budget holds
 * by construction, with no largest |q| to keep and no block summed again.  Where
 * M is above 2^990, Inf or NaN, the block takes sigma from its own products and checks it
 * (ozb_eft_strip_block, the GEMV kernel); rows whose products themselves are out of range,
 * Inf or NaN are left to the caller.  Compiled with -ffp-contract=off. */
#include "eft/eft_kern.h"
#include "eft/eft_gemm_span.h"
#include "eft/eft_cert4.h"
#include "eft/eft_dot_small.h"
#include "exact/zero_products.h"
#include <string.h>

#ifdef EFT_AVX2
/* M of strip b's 8 rows times column j in block q into m0, m1; 0 where a product of maxima is
 * above 2^990 or NaN.  Where the column's sub-block maxima are flat (mXc >= 0: within
 * FLAT_X of each other), the block's maxima: then max_s|a| max|x| <= FLAT_X max_s (max_s|a|
 * max_s|x|), the bound at most FLAT_X looser, for 2 products instead of 2 per sub-block. */
static inline int block_bound(const ozb_eft_gemm_t *g, int64_t b, int64_t j, int64_t q, __m256d *m0, __m256d *m1)
{
    const double xc = g->mXc[j * g->nq + q];
    if (!(xc < 0.0)) {
        const __m256d xm = _mm256_set1_pd(xc);
        const double *mac = g->mAc + 8 * (b * g->nq + q);
        *m0 = _mm256_mul_pd(_mm256_loadu_pd(mac), xm);
        *m1 = _mm256_mul_pd(_mm256_loadu_pd(mac + 4), xm);
        return in_range(*m0) && in_range(*m1);
    }
    const double *ma = g->mA + 8 * b * g->ns, *mx = g->mX + j * g->ns;
    const int64_t s0 = q * (BL / SBL), s1 = s0 + BL / SBL < g->ns ? s0 + BL / SBL : g->ns;
    const __m256d big = _mm256_set1_pd(0x1p990);
    __m256d a0 = _mm256_setzero_pd(), a1 = a0, out = a0;
    for (int64_t s = s0; s < s1; s++) {
        /* the products of the maxima are >= 0, +Inf or NaN: out collects the lanes where one
         * is above 2^990 or NaN (max_pd alone may drop a NaN) */
        const __m256d xm = _mm256_broadcast_sd(mx + s);
        const __m256d p0 = _mm256_mul_pd(_mm256_loadu_pd(ma + 8 * s), xm), p1 = _mm256_mul_pd(_mm256_loadu_pd(ma + 8 * s + 4), xm);
        out = _mm256_or_pd(out, _mm256_or_pd(_mm256_cmp_pd(p0, big, _CMP_NLE_UQ), _mm256_cmp_pd(p1, big, _CMP_NLE_UQ)));
        a0 = _mm256_max_pd(a0, p0);
        a1 = _mm256_max_pd(a1, p1);
    }
    *m0 = a0;
    *m1 = a1;
    return _mm256_testz_pd(out, out);
}

/* whether zero_pair applies to strip b and column j */
static inline int zero_pair_applies(const ozb_eft_gemm_t *g, int64_t b, int64_t j)
{
    const int za = g->zA[b], zx = g->zX[j];
    return ((za & 1) && (zx & 2)) || ((zx & 1) && (za & 2));
}

/* whether zero_pair applies to strip b and any column of j0..j1-1 */
static inline int zeros_among(const ozb_eft_gemm_t *g, int64_t b, int64_t j0, int64_t j1)
{
    for (int64_t j = j0; j < j1; j++) if (zero_pair_applies(g, b, j)) return 1;
    return 0;
}

/* The zero-products shortcut of strip b and column j: every product exactly zero (one side all
 * zero, the other finite: LAPACK's block reflectors of a zero panel), so each element's value
 * is RN(beta c), written as the zero-products stage writes it (the certificates would flag every
 * such element: a zero sum within a nonzero bound).  Returns 1 where it applies (*left: the
 * elements it left), 0 where the sums must run. */
static int zero_pair(const ozb_eft_gemm_t *g, int64_t b, int64_t j, int64_t *left)
{
    if (!g->zA || !zero_pair_applies(g, b, j)) return 0;
    const ozb_problem *pr = g->pr;
    *left = 0;
    for (int64_t i = 8 * b; i < pr->m && i < 8 * b + 8; i++) *left += !ozb_exact_zero_products_put(pr, i, j, g->fail);
    return 1;
}

/* One block of strip b times column x (nb products per row) with the sigmas g0, g1 that the
 * block's bound gives: the split of eft_kern.h's head, no largest |q| (the bound proves the
 * budget), into the totals */
static inline void block_one(const double *ab, const double *xb, int64_t nb, __m256d g0, __m256d g1, row4_t st[2], int first)
{
    const __m256d z = _mm256_setzero_pd();
    __m256d S0 = z, S1 = z, R0 = z, R1 = z;
    for (int64_t l = 0; l < nb; l++) {
        const __m256d xv = _mm256_broadcast_sd(xb + l);
        SPLIT4_NOMAX(S0, R0, _mm256_loadu_pd(ab + 8 * l), xv, g0);
        SPLIT4_NOMAX(S1, R1, _mm256_loadu_pd(ab + 8 * l + 4), xv, g1);
    }
    if (first) {
        tot_first(&st[0].t, S0, R0, g0);
        tot_first(&st[1].t, S1, R1, g1);
    } else {
        tot_add(&st[0].t, S0, R0, g0);
        tot_add(&st[1].t, S1, R1, g1);
    }
}

/* The same block times two columns x0, x1 at once by the running split (CHAIN4, eft_kern.h):
 * four independent chains of four vector operations per four products, against five
 * operations on two chains */
static inline void block_two(const double *ab, const double *x0, const double *x1, int64_t nb, const __m256d gs[4],
                             row4_t st0[2], row4_t st1[2], int first, int wide)
{
    __m256d S[4], R[4];
    if (wide) ozb_eft_block_two512(ab, x0, x1, nb, gs, S, R);   /* the same S and R */
    else {
        const __m256d z = _mm256_setzero_pd();
        __m256d T0 = gs[0], T1 = gs[1], T2 = gs[2], T3 = gs[3], R0 = z, R1 = z, R2 = z, R3 = z;
        for (int64_t l = 0; l < nb; l++) {
            const __m256d a0 = _mm256_loadu_pd(ab + 8 * l), a1 = _mm256_loadu_pd(ab + 8 * l + 4);
            const __m256d xv = _mm256_broadcast_sd(x0 + l), xw = _mm256_broadcast_sd(x1 + l);
            CHAIN4(T0, R0, a0, xv);
            CHAIN4(T1, R1, a1, xv);
            CHAIN4(T2, R2, a0, xw);
            CHAIN4(T3, R3, a1, xw);
        }
        /* S = tau - sigma, exact (both in [sigma/2, 2 sigma]: Sterbenz) */
        S[0] = _mm256_sub_pd(T0, gs[0]); S[1] = _mm256_sub_pd(T1, gs[1]);
        S[2] = _mm256_sub_pd(T2, gs[2]); S[3] = _mm256_sub_pd(T3, gs[3]);
        R[0] = R0; R[1] = R1; R[2] = R2; R[3] = R3;
    }
    tot4 *t[4] = { &st0[0].t, &st0[1].t, &st1[0].t, &st1[1].t };
    for (int v = 0; v < 4; v++) {
        if (first) tot_first(t[v], S[v], R[v], gs[v]);
        else tot_add(t[v], S[v], R[v], gs[v]);
    }
}

/* Strip b of op(A) times nc = 1 or 2 columns j, j + 1 of op(B): their totals into st[2 c],
 * bad[c] set for a column whose rows are out of range (left to the caller) */
static void strip_totals(const ozb_eft_gemm_t *g, int64_t b, int64_t j, int nc, row4_t st[4], int bad[2], int bounded[2])
{
    const int64_t k = g->pr->k;
    const __m256d z = _mm256_setzero_pd();
    bad[0] = bad[1] = 0;
    bounded[0] = bounded[1] = 1;            /* every block under its a-priori bound */
    /* the totals are set by the first block (tot_first), or zeroed before ozb_eft_strip_block
     * adds to them: no stores for nothing (twenty per pair of columns) */
    const double *a = g->P + 8 * k * b;
    int64_t lo, hi;
    strip_span(g, b, j, nc, &lo, &hi);
    const int64_t q0 = lo / BL;
    for (int64_t q = q0; q * BL < hi; q++) {
        int64_t l0;
        const int64_t nb = span_block(q, lo, hi, &l0);
        const double *ab = a + 8 * l0;
        __m256d m[4];
        int in[2] = {0, 0};
        for (int c = 0; c < nc; c++) in[c] = !bad[c] && block_bound(g, b, j + c, q, &m[2 * c], &m[2 * c + 1]);
        if (nc == 2 && in[0] && in[1]) {
            const __m256d gs[4] = { sigma_for(m[0]), sigma_for(m[1]), sigma_for(m[2]), sigma_for(m[3]) };
            block_two(ab, g->Bx + j * g->ldx + l0, g->Bx + (j + 1) * g->ldx + l0, nb, gs, st, st + 2, q == q0, g->wide);
            continue;
        }
        for (int c = 0; c < nc; c++) {
            if (bad[c]) continue;
            const double *xb = g->Bx + (j + c) * g->ldx + l0;
            if (in[c])
                block_one(ab, xb, nb, sigma_for(m[2 * c]), sigma_for(m[2 * c + 1]), st + 2 * c, q == q0);
            /* the bound overflows (a large |a| and a large |x| at different l) or is NaN: the
             * block learns sigma from its own products instead, as a GEMV does */
            else {
                bounded[c] = 0;
                if (q == q0)
                    for (int v = 2 * c; v < 2 * c + 2; v++) st[v].t.s = st[v].t.c = st[v].t.a = st[v].t.g = st[v].g = z;
                if (!ozb_eft_strip_block(ab, 8, xb, nb, st + 2 * c, 1, 0)) bad[c] = 1;
            }
        }
    }
}

/* Column j's rows of strip b from their totals st[0..1] (bad: out of range): rounded into C or
 * flagged; returns the elements left.  The common case inline: alpha = +-1, C's columns
 * contiguous, a whole strip, its eight rows certified.  It is eft_gemv_n.c's put_groups for
 * that case, written here to spare ozb_eft_strip_put's call and problem copy per column; where
 * some row is not certified, the rows are put from the same certificates
 * (ozb_eft_put_certified: a cancelling row flagged at once), else by the general put. */
static inline int64_t strip_put(const ozb_eft_gemm_t *g, int64_t b, int64_t j, const row4_t st[2], int bad, int bounded)
{
    const ozb_problem *pr = g->pr;
    const int one_block = bounded && g->nq == 1;       /* ozb_eft_cert4's range test is implied */
    int certified = 0, ok0 = 0, ok1 = 0, in[2] = { 0, 0 };
    double y[8];
    if (!bad && (pr->alpha == 1.0 || pr->alpha == -1.0) && pr->crs == 1 && 8 * b + 8 <= pr->m) {
        const int use_c = pr->beta != 0.0;
        const double N = ozb_eft_terms(pr->k, 1, 1);
        double *c = pr->c + 8 * b + j * pr->ccs;
        /* an update C := C -+ A B: the bracketing certificate first (ozb_eft_cert4_upd); Sum2's
         * on a group of four it does not take whole; a row both leave goes to the put below
         * (each certifies only RN(exact)) */
        if (pr->beta == 1.0) {
            ok0 = ozb_eft_cert4_upd(&st[0].t, N, pr->alpha, c, y);
            ok1 = ozb_eft_cert4_upd(&st[1].t, N, pr->alpha, c + 4, y + 4);
        }
        if (ok0 != 0xf) ok0 = ozb_eft_cert4(&st[0].t, one_block, N, pr->alpha, use_c, pr->beta, c, y, &in[0]);
        if (ok1 != 0xf) ok1 = ozb_eft_cert4(&st[1].t, one_block, N, pr->alpha, use_c, pr->beta, c + 4, y + 4, &in[1]);
        certified = 1;
        if ((ok0 & ok1) == 0xf) {
            _mm256_storeu_pd(c, _mm256_loadu_pd(y));
            _mm256_storeu_pd(c + 4, _mm256_loadu_pd(y + 4));
            memset(g->fail + j * pr->m + 8 * b, 0, 8);
            return 0;
        }
    }
    ozb_problem pj = ozb_problem_part(pr);
    pj.n = 1;
    pj.c = pr->c + j * pr->ccs;
    const ozb_eft_t e = { &pj, g->fail + j * pr->m, NULL, NULL, 1, 0.0, 0 };   /* no DOT lanes */
    if (certified) {   /* every group certified whole or by Sum2: the rows put from the outcome */
        const int ok[2] = { ok0, ok1 };
        return ozb_eft_put_certified(&e, 8 * b, &st[0].t, &st[1].t, ok, in, y);
    }
    return ozb_eft_strip_put(&e, b, st, bad);
}

/* Columns j..j+nc/2-1 of strip b from their totals t[nc] at once where C's columns are
 * contiguous and the strip whole: an update (upd: alpha = +-1, beta = 1) or a product
 * (alpha = 1, beta = 0, each column's single block under its bound); ozb_eft_cert4_cols's
 * certificates, one branch for all the elements.  Returns 1 where all are certified (their
 * RN(exact) written, flags cleared); 0 writes nothing, and strip_put then finds the same values
 * where it certifies them (its own certificates on the same totals: the same y). */
static inline int cols_put(const ozb_eft_gemm_t *g, int64_t b, int64_t j, const tot4 *t, int nc, int upd)
{
    const ozb_problem *pr = g->pr;
    double *c = pr->c + 8 * b + j * pr->ccs, y[12][4];
    if (ozb_eft_cert4_cols(t, nc, ozb_eft_terms(pr->k, 1, 1), pr->alpha, upd, c, pr->ccs, y) != 0xf) return 0;
    for (int v = 0; v < nc; v++) _mm256_storeu_pd(c + (v >> 1) * pr->ccs + 4 * (v & 1), _mm256_loadu_pd(y[v]));
    for (int q = 0; q < nc / 2; q++) memset(g->fail + (j + q) * pr->m + 8 * b, 0, 8);
    return 1;
}

/* pair_put: cols_put's product case on two columns' totals st[4] */
static inline int pair_put(const ozb_eft_gemm_t *g, int64_t b, int64_t j, const row4_t st[4])
{
    const tot4 t[4] = { st[0].t, st[1].t, st[2].t, st[3].t };
    return cols_put(g, b, j, t, 4, 0);
}

/* The sigmas of block q for strip b and columns j..j+nc-1 (column c's halves at gs[2c],
 * gs[2c+1]) from their a-priori bounds; 0 where some column's block is not bounded */
static inline int block_sigmas(const ozb_eft_gemm_t *g, int64_t b, int64_t j, int nc, int64_t q, __m256d *gs)
{
    for (int c = 0; c < nc; c++) {
        __m256d m0, m1;
        if (!block_bound(g, b, j + c, q, &m0, &m1)) return 0;
        gs[2 * c] = sigma_for(m0), gs[2 * c + 1] = sigma_for(m1);
    }
    return 1;
}

/* Strip b of op(A) times columns j..j+3 of op(B) by the 512-bit loops (eft_gemm512.c), where
 * every block of the four columns is under its a-priori bound: four chains where block_two
 * runs two, and the certificates eight rows at a time.  A column whose eight rows are not all
 * certified goes to strip_put with its totals (the same lanes as strip_totals makes, so the
 * same certificate).  Returns 1 (*left: the elements left) where it ran, 0 where some block is
 * not bounded (nothing written: the caller's pairs then). */
static int strip_quad(const ozb_eft_gemm_t *g, int64_t b, int64_t j, int64_t *left)
{
    const ozb_problem *pr = g->pr;
    const int64_t k = pr->k;
    const double *a = g->P + 8 * k * b;
    double tot[4 * 32] __attribute__((aligned(64)));
    int64_t lo, hi;
    strip_span(g, b, j, 4, &lo, &hi);
    const int64_t q0 = lo / BL;
    for (int64_t q = q0; q * BL < hi; q++) {
        int64_t l0;
        const int64_t nb = span_block(q, lo, hi, &l0);
        __m256d gs[8];
        if (!block_sigmas(g, b, j, 4, q, gs)) return 0;
        const double *x[4] = { g->Bx + j * g->ldx + l0, g->Bx + (j + 1) * g->ldx + l0, g->Bx + (j + 2) * g->ldx + l0,
                               g->Bx + (j + 3) * g->ldx + l0 };
        ozb_eft_block_four512(a + 8 * l0, x, nb, gs, tot, q == q0);
    }
    double *c = pr->c + 8 * b + j * pr->ccs;
    const int done = ozb_eft_quad_put512(tot, g->nq == 1, ozb_eft_terms(k, 1, 1), pr->alpha, pr->beta != 0.0, pr->beta, c,
                                         pr->ccs);
    *left = 0;
    for (int q = 0; q < 4; q++) {
        if (done >> q & 1) { memset(g->fail + (j + q) * pr->m + 8 * b, 0, 8); continue; }
        row4_t st[2];
        const double *t = tot + 32 * q;
        for (int h = 0; h < 2; h++)
            st[h].t = (tot4){ _mm256_loadu_pd(t + 4 * h), _mm256_loadu_pd(t + 8 + 4 * h), _mm256_loadu_pd(t + 16 + 4 * h),
                              _mm256_loadu_pd(t + 24 + 4 * h) };
        *left += strip_put(g, b, j + q, st, 0, 1);
    }
    return 1;
}

/* Strip b of op(A) times columns j..j+5 of op(B) by the six-chain loop (eft_gemm6.c), where
 * every block of the six columns is under its a-priori bound: the same lanes and totals as
 * strip_totals makes, then the six columns put at once (cols_put: put6 1 an update, 2 a
 * product, 0 neither), else each column (or pair, where pair_put applies) put as there.
 * Returns 1 (*left: the elements left) where it ran, 0 where some block is not bounded
 * (nothing written: the caller's pairs then). */
static int strip_six(const ozb_eft_gemm_t *g, int64_t b, int64_t j, int pair_ok, int put6, int64_t *left)
{
    const ozb_problem *pr = g->pr;
    const int64_t k = pr->k;
    const double *a = g->P + 8 * k * b;
    tot4 tot[12];
    int64_t lo, hi;
    strip_span(g, b, j, 6, &lo, &hi);
    const int64_t q0 = lo / BL;
    for (int64_t q = q0; q * BL < hi; q++) {
        int64_t l0;
        const int64_t nb = span_block(q, lo, hi, &l0);
        __m256d gs[12];
        if (!block_sigmas(g, b, j, 6, q, gs)) return 0;
        const double *x[6];
        for (int c = 0; c < 6; c++) x[c] = g->Bx + (j + c) * g->ldx + l0;
        ozb_eft_block_six(a + 8 * l0, x, nb, gs, tot, q == q0);
    }
    *left = 0;
    if (put6 && cols_put(g, b, j, tot, 12, put6 == 1)) return 1;
    row4_t st[12];
    for (int v = 0; v < 12; v++) st[v].t = tot[v];
    for (int c = 0; c < 6; c += 2) {
        if (pair_ok && 8 * b + 8 <= pr->m && pair_put(g, b, j + c, st + 2 * c)) continue;
        *left += strip_put(g, b, j + c, st + 2 * c, 0, 1) + strip_put(g, b, j + c + 1, st + 2 * c + 2, 0, 1);
    }
    return 1;
}

/* Columns ahead whose lines of C the walk prefetches: a strip's columns of C lie ldc apart, one
 * line each, too many streams for the hardware prefetchers, so each put would read C by a
 * demand miss (in LAPACK's updates C := C - A B, most of the put's time).  Six columns are two
 * pairs' products ahead (one six-column group's: the lines arrive while it computes). */
#define C_AHEAD 6
static inline void prefetch_c(const ozb_problem *pr, int64_t b, int64_t j)
{
    const double *c = pr->c + 8 * b + j * pr->ccs;
    _mm_prefetch((const char *)c, _MM_HINT_T0);
    _mm_prefetch((const char *)(c + 7), _MM_HINT_T0);   /* (the strip's second line, where unaligned) */
}

/* Four columns at a time where strip_quad applies (512-bit loops), six where strip_six does
 * (256-bit), else two */
int64_t ozb_eft_strip_columns(const ozb_eft_gemm_t *g, int64_t b, int64_t j0, int64_t j1)
{
    int64_t left = 0;
    /* C's lines C_AHEAD columns ahead, where a strip's column is contiguous (beta = 0 too: the
     * put's stores need the lines all the same) */
    const int pf = g->pr->crs == 1 && 8 * b + 8 <= g->pr->m;
    int64_t jp = j0;
    /* the columns the call's probe computed already (eft_cr.c) */
    const int64_t s0 = b == g->skip_b ? g->skip_j : -1, s1 = b == g->skip_b ? g->skip_j + g->skip_n : -1;
    const ozb_problem *pr = g->pr;
    const int pair_ok = g->nq == 1 && pr->alpha == 1.0 && pr->beta == 0.0 && pr->crs == 1;   /* pair_put's case */
    /* strip_quad's case: the 512-bit loops, a whole strip, strip_put's fast certificate */
    const int quad_ok = g->wide && (pr->alpha == 1.0 || pr->alpha == -1.0) && pr->crs == 1 && 8 * b + 8 <= pr->m;
    /* cols_put's cases for six columns: a whole strip, C's columns contiguous, and an update or pair_put's product */
    const int whole = pr->crs == 1 && 8 * b + 8 <= pr->m;
    const int put6 = !whole ? 0 : (pr->alpha == 1.0 || pr->alpha == -1.0) && pr->beta == 1.0 ? 1 : pair_ok ? 2 : 0;
    for (int64_t j = j0; j < j1;) {
        int64_t zl;
        for (; pf && jp < j1 && jp < j + C_AHEAD; jp++) prefetch_c(pr, b, jp);
        if (j >= s0 && j < s1) { j++; continue; }
        if (zero_pair(g, b, j, &zl)) { left += zl; j++; continue; }
        if (quad_ok && j + 4 <= j1 && !(j + 3 >= s0 && j < s1) &&
            !(g->zA && zeros_among(g, b, j + 1, j + 4)) &&
            strip_quad(g, b, j, &zl)) {
            left += zl;
            j += 4;
            continue;
        }
        if (!g->wide && j + 6 <= j1 && !(j + 5 >= s0 && j < s1) && !(g->zA && zeros_among(g, b, j + 1, j + 6)) &&
            strip_six(g, b, j, pair_ok, put6, &zl)) {
            left += zl;
            j += 6;
            continue;
        }
        const int nc = j + 1 < j1 && !(j + 1 >= s0 && j + 1 < s1) && !(g->zA && zero_pair_applies(g, b, j + 1)) ? 2 : 1;
        row4_t st[4];
        int bad[2], bounded[2];
        strip_totals(g, b, j, nc, st, bad, bounded);
        if (!(nc == 2 && pair_ok && !bad[0] && !bad[1] && bounded[0] && bounded[1] && 8 * b + 8 <= pr->m && pair_put(g, b, j, st)))
            for (int c = 0; c < nc; c++) left += strip_put(g, b, j + c, st + 2 * c, bad[c], bounded[c]);
        j += nc;
    }
    return left;
}
#endif
