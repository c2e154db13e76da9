/* Slice formats (FP16, INT8, CRT_INT8 beside FP64): every mode obeys the contract with each format,
 * CORRECTLY_ROUNDED gives the same bits for all of them (it equals the exact reference),
 * DOUBLE and FIXED are reproducible across threads and workspace limits per format. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tu.h"

static const ozblas_engine_t ENGINES[] = {OZBLAS_ENGINE_FP16, OZBLAS_ENGINE_INT8, OZBLAS_ENGINE_CRT_INT8};
static const ozblas_mode_t MODES[] = TU_MODES;

static ozblas_handle_t engine_handle(ozblas_mode_t mode, ozblas_engine_t e)
{
    ozblas_handle_t h = tu_handle(mode);
    ck_assert_int_eq(ozblas_set_engine(h, e), OZBLAS_STATUS_SUCCESS);
    /* FIXED: 5 slices, or for CRT_INT8 5 moduli (a coarse product: the contract's FIXED
     * guarantees, reproducibility and special values, still hold) */
    if (mode == OZBLAS_MODE_FIXED) ck_assert_int_eq(ozblas_set_split_count(h, 5), OZBLAS_STATUS_SUCCESS);
    return h;
}

/* _i = engine * 3 + mode */
START_TEST(formats_gemm)
{
    const ozblas_engine_t e = ENGINES[_i / 3];
    const ozblas_mode_t mode = MODES[_i % 3];
    ozblas_handle_t h = engine_handle(mode, e);
    ozref_rng r;
    tu_rng(&r, "formats_gemm");
    const int64_t sizes[][3] = {{1, 1, 1}, {7, 2, 33}, {33, 7, 257}, {5, 9, 1030}, {2, 3, 600}};
    const double phis[] = {0, 1, 4, 8};
    int c = 0;
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++)
            for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++, c++) {
                tu_gemm_params p = {0};
                p.ta = ta; p.tb = tb;
                p.m = sizes[s][0]; p.n = sizes[s][1]; p.k = sizes[s][2];
                p.alpha = c % 2 ? -0.75 : 1.0;
                p.beta = c % 3 ? 0.0 : 2.0;
                tu_gemm_random(h, mode, p, phis[c % 4], &r, "formats_gemm");
            }
    ozblas_destroy(h);
}
END_TEST

START_TEST(formats_gemv_dot)
{
    const ozblas_engine_t e = ENGINES[_i / 3];
    const ozblas_mode_t mode = MODES[_i % 3];
    ozblas_handle_t h = engine_handle(mode, e);
    ozref_rng r;
    tu_rng(&r, "formats_gemv_dot");
    for (int t = 0; t < 2; t++)
        for (int f = 0; f < 3; f++) {
            tu_gemv_params p = {0};
            p.trans = t; p.m = 37 + 40 * f; p.n = 700 - 200 * f; p.incx = f == 1 ? -2 : 1; p.incy = f == 2 ? 3 : 1;
            p.alpha = 1.5; p.beta = f ? -1.0 : 0.0;
            tu_gemv_random(h, mode, p, (double)(2 * f), &r, "formats_gemv");
        }
    const int64_t ns[] = {1, 2, 33, 1000, 40000};   /* 40000 > the FP16 and DOT inner blocks */
    for (size_t s = 0; s < sizeof ns / sizeof *ns; s++)
        tu_dot_random(h, mode, ns[s], s % 2 ? -1 : 1, 1, (double)(s % 4) * 2.0, &r, "formats_dot");
    ozblas_destroy(h);
}
END_TEST

/* Extreme ranges exercise the integer digit path with narrow digits: rows near
 * overflow and subnormal rows, mixed in one product. */
