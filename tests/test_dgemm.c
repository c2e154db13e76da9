/* DGEMM in every mode: transposes, odd sizes, padding, phi, alpha/beta, large dimensions,
 * DOUBLE-mode accuracy against OpenBLAS. */
#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tu.h"

static const ozblas_mode_t MODES[3] = TU_MODES;

START_TEST(dgemm_random)
{
    ozblas_mode_t mode = MODES[_i];
    ozblas_handle_t h = tu_handle(mode);
    ozref_rng r;
    tu_rng(&r, "dgemm_random");
    const int64_t sizes[][3] = {{1, 1, 1}, {2, 7, 33}, {7, 2, 1}, {33, 33, 33}, {1, 257, 7},
                                {257, 1, 33}, {33, 7, 257}, {7, 33, 2}};
    const double phis[] = {0, 1, 4, 8};
    int c = 0;
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++)
            for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
                for (int f = 0; f < 4; f++, c++) {
                    tu_gemm_params p = {0};
                    p.ta = ta; p.tb = tb;
                    p.m = sizes[s][0]; p.n = sizes[s][1]; p.k = sizes[s][2];
                    int64_t ra = ta ? p.k : p.m, rb = tb ? p.n : p.k;
                    if (c % 3 != 0) { p.lda = ra + 1 + c % 4; p.ldb = rb + 2; p.ldc = p.m + 1 + c % 3; }
                    p.alpha = (c % 4 == 0) ? 1.0 : (c % 4 == 1) ? -1.0 : (c % 4 == 2) ? 0.5 : 3.0;
                    p.beta = (c % 5 == 0) ? 0.0 : (c % 5 == 1) ? 1.0 : (c % 5 == 2) ? -1.0 : (c % 5 == 3) ? 0.5 : 3.0;
                    tu_gemm_random(h, mode, p, phis[f], &r, "dgemm_random");
                }
    ozblas_destroy(h);
}
END_TEST

/* C - A B with A near 2^-950..2^-1000 (LAPACK's LU of matrices scaled toward underflow): the
 * trailing update cancels to about u of its terms, often to subnormal results, which the sums
 * scaled by 2^s take with their second level and round to the subnormal grid (midpoints of it
 * left to the exact sums); CORRECTLY_ROUNDED against MPFR bit for bit */
