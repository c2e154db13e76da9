/* DDOT in every mode: sizes, increments, phi, cancellation, subnormal and near-overflow results. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tu.h"

static const ozblas_mode_t MODES[3] = TU_MODES;

START_TEST(ddot_random)
{
    ozblas_mode_t mode = MODES[_i];
    ozblas_handle_t h = tu_handle(mode);
    ozref_rng r;
    tu_rng(&r, "ddot_random");
    const int64_t sizes[] = {1, 2, 7, 33, 257, 1000, 4099};
    const int64_t incs[][2] = {{1, 1}, {-1, 1}, {2, -3}, {-2, -1}, {0, 1}, {1, 0}, {3, 3}, {0, 0}};
    const double phis[] = {0, 1, 4, 8};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (size_t q = 0; q < sizeof incs / sizeof *incs; q++)
            for (size_t f = 0; f < 4; f++)
                tu_dot_random(h, mode, sizes[s], incs[q][0], incs[q][1], phis[f], &r, "ddot_random");
    ozblas_destroy(h);
}
END_TEST

START_TEST(ddot_large)
{
    ozblas_mode_t mode = MODES[_i];
    ozblas_handle_t h = tu_handle(mode);
    ozref_rng r;
    tu_rng(&r, "ddot_large");
    tu_dot_random(h, mode, 100003, 1, 1, 1, &r, "ddot_large");
    tu_dot_random(h, mode, 65536, -1, 2, 8, &r, "ddot_large");
    tu_dot_random(h, mode, 30001, 1, 1, 4, &r, "ddot_large");
    ozblas_destroy(h);
}
END_TEST

START_TEST(ddot_cancellation)
{
    ozblas_mode_t mode = MODES[_i];
    ozblas_handle_t h = tu_handle(mode);
    ozref_rng r;
    tu_rng(&r, "ddot_cancellation");
    /* the contract's example */
    double a[3] = {1.5 * 0x1p1023, 3, -1.5 * 0x1p1023}, b[3] = {8, 1e-300, 8};
    double res = tu_dot_run(h, mode, 3, a, 1, b, 1, "contract example");
    if (mode == OZBLAS_MODE_CORRECTLY_ROUNDED) ck_assert(tu_bits(res) == tu_bits(3e-300));
    tu_dot_run(h, mode, 3, a, -1, b, -1, "contract example backwards");
    /* DOTs of three and four products whose exact parts cancel to a few ulps of the smallest:
     * the tree of the short DOTs (eft_dot_small.c) must bound its error parts' roundings, else
     * it certifies these one ulp off */
    static const double tx[3][4] = { { -0x1.0000000000001p-27, 0x1.0000000000005p-27, -0x1.0000000000004p-53, 0.0 },
                                     { -0x1.0000000000006p-14, 0x1.0000000000007p-14, -0x1.0000000000000p-80, 0.0 },
                                     { 0x1.0000000000005p-27, -0x1.0000000000004p+0, 0x1.0000000000003p+0, -0x1.0p-54 } };
    static const double ty[3][4] = { { 0x1.0000000000007p-27, 0x1.0000000000004p-27, 0x1.0000000000001p-53, 0.0 },
                                     { 0x1.0000000000007p-13, 0x1.0000000000006p-13, 0x1.0000000000006p-80, 0.0 },
                                     { 0x1.0000000000004p-27, 0x1.0000000000003p+0, 0x1.0000000000004p+0, 0x1.0p-53 } };
    for (int q = 0; q < 3; q++) {
        tu_dot_run(h, mode, q == 2 ? 4 : 3, tx[q], 1, ty[q], 1, "short DOT's tree, cancelling");
        tu_dot_run(h, mode, q == 2 ? 4 : 3, tx[q], -1, ty[q], -1, "short DOT's tree, cancelling, backwards");
    }
    /* x = [u, -u, t], y = [v, v', w]: huge terms cancel exactly or nearly, leaving a tiny remainder */
    for (int t = 0; t < 60; t++) {
        int64_t half = 1 + (int64_t)(ozref_uniform(&r) * 300);
        int64_t n = 2 * half + 1;
        double *x = tu_alloc((size_t)n), *y = tu_alloc((size_t)n);
        double phi = (t % 4) * 2.0;
        ozref_fill_phi(&r, x, half, phi);
        ozref_fill_phi(&r, y, half, phi);
        for (int64_t i = 0; i < half; i++) {
            x[half + i] = -x[half - 1 - i];          /* reversed order, exact negation */
            y[half + i] = y[half - 1 - i];
            if (t % 3 == 1 && i == 0) y[half + i] = nextafter(y[half + i], 0); /* not quite cancelling */
        }
        x[n - 1] = ldexp(ozref_uniform(&r) - 0.5, -60 - (int)(ozref_uniform(&r) * 900));
        y[n - 1] = (t % 2) ? 1.0 : ldexp(1.0, (int)(ozref_uniform(&r) * 60));
        if (t % 5 == 4) x[n - 1] = 0; /* exact zero result -> +0 */
        char ctx[64];
        snprintf(ctx, sizeof ctx, "cancellation t=%d", t);
        double v = tu_dot_run(h, mode, n, x, 1, y, 1, ctx);
        if (t % 5 == 4 && t % 3 != 1 && mode == OZBLAS_MODE_CORRECTLY_ROUNDED) ck_assert(tu_bits(v) == 0);
        tu_dot_run(h, mode, n, x, -1, y, 1, ctx);
        free(x); free(y);
    }
    ozblas_destroy(h);
}
END_TEST

