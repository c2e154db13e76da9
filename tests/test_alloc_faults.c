/* Workspace failures midway (OZBLAS_FAIL_ALLOC=n: a handle's n-th buffer growth fails), in
 * every mode: ozblas_dgemm, ozblas_dgemv, ozblas_ddot, ozblas_drot and ozblas_dger either succeed with the bits of a call
 * without the fault, or fail with OZBLAS_STATUS_PARTIAL, or fail with another status and leave
 * their output bit for bit as it was (CONTRACT §4).  The interposer copies no C before a DGEMM
 * on that guarantee.  The problems: a product with beta != 0, and C - A B where every other
 * column of C is RN(A B): those results cancel to about u of their terms and go to later
 * stages (and their buffers) after the first has written the other columns. */
#define _POSIX_C_SOURCE 200809L   /* setenv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tu.h"

static const ozblas_mode_t MODES[3] = TU_MODES;

/* a handle of mode whose n-th buffer growth fails (0: none); fused: DOT and GEMV on the fused
 * kernels (OZBLAS_NO_DOT2), whose second pass takes its buffer after the first wrote its rows */
static int fused;
static ozblas_handle_t faulty_handle(ozblas_mode_t mode, int n)
{
    char v[16];
    snprintf(v, sizeof v, "%d", n);
    ck_assert_int_eq(setenv("OZBLAS_FAIL_ALLOC", v, 1), 0);
    if (fused) ck_assert_int_eq(setenv("OZBLAS_NO_DOT2", "1", 1), 0);
    ozblas_handle_t h = tu_handle(mode);
    unsetenv("OZBLAS_FAIL_ALLOC");
    unsetenv("OZBLAS_NO_DOT2");
    return h;
}

typedef struct { int ok, partial, failed; } tally;

/* one outcome of a call on out[len] (in: its value before, ref: the call's result without faults) */
static void judge(ozblas_status_t st, const double *out, const double *in, const double *ref, size_t len, tally *t,
                  const char *ctx)
{
    if (st == OZBLAS_STATUS_SUCCESS) {
        tu_check_bits(out, ref, len, 1, ctx);
        t->ok++;
    } else if (st == OZBLAS_STATUS_PARTIAL) {
        /* some output written (the elements a first stage certified: with these inputs each
         * differs from its old value, far below rounding's reach of it) */
        ck_assert_msg(memcmp(out, in, len * sizeof(double)) != 0, "%s: PARTIAL with the output untouched", ctx);
        t->partial++;
    } else {
        ck_assert_msg(st == OZBLAS_STATUS_ALLOC_FAILED, "%s: status %d", ctx, (int)st);
        tu_check_bits(out, in, len, 1, ctx);   /* untouched */
        t->failed++;
    }
}

/* C := alpha A B + beta C (m x n x k) with the n-th growth failing, for n = 1..24; ws: the
 * handles' workspace limit (0: the default; a small one makes the slices' GEMM work in tiles) */
static void gemm_faults(ozblas_mode_t mode, int64_t m, int64_t n, int64_t k, const double *A, const double *B,
                        double alpha, double beta, const double *C0, size_t ws, tally *t, const char *tag)
{
    const size_t mn = (size_t)(m * n);
    double *ref = tu_alloc(mn), *C = tu_alloc(mn);
    ozblas_handle_t h = faulty_handle(mode, 0);
    ck_assert_int_eq(ozblas_set_workspace_limit(h, ws), OZBLAS_STATUS_SUCCESS);
    memcpy(ref, C0, mn * sizeof(double));
    ck_assert_int_eq(ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, m, n, k, alpha, A, m, B, k, beta, ref, m),
                     OZBLAS_STATUS_SUCCESS);
    ozblas_destroy(h);
    for (int f = 1; f <= 24; f++) {
        h = faulty_handle(mode, f);
        ck_assert_int_eq(ozblas_set_workspace_limit(h, ws), OZBLAS_STATUS_SUCCESS);
        memcpy(C, C0, mn * sizeof(double));
        const ozblas_status_t st = ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, m, n, k, alpha, A, m, B, k, beta, C, m);
        char ctx[96];
        snprintf(ctx, sizeof ctx, "%s %s fault %d", tag, tu_mode_name(mode), f);
        judge(st, C, C0, ref, mn, t, ctx);
        ozblas_destroy(h);
    }
    free(ref);
    free(C);
}

