/* The error-free sums for small GEMMs (eft_small_gemm.h): the split and certificates of the
 * streaming GEMM (eft_kern.h, eft_gemm.c, eft_cert4.h), without its setup (strips, sub-block
 * maxima, spans, tiles, probe), which costs more than the arithmetic of an 8 x 8 x 8 update
 * (LAPACK's blocked Sylvester solver makes them by the million).
 *
 * op(A) is copied into groups of four rows ([l][4], missing rows zero) with each row's largest
 * |a|; each column of op(B) is read in place where contiguous (else copied), with its largest
 * |x|.  Bit budget (u = 2^-53), per row i and
 * column j, k <= OZB_SMALL_GEMM_K products: with M = RN(max_l |a_il| max_l |x_lj|) and
 * sigma = max(sigma_for(M), 2^-600) >= 2^(floor(log2 M) + 10) > 2^9 M (M <= 2^990, checked;
 * the floor keeps the bounds' arithmetic normal where a row or column is zero or tiny: with
 * sigma = 2^-960 its products with EBC are subnormal, each some hundred cycles; it only widens
 * the bound, and results below about 2^-640 go on to the exact tiny sums),
 *     |a_il x_lj| <= max|a| max|x| <= (1 + u) M < 2^-9 (1 + u) sigma,
 * below sigma / (2 BL): eft_gemm.c's a-priori budget with one block of k <= BL products, so
 * SPLIT4_NOMAX's S and R sum the row exactly within eft_kern.h's bound, the totals are one
 * block's (tot_first), and the certificates are the GEMM strips' own: the bracketing one first
 * where beta = 1 (ozb_eft_cert4_upd), Sum2's with one_block set for a group it does not take
 * whole and wherever beta != 1 (ozb_eft_cert4, whose range test one block under its bound
 * implies: |S| <= 2^-2 sigma (1 + 2^-40), |C| <= 2^-45 sigma, sigma <= 2^1000).  A certified element is RN(exact), as on every CORRECTLY_ROUNDED
 * path; the others are flagged, C untouched there.
 *
 * A column of C whose products are all exactly zero (op(A) or the column of op(B) zero, the
 * other finite) is RN(beta c), one IEEE multiplication, written as the zero-products stage
 * writes it.  Non-finite values in op(A) or op(B), or M beyond 2^990, decline the whole call
 * (C as it was): the streaming sums and what follows them take it.  Compiled with
 * -ffp-contract=off: the FMAs are explicit. */
#include "eft/eft_small_gemm.h"
#include "eft/eft_dot.h"
#include "eft/eft_kern.h"
#include "eft/eft_cert4.h"
#include "core/info.h"
#include "exact/zero_products.h"
#include <string.h>

#define KMAX OZB_SMALL_GEMM_K
#define GMAX ((OZB_SMALL_GEMM_M + 3) / 4)
#define SIGMA_MIN 0x1p-600

int ozb_eft_small_gemm_applies(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl)
{
#ifdef EFT_AVX2
    return pr->m >= 4 && pr->m <= OZB_SMALL_GEMM_M && pr->n >= 2 && pr->n <= OZB_SMALL_GEMM_N && pr->k <= KMAX &&
           (pr->n <= 16 || pr->n <= 2 * pr->m) &&
           (pr->alpha == 1.0 || pr->alpha == -1.0) && pr->tri == OZB_TRI_ALL && !pr->want && ozb_eft_applies(h, pr, pl);
#else
    (void)h; (void)pr; (void)pl;
    return 0;
#endif
}

#ifdef EFT_AVX2
/* op(A)'s rows 4g..4g+3 as [l][4] at ap (missing rows zero); returns their largest |a| per
 * lane, a NaN kept (ozb_imax4) */
static __m256d pack_group(const ozb_problem *pr, int64_t g, double *ap)
{
    const int64_t k = pr->k, nr = pr->m - 4 * g < 4 ? pr->m - 4 * g : 4;
    __m256d mx = _mm256_setzero_pd();
    if (pr->a.cs == 1) {
        /* rows contiguous along l (op(A) = A^T): four rows' next four elements, transposed
         * in registers (the rows past m zero, as the elements past k) */
        for (int64_t l = 0; l < k; l += 4) {
            const int64_t nl = k - l < 4 ? k - l : 4;
            __m256d r[4];
            for (int64_t q = 0; q < 4; q++)
                r[q] = q < nr ? ozb_first4(pr->a.p + (4 * g + q) * pr->a.rs + l, nl) : _mm256_setzero_pd();
            const __m256d t0 = _mm256_unpacklo_pd(r[0], r[1]), t1 = _mm256_unpackhi_pd(r[0], r[1]);
            const __m256d t2 = _mm256_unpacklo_pd(r[2], r[3]), t3 = _mm256_unpackhi_pd(r[2], r[3]);
            const __m256d c[4] = { _mm256_permute2f128_pd(t0, t2, 0x20), _mm256_permute2f128_pd(t1, t3, 0x20),
                                   _mm256_permute2f128_pd(t0, t2, 0x31), _mm256_permute2f128_pd(t1, t3, 0x31) };
            for (int64_t q = 0; q < nl; q++) {
                _mm256_storeu_pd(ap + 4 * (l + q), c[q]);
                mx = ozb_imax4(mx, _mm256_and_pd(c[q], ABSMASK));
            }
        }
        return mx;
    }
    /* else columns contiguous (a.rs = 1: ozb_eft_applies takes no other layout for m > 1) */
    for (int64_t l = 0; l < k; l++) {
        const __m256d v = ozb_first4(pr->a.p + 4 * g + l * pr->a.cs, nr);
        _mm256_storeu_pd(ap + 4 * l, v);
        mx = ozb_imax4(mx, _mm256_and_pd(v, ABSMASK));
    }
    return mx;
}

