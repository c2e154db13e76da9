/* The fused correctly rounded DOT/GEMV kernels (src/fused): exact references over block
 * boundaries, panel and strip edges, strides and phi; the three ways a row can be finished
 * (first pass, second pass, GEMM-ized pipeline) forced in turn and compared bit for bit;
 * rows with special values and extreme exponents next to ordinary rows; cancellation. */
#define _POSIX_C_SOURCE 200112L   /* setenv */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tu.h"

static const ozblas_mode_t CR = OZBLAS_MODE_CORRECTLY_ROUNDED;

/* the knobs are read when a handle is created (core/knobs.c): each path gets its own handle */
static const char *const PATHS[][2] = {
    {NULL, NULL},                     /* default: fused, second pass, pipeline as needed */
    {"OZBLAS_FUSED_FAIL", "1"},       /* every row through the second pass              */
    {"OZBLAS_FUSED_FAIL", "2"},       /* every row through the GEMM-ized pipeline        */
    {"OZBLAS_NO_FUSED", "1"},         /* the pipeline alone                              */
};
static void set_path(int p)
{
    unsetenv("OZBLAS_FUSED_FAIL");
    unsetenv("OZBLAS_NO_FUSED");
    if (PATHS[p][0]) setenv(PATHS[p][0], PATHS[p][1], 1);
}

START_TEST(fused_gemv_reference)
{
    ozblas_handle_t h = tu_handle(CR);
    ozref_rng r;
    tu_rng(&r, "fused_gemv_reference");
    /* k across 1, 2 and partial blocks of 2048; m across the panels of 32 rows */
    const int64_t sizes[][2] = {{31, 4097}, {32, 2048}, {33, 2049}, {65, 6000}, {100, 1}, {1, 5000}, {3, 4096}};
    const double phis[] = {0, 1, 4, 12};
    int c = 0;
    for (int tr = 0; tr < 2; tr++)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++, c++) {
            tu_gemv_params p = {0};
            p.trans = tr;
            p.m = tr ? sizes[s][1] : sizes[s][0];
            p.n = tr ? sizes[s][0] : sizes[s][1];
            p.lda = c % 2 ? p.m + 3 : 0;
            p.incx = c % 3 == 1 ? -2 : 1;
            p.incy = c % 4 == 3 ? 3 : 1;
            p.alpha = c % 3 ? 1.0 : -0.75;
            p.beta = c % 2 ? 0.5 : 0.0;
            tu_gemv_random(h, CR, p, phis[c % 4], &r, "fused_gemv_reference");
            ozblas_info_t info;
            ozblas_get_info(h, &info);
            ck_assert_msg(info.fused == 1, "CR GEMV did not take the fused path");
        }
    ozblas_destroy(h);
}
END_TEST

START_TEST(fused_dot_reference)
{
    ozblas_handle_t h = tu_handle(CR);
    ozref_rng r;
    tu_rng(&r, "fused_dot_reference");
    const int64_t sizes[] = {1, 2047, 2048, 2049, 10000, 100001};
    const int64_t incs[][2] = {{1, 1}, {-1, 2}, {3, -1}};
    const double phis[] = {0, 1, 4, 12};
    int c = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (size_t q = 0; q < 3; q++, c++)
            tu_dot_random(h, CR, sizes[s], incs[q][0], incs[q][1], phis[c % 4], &r, "fused_dot_reference");
    ozblas_destroy(h);
}
END_TEST

/* one GEMV on fixed inputs through each path: every path gives the same bits */
static void paths_agree(ozblas_handle_t h, int trans, int64_t m, int64_t n, int64_t lda, const double *A,
                        const double *x, double alpha, double beta, const double *y0, const char *ctx)
{
    const int64_t leny = trans ? n : m;
    double *y[4];
    for (int p = 0; p < 4; p++) {
        y[p] = tu_alloc((size_t)leny);
        memcpy(y[p], y0, sizeof(double) * (size_t)leny);
        set_path(p);
        ozblas_handle_t hp = tu_handle(CR);
        ozblas_status_t st = ozblas_dgemv(hp, trans ? OZBLAS_OP_T : OZBLAS_OP_N, m, n, alpha, A, lda, x, 1, beta, y[p], 1);
        ck_assert_int_eq(st, OZBLAS_STATUS_SUCCESS);
        ozblas_destroy(hp);
    }
    set_path(0);
    for (int p = 1; p < 4; p++) tu_check_bits(y[p], y[0], (size_t)leny, 1, ctx);
    /* and the exact reference */
    tu_gemv_params prm = {trans, m, n, lda, 1, 1, alpha, beta};
    double *yc = tu_alloc((size_t)leny);
    memcpy(yc, y0, sizeof(double) * (size_t)leny);
    tu_gemv_run(h, CR, &prm, A, x, yc, ctx);
    for (int p = 0; p < 4; p++) free(y[p]);
    free(yc);
}

