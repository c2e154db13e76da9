/* FIXED mode: the error shrinks as the split count grows, NearSum with enough slices is correctly
 * rounded, the split count is honoured, fast mode and summation variants. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tu.h"

enum { DMAX = 48 };

typedef enum { R_DOT, R_GEMV, R_GEMM } routine_t;

typedef struct {
    routine_t rt;
    int64_t m, n, k;       /* GEMM: m x n output, inner k; GEMV (T): k x n matrix, DOT: k */
    double *A, *B, *ref;   /* ref: exact results, rows of C / y / dot */
    long double *absb;
    int64_t nout;
} fprob;

static void fprob_init(fprob *f, routine_t rt, ozref_rng *r, double phi)
{
    f->rt = rt;
    f->m = rt == R_GEMM ? 23 : 1;
    f->n = rt == R_DOT ? 1 : 19;
    f->k = rt == R_DOT ? 3001 : rt == R_GEMV ? 301 : 57;
    f->A = tu_alloc((size_t)(f->m * f->k));
    f->B = tu_alloc((size_t)(f->k * f->n));
    ozref_fill_phi(r, f->A, f->m * f->k, phi);
    ozref_fill_phi(r, f->B, f->k * f->n, phi);
    f->nout = f->m * f->n;
    f->ref = tu_alloc((size_t)f->nout);
    f->absb = malloc((size_t)f->nout * sizeof(long double));
    for (int64_t j = 0; j < f->n; j++)
        for (int64_t i = 0; i < f->m; i++) {
            /* C = A (m x k, ld m) * B (k x n, ld k) */
            f->ref[i + j * f->m] = ozref_dgemm_elem(0, 0, i, j, f->k, 1.0, f->A, f->m, f->B, f->k, 0.0, 0.0);
            long double b = 0;
            for (int64_t l = 0; l < f->k; l++) b += fabsl((long double)f->A[i + l * f->m] * f->B[l + j * f->k]);
            f->absb[i + j * f->m] = b;
        }
}

static void fprob_free(fprob *f) { free(f->A); free(f->B); free(f->ref); free(f->absb); }

/* computes into out (nout values) */
static void fprob_run(const fprob *f, ozblas_handle_t h, double *out)
{
    ozblas_status_t st;
    if (f->rt == R_DOT) st = ozblas_ddot(h, f->k, f->A, 1, f->B, 1, out);
    else if (f->rt == R_GEMV) /* y = B^T a: B is k x n with ld k, x = A (length k) */
        st = ozblas_dgemv(h, OZBLAS_OP_T, f->k, f->n, 1.0, f->B, f->k, f->A, 1, 0.0, out, 1);
    else st = ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, f->m, f->n, f->k, 1.0, f->A, f->m, f->B, f->k, 0.0, out, f->m);
    ck_assert_msg(st == OZBLAS_STATUS_SUCCESS, "status %d", (int)st);
}

/* normwise error: max_i |out_i - ref_i| / absb_i */
static double fprob_err(const fprob *f, const double *out)
{
    double e = 0;
    for (int64_t i = 0; i < f->nout; i++) {
        ck_assert_msg(isfinite(out[i]), "non-finite output %a (exact %a) [seed %llu]", out[i], f->ref[i],
                      (unsigned long long)tu_seed);
        double q = (double)(fabsl((long double)out[i] - f->ref[i]) / f->absb[i]);
        if (q > e) e = q;
    }
    return e;
}

static int fprob_exact(const fprob *f, const double *out)
{
    for (int64_t i = 0; i < f->nout; i++)
        if (tu_bits(out[i]) != tu_bits(f->ref[i])) return 0;
    return 1;
}

static const char *rt_name(routine_t rt) { return rt == R_DOT ? "ddot" : rt == R_GEMV ? "dgemv" : "dgemm"; }