START_TEST(formats_extreme_ranges)
{
    const ozblas_engine_t e = ENGINES[_i];
    ozblas_handle_t h = engine_handle(OZBLAS_MODE_CORRECTLY_ROUNDED, e);
    ozref_rng r;
    tu_rng(&r, "formats_extreme");
    const int64_t m = 6, n = 5, k = 40;
    double *A = tu_alloc(m * k), *B = tu_alloc(k * n), *C = tu_alloc(m * n);
    const int scales[][2] = {{1000, -990}, {-1060, 1000}, {-500, -560}, {1010, 10}};
    for (size_t s = 0; s < sizeof scales / sizeof *scales; s++) {
        tu_fill_mat(&r, A, m, k, m, 1.0);
        tu_fill_mat(&r, B, k, n, k, 1.0);
        for (int64_t i = 0; i < m * k; i++) A[i] = ldexp(A[i], i % 3 ? scales[s][0] : scales[s][0] - 30);
        for (int64_t i = 0; i < k * n; i++) B[i] = ldexp(B[i], scales[s][1]);
        tu_gemm_params p = {0};
        p.m = m; p.n = n; p.k = k; p.alpha = 1.0; p.beta = 0.0;
        tu_gemm_run(h, OZBLAS_MODE_CORRECTLY_ROUNDED, &p, A, B, C, "formats_extreme");
    }
    free(A); free(B); free(C);
    ozblas_destroy(h);
}
END_TEST

/* DOUBLE mode where fast mode must not skip pairs: a large entry of op(A) meets a small one of
 * op(B) and vice versa, so the dot product is far below max|a| max|b| and a deep digit of one
 * side times a leading digit of the other is large (x = (-1, -2^80, 10), y = (-10, 10,
 * -1.7 2^80) loses 2^-12 with INT8 slices if those pairs are skipped).  Every format, FP64
 * too, random magnitudes around the pattern; DOT, GEMV and GEMM.  _i = format (FP64, then ENGINES). */
START_TEST(formats_double_mismatched_magnitudes)
{
    const ozblas_engine_t e = _i == 0 ? OZBLAS_ENGINE_FP64 : ENGINES[_i - 1];
    ozblas_handle_t h = engine_handle(OZBLAS_MODE_DOUBLE, e);
    ozref_rng r;
    tu_rng(&r, "formats_mismatched");
    const double x[3] = {-0x1p+0, -0x1.000348p+80, 0x1.4p+3}, y[3] = {-0x1.4p+3, 0x1.4p+3, -0x1.b01b235d58de7p+80};
    tu_dot_run(h, OZBLAS_MODE_DOUBLE, 3, x, 1, y, 1, "mismatched dot (fuzz finding)");
    for (int rep = 0; rep < 4; rep++) {
        const int64_t m = 5, n = 4, k = 6 + 7 * rep;
        double *A = tu_alloc(m * k), *B = tu_alloc(k * n), *C = tu_alloc(m * n);
        tu_fill_mat(&r, A, m, k, m, 1.0);
        tu_fill_mat(&r, B, k, n, k, 1.0);
        /* column l of op(A) large where row l of op(B) is small, and the other way round */
        for (int64_t l = 0; l < k; l++) {
            const int big = (int)(ozref_uniform(&r) * 80.0) + 20;
            const int sideA = l % 2;
            for (int64_t i = 0; i < m; i++) A[i + l * m] = ldexp(A[i + l * m], sideA ? big : 0);
            for (int64_t j = 0; j < n; j++) B[l + j * k] = ldexp(B[l + j * k], sideA ? 0 : big);
        }
        tu_gemm_params p = {0};
        p.m = m; p.n = n; p.k = k; p.alpha = 1.0; p.beta = 0.0;
        tu_gemm_run(h, OZBLAS_MODE_DOUBLE, &p, A, B, C, "mismatched gemm");
        tu_gemv_params q = {0};
        q.m = m; q.n = k; q.incx = 1; q.incy = 1; q.alpha = 1.0; q.beta = 0.0;
        double *xv = tu_alloc(k), *yv = tu_alloc(m);
        for (int64_t l = 0; l < k; l++) xv[l] = B[l];
        for (int64_t i = 0; i < m; i++) yv[i] = 0.0;
        tu_gemv_run(h, OZBLAS_MODE_DOUBLE, &q, A, xv, yv, "mismatched gemv");
        free(A); free(B); free(C); free(xv); free(yv);
    }
    ozblas_destroy(h);
}
END_TEST