START_TEST(fused_paths_agree)
{
    ozblas_handle_t h = tu_handle(CR);
    ozref_rng r;
    tu_rng(&r, "fused_paths_agree");
    const int64_t m = 45, n = 4500, lda = 47;
    double *A = tu_alloc((size_t)(lda * n)), *x = tu_alloc((size_t)n), *y0 = tu_alloc((size_t)n);
    for (int tr = 0; tr < 2; tr++)
        for (int f = 0; f < 3; f++) {
            const double phi = f == 0 ? 0.5 : f == 1 ? 2 : 8;
            tu_fill_mat(&r, A, m, n, lda, phi);
            tu_fill_vec(&r, x, tr ? m : n, 1, phi);
            tu_fill_vec(&r, y0, tr ? n : m, 1, 1);
            paths_agree(h, tr, m, n, lda, A, x, f == 2 ? 3.0 : 1.0, f == 1 ? -0.5 : 0.0, y0, "fused paths");
        }
    free(A); free(x); free(y0);
    ozblas_destroy(h);
}
END_TEST

/* Rows with Inf, NaN, subnormal-only entries, entries near overflow and zeros among
 * ordinary rows (the fused path hands those rows to the pipeline, the others it keeps),
 * and a vector block that is zero or huge. */
START_TEST(fused_special_rows)
{
    ozblas_handle_t h = tu_handle(CR);
    ozref_rng r;
    tu_rng(&r, "fused_special_rows");
    const int64_t m = 40, n = 4200, lda = 40;
    double *A = tu_alloc((size_t)(lda * n)), *x = tu_alloc((size_t)n), *y0 = tu_alloc((size_t)n);
    for (int tr = 0; tr < 2; tr++)
        for (int variant = 0; variant < 3; variant++) {
            tu_fill_mat(&r, A, m, n, lda, 1);
            tu_fill_vec(&r, x, tr ? m : n, 1, 1);
            tu_fill_vec(&r, y0, tr ? n : m, 1, 1);
            /* op(A) row i: entries (i, l) */
#define OPA(i, l) (*(tr ? &A[(l) + (i) * lda] : &A[(i) + (l) * lda]))
            const int64_t rows = tr ? n : m, inner = tr ? m : n;
            for (int64_t l = 0; l < inner; l++) {
                OPA(1 % rows, l) *= 0x1p-1070;                      /* subnormal row */
                OPA(2 % rows, l) *= 0x1p1015;                       /* near overflow */
                OPA(4 % rows, l) = 0.0;                             /* zero row */
                if (l >= inner / 2) OPA(5 % rows, l) *= 0x1p-1000;  /* huge exponent spread */
            }
            OPA(3 % rows, inner / 3) = variant == 0 ? INFINITY : variant == 1 ? NAN : -INFINITY;
            if (variant == 2 && !tr) for (int64_t l = 0; l < 2048 && l < inner; l++) x[l] = 0.0;   /* a zero block */
            if (variant == 1) x[inner - 1] = 0x1.fp1020;
#undef OPA
            paths_agree(h, tr, m, n, lda, A, x, 1.0, variant == 1 ? 2.0 : 0.0, y0, "fused special rows");
        }
    free(A); free(x); free(y0);
    ozblas_destroy(h);
}
END_TEST

/* x = [u, u], op(A) row = [v, -v] plus one element perturbed by 2^-s relative: the exact
 * result is that perturbation times an x entry, ~2^-s of the row's scale, so larger s
 * moves the row from the first pass to the second and to the pipeline (exact zero). */
START_TEST(fused_cancellation)
{
    ozblas_handle_t h = tu_handle(CR);
    ozref_rng r;
    tu_rng(&r, "fused_cancellation");
    const int64_t half = 3000, n = 2 * half, m = 6;
    const int shifts[] = {0, 40, 75, 100, 130, 1000};
    double *A = tu_alloc((size_t)(m * n)), *x = tu_alloc((size_t)n), *y0 = tu_alloc((size_t)m);
    tu_fill_vec(&r, x, half, 1, 1);
    memcpy(x + half, x, sizeof(double) * (size_t)half);
    for (int64_t i = 0; i < m; i++) {
        for (int64_t l = 0; l < half; l++) {
            const double v = (ozref_uniform(&r) - 0.5) * exp(ozref_normal(&r));
            A[i + l * m] = v;
            A[i + (l + half) * m] = -v;
        }
        const int64_t l = (int64_t)(ozref_uniform(&r) * (double)half);
        if (shifts[i] < 1000) A[i + (l + half) * m] += ldexp(A[i + l * m], -shifts[i] < -1000 ? -1000 : -shifts[i]);
        y0[i] = 0.0;
    }
    paths_agree(h, 0, m, n, m, A, x, 1.0, 0.0, y0, "fused cancellation");
    ozblas_info_t info;
    ozblas_get_info(h, &info);
    /* the rows at 2^-75 and below need the second pass; the exact zero the pipeline */
    ck_assert_msg(info.fused == 1 && info.lazy_fixups >= 3 && info.gemm_calls >= 1,
                  "fused %d undecided %lld gemms %lld", info.fused, (long long)info.lazy_fixups, (long long)info.gemm_calls);
    double d;
    ozblas_ddot(h, n, A, m, x, 1, &d);     /* row 0 as a DOT */
    ck_assert(d == ozref_ddot(n, A, m, x, 1));
    free(A); free(x); free(y0);
    ozblas_destroy(h);
}
END_TEST

