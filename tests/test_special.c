/* Special values (NaN, Inf, 0*Inf, signed zeros) and extreme ranges in every mode. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tu.h"

static const ozblas_mode_t MODES[3] = TU_MODES;

static double special_value(ozref_rng *r)
{
    switch ((int)(ozref_uniform(r) * 5)) {
    case 0: return NAN;
    case 1: return INFINITY;
    case 2: return -INFINITY;
    case 3: return 0.0;
    default: return -0.0;
    }
}

START_TEST(special_gemm_nan_inf)
{
    ozblas_mode_t mode = MODES[_i];
    ozblas_handle_t h = tu_handle(mode);
    ozref_rng r;
    tu_rng(&r, "special_gemm_nan_inf");
    for (int t = 0; t < 48; t++) {
        tu_gemm_params p = {0};
        p.ta = t % 2; p.tb = (t / 2) % 2;
        p.m = 9; p.n = 7; p.k = 11 + t % 5;
        p.ldc = 10;
        p.alpha = (t % 6 == 5) ? -2.0 : 1.0;
        p.beta = (t % 3 == 0) ? 0.0 : 0.5;
        int64_t lda, ldb, ldc; size_t na, nb, nc;
        tu_gemm_sizes(&p, &lda, &ldb, &ldc, &na, &nb, &nc);
        double *A = tu_alloc(na), *B = tu_alloc(nb), *C = tu_alloc(nc);
        tu_fill_mat(&r, A, p.ta ? p.k : p.m, p.ta ? p.m : p.k, lda, 1.0);
        tu_fill_mat(&r, B, p.tb ? p.n : p.k, p.tb ? p.k : p.n, ldb, 1.0);
        tu_fill_mat(&r, C, p.m, p.n, ldc, 1.0);
        /* a few special values at random positions of A, B and C (rows/columns stay mostly finite) */
        int ns = 1 + t % 4;
        for (int q = 0; q < ns; q++) {
            int64_t ra = p.ta ? p.k : p.m, ca = p.ta ? p.m : p.k;
            int64_t rb = p.tb ? p.n : p.k, cb = p.tb ? p.k : p.n;
            A[(int64_t)(ozref_uniform(&r) * ra) + (int64_t)(ozref_uniform(&r) * ca) * lda] = special_value(&r);
            B[(int64_t)(ozref_uniform(&r) * rb) + (int64_t)(ozref_uniform(&r) * cb) * ldb] = special_value(&r);
            C[(int64_t)(ozref_uniform(&r) * p.m) + (int64_t)(ozref_uniform(&r) * p.n) * ldc] = special_value(&r);
        }
        if (t % 8 == 7) {
            /* 0*Inf: an Inf in row 0 of op(A) meeting a zero in column 0 of op(B), and +Inf meeting -Inf */
            double *a0 = p.ta ? &A[0] : &A[0];
            *a0 = INFINITY;
            double *b0 = p.tb ? &B[0] : &B[0];
            *b0 = 0.0;
            double *a1 = p.ta ? &A[1] : &A[lda];          /* op(A)(0,1) */
            *a1 = -INFINITY;
            double *b1 = p.tb ? &B[1 + ldb] : &B[1 + ldb]; /* op(B)(1,1) */
            *b1 = 2.0;
        }
        char ctx[64];
        snprintf(ctx, sizeof ctx, "nan/inf t=%d", t);
        tu_gemm_run(h, mode, &p, A, B, C, ctx);
        free(A); free(B); free(C);
    }
    ozblas_destroy(h);
}
END_TEST

/* Operands with zero regions (triangular and banded, as DTRMM and LAPACK pass them), an Inf
 * or NaN of the other operand inside them: the error-free strips leave out the steps where
 * every product is an exact zero, and must not leave out a 0 * Inf (NaN).  Both ways round,
 * over several blocks of k and the four-, six- and two-column loops.  Planting "every column
 * finite" or "every strip finite" into the strips' spans (eft_gemm.c strip_span) fails this
 * test and no other. */