START_TEST(dgemm_faults)
{
    const ozblas_mode_t mode = MODES[_i];
    ozref_rng r;
    tu_rng(&r, "dgemm_faults");
    const int64_t m = 37, n = 29, k = 50;
    double *A = tu_alloc((size_t)(m * k)), *B = tu_alloc((size_t)(k * n)), *C = tu_alloc((size_t)(m * n));
    tu_fill_mat(&r, A, m, k, m, 1.0);
    tu_fill_mat(&r, B, k, n, k, 1.0);
    tu_fill_mat(&r, C, m, n, m, 1.0);
    tally t = { 0, 0, 0 };
    gemm_faults(mode, m, n, k, A, B, 1.0, 0.5, C, 0, &t, "product");
    gemm_faults(mode, m, n, k, A, B, 1.0, 0.5, C, (size_t)48 << 10, &t, "product in tiles");
    /* every other column of C := RN(A B) (a correctly rounded handle's product) */
    ozblas_handle_t h = tu_handle(OZBLAS_MODE_CORRECTLY_ROUNDED);
    for (int64_t j = 0; j < n; j += 2)
        ck_assert_int_eq(ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, m, 1, k, 1.0, A, m, B + j * k, k, 0.0, C + j * m, m),
                         OZBLAS_STATUS_SUCCESS);
    ozblas_destroy(h);
    gemm_faults(mode, m, n, k, A, B, -1.0, 1.0, C, 0, &t, "residual");
    /* every column cancelling: the first stage writes nothing, the rest runs on a copy of C
     * (a failure there leaves C as it was) */
    h = tu_handle(OZBLAS_MODE_CORRECTLY_ROUNDED);
    ck_assert_int_eq(ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, m, n, k, 1.0, A, m, B, k, 0.0, C, m), OZBLAS_STATUS_SUCCESS);
    ozblas_destroy(h);
    gemm_faults(mode, m, n, k, A, B, -1.0, 1.0, C, 0, &t, "whole residual");
    /* the first growth fails in every mode: the call's first buffer, before any output */
    ck_assert_int_gt(t.failed, 0);
    fprintf(stderr, "dgemm_faults %s: %d succeeded, %d PARTIAL, %d failed untouched\n", tu_mode_name(mode), t.ok,
            t.partial, t.failed);
    free(A); free(B); free(C);
}
END_TEST

START_TEST(dgemv_ddot_faults)
{
    const ozblas_mode_t mode = MODES[_i % 3];
    ozref_rng r;
    tu_rng(&r, "dgemv_ddot_faults");
    const int64_t m = 300, n = 70;
    double *A = tu_alloc((size_t)(m * n)), *x = tu_alloc((size_t)n), *y0 = tu_alloc((size_t)m);
    double *y = tu_alloc((size_t)m), *ref = tu_alloc((size_t)m);
    tu_fill_mat(&r, A, m, n, m, 2.0);
    tu_fill_vec(&r, x, n, 1, 2.0);
    tu_fill_vec(&r, y0, m, 1, 2.0);
    fused = _i >= 3;
    /* every other row of y0 := RN(A x) and y := y0 - A x: those rows cancel; every fourth from
     * row 2 on, y0 := A x summed in order in binary64 instead (within some n u of A x: the fused
     * kernels' first pass leaves those rows to their second, whose buffer then fails after the
     * first wrote the other rows: PARTIAL, the mark fused.c sets there) */
    ozblas_handle_t h = tu_handle(OZBLAS_MODE_CORRECTLY_ROUNDED);
    for (int64_t i = 0; i < m; i += 2)
        ck_assert_int_eq(ozblas_dgemv(h, OZBLAS_OP_T, n, 1, 1.0, A + i, m, x, 1, 0.0, y0 + i, 1), OZBLAS_STATUS_SUCCESS);
    ozblas_destroy(h);
    for (int64_t i = 2; i < m; i += 4) {
        double s = 0.0;
        for (int64_t l = 0; l < n; l++) s += A[i + l * m] * x[l];
        y0[i] = s;
    }
    const double alpha = -1.0;
    tally t = { 0, 0, 0 };
    h = faulty_handle(mode, 0);
    memcpy(ref, y0, (size_t)m * sizeof(double));
    ck_assert_int_eq(ozblas_dgemv(h, OZBLAS_OP_N, m, n, alpha, A, m, x, 1, 1.0, ref, 1), OZBLAS_STATUS_SUCCESS);
    double dref = 0.0, d;
    ck_assert_int_eq(ozblas_ddot(h, m, A, 1, y0, 1, &dref), OZBLAS_STATUS_SUCCESS);
    ozblas_destroy(h);
    for (int f = 1; f <= 16; f++) {
        char ctx[96];
        snprintf(ctx, sizeof ctx, "dgemv %s fault %d", tu_mode_name(mode), f);
        h = faulty_handle(mode, f);
        memcpy(y, y0, (size_t)m * sizeof(double));
        judge(ozblas_dgemv(h, OZBLAS_OP_N, m, n, alpha, A, m, x, 1, 1.0, y, 1), y, y0, ref, (size_t)m, &t, ctx);
        ozblas_destroy(h);
        snprintf(ctx, sizeof ctx, "ddot %s fault %d", tu_mode_name(mode), f);
        h = faulty_handle(mode, f);
        d = 7.0;
        const double d0 = 7.0;
        judge(ozblas_ddot(h, m, A, 1, y0, 1, &d), &d, &d0, &dref, 1, &t, ctx);
        ozblas_destroy(h);
    }
    fprintf(stderr, "dgemv_ddot_faults %s%s: %d succeeded, %d PARTIAL, %d failed untouched\n", tu_mode_name(mode),
            fused ? " (fused)" : "", t.ok, t.partial, t.failed);
    fused = 0;
    free(A); free(x); free(y0); free(y); free(ref);
}
END_TEST

