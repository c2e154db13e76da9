/* DGEMV in every mode: transposes, sizes, lda padding, increments, phi, alpha/beta. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tu.h"

static const ozblas_mode_t MODES[3] = TU_MODES;

START_TEST(dgemv_random)
{
    ozblas_mode_t mode = MODES[_i];
    ozblas_handle_t h = tu_handle(mode);
    ozref_rng r;
    tu_rng(&r, "dgemv_random");
    const int64_t sizes[][2] = {{1, 1}, {2, 7}, {7, 2}, {33, 33}, {257, 7}, {7, 257}, {257, 257}, {1, 33}, {33, 1}};
    const int64_t incs[][2] = {{1, 1}, {-1, 2}, {2, -1}, {-3, -2}, {1, -1}, {3, 1}};
    const double phis[] = {0, 1, 4, 8};
    int c = 0;
    for (int tr = 0; tr < 2; tr++)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
            for (size_t f = 0; f < 4; f++, c++) {
                tu_gemv_params p = {0};
                p.trans = tr;
                p.m = sizes[s][0];
                p.n = sizes[s][1];
                p.lda = (c % 3 == 0) ? 0 : p.m + 1 + c % 5;
                p.incx = incs[c % 6][0];
                p.incy = incs[(c / 6 + c) % 6][1];
                p.alpha = (c % 4 == 0) ? 1.0 : (c % 4 == 1) ? -0.5 : (c % 4 == 2) ? 3.0 : 1.0;
                p.beta = (c % 5 == 0) ? 0.0 : (c % 5 == 1) ? 1.0 : (c % 5 == 2) ? -1.0 : (c % 5 == 3) ? 0.5 : 3.0;
                tu_gemv_random(h, mode, p, phis[f], &r, "dgemv_random");
            }
    ozblas_destroy(h);
}
END_TEST

START_TEST(dgemv_increments)
{
    ozblas_mode_t mode = MODES[_i];
    ozblas_handle_t h = tu_handle(mode);
    ozref_rng r;
    tu_rng(&r, "dgemv_increments");
    const int64_t incv[] = {1, -1, 2, -2, 5, -4};
    for (int tr = 0; tr < 2; tr++)
        for (int a = 0; a < 6; a++)
            for (int b = 0; b < 6; b++) {
                tu_gemv_params p = {0};
                p.trans = tr;
                p.m = 13;
                p.n = 9;
                p.lda = 16;
                p.incx = incv[a];
                p.incy = incv[b];
                p.alpha = 1.0;
                p.beta = (a + b) % 2 ? 0.75 : 0.0;
                tu_gemv_random(h, mode, p, 2.0, &r, "dgemv_increments");
            }
    ozblas_destroy(h);
}
END_TEST

START_TEST(dgemv_large)
{
    ozblas_mode_t mode = MODES[_i];
    ozblas_handle_t h = tu_handle(mode);
    ozref_rng r;
    tu_rng(&r, "dgemv_large");
    const int64_t sizes[][2] = {{1100, 300}, {300, 1100}, {3000, 20}, {20, 3000}};
    for (int tr = 0; tr < 2; tr++)
        for (int s = 0; s < 4; s++) {
            tu_gemv_params p = {0};
            p.trans = tr;
            p.m = sizes[s][0];
            p.n = sizes[s][1];
            p.lda = s % 2 ? p.m + 7 : 0;
            p.incx = s == 2 ? -1 : 1;
            p.incy = s == 3 ? 2 : 1;
            p.alpha = s == 1 ? -2.0 : 1.0;
            p.beta = s == 0 ? 0.0 : 1.5;
            tu_gemv_random(h, mode, p, (s + tr) % 2 ? 8.0 : 1.0, &r, "dgemv_large");
        }
    ozblas_destroy(h);
}
END_TEST

START_TEST(dgemv_alpha_beta)
{
    ozblas_mode_t mode = MODES[_i];
    ozblas_handle_t h = tu_handle(mode);
    ozref_rng r;
    tu_rng(&r, "dgemv_alpha_beta");
    const double alphas[] = {0, 1, -1, 0.5, 3, 0x1p-1000, 0x1p+900, 1e-310, -0x1.123456789abcdp-3};
    const double betas[] = {0, 1, -1, 0.5, 3, 0x1p-1000, 0x1p+900, -0.0};
    int c = 0;
    for (size_t a = 0; a < sizeof alphas / sizeof *alphas; a++)
        for (size_t b = 0; b < sizeof betas / sizeof *betas; b++, c++) {
            tu_gemv_params p = {0};
            p.trans = c % 2;
            p.m = 11;
            p.n = 6;
            p.lda = 12;
            p.incx = 1;
            p.incy = c % 3 == 0 ? -1 : 1;
            p.alpha = alphas[a];
            p.beta = betas[b];
            tu_gemv_random(h, mode, p, 1.0, &r, "dgemv_alpha_beta");
        }
    ozblas_destroy(h);
}
END_TEST

START_TEST(dgemv_ranges)
{
    /* cancellation, subnormal results and near-overflow results, rows against x */
    ozblas_mode_t mode = MODES[_i];
    ozblas_handle_t h = tu_handle(mode);
    ozref_rng r;
    tu_rng(&r, "dgemv_ranges");
    const int64_t m = 9, n = 14, lda = 10;
    double *A = tu_alloc((size_t)(lda * n)), *x = tu_alloc(n), *y = tu_alloc(m);
    for (int t = 0; t < 12; t++) {
        for (int tr = 0; tr < 2; tr++) {
            int64_t lenx = tr ? m : n, leny = tr ? n : m;
            double *yy = tu_alloc((size_t)leny);
            ozref_fill_phi(&r, x, lenx, 1);
            for (int64_t j = 0; j < n; j++)
                for (int64_t i = 0; i < m; i++) {
                    double v = ozref_uniform(&r) - 0.5;
                    if (t % 3 == 0) v = ldexp(v, 1000);          /* near overflow with |x| ~ up to e^3 */
                    else if (t % 3 == 1) v = ldexp(v, -1060);    /* subnormal results */
                    A[i + j * lda] = v;
                }
            if (t % 3 == 2) {
                /* heavy cancellation: pairs of huge terms cancelling exactly, plus a tiny term */
                for (int64_t l = 0; l + 1 < lenx; l += 2) {
                    x[l + 1] = x[l];
                    for (int64_t o = 0; o < leny; o++) {
                        double *a0 = tr ? &A[l + o * lda] : &A[o + l * lda];
                        double *a1 = tr ? &A[l + 1 + o * lda] : &A[o + (l + 1) * lda];
                        *a0 = ldexp(*a0, 900);
                        *a1 = -*a0;
                    }
                }
            }
            for (int64_t i = 0; i < leny; i++) yy[i] = (t % 3 == 0) ? ldexp(ozref_uniform(&r), 1020) : ozref_uniform(&r) * 1e-300;
            tu_gemv_params p = {tr, m, n, lda, 1, 1, 1.0, (t % 4 == 1) ? 1.0 : 0.0};
            if (t % 3 == 0) p.alpha = (t % 2) ? 16.0 : 1.0;
            char ctx[64];
            snprintf(ctx, sizeof ctx, "ranges t=%d", t);
            tu_gemv_run(h, mode, &p, A, x, yy, ctx);
            free(yy);
        }
    }
    free(A); free(x); free(y);
    ozblas_destroy(h);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("dgemv");
    TCase *tc = tcase_create("dgemv");
    tcase_set_timeout(tc, tu_timeout(120));
    tcase_add_loop_test(tc, dgemv_random, 0, 3);
    tcase_add_loop_test(tc, dgemv_increments, 0, 3);
    tcase_add_loop_test(tc, dgemv_large, 0, 3);
    tcase_add_loop_test(tc, dgemv_alpha_beta, 0, 3);
    tcase_add_loop_test(tc, dgemv_ranges, 0, 3);
    suite_add_tcase(s, tc);
    return s;
}

TU_MAIN("test_dgemv", suite)