START_TEST(special_gemm_zero_regions)
{
    ozblas_mode_t mode = MODES[_i];
    ozblas_handle_t h = tu_handle(mode);
    ozref_rng r;
    tu_rng(&r, "special_gemm_zero_regions");
    const int ks[4] = {24, 40, 150, 300}, ns[4] = {1, 4, 6, 9};
    for (int t = 0; t < 16; t++) {
        tu_gemm_params p = {0};
        p.m = 16 + 8 * (t % 2); p.k = ks[t % 4]; p.n = ns[(t / 4) % 4];
        p.ldc = p.m;
        p.alpha = 1.0;
        p.beta = (t % 3 == 0) ? 0.0 : 1.0;
        int64_t lda, ldb, ldc; size_t na, nb, nc;
        tu_gemm_sizes(&p, &lda, &ldb, &ldc, &na, &nb, &nc);
        double *A = tu_alloc(na), *B = tu_alloc(nb), *C = tu_alloc(nc);
        tu_fill_mat(&r, A, p.m, p.k, lda, 1.0);
        tu_fill_mat(&r, B, p.k, p.n, ldb, 1.0);
        tu_fill_mat(&r, C, p.m, p.n, ldc, 1.0);
        const int a_zero = t % 2 == 0;   /* zeros in A, specials in B; else the converse */
        /* A lower trapezoidal (row i nonzero in columns < i + 1 + 8 t % 3) or B's columns zero
         * above a step that grows with j */
        for (int64_t i = 0; i < p.m; i++)
            for (int64_t l = 0; l < p.k; l++)
                if (a_zero && l >= i + 1 + 8 * (t % 3)) A[i + l * lda] = 0.0;
        for (int64_t l = 0; l < p.k; l++)
            for (int64_t j = 0; j < p.n; j++)
                if (!a_zero && l < p.k / 2 + j) B[l + j * ldb] = 0.0;
        /* a special value where the other operand is zero: past the first strip's span (A) or
         * in the zero rows of column 0 (B) */
        const double sv = (t / 2) % 2 ? NAN : ((t / 4) % 2 ? -INFINITY : INFINITY);
        if (a_zero) B[(p.k - 1 - (int64_t)(ozref_uniform(&r) * 4)) + (int64_t)(ozref_uniform(&r) * p.n) * ldb] = sv;
        else A[(int64_t)(ozref_uniform(&r) * p.m) + (int64_t)(ozref_uniform(&r) * (p.k / 2)) * lda] = sv;
        char ctx[64];
        snprintf(ctx, sizeof ctx, "zero regions t=%d", t);
        tu_gemm_run(h, mode, &p, A, B, C, ctx);
        free(A); free(B); free(C);
    }
    ozblas_destroy(h);
}
END_TEST

START_TEST(special_alpha_beta_nonfinite)
{
    ozblas_mode_t mode = MODES[_i];
    ozblas_handle_t h = tu_handle(mode);
    ozref_rng r;
    tu_rng(&r, "special_alpha_beta_nonfinite");
    const double vals[] = {NAN, INFINITY, -INFINITY, 0.0, 1.0, -2.5};
    for (int a = 0; a < 6; a++)
        for (int b = 0; b < 6; b++) {
            tu_gemm_params p = {0};
            p.ta = a % 2; p.tb = b % 2;
            p.m = 5; p.n = 4; p.k = 3;
            p.alpha = vals[a];
            p.beta = vals[b];
            int64_t lda, ldb, ldc; size_t na, nb, nc;
            tu_gemm_sizes(&p, &lda, &ldb, &ldc, &na, &nb, &nc);
            double *A = tu_alloc(na), *B = tu_alloc(nb), *C = tu_alloc(nc);
            tu_fill_mat(&r, A, p.ta ? p.k : p.m, p.ta ? p.m : p.k, lda, 1.0);
            tu_fill_mat(&r, B, p.tb ? p.n : p.k, p.tb ? p.k : p.n, ldb, 1.0);
            tu_fill_mat(&r, C, p.m, p.n, ldc, 1.0);
            /* an exactly zero row of op(A) (alpha=Inf -> NaN there), a zero and an Inf in C */
            for (int64_t l = 0; l < p.k; l++) *(p.ta ? &A[l + 2 * lda] : &A[2 + l * lda]) = 0.0;
            C[1] = 0.0;
            C[3 + ldc] = INFINITY;
            C[4 + 2 * ldc] = -0.0;
            char ctx[64];
            snprintf(ctx, sizeof ctx, "alpha=%g beta=%g", p.alpha, p.beta);
            tu_gemm_run(h, mode, &p, A, B, C, ctx);
            /* same for gemv and, for alpha = 1, dot */
            double *x = tu_alloc(5), *y = tu_alloc(5);
            ozref_fill_phi(&r, x, 5, 1.0);
            ozref_fill_phi(&r, y, 5, 1.0);
            y[2] = INFINITY;
            tu_gemv_params q = {a % 2, 5, 3, 0, 1, 1, vals[a], vals[b]};
            int64_t ldq; size_t nqa, nqx, nqy;
            tu_gemv_sizes(&q, &ldq, &nqa, &nqx, &nqy);
            tu_gemv_run(h, mode, &q, A, x, y, ctx);
            free(x); free(y);
            free(A); free(B); free(C);
        }
    ozblas_destroy(h);
}
END_TEST