START_TEST(dgemm_tiny_cancel)
{
    ozblas_handle_t h = tu_handle(OZBLAS_MODE_CORRECTLY_ROUNDED);
    ozref_rng r;
    tu_rng(&r, "dgemm_tiny_cancel");
    char ctx[128];
    for (int t = 0; t < 24; t++) {
        const int64_t m = 3 + t % 7 * 5, n = 2 + t % 5 * 6, k = t % 3 == 0 ? 3 : t % 3 == 1 ? 17 : 50;
        const int sa = -950 - (int)(ozref_uniform(&r) * 50), kind = t % 4;
        double *A = tu_alloc((size_t)(m * k)), *B = tu_alloc((size_t)(k * n)), *C = tu_alloc((size_t)(m * n));
        double *C2 = tu_alloc((size_t)(m * n)), *W = tu_alloc((size_t)(m * n));
        for (int64_t q = 0; q < m * k; q++) A[q] = ldexp(ozref_uniform(&r) - 0.5, sa);
        for (int64_t q = 0; q < k * n; q++) B[q] = ldexp(ozref_uniform(&r) - 0.5, (int)(ozref_uniform(&r) * 8) - 4);
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++) {
                double s = 0.0;           /* the products' sum in order: C - A B then cancels */
                for (int64_t l = 0; l < k; l++) s += A[i + l * m] * B[l + j * k];
                C[i + j * m] = kind == 0 ? s : kind == 1 ? s + ldexp(ozref_uniform(&r) - 0.5, -1060 + (int)(ozref_uniform(&r) * 30))
                             : kind == 2 ? s + ldexp(ozref_uniform(&r) - 0.5, sa - 40) : ldexp(ozref_uniform(&r) - 0.5, sa);
            }
        memcpy(C2, C, sizeof(double) * (size_t)(m * n));
        ck_assert_int_eq(ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, m, n, k, -1.0, A, m, B, k, 1.0, C2, m), 0);
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++) W[i + j * m] = ozref_dgemm_elem(0, 0, i, j, k, -1.0, A, m, B, k, 1.0, C[i + j * m]);
        snprintf(ctx, sizeof ctx, "dgemm_tiny_cancel %lldx%lldx%lld A 2^%d kind %d", (long long)m, (long long)n, (long long)k, sa, kind);
        tu_check_bits(C2, W, (size_t)(m * n), 0, ctx);
        free(A); free(B); free(C); free(C2); free(W);
    }
    /* C = RN(A B) itself (MPFR), products near 2^-1040: C - A B is within 2^-1075 of zero, so
     * most results are zeros signed as the exact value (RN of a nonzero below 2^-1075) */
    {
        const int64_t m = 12, n = 9, k = 6;
        double A[12 * 6], B[6 * 9], C[12 * 9], C2[12 * 9], W[12 * 9];
        for (int64_t q = 0; q < m * k; q++) A[q] = ldexp(ozref_uniform(&r) - 0.5, -1000);
        for (int64_t q = 0; q < k * n; q++) B[q] = ldexp(ozref_uniform(&r) - 0.5, -40);
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++) C[i + j * m] = ozref_dgemm_elem(0, 0, i, j, k, 1.0, A, m, B, k, 0.0, 0.0);
        memcpy(C2, C, sizeof C);
        ck_assert_int_eq(ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, m, n, k, -1.0, A, m, B, k, 1.0, C2, m), 0);
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++) W[i + j * m] = ozref_dgemm_elem(0, 0, i, j, k, -1.0, A, m, B, k, 1.0, C[i + j * m]);
        tu_check_bits(C2, W, (size_t)(m * n), 0, "dgemm_tiny_cancel: signed zeros below 2^-1075");
    }
    /* a scaled result on a midpoint of the subnormal grid that the exact value is not on:
     * 5 2^-1075 + 2^-1140 = (2.5 + 2^-66) 2^-1074, whose 53-bit RN in the frame 2^1073 is 1.25,
     * 2.5 grid steps; RN(exact) is 3 2^-1074 (rounding 2.5 to even would give 2) */
    {
        double A[8 * 2], B[2 * 3], C[8 * 3];
        for (int i = 0; i < 8; i++) { A[i] = 5 * 0x1p-1000; A[i + 8] = 0x1p-1000; }
        for (int j = 0; j < 3; j++) { B[2 * j] = 0x1p-75; B[2 * j + 1] = 0x1p-140; }
        ck_assert_int_eq(ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, 8, 3, 2, 1.0, A, 8, B, 2, 0.0, C, 8), 0);
        const double want = 3 * 0x1p-1074;
        ck_assert(ozref_dgemm_elem(0, 0, 0, 0, 2, 1.0, A, 8, B, 2, 0.0, 0.0) == want);
        for (int e = 0; e < 8 * 3; e++) tu_check_bits(&C[e], &want, 1, 0, "dgemm_tiny_cancel: above a midpoint of the subnormal grid");
    }
    ozblas_destroy(h);
}
END_TEST

/* Small GEMMs (SMALL_GEMM, eft/eft_small_gemm.c: 4 <= m <= 64, 2 <= n <= 64 with n <= 16 or
 * n <= 2 m, k <= 16, alpha = +-1; then what it leaves), and shapes just outside it: the
 * transposes, alpha and beta drawn independently of the sizes, partial groups of 1-3 rows and of
 * 1-3 elements along k, strides, padding left as NaN sentinels (an over-read shows), and data
 * that takes each of its ways out: ordinary data (certified there), residuals C = RN(A B)
 * (cancel: the exact tiny sums), a zero row and a zero column, a tiny op(A) (2^-800: its sigma
 * floor), products beyond 2^990 and just below it with beta c near 2^1000, NaN or Inf in op(A)
 * or op(B) (declined: the streaming sums), Inf and NaN in C among nonzero products, op(A) zero
 * (RN(beta c) at once; c = 0, -0, 2^-1074 and Inf left where beta c underflows or is not
 * finite).  Checked per mode, CORRECTLY_ROUNDED bit for bit against MPFR. */