/* DROT in place: pairs left to the pipeline (x = 1.5 2^e with e near 1020, whose product with
 * c = 0.6 is a tie that the pair loop's bracket straddles, and y s near 2^-1000: beyond the
 * exact short sums' span) take its workspace after the pair loop wrote the chunks before them and
 * the other pairs of their own (PARTIAL: every pair then either old or the unfaulted one);
 * where every pair needs it, nothing is written before it (ALLOC_FAILED, x and y untouched).
 * On two threads the chunks' flags are the call's first growth: without it the call runs on
 * one thread, with the same bits.  The interposer copies neither x nor y. */
static void rot_faults(ozblas_mode_t mode, int threads, int64_t n, const double *v0, tally *t)
{
    double *v = tu_alloc((size_t)(2 * n)), *ref = tu_alloc((size_t)(2 * n));
    for (int f = 0; f <= 8; f++) {
        ozblas_handle_t h = faulty_handle(mode, f);
        if (threads) {
            ck_assert_int_eq(ozblas_set_num_threads(h, 2), OZBLAS_STATUS_SUCCESS);
            ck_assert_int_eq(ozblas_set_parallel_threshold(h, 1), OZBLAS_STATUS_SUCCESS);
        }
        double *out = f ? v : ref;
        memcpy(out, v0, (size_t)(2 * n) * sizeof(double));
        const ozblas_status_t st = ozblas_drot(h, n, out, 1, out + n, 1, 0.6, -0.8);
        ozblas_destroy(h);
        if (f == 0) {
            ck_assert_int_eq(st, OZBLAS_STATUS_SUCCESS);
            continue;
        }
        char ctx[96];
        snprintf(ctx, sizeof ctx, "drot n=%lld %s%s fault %d", (long long)n, tu_mode_name(mode), threads ? " (2 threads)" : "", f);
        judge(st, v, v0, ref, (size_t)(2 * n), t, ctx);
        for (int64_t i = 0; i < n && st == OZBLAS_STATUS_PARTIAL; i++) {
            const int old = tu_bits(v[i]) == tu_bits(v0[i]) && tu_bits(v[n + i]) == tu_bits(v0[n + i]);
            const int now = tu_bits(v[i]) == tu_bits(ref[i]) && tu_bits(v[n + i]) == tu_bits(ref[n + i]);
            ck_assert_msg(old || now, "%s: pair %lld neither old nor new", ctx, (long long)i);
        }
    }
    free(v); free(ref);
}

