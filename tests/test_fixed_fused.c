/* FIXED-mode DOT and GEMV by the fused kernels (src/fixed/fixed_dot.c) against the GEMM-ized pipeline
 * with stored slices (OZBLAS_NO_FUSED=1): the same bits, exactly, for every split count, fast
 * mode on and off, both summations, lengths across the pipeline's k-blocks of 2^15 (and the
 * digit width that k sets), strides, phi from 0 to 12, cancellation, zero blocks, near-overflow
 * blocks, subnormal blocks, Inf and NaN (these three out of the kernels' reach: they must hand
 * the call over). */
#define _POSIX_C_SOURCE 200112L   /* setenv */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tu.h"

static const ozblas_mode_t FX = OZBLAS_MODE_FIXED;

/* the knobs are read when a handle is created (core/knobs.c) */
static ozblas_handle_t handle(int pipeline, int split, int fast, ozblas_summation_t sum)
{
    if (pipeline) setenv("OZBLAS_NO_FUSED", "1", 1);
    ozblas_handle_t h = tu_handle(FX);
    unsetenv("OZBLAS_NO_FUSED");
    ck_assert_int_eq(ozblas_set_split_count(h, split), OZBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(ozblas_set_fast_mode(h, fast), OZBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(ozblas_set_summation(h, sum), OZBLAS_STATUS_SUCCESS);
    return h;
}

/* one DOT on both handles: the same bits; returns the fused handle's info.fused */
static int same_bits(ozblas_handle_t hf, ozblas_handle_t hp, int64_t n, const double *x, int64_t incx,
                     const double *y, int64_t incy, const char *ctx)
{
    double rf = 0.0, rp = 0.0;
    ck_assert_int_eq(ozblas_ddot(hf, n, x, incx, y, incy, &rf), OZBLAS_STATUS_SUCCESS);
    ozblas_info_t info;
    ozblas_get_info(hf, &info);
    ck_assert_int_eq(ozblas_ddot(hp, n, x, incx, y, incy, &rp), OZBLAS_STATUS_SUCCESS);
    tu_check_bits(&rf, &rp, 1, 1, ctx);
    return info.fused;
}

/* one GEMV on both handles from the same y0 (ny elements with its gaps): the same bits (NaN
 * for NaN where nan_any); returns the fused handle's info.fused */
static int gemv_same_bits(ozblas_handle_t hf, ozblas_handle_t hp, ozblas_operation_t op, int64_t m, int64_t n,
                          double alpha, const double *A, int64_t lda, const double *x, int64_t incx, double beta,
                          const double *y0, int64_t incy, size_t ny, int nan_any, const char *ctx)
{
    double *yf = tu_alloc(ny), *yp = tu_alloc(ny);
    memcpy(yf, y0, ny * sizeof(double));
    memcpy(yp, y0, ny * sizeof(double));
    ck_assert_int_eq(ozblas_dgemv(hf, op, m, n, alpha, A, lda, x, incx, beta, yf, incy), OZBLAS_STATUS_SUCCESS);
    ozblas_info_t info;
    ozblas_get_info(hf, &info);
    ck_assert_int_eq(ozblas_dgemv(hp, op, m, n, alpha, A, lda, x, incx, beta, yp, incy), OZBLAS_STATUS_SUCCESS);
    tu_check_bits(yf, yp, ny, nan_any, ctx);
    free(yf);
    free(yp);
    return info.fused;
}

static const ozblas_summation_t SUMS[2] = {OZBLAS_SUM_NEARSUM, OZBLAS_SUM_DOUBLE};

/* _i: split count 1..5 (5 is beyond the kernels: the pipeline computes it), fast mode, summation */
START_TEST(fixed_fused_random)
{
    const int split = 1 + _i % 5, fast = _i / 5 % 2;
    const ozblas_summation_t sum = SUMS[_i / 10];
    ozblas_handle_t hf = handle(0, split, fast, sum), hp = handle(1, split, fast, sum);
    ozref_rng r;
    tu_rng(&r, "fixed_fused_random");
    /* across blocks of 2^15 and the widths k sets (beta 26 at k = 1 down to 19) */
    const int64_t sizes[] = {1, 2, 7, 100, 4099, 32767, 32768, 32769, 100003};
    const int64_t incs[][2] = {{1, 1}, {-1, 2}, {3, -1}};
    const double phis[] = {0, 0.5, 1, 4, 12};
    int c = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (size_t q = 0; q < 3; q++, c++) {
            const int64_t n = sizes[s], ix = incs[q][0], iy = incs[q][1];
            double *x = tu_alloc(tu_vec_len(n, ix)), *y = tu_alloc(tu_vec_len(n, iy));
            const double phi = phis[c % 5];
            tu_fill_vec(&r, x, n, ix, phi);
            tu_fill_vec(&r, y, n, iy, phi);
            if (c % 4 == 3) {      /* cancellation: the second half is the negated first */
                for (int64_t i = n / 2; i < n; i++) *tu_vec_elem(x, n, ix, i) = -*tu_vec_elem(x, n, ix, i - n / 2);
                for (int64_t i = n / 2; i < n; i++) *tu_vec_elem(y, n, iy, i) = *tu_vec_elem(y, n, iy, i - n / 2);
            }
            char ctx[128];
            snprintf(ctx, sizeof ctx, "split %d fast %d sum %d n %lld inc %lld/%lld phi %g", split, fast, (int)sum,
                     (long long)n, (long long)ix, (long long)iy, phi);
            const int fused = same_bits(hf, hp, n, x, ix, y, iy, ctx);
            ck_assert_msg(fused == (split <= 4), "%s: fused path %d", ctx, fused);
            free(x);
            free(y);
        }
    ozblas_destroy(hf);
    ozblas_destroy(hp);
}
END_TEST

/* blocks of zeros, subnormals, near overflow, Inf and NaN next to ordinary blocks */
START_TEST(fixed_fused_edges)
{
    const int split = 1 + _i % 4, fast = _i / 4 % 2;
    const ozblas_summation_t sum = SUMS[_i / 8];
    ozblas_handle_t hf = handle(0, split, fast, sum), hp = handle(1, split, fast, sum);
    ozref_rng r;
    tu_rng(&r, "fixed_fused_edges");
    const int64_t n = 3 * 32768 + 11;
    double *x = tu_alloc((size_t)n), *y = tu_alloc((size_t)n);
    for (int kind = 0; kind < 9; kind++) {
        tu_fill_vec(&r, x, n, 1, 1.0);
        tu_fill_vec(&r, y, n, 1, 1.0);
        int want_fused = split <= 4;
        for (int64_t i = 32768; i < 65536; i++) {
            switch (kind) {
            case 0: x[i] = 0.0; break;                                   /* a zero block of x      */
            case 1: x[i] *= 0x1p-1060; break;                            /* subnormal block         */
            case 2: x[i] *= 0x1p-1060; y[i] *= 0x1p-20; break;           /* products underflow      */
            case 3: x[i] = fmin(fmax(x[i], -1.0), 1.0) * 0x1p1023; y[i] *= 0x1p-1000; break;   /* near overflow */
            case 4: if (i == 40000) x[i] = INFINITY; break;
            case 5: if (i == 40001) y[i] = NAN; break;
            case 6: x[i] = i % 2 ? 0x1p-1074 : -0x1p-1073; break;        /* the smallest subnormals */
            case 7: x[i] = i == 32768 ? 0x1p-1001 : x[i] * 0x1p-1000; y[i] = y[i] * 0x1p60; break;   /* tiny x (block maximum >= 2^-1001: in reach), large y */
            default: x[i] = y[i] = 0.0; break;                           /* zero in both            */
            }
        }
        /* subnormal blocks (scale 2^(beta - e) beyond the normal range), Inf and NaN: the
         * pipeline */
        if (kind == 1 || kind == 2 || kind == 4 || kind == 5 || kind == 6) want_fused = 0;
        char ctx[96];
        snprintf(ctx, sizeof ctx, "edges kind %d split %d fast %d sum %d", kind, split, fast, (int)sum);
        const int fused = same_bits(hf, hp, n, x, 1, y, 1, ctx);
        ck_assert_msg(fused == want_fused, "%s: fused path %d", ctx, fused);
    }
    /* every product zero, and a single exact cancellation to zero: +0 */
    for (int64_t i = 0; i < n; i++) { x[i] = 0.0; y[i] = 1.0; }
    same_bits(hf, hp, n, x, 1, y, 1, "all zero");
    x[5] = 3.0; x[40000] = -3.0;
    same_bits(hf, hp, n, x, 1, y, 1, "exact cancellation");
    free(x);
    free(y);
    ozblas_destroy(hf);
    ozblas_destroy(hp);
}
END_TEST

/* GEMV, T (a DOT per row of op(A)) and N (strips of rows in lanes): the same bits */
START_TEST(fixed_fused_gemv)
{
    const int split = 1 + _i % 4, fast = _i / 4 % 2;
    const ozblas_summation_t sum = SUMS[_i / 8];
    ozblas_handle_t hf = handle(0, split, fast, sum), hp = handle(1, split, fast, sum);
    ozref_rng r;
    tu_rng(&r, "fixed_fused_gemv");
    /* rows of op(A) x inner dimension, across GEMV's blocks of 2^12 */
    const int64_t shapes[][2] = {{1, 5000}, {7, 4097}, {33, 4096}, {65, 9000}, {3, 1}, {130, 300}};
    const double phis[] = {0, 1, 4, 12};
    int c = 0;
    for (int tr = 0; tr < 2; tr++)
        for (size_t q = 0; q < sizeof shapes / sizeof *shapes; q++, c++) {
            const int64_t rows = shapes[q][0], k = shapes[q][1];
            const int64_t m = tr ? k : rows, n = tr ? rows : k, lda = m + (c % 2 ? 3 : 0);
            const int64_t incx = c % 3 == 1 ? -2 : 1, incy = c % 4 == 3 ? 3 : 1;
            const double alpha = c % 3 ? 1.0 : -0.75, beta = c % 2 ? 0.5 : 0.0;
            double *A = tu_alloc((size_t)(lda * n)), *x = tu_alloc(tu_vec_len(k, incx));
            const size_t ny = tu_vec_len(rows, incy);
            double *y0 = tu_alloc(ny);
            const double phi = phis[c % 4];
            tu_fill_mat(&r, A, m, n, lda, phi);
            tu_fill_vec(&r, x, k, incx, phi);
            tu_fill_vec(&r, y0, rows, incy, 1.0);
            char ctx[128];
            snprintf(ctx, sizeof ctx, "gemv %c %lldx%lld split %d fast %d sum %d phi %g", tr ? 'T' : 'N', (long long)m,
                     (long long)n, split, fast, (int)sum, phi);
            const int fused = gemv_same_bits(hf, hp, tr ? OZBLAS_OP_T : OZBLAS_OP_N, m, n, alpha, A, lda, x, incx, beta,
                                             y0, incy, ny, 0, ctx);
            ck_assert_msg(fused == 1, "%s: fused path %d", ctx, fused);
            free(A); free(x); free(y0);
        }
    /* a zero row (fused), a subnormal row and an Inf (the pipeline), GEMV N and T */
    for (int tr = 0; tr < 2; tr++)
        for (int kind = 0; kind < 3; kind++) {
            const int64_t rows = 40, k = 5000, m = tr ? k : rows, n = tr ? rows : k;
            double *A = tu_alloc((size_t)(m * n)), *x = tu_alloc((size_t)k), *y0 = tu_alloc((size_t)rows);
            tu_fill_mat(&r, A, m, n, m, 1.0);
            tu_fill_vec(&r, x, k, 1, 1.0);
            for (int64_t l = 0; l < k; l++) {
                double *a = tr ? &A[l + 17 * m] : &A[17 + l * m];   /* row 17 of op(A) */
                *a = kind == 0 ? 0.0 : kind == 1 ? *a * 0x1p-1060 : (l == 4321 ? INFINITY : *a);
            }
            char ctx[64];
            snprintf(ctx, sizeof ctx, "gemv edge %d %c", kind, tr ? 'T' : 'N');
            const int fused = gemv_same_bits(hf, hp, tr ? OZBLAS_OP_T : OZBLAS_OP_N, m, n, 1.0, A, m, x, 1, 0.0, y0, 1,
                                             (size_t)rows, 1, ctx);
            ck_assert_msg(fused == (kind == 0), "%s: fused path %d", ctx, fused);
            free(A); free(x); free(y0);
        }
    ozblas_destroy(hf);
    ozblas_destroy(hp);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("fixed_fused");
    TCase *tc = tcase_create("fixed_fused");
    tcase_set_timeout(tc, tu_timeout(300));
    tcase_add_loop_test(tc, fixed_fused_random, 0, 20);
    tcase_add_loop_test(tc, fixed_fused_edges, 0, 16);
    tcase_add_loop_test(tc, fixed_fused_gemv, 0, 16);
    suite_add_tcase(s, tc);
    return s;
}

TU_MAIN("test_fixed_fused", suite)