START_TEST(dgemm_small_sums)
{
    ozblas_mode_t mode = MODES[_i];
    ozblas_handle_t h = tu_handle(mode);
    ozref_rng r;
    tu_rng(&r, "dgemm_small_sums");
    const int64_t ms[] = {4, 6, 7, 8, 10, 11, 13, 16, 25, 37, 64}, ns[] = {2, 3, 16, 17, 18, 40, 64};
    const int64_t ks[] = {1, 2, 3, 5, 6, 8, 13, 16};
    const double betas[] = {0.0, 1.0, -1.0, 0.5}, phis[] = {0.0, 1.0, 4.0, 8.0};
#define PICK(a) (a)[(size_t)(ozref_uniform(&r) * (double)(sizeof(a) / sizeof *(a)))]
    char ctx[96];
    for (int c = 0; c < 180; c++) {
        tu_gemm_params p = {0};
        p.m = PICK(ms); p.n = PICK(ns); p.k = PICK(ks);
        if (p.m * p.n * p.k > 16 * 64 * 16) p.n = 17;            /* (MPFR's references: keep the case short) */
        p.ta = ozref_uniform(&r) < 0.5; p.tb = ozref_uniform(&r) < 0.5;
        if (ozref_uniform(&r) < 0.4) { p.lda = (p.ta ? p.k : p.m) + 3; p.ldb = (p.tb ? p.n : p.k) + 1; p.ldc = p.m + 2; }
        p.alpha = ozref_uniform(&r) < 0.5 ? 1.0 : -1.0;
        p.beta = PICK(betas);
        int64_t lda, ldb, ldc;
        size_t na, nb, nc;
        tu_gemm_sizes(&p, &lda, &ldb, &ldc, &na, &nb, &nc);
        double *A = tu_alloc(na), *B = tu_alloc(nb), *C = tu_alloc(nc);
        const int64_t ra = p.ta ? p.k : p.m, ca = p.ta ? p.m : p.k, rb = p.tb ? p.n : p.k, cb = p.tb ? p.k : p.n;
        const int kind = c % 9;
        tu_fill_mat(&r, A, ra, ca, lda, PICK(phis));
        tu_fill_mat(&r, B, rb, cb, ldb, 1.0);
        tu_fill_mat(&r, C, p.m, p.n, ldc, 1.0);
        /* op(A)(i, l) at A[ta ? l + i lda : i + l lda], op(B)(l, j) at B[tb ? j + l ldb : l + j ldb] */
#define OPA(i, l) A[p.ta ? (l) + (i) * lda : (i) + (l) * lda]
#define OPB(l, j) B[p.tb ? (j) + (l) * ldb : (l) + (j) * ldb]
        if (kind == 1) {                    /* residuals: C = RN(op(A) op(B)), alpha = -1, beta = 1 */
            p.alpha = -1.0; p.beta = 1.0;
            for (int64_t j = 0; j < p.n; j++)
                for (int64_t i = 0; i < p.m; i++)
                    C[i + j * ldc] = ozref_dgemm_elem(p.ta, p.tb, i, j, p.k, 1.0, A, lda, B, ldb, 0.0, 0.0);
        } else if (kind == 2) {             /* a zero row of op(A), a zero column of op(B) */
            for (int64_t l = 0; l < p.k; l++) { OPA(p.m / 2, l) = 0.0; OPB(l, 1) = 0.0; }
        } else if (kind == 3) {             /* tiny op(A) */
            for (int64_t l = 0; l < p.k; l++)
                for (int64_t i = 0; i < p.m; i++) OPA(i, l) = ldexp(OPA(i, l), -800);
            for (int64_t j = 0; j < p.n; j++)
                for (int64_t i = 0; i < p.m; i++) C[i + j * ldc] = ldexp(C[i + j * ldc], -800 + (int)((i + j) % 3) * 30);
        } else if (kind == 4 || kind == 5) { /* products beyond 2^990, or just below it, c near 2^1000 */
            const int ea = kind == 4 ? 495 : 488, eb = kind == 4 ? 497 : 490;
            for (int64_t l = 0; l < p.k; l++) {
                for (int64_t i = 0; i < p.m; i++) OPA(i, l) = ldexp(OPA(i, l), ea);
                for (int64_t j = 0; j < p.n; j++) OPB(l, j) = ldexp(OPB(l, j), eb);
            }
            for (int64_t j = 0; j < p.n; j++)
                for (int64_t i = 0; i < p.m; i++) C[i + j * ldc] = ldexp(C[i + j * ldc], kind == 4 ? 990 : 998);
        } else if (kind == 6) {             /* NaN or Inf in op(A) or op(B) */
            const double v = c % 4 == 0 ? NAN : c % 4 == 1 ? INFINITY : -INFINITY;
            if (c % 2) OPA(p.m - 1, p.k - 1) = v;
            else OPB(0, p.n - 1) = v;
        } else if (kind == 7) {             /* Inf and NaN in C among nonzero products */
            if (p.beta == 0.0) p.beta = 0.5;
            C[0] = INFINITY; C[(p.n - 1) * ldc + p.m - 1] = NAN;
        } else if (kind == 8) {             /* op(A) zero: RN(beta c), c zero, tiny, Inf */
            for (int64_t l = 0; l < p.k; l++)
                for (int64_t i = 0; i < p.m; i++) OPA(i, l) = 0.0;
            C[0] = 0.0; C[1] = -0.0; C[2] = 0x1p-1074; C[3] = c % 2 ? INFINITY : -0x1p-1073;
        }
#undef OPA
#undef OPB
        snprintf(ctx, sizeof ctx, "dgemm_small_sums case %d kind %d", c, kind);
        tu_gemm_run(h, mode, &p, A, B, C, ctx);
        free(A); free(B); free(C);
    }
#undef PICK
    ozblas_destroy(h);
}
END_TEST