START_TEST(fixed_split_sweep)
{
    /* loop index: routine x phi x summation */
    routine_t rt = (routine_t)(_i % 3);
    double phi = ((_i / 3) % 2) ? 4.0 : 0.5;
    ozblas_summation_t sum = (_i / 6) ? OZBLAS_SUM_DOUBLE : OZBLAS_SUM_NEARSUM;
    ozref_rng r;
    tu_rng(&r, "fixed_split_sweep");
    fprob f;
    fprob_init(&f, rt, &r, phi);
    ozblas_handle_t h = tu_handle(OZBLAS_MODE_FIXED);
    ck_assert_int_eq(ozblas_set_summation(h, sum), OZBLAS_STATUS_SUCCESS);
    double *out = tu_alloc((size_t)f.nout);
    double errs[DMAX + 1];
    int dlast = 0, exact_at = 0;
    for (int d = 1; d <= DMAX; d++) {
        ck_assert_int_eq(ozblas_set_split_count(h, d), OZBLAS_STATUS_SUCCESS);
        fprob_run(&f, h, out);
        ozblas_info_t info;
        ck_assert_int_eq(ozblas_get_info(h, &info), OZBLAS_STATUS_SUCCESS);
        ck_assert_msg(info.slices_a <= d && info.slices_b <= d, "%s d=%d: slices %d/%d exceed the split count",
                      rt_name(rt), d, info.slices_a, info.slices_b);
        if (d <= 2)  /* random data: the remainder is not zero after 1 or 2 slices */
            ck_assert_msg(info.slices_a == d && info.slices_b == d, "%s d=%d: FIXED must use exactly d slices, got %d/%d",
                          rt_name(rt), d, info.slices_a, info.slices_b);
        ck_assert_int_eq(info.mode, OZBLAS_MODE_FIXED);
        ck_assert_int_eq(info.summation, sum);
        ck_assert_int_eq(info.fast_mode, 0);
        errs[d] = fprob_err(&f, out);
        dlast = d;
        if (d > 1) {
            /* non-increasing, up to the final rounding of the result (u relative to |A||B|) */
            ck_assert_msg(errs[d] <= errs[d - 1] + 0x1p-52,
                          "%s phi=%g sum=%d: error grew from %.3g (d=%d) to %.3g (d=%d) [seed %llu]",
                          rt_name(rt), phi, (int)sum, errs[d - 1], d - 1, errs[d], d, (unsigned long long)tu_seed);
        }
        if (sum == OZBLAS_SUM_NEARSUM && fprob_exact(&f, out)) { exact_at = d; break; }
        if (sum == OZBLAS_SUM_DOUBLE && d >= 2 && info.slices_a < d && info.slices_b < d) break; /* exhausted */
    }
    printf("%s phi=%g sum=%s: errors", rt_name(rt), phi, sum == OZBLAS_SUM_DOUBLE ? "DOUBLE" : "NEARSUM");
    for (int d = 1; d <= dlast; d++) printf(" %.2g", errs[d]);
    printf("\n");
    ck_assert_msg(errs[1] > errs[dlast], "%s: error did not decrease overall (%.3g -> %.3g)", rt_name(rt), errs[1], errs[dlast]);
    if (sum == OZBLAS_SUM_NEARSUM) {
        ck_assert_msg(exact_at > 0, "%s phi=%g: NearSum never reached the correctly rounded result up to split %d [seed %llu]",
                      rt_name(rt), phi, DMAX, (unsigned long long)tu_seed);
        /* larger split counts stay exact; the same bits as CORRECTLY_ROUNDED mode */
        ck_assert_int_eq(ozblas_set_split_count(h, exact_at + 7), OZBLAS_STATUS_SUCCESS);
        fprob_run(&f, h, out);
        ck_assert_msg(fprob_exact(&f, out), "%s: split %d not exact although %d was", rt_name(rt), exact_at + 7, exact_at);
        ozblas_handle_t hc = tu_handle(OZBLAS_MODE_CORRECTLY_ROUNDED);
        double *outc = tu_alloc((size_t)f.nout);
        fprob_run(&f, hc, outc);
        tu_check_bits(outc, out, (size_t)f.nout, 0, "CR mode vs FIXED NearSum with an exhausting split count");
        free(outc);
        ozblas_destroy(hc);
    } else {
        ck_assert_msg(errs[dlast] <= 4 * f.k * 0x1p-53, "%s: SUM_DOUBLE with all slices: error %.3g", rt_name(rt), errs[dlast]);
    }
    free(out);
    fprob_free(&f);
    ozblas_destroy(h);
}
END_TEST

START_TEST(fixed_fast_mode)
{
    /* fast mode: reproducible, error still shrinks with d, reported in info; never better-than-exact nonsense */
    routine_t rt = (routine_t)(_i % 3);
    ozref_rng r;
    tu_rng(&r, "fixed_fast_mode");
    fprob f;
    fprob_init(&f, rt, &r, 2.0);
    double *o1 = tu_alloc((size_t)f.nout), *o2 = tu_alloc((size_t)f.nout), *o3 = tu_alloc((size_t)f.nout);
    double prev = INFINITY;
    for (int d = 1; d <= 8; d++) {
        for (int fast = 0; fast <= 1; fast++) {
            ozblas_handle_t h = tu_handle(OZBLAS_MODE_FIXED);
            ck_assert_int_eq(ozblas_set_split_count(h, d), OZBLAS_STATUS_SUCCESS);
            ck_assert_int_eq(ozblas_set_fast_mode(h, fast), OZBLAS_STATUS_SUCCESS);
            ck_assert_int_eq(ozblas_set_num_threads(h, 1), OZBLAS_STATUS_SUCCESS);
            fprob_run(&f, h, o1);
            ozblas_info_t info;
            ck_assert_int_eq(ozblas_get_info(h, &info), OZBLAS_STATUS_SUCCESS);
            ck_assert_int_eq(info.fast_mode, fast);
            if (fast) {
                /* (slice_products may count pairs that were multiplied in one GEMM and skipped in the sum) */
                ck_assert_int_eq(info.split_count, d);
            } else {
                ck_assert_int_eq(info.split_count, 0);
            }
            ck_assert_int_eq(ozblas_set_num_threads(h, 2), OZBLAS_STATUS_SUCCESS);
            ck_assert_int_eq(ozblas_set_workspace_limit(h, 64 * 1024), OZBLAS_STATUS_SUCCESS);
            fprob_run(&f, h, o2);
            tu_check_bits(o2, o1, (size_t)f.nout, 0, fast ? "fast mode, threads/workspace" : "no fast mode, threads/workspace");
            ozblas_destroy(h);
            if (fast) {
                double e = fprob_err(&f, o1);
                ck_assert_msg(e <= prev + 0x1p-52, "%s fast mode: error grew to %.3g at d=%d (was %.3g)", rt_name(rt), e, d, prev);
                prev = e;
            } else {
                memcpy(o3, o1, (size_t)f.nout * 8);
            }
        }
    }
    free(o1); free(o2); free(o3);
    fprob_free(&f);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("fixed");
    TCase *tc = tcase_create("fixed");
    tcase_set_timeout(tc, tu_timeout(150));
    tcase_add_loop_test(tc, fixed_split_sweep, 0, 12);
    tcase_add_loop_test(tc, fixed_fast_mode, 0, 3);
    suite_add_tcase(s, tc);
    return s;
}

TU_MAIN("test_fixed", suite)