START_TEST(special_dot_gemv_nan_inf)
{
    ozblas_mode_t mode = MODES[_i];
    ozblas_handle_t h = tu_handle(mode);
    ozref_rng r;
    tu_rng(&r, "special_dot_gemv_nan_inf");
    for (int t = 0; t < 60; t++) {
        int64_t n = 1 + (int64_t)(ozref_uniform(&r) * 40);
        double *x = tu_alloc(n), *y = tu_alloc(n);
        ozref_fill_phi(&r, x, n, 2.0);
        ozref_fill_phi(&r, y, n, 2.0);
        int ns = 1 + t % 3;
        for (int q = 0; q < ns; q++) {
            if (ozref_uniform(&r) < 0.5) x[(int64_t)(ozref_uniform(&r) * n)] = special_value(&r);
            else y[(int64_t)(ozref_uniform(&r) * n)] = special_value(&r);
        }
        char ctx[64];
        snprintf(ctx, sizeof ctx, "dot nan/inf t=%d", t);
        tu_dot_run(h, mode, n, x, 1, y, 1, ctx);
        tu_dot_run(h, mode, n, x, -1, y, 1, ctx);
        free(x); free(y);
    }
    /* explicit classes */
    double one[2] = {1, 1};
    double pp[2] = {INFINITY, INFINITY}, pm[2] = {INFINITY, -INFINITY}, zi[2] = {0, 5};
    double iz[2] = {INFINITY, 5}, big[2] = {INFINITY, DBL_MAX};
    ck_assert(tu_bits(tu_dot_run(h, mode, 2, pp, 1, one, 1, "inf+inf")) == tu_bits(INFINITY));
    ck_assert(isnan(tu_dot_run(h, mode, 2, pm, 1, one, 1, "inf-inf")));
    ck_assert(isnan(tu_dot_run(h, mode, 2, zi, 1, iz, 1, "0*inf")));
    ck_assert(tu_bits(tu_dot_run(h, mode, 2, big, 1, one, 1, "inf+max")) == tu_bits(INFINITY));
    /* gemv with specials in A, x and y */
    for (int t = 0; t < 24; t++) {
        tu_gemv_params p = {t % 2, 8, 6, 9, (t % 3) ? 1 : -1, (t % 4) ? 1 : 2, 1.0, (t % 2) ? 1.0 : 0.0};
        int64_t lda; size_t na, nx, ny;
        tu_gemv_sizes(&p, &lda, &na, &nx, &ny);
        double *A = tu_alloc(na), *x = tu_alloc(nx), *y = tu_alloc(ny);
        int64_t lenx = p.trans ? p.m : p.n, leny = p.trans ? p.n : p.m;
        tu_fill_mat(&r, A, p.m, p.n, lda, 1.0);
        tu_fill_vec(&r, x, lenx, p.incx, 1.0);
        tu_fill_vec(&r, y, leny, p.incy, 1.0);
        A[(int64_t)(ozref_uniform(&r) * p.m) + (int64_t)(ozref_uniform(&r) * p.n) * lda] = special_value(&r);
        *tu_vec_elem(x, lenx, p.incx, (int64_t)(ozref_uniform(&r) * lenx)) = special_value(&r);
        *tu_vec_elem(y, leny, p.incy, (int64_t)(ozref_uniform(&r) * leny)) = special_value(&r);
        char ctx[64];
        snprintf(ctx, sizeof ctx, "gemv nan/inf t=%d", t);
        tu_gemv_run(h, mode, &p, A, x, y, ctx);
        free(A); free(x); free(y);
    }
    ozblas_destroy(h);
}
END_TEST