START_TEST(dgemm_257)
{
    /* 257^3 with sampled rows of C */
    ozblas_mode_t mode = MODES[_i];
    ozblas_handle_t h = tu_handle(mode);
    ozref_rng r;
    tu_rng(&r, "dgemm_257");
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++) {
            tu_gemm_params p = {0};
            p.ta = ta; p.tb = tb;
            p.m = p.n = p.k = 257;
            p.lda = 260; p.ldb = 259; p.ldc = 258;
            p.alpha = 1.0; p.beta = (ta + tb) % 2 ? 0.0 : -0.5;
            p.sample_rows = 3;
            tu_gemm_random(h, mode, p, (ta * 2 + tb) % 2 ? 8.0 : 1.0, &r, "dgemm_257");
        }
    ozblas_destroy(h);
}
END_TEST

START_TEST(dgemm_large_dim)
{
    /* one large dimension (m, n or k over 1000), full or sampled reference */
    ozblas_mode_t mode = MODES[_i];
    ozblas_handle_t h = tu_handle(mode);
    ozref_rng r;
    tu_rng(&r, "dgemm_large_dim");
    const int64_t sizes[][3] = {{1100, 5, 33}, {5, 1100, 33}, {5, 6, 2000}, {3, 2, 5003}, {1200, 40, 300}, {40, 1200, 300}};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        tu_gemm_params p = {0};
        p.ta = s % 2; p.tb = (s / 2) % 2;
        p.m = sizes[s][0]; p.n = sizes[s][1]; p.k = sizes[s][2];
        p.ldc = p.m + 3;
        p.alpha = s % 3 ? 1.0 : -3.0;
        p.beta = s % 2 ? 0.5 : 0.0;
        p.sample_rows = (s >= 4) ? 4 : 0;
        tu_gemm_random(h, mode, p, s % 2 ? 4.0 : 1.0, &r, "dgemm_large_dim");
    }
    ozblas_destroy(h);
}
END_TEST

START_TEST(dgemm_alpha_beta)
{
    ozblas_mode_t mode = MODES[_i];
    ozblas_handle_t h = tu_handle(mode);
    ozref_rng r;
    tu_rng(&r, "dgemm_alpha_beta");
    const double alphas[] = {0, 1, -1, 0.5, 3, 0x1p-1000, 0x1p+900, 1e-310, -0x1.123456789abcdp-3};
    const double betas[] = {0, 1, -1, 0.5, 3, 0x1p-1000, 0x1p+900, -0.0};
    int c = 0;
    for (size_t a = 0; a < sizeof alphas / sizeof *alphas; a++)
        for (size_t b = 0; b < sizeof betas / sizeof *betas; b++, c++) {
            tu_gemm_params p = {0};
            p.ta = c % 2; p.tb = (c / 2) % 2;
            p.m = 7; p.n = 5; p.k = 9;
            p.ldc = 8;
            p.alpha = alphas[a];
            p.beta = betas[b];
            tu_gemm_random(h, mode, p, 2.0, &r, "dgemm_alpha_beta");
        }
    ozblas_destroy(h);
}
END_TEST