/* A lane's sigma: sigma_for(M), at least SIGMA_MIN (see the head) */
static inline __m256d sigma_of(__m256d ma, double mx)
{
    return _mm256_max_pd(sigma_for(_mm256_mul_pd(ma, _mm256_set1_pd(mx))), _mm256_set1_pd(SIGMA_MIN));
}

/* the largest of four maxima of |v| (a NaN kept: ozb_imax4) */
static double lanes_max(__m256d mx)
{
    mx = ozb_imax4(mx, _mm256_permute4x64_pd(mx, 0x4e));
    mx = ozb_imax4(mx, _mm256_permute_pd(mx, 0x5));
    return _mm256_cvtsd_f64(mx);
}

/* the largest |v| of v[0..k-1] (a NaN kept), k <= KMAX */
static double absmax(const double *v, int64_t k)
{
    __m256d mx = _mm256_setzero_pd();
    for (int64_t l = 0; l < k; l += 4) mx = ozb_imax4(mx, _mm256_and_pd(ozb_first4(v + l, k - l < 4 ? k - l : 4), ABSMASK));
    return lanes_max(mx);
}

/* Columns j..j+nc-1 (nc <= 2; x[c] a column's k elements, mx[c] their largest |x|; every
 * bound within range, checked by the caller), all their groups of four rows at once: the
 * splits of every group and column, then every bracketing certificate, with no branch between
 * them, so that their chains of dependent operations overlap (a group alone waits on the
 * latency of its own chain of additions).  Certified rows written into C, the others flagged;
 * returns those. */
static int64_t columns(const ozb_problem *pr, const double *ap, const __m256d *ma, const double *const *x, const double *mx,
                       int64_t j, int nc, uint8_t *fail)
{
    const int64_t m = pr->m, k = pr->k, G = (m + 3) / 4;
    const int use_c = pr->beta != 0.0;
    const double N = ozb_eft_terms(k, 1, 1);
    tot4 t[2][GMAX];
    const double *x0 = x[0], *x1 = x[nc - 1];      /* (nc = 1: the same column twice) */
    for (int64_t g = 0; g < G; g += 2) {
        /* two groups at once where there are two: eight independent chains of additions */
        const int64_t g1 = g + 1 < G ? g + 1 : g;
        const __m256d s00 = sigma_of(ma[g], mx[0]), s01 = sigma_of(ma[g], mx[nc - 1]);
        const __m256d s10 = sigma_of(ma[g1], mx[0]), s11 = sigma_of(ma[g1], mx[nc - 1]);
        const __m256d z = _mm256_setzero_pd();
        __m256d S00 = z, R00 = z, S01 = z, R01 = z, S10 = z, R10 = z, S11 = z, R11 = z;
        const double *a0 = ap + 4 * k * g, *a1 = ap + 4 * k * g1;
        for (int64_t l = 0; l < k; l++) {
            const __m256d v0 = _mm256_loadu_pd(a0 + 4 * l), v1 = _mm256_loadu_pd(a1 + 4 * l);
            const __m256d w0 = _mm256_broadcast_sd(x0 + l), w1 = _mm256_broadcast_sd(x1 + l);
            SPLIT4_NOMAX(S00, R00, v0, w0, s00);
            SPLIT4_NOMAX(S01, R01, v0, w1, s01);
            SPLIT4_NOMAX(S10, R10, v1, w0, s10);
            SPLIT4_NOMAX(S11, R11, v1, w1, s11);
        }
        tot_first(&t[0][g], S00, R00, s00);
        tot_first(&t[1][g], S01, R01, s01);
        tot_first(&t[0][g1], S10, R10, s10);     /* (g1 = g: the same values again) */
        tot_first(&t[1][g1], S11, R11, s11);
    }
    double c0[2][GMAX][4], y[2][GMAX][4];
    int ok[2][GMAX];
    for (int c = 0; c < nc; c++)
        for (int64_t g = 0; g < G; g++) {
            const int64_t nr = m - 4 * g < 4 ? m - 4 * g : 4;
            const double *cp = pr->c + 4 * g * pr->crs + (j + c) * pr->ccs;
            if (use_c && pr->crs == 1) _mm256_storeu_pd(c0[c][g], ozb_first4(cp, nr));
            else
                for (int64_t r = 0; r < 4; r++) c0[c][g][r] = use_c && r < nr ? cp[r * pr->crs] : 0.0;
            ok[c][g] = pr->beta == 1.0 ? ozb_eft_cert4_upd(&t[c][g], N, pr->alpha, c0[c][g], y[c][g]) : 0;
        }
    int64_t left = 0;
    for (int c = 0; c < nc; c++)
        for (int64_t g = 0; g < G; g++) {
            const int64_t nr = m - 4 * g < 4 ? m - 4 * g : 4;
            if (ok[c][g] != 0xf) {
                int in;
                ok[c][g] = ozb_eft_cert4(&t[c][g], 1, N, pr->alpha, use_c, pr->beta, c0[c][g], y[c][g], &in);
            }
            double *cp = pr->c + 4 * g * pr->crs + (j + c) * pr->ccs;
            uint8_t *fl = fail + 4 * g + (j + c) * m;
            if (ok[c][g] == 0xf && nr == 4 && pr->crs == 1) {
                _mm256_storeu_pd(cp, _mm256_loadu_pd(y[c][g]));
                memset(fl, 0, 4);
                continue;
            }
            for (int64_t r = 0; r < nr; r++) {
                const int done = ok[c][g] >> r & 1;
                if (done) cp[r * pr->crs] = y[c][g][r];
                fl[r] = (uint8_t)!done;
                left += !done;
            }
        }
    return left;
}
#endif