START_TEST(drot_faults)
{
    const ozblas_mode_t mode = MODES[_i % 3];
    const int threads = _i >= 3;
    enum { N = 1300, N2 = 5 };
    ozref_rng r;
    tu_rng(&r, "drot_faults");
    double *v0 = tu_alloc(2 * N), *w0 = tu_alloc(2 * N2);
    tu_fill_vec(&r, v0, 2 * N, 1, 2.0);
    for (int64_t i = 600; i < N; i += 150) { v0[i] = 0x1.8p1020; v0[N + i] = -0x1.4p-1000; }
    for (int64_t i = 0; i < N2; i++) { w0[i] = ldexp(0x1.8p1020, -(int)i); w0[N2 + i] = -0x1.4p-1000; }
    tally t = { 0, 0, 0 }, t2 = { 0, 0, 0 };
    rot_faults(mode, threads, N, v0, &t);
    rot_faults(mode, threads, N2, w0, &t2);
    ck_assert_int_gt(t.partial, 0);
    ck_assert_int_gt(t2.failed, 0);
    ck_assert_int_eq(t2.partial, 0);
    fprintf(stderr, "drot_faults %s%s: %d succeeded, %d PARTIAL, %d failed untouched; all pairs to the pipeline: %d, %d, %d\n",
            tu_mode_name(mode), threads ? " (2 threads)" : "", t.ok, t.partial, t.failed, t2.ok, t2.partial, t2.failed);
    free(v0); free(w0);
}
END_TEST

/* DGER in place: elements left to the pipeline (a = 1.5 2^1020 updated by alpha x y near
 * 2^-1000, alpha = 0.6: beyond the certified updates' range, the scaled frame's and the exact
 * short sums' span) take its workspace after pass 1 wrote the elements it decided (PARTIAL:
 * every element then either old or the unfaulted one); where every element needs it, nothing
 * is written before it (ALLOC_FAILED, A untouched).  The interposer copies no A. */
static void ger_faults(ozblas_mode_t mode, int64_t m, int64_t n, const double *A0, const double *x, const double *y, tally *t)
{
    const size_t mn = (size_t)(m * n);
    double *A = tu_alloc(mn), *ref = tu_alloc(mn);
    for (int f = 0; f <= 8; f++) {
        ozblas_handle_t h = faulty_handle(mode, f);
        double *out = f ? A : ref;
        memcpy(out, A0, mn * sizeof(double));
        const ozblas_status_t st = ozblas_dger(h, m, n, 0.6, x, 1, y, 1, out, m);
        ozblas_destroy(h);
        if (f == 0) {
            ck_assert_int_eq(st, OZBLAS_STATUS_SUCCESS);
            continue;
        }
        char ctx[96];
        snprintf(ctx, sizeof ctx, "dger %lldx%lld %s fault %d", (long long)m, (long long)n, tu_mode_name(mode), f);
        judge(st, A, A0, ref, mn, t, ctx);
        for (size_t e = 0; e < mn && st == OZBLAS_STATUS_PARTIAL; e++)
            ck_assert_msg(tu_bits(A[e]) == tu_bits(A0[e]) || tu_bits(A[e]) == tu_bits(ref[e]), "%s: element %zu neither old nor new",
                          ctx, e);
    }
    free(A); free(ref);
}

START_TEST(dger_faults)
{
    const ozblas_mode_t mode = MODES[_i];
    enum { M = 40, N = 12 };
    ozref_rng r;
    tu_rng(&r, "dger_faults");
    double *A0 = tu_alloc(M * N), *x = tu_alloc(M), *y = tu_alloc(N);
    tu_fill_mat(&r, A0, M, N, M, 2.0);
    tu_fill_vec(&r, x, M, 1, 2.0);
    tu_fill_vec(&r, y, N, 1, 2.0);
    for (int64_t j = 5; j < N; j += 3) {
        y[j] = -0x1.4p-500;
        for (int64_t i = 7; i < M; i += 11) A0[i + j * M] = 0x1.8p1020;
    }
    for (int64_t i = 7; i < M; i += 11) x[i] = 0x1p-500;
    tally t = { 0, 0, 0 }, t2 = { 0, 0, 0 };
    ger_faults(mode, M, N, A0, x, y, &t);
    const double a1 = 0x1.8p1020, x1 = 0x1p-500, y1 = -0x1.4p-500;
    ger_faults(mode, 1, 1, &a1, &x1, &y1, &t2);
    ck_assert_int_gt(t.partial, 0);
    ck_assert_int_gt(t2.failed, 0);
    ck_assert_int_eq(t2.partial, 0);
    fprintf(stderr, "dger_faults %s: %d succeeded, %d PARTIAL, %d failed untouched; one element to the pipeline: %d, %d, %d\n",
            tu_mode_name(mode), t.ok, t.partial, t.failed, t2.ok, t2.partial, t2.failed);
    free(A0); free(x); free(y);
}
END_TEST

