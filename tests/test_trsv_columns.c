/* DTRSV and DTPSV by columns (shapes/trsolve_cols.c, eft/eft_trcols.h): one right-hand side
 * whose op(T) has contiguous columns (lower or upper, no transpose; full or packed storage)
 * takes the solve rule's block sums column block by column block.  Each case against DTRSM on eight copies of the right-hand side
 * (its GEMM updates and in-block lanes: MPFR-checked in test_blas_rest), on 1 and 2 threads,
 * with sizes whose last strip is partial, strips that leave the kernel's range (an Inf in T,
 * a NaN in b, a row near overflow, a row of tiny products), rows that cancel exactly (integer
 * systems, whose solution must come back exact in the exact modes), and increments 1 and -2;
 * the transposed cases (the rule's GEMV rows) as a control. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tu.h"

static const ozblas_mode_t MODES[3] = TU_MODES;

/* the index in A of op(T)(r, c) */
static int64_t op_at(int tr, int64_t lda, int64_t r, int64_t c) { return tr ? c + r * lda : r + c * lda; }

START_TEST(trsv_columns)
{
    const ozblas_mode_t mode = MODES[_i];
    ozref_rng r;
    tu_rng(&r, "trsv_columns");
    const int64_t ns[] = { 61, 300, 1100 };
    char ctx[200];
    for (size_t q = 0; q < 3; q++)
        for (int v = 0; v < 4; v++)
            for (int lower = 0; lower < 2; lower++)
                for (int tr = 0; tr < 2; tr++)
                    for (int unit = 0; unit < 2; unit++) {
                        const int64_t n = ns[q], lda = n + 3, inc = (v + unit) % 2 ? -2 : 1, len = 2 * n;
                        double *A = tu_alloc((size_t)(lda * n)), *b = tu_alloc((size_t)len), *X = NULL;
                        tu_fill_mat(&r, A, n, n, lda, 2.0);
                        tu_fill_vec(&r, b, n, 1, 2.0);
                        for (int64_t i = 0; i < n; i++) A[i + i * lda] = (A[i + i * lda] < 0 ? -4.0 : 4.0) + A[i + i * lda];
                        /* the stored triangle's other half is never read: NaN there */
                        for (int64_t j = 0; j < n; j++)
                            for (int64_t i = 0; i < n; i++)
                                if (lower ? i < j : i > j) A[i + j * lda] = NAN;
                        /* the view's strict lower part: (i, j) of op(T) with i > j, as op(T) is
                         * lower where lower == !tr (else the view runs from the last row) */
                        const int vlow = lower != tr;
                        const int64_t i0 = n / 2 + 3, j0 = 5;     /* a row of the view below row j0 */
                        const int64_t ri = vlow ? i0 : n - 1 - i0, rj = vlow ? j0 : n - 1 - j0;   /* the row, column */
                        if (v == 1) {
                            A[op_at(tr, lda, ri, rj)] = INFINITY;
                            b[n / 3] = NAN;
                        }
                        if (v == 2) {
                            for (int64_t j = 0; j < n; j++) {
                                const int64_t c = vlow ? j : n - 1 - j;
                                if (j >= i0) break;
                                A[op_at(tr, lda, ri, c)] *= 0x1p1000;
                                const int64_t r2 = vlow ? i0 + 9 : n - 10 - i0;
                                if (i0 + 9 < n) A[op_at(tr, lda, r2, c)] *= 0x1p-1050;
                            }
                        }
                        if (v == 3) {   /* integers: T with a diagonal of +-1, X, and b = T X exact */
                            X = tu_alloc((size_t)n);
                            for (int64_t i = 0; i < n; i++) X[i] = (double)((i * 5) % 7 - 3);
                            for (int64_t i = 0; i < n; i++) {
                                const int64_t ii = vlow ? i : n - 1 - i;
                                double s = 0.0;
                                for (int64_t j = 0; j <= i; j++) {
                                    const int64_t jj = vlow ? j : n - 1 - j;
                                    double *t = &A[op_at(tr, lda, ii, jj)];
                                    *t = i == j ? ((i % 3) ? 1.0 : -1.0) : (double)((i * 3 + j * 7) % 5 - 2);
                                    s += (i == j && unit ? 1.0 : *t) * X[jj];
                                }
                                b[ii] = s;
                            }
                        }
                        const ozblas_uplo_t ul = lower ? OZBLAS_LOWER : OZBLAS_UPPER;
                        const ozblas_operation_t op = tr ? OZBLAS_OP_T : OZBLAS_OP_N;
                        const ozblas_diag_t dg = unit ? OZBLAS_UNIT : OZBLAS_NON_UNIT;
                        double *AP = tu_alloc((size_t)(n * (n + 1) / 2));
                        for (int64_t j = 0, q2 = 0; j < n; j++)
                            for (int64_t i = lower ? j : 0; i < (lower ? n : j + 1); i++) AP[q2++] = A[i + j * lda];
                        /* DTRSM on eight copies: its block GEMVs and lanes */
                        double *B8 = tu_alloc((size_t)(n * 8));
                        for (int c = 0; c < 8; c++) memcpy(B8 + c * n, b, sizeof(double) * (size_t)n);
                        ozblas_handle_t h0 = tu_handle(mode);
                        ck_assert_int_eq(ozblas_dtrsm(h0, OZBLAS_LEFT, ul, op, dg, n, 8, 1.0, A, lda, B8, n), 0);
                        ozblas_destroy(h0);
                        for (int t = 1; t <= 2; t++) {
                            ozblas_handle_t h = tu_handle(mode);
                            ozblas_set_num_threads(h, t);
                            ozblas_set_parallel_threshold(h, 1);
                            double *x = tu_alloc((size_t)len), got[1100];
                            for (int64_t i = 0; i < n; i++) *tu_vec_elem(x, n, inc, i) = b[i];
                            ck_assert_int_eq(ozblas_dtrsv(h, ul, op, dg, n, A, lda, x, inc), 0);
                            for (int64_t i = 0; i < n; i++) got[i] = *tu_vec_elem(x, n, inc, i);
                            snprintf(ctx, sizeof ctx, "%s n=%d case=%d lower=%d trans=%d unit=%d inc=%d threads=%d",
                                     tu_mode_name(mode), (int)n, v, lower, tr, unit, (int)inc, t);
                            tu_check_bits(got, B8, (size_t)n, 1, ctx);
                            /* DTPSV on the packed triangle: DTRSV's bits (without transpose
                             * solved where the packed columns lie) */
                            for (int64_t i = 0; i < n; i++) *tu_vec_elem(x, n, inc, i) = b[i];
                            ck_assert_int_eq(ozblas_dtpsv(h, ul, op, dg, n, AP, x, inc), 0);
                            for (int64_t i = 0; i < n; i++) got[i] = *tu_vec_elem(x, n, inc, i);
                            tu_check_bits(got, B8, (size_t)n, 1, ctx);
                            if (X && mode != OZBLAS_MODE_FIXED)
                                for (int64_t i = 0; i < n; i++) ck_assert_msg(got[i] == X[i], "%s: x[%d] not exact", ctx, (int)i);
                            free(x);
                            ozblas_destroy(h);
                        }
                        free(A); free(AP); free(b); free(B8); free(X);
                    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("trsv_columns");
    TCase *t = tcase_create("routines");
    tcase_set_timeout(t, tu_timeout(600));
    tcase_add_loop_test(t, trsv_columns, 0, 3);
    suite_add_tcase(s, t);
    return s;
}

TU_MAIN("test_trsv_columns", suite)