START_TEST(special_gemm_ranges)
{
    /* GEMM with results in the subnormal range, near overflow, and heavy cancellation */
    ozblas_mode_t mode = MODES[_i];
    ozblas_handle_t h = tu_handle(mode);
    ozref_rng r;
    tu_rng(&r, "special_gemm_ranges");
    for (int t = 0; t < 24; t++) {
        tu_gemm_params p = {0};
        p.ta = t % 2; p.tb = (t / 2) % 2;
        p.m = 6; p.n = 5; p.k = 10;
        p.ldc = 7;
        p.alpha = 1.0;
        p.beta = (t % 5 == 0) ? 1.0 : 0.0;
        int64_t lda, ldb, ldc; size_t na, nb, nc;
        tu_gemm_sizes(&p, &lda, &ldb, &ldc, &na, &nb, &nc);
        double *A = tu_alloc(na), *B = tu_alloc(nb), *C = tu_alloc(nc);
        int64_t ra = p.ta ? p.k : p.m, ca = p.ta ? p.m : p.k;
        int64_t rb = p.tb ? p.n : p.k, cb = p.tb ? p.k : p.n;
        tu_fill_mat(&r, A, ra, ca, lda, 1.0);
        tu_fill_mat(&r, B, rb, cb, ldb, 1.0);
        tu_fill_mat(&r, C, p.m, p.n, ldc, 1.0);
        int kind = t % 3;
        for (int64_t j = 0; j < ca; j++)
            for (int64_t i = 0; i < ra; i++) {
                double *a = &A[i + j * lda];
                if (kind == 0) *a = ldexp(*a, 1000);        /* near overflow */
                else if (kind == 1) *a = ldexp(*a, -540);   /* subnormal results */
            }
        for (int64_t j = 0; j < cb; j++)
            for (int64_t i = 0; i < rb; i++) {
                double *b = &B[i + j * ldb];
                if (kind == 0) *b = ldexp(*b, 20 + t % 4);
                else if (kind == 1) *b = ldexp(*b, -525);
            }
        if (kind == 2) {
            /* op(A)(i, 2l+1) = -op(A)(i, 2l) * 2^0 with huge magnitude, op(B) rows equal: exact cancellation
             * of huge terms; the last inner index carries a tiny term */
            for (int64_t i = 0; i < p.m; i++)
                for (int64_t l = 0; l + 1 < p.k - 1; l += 2) {
                    double *a0 = p.ta ? &A[l + i * lda] : &A[i + l * lda];
                    double *a1 = p.ta ? &A[l + 1 + i * lda] : &A[i + (l + 1) * lda];
                    *a0 = ldexp(*a0, 1000);
                    *a1 = -*a0;
                }
            for (int64_t j = 0; j < p.n; j++)
                for (int64_t l = 0; l + 1 < p.k - 1; l += 2) {
                    double *b0 = p.tb ? &B[j + l * ldb] : &B[l + j * ldb];
                    double *b1 = p.tb ? &B[j + (l + 1) * ldb] : &B[l + 1 + j * ldb];
                    *b0 = ldexp(*b0, 20);
                    *b1 = *b0;
                }
            for (int64_t i = 0; i < p.m; i++) {
                double *a = p.ta ? &A[p.k - 1 + i * lda] : &A[i + (p.k - 1) * lda];
                *a = ldexp(*a, -300 - 60 * t);
            }
        }
        if (kind == 0 && p.beta != 0) for (int64_t j = 0; j < p.n; j++) for (int64_t i = 0; i < p.m; i++) C[i + j * ldc] = ldexp(C[i + j * ldc], 1022);
        char ctx[64];
        snprintf(ctx, sizeof ctx, "ranges t=%d kind=%d", t, kind);
        tu_gemm_run(h, mode, &p, A, B, C, ctx);
        free(A); free(B); free(C);
    }
    /* the contract's example in a 1x1x3 GEMM, alpha = 1 and alpha = 2^-1000 (subnormal result) */
    double a[3] = {1.5 * 0x1p1023, 3, -1.5 * 0x1p1023}, b[3] = {8, 1e-300, 8}, c[1] = {0};
    tu_gemm_params p = {0, 0, 1, 1, 3, 1, 3, 1, 1.0, 0.0, 0};
    tu_gemm_run(h, mode, &p, a, b, c, "contract example");
    if (mode == OZBLAS_MODE_CORRECTLY_ROUNDED) ck_assert(tu_bits(c[0]) == tu_bits(3e-300));
    p.alpha = 0x1p-50;
    tu_gemm_run(h, mode, &p, a, b, c, "contract example, alpha 2^-50");
    p.ta = 1; p.lda = 3;
    p.alpha = 0x1p+1000;  /* result 3e-300 * 2^1000 ~ 3e1 */
    tu_gemm_run(h, mode, &p, a, b, c, "contract example, A^T, alpha 2^1000");
    ozblas_destroy(h);
}
END_TEST