/* DTRSM and DTRMM cut into parts on two threads (core/parts.h), every part's workspace growths
 * counted on the handle: a fault in either part gives the call a failure status (the output
 * then partly written, as CONTRACT §6 allows) or, where a stage let the workspace go for
 * another, the unfaulted bits; never other bits with SUCCESS */
START_TEST(blas3_parts_faults)
{
    const ozblas_mode_t mode = MODES[_i];
    enum { M = 40, N = 24 };
    ozref_rng r;
    tu_rng(&r, "blas3_parts_faults");
    double *T = tu_alloc(M * M), *B0 = tu_alloc(M * N), *B = tu_alloc(M * N), *ref = tu_alloc(M * N);
    tu_fill_mat(&r, T, M, M, M, 2.0);
    for (int i = 0; i < M; i++) T[i + i * M] = 4.0 + i;
    tu_fill_mat(&r, B0, M, N, M, 2.0);
    for (int rt = 0; rt < 2; rt++) {
        int failed = 0, ok = 0;
        for (int f = 0; f <= 24; f++) {
            ozblas_handle_t h = faulty_handle(mode, f);
            ck_assert_int_eq(ozblas_set_num_threads(h, 2), OZBLAS_STATUS_SUCCESS);
            ck_assert_int_eq(ozblas_set_parallel_threshold(h, 1), OZBLAS_STATUS_SUCCESS);
            double *out = f ? B : ref;
            memcpy(out, B0, sizeof(double) * M * N);
            /* DTRSM's parts: B's columns; DTRMM's from the right: B's rows */
            const ozblas_status_t st =
                rt == 0 ? ozblas_dtrsm(h, OZBLAS_LEFT, OZBLAS_LOWER, OZBLAS_OP_N, OZBLAS_NON_UNIT, M, N, 1.0, T, M, out, M)
                        : ozblas_dtrmm(h, OZBLAS_RIGHT, OZBLAS_UPPER, OZBLAS_OP_T, OZBLAS_NON_UNIT, M, N, 0.5, T, M, out, M);
            ozblas_destroy(h);
            char ctx[96];
            snprintf(ctx, sizeof ctx, "%s %s fault %d", rt ? "dtrmm" : "dtrsm", tu_mode_name(mode), f);
            if (f == 0) ck_assert_int_eq(st, OZBLAS_STATUS_SUCCESS);
            else if (st == OZBLAS_STATUS_SUCCESS) {
                tu_check_bits(out, ref, M * N, 1, ctx);
                ok++;
            } else {
                ck_assert_msg(st == OZBLAS_STATUS_ALLOC_FAILED || st == OZBLAS_STATUS_PARTIAL, "%s: status %d", ctx, (int)st);
                failed++;
            }
        }
        ck_assert_int_gt(failed, 0);
        fprintf(stderr, "blas3_parts_faults %s %s: %d succeeded, %d failed\n", rt ? "dtrmm" : "dtrsm", tu_mode_name(mode), ok,
                failed);
    }
    free(T); free(B0); free(B); free(ref);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("alloc_faults");
    TCase *tc = tcase_create("alloc_faults");
    tcase_set_timeout(tc, tu_timeout(300));
    tcase_add_loop_test(tc, dgemm_faults, 0, 3);
    tcase_add_loop_test(tc, dgemv_ddot_faults, 0, 6);   /* 3..5: the fused kernels */
    tcase_add_loop_test(tc, drot_faults, 0, 6);         /* 3..5: on two threads */
    tcase_add_loop_test(tc, dger_faults, 0, 3);
    tcase_add_loop_test(tc, blas3_parts_faults, 0, 3);
    suite_add_tcase(s, tc);
    return s;
}

TU_MAIN("test_alloc_faults", suite)