START_TEST(ddot_subnormal)
{
    ozblas_mode_t mode = MODES[_i];
    ozblas_handle_t h = tu_handle(mode);
    ozref_rng r;
    tu_rng(&r, "ddot_subnormal");
    for (int t = 0; t < 80; t++) {
        int64_t n = 1 + (int64_t)(ozref_uniform(&r) * 120);
        double *x = tu_alloc((size_t)n), *y = tu_alloc((size_t)n);
        int ex = -500 - (int)(ozref_uniform(&r) * 100), ey = -1040 - ex - (int)(ozref_uniform(&r) * 40);
        for (int64_t i = 0; i < n; i++) {
            x[i] = ldexp(ozref_uniform(&r) - 0.5, ex);
            y[i] = ldexp(ozref_uniform(&r) - 0.5, ey);
            if (t % 4 == 3) x[i] = ldexp(floor((ozref_uniform(&r) - 0.5) * 8), -1074); /* subnormal inputs */
            if (t % 4 == 3) y[i] = floor((ozref_uniform(&r) - 0.5) * 16);
        }
        if (t % 7 == 6) { x[0] = 0x1p-537; y[0] = 0x1p-538; n = 1; } /* tie at 2^-1075 -> +0 */
        char ctx[64];
        snprintf(ctx, sizeof ctx, "subnormal t=%d", t);
        tu_dot_run(h, mode, n, x, 1, y, 1, ctx);
        free(x); free(y);
    }
    /* the sum crosses: large terms cancel to a subnormal remainder */
    double x[4] = {0x1p-1000, 0x1.8p-1040, -0x1p-1000, 0x1p-1070}, y[4] = {1.0, 0x1p-30, 1.0, 0x1p-3};
    tu_dot_run(h, mode, 4, x, 1, y, 1, "cancel to subnormal");
    ozblas_destroy(h);
}
END_TEST

START_TEST(ddot_overflow)
{
    ozblas_mode_t mode = MODES[_i];
    ozblas_handle_t h = tu_handle(mode);
    ozref_rng r;
    tu_rng(&r, "ddot_overflow");
    /* results just below / at / above DBL_MAX */
    double one[3] = {1, 1, 1};
    double below[3] = {DBL_MAX, 0x1.fffffffp969, 0};     /* < half ulp: DBL_MAX */
    double tie[3] = {DBL_MAX, 0x1p970, 0};                /* = half ulp: Inf */
    double above[3] = {DBL_MAX, 0x1p971, -0x1p969};       /* > half ulp: Inf */
    double back[3] = {DBL_MAX, DBL_MAX, -DBL_MAX};        /* intermediate overflow, result DBL_MAX */
    double r1 = tu_dot_run(h, mode, 3, below, 1, one, 1, "just below DBL_MAX");
    double r2 = tu_dot_run(h, mode, 3, tie, 1, one, 1, "DBL_MAX + half ulp");
    double r3 = tu_dot_run(h, mode, 3, above, 1, one, 1, "above DBL_MAX");
    double r4 = tu_dot_run(h, mode, 3, back, 1, one, 1, "intermediate overflow");
    if (mode == OZBLAS_MODE_CORRECTLY_ROUNDED) {
        ck_assert(r1 == DBL_MAX && r2 == INFINITY && r3 == INFINITY && r4 == DBL_MAX);
    }
    ck_assert_msg(isfinite(r4), "intermediate overflow gave %a", r4);
    double nback[3] = {-DBL_MAX, -DBL_MAX, DBL_MAX};
    tu_dot_run(h, mode, 3, nback, 1, one, 1, "intermediate overflow, negative");
    /* random inputs near 2^1000 with results around DBL_MAX */
    for (int t = 0; t < 60; t++) {
        int64_t n = 1 + (int64_t)(ozref_uniform(&r) * 60);
        double *x = tu_alloc((size_t)n), *y = tu_alloc((size_t)n);
        for (int64_t i = 0; i < n; i++) {
            x[i] = ldexp(ozref_uniform(&r) - 0.5 * (t % 2), 1000);
            y[i] = ldexp(ozref_uniform(&r), 17 + (t % 8));
        }
        char ctx[64];
        snprintf(ctx, sizeof ctx, "near overflow t=%d", t);
        tu_dot_run(h, mode, n, x, 1, y, 1, ctx);
        free(x); free(y);
    }
    ozblas_destroy(h);
}
END_TEST

START_TEST(ddot_zero_n)
{
    ozblas_mode_t mode = MODES[_i];
    ozblas_handle_t h = tu_handle(mode);
    double x[2] = {NAN, 1}, y[2] = {1, 2};
    for (int64_t n = 0; n >= -2; n--) {
        double res = tu_dot_run(h, mode, n, x, 1, y, 1, "n <= 0");
        ck_assert(tu_bits(res) == 0);
    }
    /* only-zero inputs give +0; so does an exactly cancelling sum of signed zeros */
    double z[3] = {-0.0, 0.0, -0.0}, w[3] = {1.0, -1.0, 2.0};
    double res = tu_dot_run(h, mode, 3, z, 1, w, 1, "zeros");
    ck_assert_msg(tu_bits(res) == 0, "zeros gave %a", res);
    ozblas_destroy(h);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("ddot");
    TCase *tc = tcase_create("ddot");
    tcase_set_timeout(tc, tu_timeout(120));
    tcase_add_loop_test(tc, ddot_random, 0, 3);
    tcase_add_loop_test(tc, ddot_large, 0, 3);
    tcase_add_loop_test(tc, ddot_cancellation, 0, 3);
    tcase_add_loop_test(tc, ddot_subnormal, 0, 3);
    tcase_add_loop_test(tc, ddot_overflow, 0, 3);
    tcase_add_loop_test(tc, ddot_zero_n, 0, 3);
    suite_add_tcase(s, tc);
    return s;
}

TU_MAIN("test_ddot", suite)