/* Rank-1 updates C = alpha a b^T + beta C (k = 1, alpha = +-1, beta = 0 or +-1: one FMA an
 * element) whose results are zeros: exact zeros from every kind of term (a or b zero, -0, c
 * zero or -0, a b cancelling c exactly), +0 as the exact sums write them, and sums of tiny
 * products below 2^-1075 (a b = -2^-1100 and c = 0: -0, its sign kept), contiguous and
 * strided op(A) (the gathered column), sixteen rows (the vector groups) and eleven (the
 * scalar rest).  Planting the FMA's -0 unchanged, or taking a zero whatever the product's
 * size, fails this test. */
START_TEST(special_rank1_zero_signs)
{
    ozblas_mode_t mode = MODES[_i];
    ozblas_handle_t h = tu_handle(mode);
    static const double av[] = { 0.0, -0.0, 0x1p-600, -0x1p-600, 0.75, -1.5, 3.0, 0.0 };
    static const double bv[] = { 0.0, -0.0, 0x1p-500, -0x1p-500, 2.0, -0.5 };
    for (int t = 0; t < 24; t++) {
        tu_gemm_params p = {0};
        p.ta = t % 2; p.tb = (t / 2) % 2;
        p.m = t % 3 == 2 ? 11 : 16; p.n = 6; p.k = 1;
        p.alpha = (t / 4) % 2 ? -1.0 : 1.0;
        p.beta = (t / 8) == 0 ? 0.0 : (t / 8) == 1 ? 1.0 : -1.0;
        int64_t lda, ldb, ldc; size_t na, nb, nc;
        tu_gemm_sizes(&p, &lda, &ldb, &ldc, &na, &nb, &nc);
        double *A = tu_alloc(na), *B = tu_alloc(nb), *C = tu_alloc(nc);
        for (int64_t i = 0; i < p.m; i++) A[p.ta ? i * lda : i] = av[(i + t) % 8];
        for (int64_t j = 0; j < p.n; j++) B[p.tb ? j : j * ldb] = bv[j];
        for (int64_t j = 0; j < p.n; j++)
            for (int64_t i = 0; i < p.m; i++) {
                const double a = av[(i + t) % 8], prod = p.alpha * a * bv[j];
                /* c cancelling alpha a b exactly (beta = +-1), else a zero of either sign or 0.25 */
                const int w = (int)((i + 3 * j) % 4);
                C[i + j * ldc] = w == 0 && p.beta != 0.0 ? -prod / p.beta : w == 1 ? -0.0 : w == 2 ? 0.0 : 0.25;
            }
        char ctx[64];
        snprintf(ctx, sizeof ctx, "rank-1 zeros t=%d", t);
        tu_gemm_run(h, mode, &p, A, B, C, ctx);
        free(A); free(B); free(C);
    }
    ozblas_destroy(h);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("special");
    TCase *tc = tcase_create("special");
    tcase_set_timeout(tc, tu_timeout(120));
    tcase_add_loop_test(tc, special_gemm_nan_inf, 0, 3);
    tcase_add_loop_test(tc, special_gemm_zero_regions, 0, 3);
    tcase_add_loop_test(tc, special_alpha_beta_nonfinite, 0, 3);
    tcase_add_loop_test(tc, special_dot_gemv_nan_inf, 0, 3);
    tcase_add_loop_test(tc, special_gemm_ranges, 0, 3);
    tcase_add_loop_test(tc, special_rank1_zero_signs, 0, 3);
    suite_add_tcase(s, tc);
    return s;
}

TU_MAIN("test_special", suite)