/* DOUBLE mode with FP64, INT8 and FP16 slices computes DOT and GEMV correctly rounded
 * (dispatch.c, effective_mode): the same bits as a CORRECTLY_ROUNDED handle. */
START_TEST(fused_double_mode_is_cr)
{
    ozblas_handle_t hd = tu_handle(OZBLAS_MODE_DOUBLE), hc = tu_handle(CR);
    ozref_rng r;
    tu_rng(&r, "fused_double_mode_is_cr");
    const int64_t m = 37, n = 5000;
    double *A = tu_alloc((size_t)(m * n)), *x = tu_alloc((size_t)n), *yd = tu_alloc((size_t)n), *yc = tu_alloc((size_t)n);
    for (int tr = 0; tr < 2; tr++) {
        tu_fill_mat(&r, A, m, n, m, 2);
        tu_fill_vec(&r, x, tr ? m : n, 1, 2);
        const int64_t leny = tr ? n : m;
        for (int64_t i = 0; i < leny; i++) yd[i] = yc[i] = (double)i;
        ck_assert_int_eq(ozblas_dgemv(hd, tr ? OZBLAS_OP_T : OZBLAS_OP_N, m, n, 1.5, A, m, x, 1, -1.0, yd, 1), OZBLAS_STATUS_SUCCESS);
        ozblas_info_t info;
        ozblas_get_info(hd, &info);
        ck_assert(info.fused == 1 && info.mode == OZBLAS_MODE_DOUBLE);
        ck_assert_int_eq(ozblas_dgemv(hc, tr ? OZBLAS_OP_T : OZBLAS_OP_N, m, n, 1.5, A, m, x, 1, -1.0, yc, 1), OZBLAS_STATUS_SUCCESS);
        tu_check_bits(yd, yc, (size_t)leny, 1, "DOUBLE gemv == CR gemv");
    }
    double dd, dc;
    ozblas_ddot(hd, m * n, A, 1, A, 1, &dd);
    ozblas_ddot(hc, m * n, A, 1, A, 1, &dc);
    ck_assert(tu_bits(dd) == tu_bits(dc));
    /* INT8 and FP16 slices too (correctly rounded there as well: Algorithm 3's slice count
     * would make an element depend on other columns) */
    const ozblas_engine_t slices[] = {OZBLAS_ENGINE_INT8, OZBLAS_ENGINE_FP16};
    for (int e = 0; e < 2; e++) {
        if (ozblas_set_engine(hd, slices[e]) != OZBLAS_STATUS_SUCCESS) continue;
        ozblas_ddot(hd, n, A, 1, x, 1, &dd);
        ozblas_ddot(hc, n, A, 1, x, 1, &dc);
        ck_assert(tu_bits(dd) == tu_bits(dc));
        for (int64_t i = 0; i < m; i++) yd[i] = yc[i] = (double)i;
        ck_assert_int_eq(ozblas_dgemv(hd, OZBLAS_OP_N, m, n, 1.5, A, m, x, 1, -1.0, yd, 1), OZBLAS_STATUS_SUCCESS);
        ck_assert_int_eq(ozblas_dgemv(hc, OZBLAS_OP_N, m, n, 1.5, A, m, x, 1, -1.0, yc, 1), OZBLAS_STATUS_SUCCESS);
        tu_check_bits(yd, yc, (size_t)m, 1, "DOUBLE gemv with INT8/FP16 slices == CR gemv");
    }
    free(A); free(x); free(yd); free(yc);
    ozblas_destroy(hd);
    ozblas_destroy(hc);
}
END_TEST

static Suite *fused_suite(void)
{
    Suite *s = suite_create("fused");
    /* this file tests the fused kernels: without the error-free DOT/GEMV in front of them
     * (tests/test_eft.c tests those), read by every handle created below */
    setenv("OZBLAS_NO_DOT2", "1", 1);
    TCase *tc = tcase_create("fused");
    tcase_set_timeout(tc, tu_timeout(300));
    tcase_add_test(tc, fused_gemv_reference);
    tcase_add_test(tc, fused_dot_reference);
    tcase_add_test(tc, fused_paths_agree);
    tcase_add_test(tc, fused_special_rows);
    tcase_add_test(tc, fused_cancellation);
    tcase_add_test(tc, fused_double_mode_is_cr);
    suite_add_tcase(s, tc);
    return s;
}

TU_MAIN("test_fused", fused_suite)