/* DOUBLE and FIXED per format: identical bits for threads 1..4 and small/large workspaces. */
START_TEST(formats_repro)
{
    const ozblas_engine_t e = ENGINES[_i / 2];
    const ozblas_mode_t mode = _i % 2 ? OZBLAS_MODE_FIXED : OZBLAS_MODE_DOUBLE;
    ozblas_handle_t h = engine_handle(mode, e);
    if (mode == OZBLAS_MODE_FIXED) ozblas_set_fast_mode(h, 1);
    ozref_rng r;
    tu_rng(&r, "formats_repro");
    const int64_t m = 70, n = 45, k = 900;
    double *A = tu_alloc(m * k), *B = tu_alloc(k * n), *C0 = tu_alloc(m * n), *C = tu_alloc(m * n);
    tu_fill_mat(&r, A, m, k, m, 2.0);
    tu_fill_mat(&r, B, k, n, k, 2.0);
    ck_assert_int_eq(ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, m, n, k, 1.0, A, m, B, k, 0.0, C0, m),
                     OZBLAS_STATUS_SUCCESS);
    const size_t limits[] = {(size_t)64 << 10, (size_t)1 << 30};
    for (int t = 1; t <= 4; t++)
        for (int w = 0; w < 2; w++) {
            ozblas_set_num_threads(h, t);
            ozblas_set_workspace_limit(h, limits[w]);
            ck_assert_int_eq(ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, m, n, k, 1.0, A, m, B, k, 0.0, C, m),
                             OZBLAS_STATUS_SUCCESS);
            ck_assert_msg(memcmp(C, C0, sizeof(double) * m * n) == 0,
                          "engine %d mode %s: result differs with %d threads, workspace %zu [seed %llu]",
                          (int)e, tu_mode_name(mode), t, limits[w], (unsigned long long)tu_seed);
            if (w == 0) {
                ozblas_info_t info;
                ozblas_get_info(h, &info);
                ck_assert_int_gt(info.blocks, 1);
                ck_assert_int_eq(info.engine, e);
            }
        }
    free(A); free(B); free(C0); free(C);
    ozblas_destroy(h);
}
END_TEST

START_TEST(formats_args)
{
    ozblas_handle_t h = tu_handle(OZBLAS_MODE_DOUBLE);
    ozblas_engine_t e;
    ck_assert_int_eq(ozblas_get_engine(h, &e), OZBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(e, OZBLAS_ENGINE_FP64);
    ck_assert_int_eq(ozblas_set_engine(h, (ozblas_engine_t)9), OZBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(ozblas_set_engine(NULL, OZBLAS_ENGINE_INT8), OZBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(ozblas_get_engine(h, NULL), OZBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(ozblas_get_engine(h, &e), OZBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(e, OZBLAS_ENGINE_FP64);
    ozblas_destroy(h);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("formats");
    TCase *tc = tcase_create("formats");
    tcase_set_timeout(tc, tu_timeout(200));
    tcase_add_loop_test(tc, formats_gemm, 0, 9);
    tcase_add_loop_test(tc, formats_gemv_dot, 0, 9);
    tcase_add_loop_test(tc, formats_extreme_ranges, 0, 3);
    tcase_add_loop_test(tc, formats_double_mismatched_magnitudes, 0, 4);
    tcase_add_loop_test(tc, formats_repro, 0, 6);
    tcase_add_test(tc, formats_args);
    suite_add_tcase(s, tc);
    return s;
}

TU_MAIN("test_formats", suite)