ozblas_status_t ozb_eft_small_gemm(ozblas_handle_t h, const ozb_problem *pr, uint8_t **failp, int64_t *nfail)
{
#ifdef EFT_AVX2
    const int64_t m = pr->m, n = pr->n, k = pr->k, G = (m + 3) / 4;
    double ap[4 * GMAX * KMAX], xs[OZB_SMALL_GEMM_N * KMAX], mx[OZB_SMALL_GEMM_N];
    __m256d ma[GMAX], amax = _mm256_setzero_pd();
    for (int64_t g = 0; g < G; g++) amax = ozb_imax4(amax, ma[g] = pack_group(pr, g, ap + 4 * k * g));
    /* op(B)'s columns, contiguous where they are already; each one's largest |x| (NaN: above) */
    const double *x[OZB_SMALL_GEMM_N];
    double xmax = 0.0;
    for (int64_t j = 0; j < n; j++) {
        if (pr->b.cs == 1) x[j] = pr->b.p + j * pr->b.rs;
        else {
            for (int64_t l = 0; l < k; l++) xs[j * k + l] = ozb_view_at(&pr->b, j, l);
            x[j] = xs + j * k;
        }
        mx[j] = absmax(x[j], k);
        const double v = mx[j];
        xmax = v > xmax || v != v ? v : xmax;
    }
    /* the largest bound of all, RN(max|a| max|x|), is some row's and column's (every row meets
     * every column): where it is within 2^990 every M is (rounding is monotone); Inf and NaN
     * make it Inf or NaN, and the call is declined */
    const double amax1 = lanes_max(amax);
    if (!(amax1 * xmax <= 0x1p990)) return OZBLAS_STATUS_NOT_SUPPORTED;
    uint8_t *fail = ozb_buf_get(h, OZB_BUF_SMALL_GEMM, (size_t)(m * n) + 8);
    if (!fail) return OZBLAS_STATUS_ALLOC_FAILED;
    int64_t left = 0;
    const int azero = amax1 == 0.0;
    for (int64_t j = 0; j < n;) {
        /* a column whose products are all exactly zero (op(A) or it zero, the other finite:
         * checked above): RN(beta c), as the zero-products stage writes it (the certificates
         * would leave every zero result to it; a zero panel of LAPACK's bidiagonal reduction) */
        if (azero || mx[j] == 0.0) {
            left += ozb_exact_zero_products_put_column(pr, j, fail);
            j++;
            continue;
        }
        const int nc = j + 1 < n && mx[j + 1] != 0.0 ? 2 : 1;
        left += columns(pr, ap, ma, x + j, mx + j, j, nc, fail);
        j += nc;
    }
    *failp = fail;
    *nfail = left;
    ozb_info_eft(h, pr, left, 2, 0.0);
    return OZBLAS_STATUS_SUCCESS;
#else
    (void)h; (void)pr; (void)failp; (void)nfail;
    return OZBLAS_STATUS_NOT_SUPPORTED;
#endif
}