/* row-wise normalised error max_i sum_j |C_ij - exact_ij| / sum_j (|A||B|)_ij over sampled rows */
static double rowwise_err(const double *Cg, const double *A, const double *B, int64_t m, int64_t n, int64_t k,
                          const int64_t *rows, int nrows)
{
    double worst = 0;
    for (int s = 0; s < nrows; s++) {
        int64_t i = rows[s];
        long double e = 0, b = 0;
        for (int64_t j = 0; j < n; j++) {
            double ex = ozref_dgemm_elem(0, 0, i, j, k, 1.0, A, m, B, k, 0.0, 0.0);
            e += fabsl((long double)Cg[i + j * m] - ex);
            for (int64_t l = 0; l < k; l++) b += fabsl((long double)A[i + l * m] * B[l + j * k]);
        }
        double q = (double)(e / b);
        if (q > worst) worst = q;
    }
    return worst;
}

START_TEST(dgemm_double_vs_openblas)
{
    /* DOUBLE mode error within a conventional DGEMM's error bound; OpenBLAS's printed beside it */
    ozblas_handle_t h = tu_handle(OZBLAS_MODE_DOUBLE);
    ozref_rng r;
    tu_rng(&r, "dgemm_double_vs_openblas");
    const int64_t m = 160, n = 160, k = 320;
    const double phis[] = {0, 1, 4, 8};
    double *A = tu_alloc(m * k), *B = tu_alloc(k * n), *C = tu_alloc(m * n), *Co = tu_alloc(m * n);
    int64_t rows[6] = {0, 17, 55, 99, 123, m - 1};
    for (int f = 0; f < 4; f++) {
        ozref_fill_phi(&r, A, m * k, phis[f]);
        ozref_fill_phi(&r, B, k * n, phis[f]);
        ck_assert_int_eq(ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, m, n, k, 1.0, A, m, B, k, 0.0, C, m), OZBLAS_STATUS_SUCCESS);
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, 1.0, A, (int)m, B, (int)k, 0.0, Co, (int)m);
        double eo = rowwise_err(C, A, B, m, n, k, rows, 6);
        double eb = rowwise_err(Co, A, B, m, n, k, rows, 6);
        ozblas_info_t info;
        ozblas_get_info(h, &info);
        printf("dgemm DOUBLE phi=%g: ozblas row-wise rel. error %.3g, OpenBLAS %.3g (slices %d/%d)\n",
               phis[f], eo, eb, info.slices_a, info.slices_b);
        /* What is guaranteed, not how it compares with OpenBLAS on this draw (a ratio of two
         * observed errors can exceed any margin by chance): DOUBLE is at least as accurate as a
         * conventional DGEMM's deterministic bound gamma_k |A||B| (CONTRACT).  Row-wise,
         * Algorithm 3 keeps the truncation below 2 sqrt(k) u (|A||B|e)_i, and the fixed-order
         * binary64 sum of the kept slice products plus the final rounding add at most
         * (terms + 1) u (|A||B|e)_i: at k = 320 that is far below gamma_k ~ 320 u.  OpenBLAS's
         * own error is printed beside it, for information. */
        const double u = 0x1p-53, gamma_k = (double)k * u / (1.0 - (double)k * u);
        ck_assert_msg(eo <= gamma_k, "phi=%g: DOUBLE mode row-wise error %.3g above gamma_k = %.3g [seed %llu]",
                      phis[f], eo, gamma_k, (unsigned long long)tu_seed);
    }
    free(A); free(B); free(C); free(Co);
    ozblas_destroy(h);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("dgemm");
    TCase *tc = tcase_create("dgemm");
    tcase_set_timeout(tc, tu_timeout(150));
    tcase_add_loop_test(tc, dgemm_random, 0, 3);
    tcase_add_loop_test(tc, dgemm_257, 0, 3);
    tcase_add_test(tc, dgemm_tiny_cancel);
    tcase_add_loop_test(tc, dgemm_small_sums, 0, 3);
    tcase_add_loop_test(tc, dgemm_large_dim, 0, 3);
    tcase_add_loop_test(tc, dgemm_alpha_beta, 0, 3);
    tcase_add_test(tc, dgemm_double_vs_openblas);
    suite_add_tcase(s, tc);
    return s;
}

TU_MAIN("test_dgemm", suite)
