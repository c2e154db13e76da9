/* Argument validation, status strings, configuration, quick returns, info. */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include "tu.h"

#define INV OZBLAS_STATUS_INVALID_VALUE
#define OK  OZBLAS_STATUS_SUCCESS
#define EXPECT_ST(call, exp) do { ozblas_status_t st_ = (call); \
    ck_assert_msg(st_ == (exp), "%s returned %d (%s), expected %d", #call, (int)st_, ozblas_status_string(st_), (int)(exp)); } while (0)

START_TEST(args_handle_and_config)
{
    EXPECT_ST(ozblas_create(NULL), INV);
    for (int s = 0; s <= 4; s++) {
        const char *str = ozblas_status_string((ozblas_status_t)s);
        ck_assert_msg(str != NULL && str[0] != '\0', "status %d has no string", s);
    }
    ck_assert(ozblas_status_string((ozblas_status_t)99) != NULL);
    ck_assert(ozblas_status_string((ozblas_status_t)-1) != NULL);
    ck_assert(strcmp(ozblas_status_string(OK), ozblas_status_string(INV)) != 0);

    ozblas_handle_t h = NULL;
    EXPECT_ST(ozblas_create(&h), OK);
    ck_assert(h != NULL);
    ozblas_mode_t mode = (ozblas_mode_t)42;
    EXPECT_ST(ozblas_get_mode(h, &mode), OK);
    ck_assert_int_eq(mode, OZBLAS_MODE_DOUBLE); /* default */
    EXPECT_ST(ozblas_get_mode(h, NULL), INV);
    EXPECT_ST(ozblas_get_mode(NULL, &mode), INV);

    EXPECT_ST(ozblas_set_mode(NULL, OZBLAS_MODE_DOUBLE), INV);
    EXPECT_ST(ozblas_set_mode(h, (ozblas_mode_t)7), INV);
    EXPECT_ST(ozblas_set_mode(h, (ozblas_mode_t)3), INV);
    EXPECT_ST(ozblas_set_mode(h, (ozblas_mode_t)-1), INV);
    EXPECT_ST(ozblas_get_mode(h, &mode), OK);
    ck_assert_int_eq(mode, OZBLAS_MODE_DOUBLE); /* unchanged by the invalid calls */
    ozblas_mode_t modes[] = TU_MODES;
    for (int i = 0; i < 3; i++) {
        EXPECT_ST(ozblas_set_mode(h, modes[i]), OK);
        EXPECT_ST(ozblas_get_mode(h, &mode), OK);
        ck_assert_int_eq(mode, modes[i]);
    }

    EXPECT_ST(ozblas_set_split_count(h, 0), INV);
    EXPECT_ST(ozblas_set_split_count(h, -1), INV);
    EXPECT_ST(ozblas_set_split_count(NULL, 3), INV);
    EXPECT_ST(ozblas_set_split_count(h, 1), OK);
    EXPECT_ST(ozblas_set_split_count(h, 5), OK);
    EXPECT_ST(ozblas_set_fast_mode(NULL, 1), INV);
    EXPECT_ST(ozblas_set_fast_mode(h, 1), OK);
    EXPECT_ST(ozblas_set_fast_mode(h, 0), OK);
    EXPECT_ST(ozblas_set_summation(h, (ozblas_summation_t)5), INV);
    EXPECT_ST(ozblas_set_summation(h, (ozblas_summation_t)-1), INV);
    EXPECT_ST(ozblas_set_summation(NULL, OZBLAS_SUM_DOUBLE), INV);
    EXPECT_ST(ozblas_set_summation(h, OZBLAS_SUM_DOUBLE), OK);
    EXPECT_ST(ozblas_set_summation(h, OZBLAS_SUM_NEARSUM), OK);
    EXPECT_ST(ozblas_set_num_threads(h, -1), INV);
    EXPECT_ST(ozblas_set_num_threads(h, -100), INV);
    EXPECT_ST(ozblas_set_num_threads(NULL, 1), INV);
    EXPECT_ST(ozblas_set_num_threads(h, 0), OK);
    EXPECT_ST(ozblas_set_num_threads(h, 2), OK);
    int64_t pw = 7;
    EXPECT_ST(ozblas_set_parallel_threshold(h, -1), INV);
    EXPECT_ST(ozblas_set_parallel_threshold(NULL, 1), INV);
    EXPECT_ST(ozblas_get_parallel_threshold(h, NULL), INV);
    EXPECT_ST(ozblas_get_parallel_threshold(NULL, &pw), INV);
    EXPECT_ST(ozblas_get_parallel_threshold(h, &pw), OK);
    ck_assert_msg(pw == 0, "parallel threshold defaults to %lld", (long long)pw);
    EXPECT_ST(ozblas_set_parallel_threshold(h, (int64_t)1 << 20), OK);
    EXPECT_ST(ozblas_get_parallel_threshold(h, &pw), OK);
    ck_assert_msg(pw == ((int64_t)1 << 20), "parallel threshold reads back %lld", (long long)pw);
    EXPECT_ST(ozblas_set_parallel_threshold(h, 0), OK);

    size_t ws = 7;
    EXPECT_ST(ozblas_set_workspace_limit(NULL, 1 << 20), INV);
    EXPECT_ST(ozblas_get_workspace_limit(h, NULL), INV);
    EXPECT_ST(ozblas_get_workspace_limit(NULL, &ws), INV);
    EXPECT_ST(ozblas_set_workspace_limit(h, (size_t)1 << 20), OK);
    EXPECT_ST(ozblas_get_workspace_limit(h, &ws), OK);
    ck_assert_msg(ws == ((size_t)1 << 20), "workspace limit reads back %zu", ws);
    EXPECT_ST(ozblas_set_workspace_limit(h, 0), OK);

    ozblas_info_t info;
    EXPECT_ST(ozblas_get_info(h, NULL), INV);
    EXPECT_ST(ozblas_get_info(NULL, &info), INV);
    ozblas_status_t sti = ozblas_get_info(h, &info); /* before any routine: must not crash */
    ck_assert(sti == OK || sti == INV || sti == OZBLAS_STATUS_NOT_SUPPORTED);
    EXPECT_ST(ozblas_destroy(h), OK);
}
END_TEST

/* fixture for the routine argument tests */
static double *A, *B, *C, *C0, *x, *y, *y0;
enum { NB = 64 };

static void setup_bufs(void)
{
    ozref_rng r;
    tu_rng(&r, "args_bufs");
    A = tu_alloc(NB * NB); B = tu_alloc(NB * NB); C = tu_alloc(NB * NB); C0 = tu_alloc(NB * NB);
    x = tu_alloc(NB); y = tu_alloc(NB); y0 = tu_alloc(NB);
    ozref_fill_phi(&r, A, NB * NB, 1);
    ozref_fill_phi(&r, B, NB * NB, 1);
    ozref_fill_phi(&r, C, NB * NB, 1);
    ozref_fill_phi(&r, x, NB, 1);
    ozref_fill_phi(&r, y, NB, 1);
    memcpy(C0, C, NB * NB * 8);
    memcpy(y0, y, NB * 8);
}

static void teardown_bufs(void)
{
    free(A); free(B); free(C); free(C0); free(x); free(y); free(y0);
}

#define CHECK_C_UNTOUCHED(what) tu_check_bits(C, C0, NB * NB, 0, what)
#define CHECK_Y_UNTOUCHED(what) tu_check_bits(y, y0, NB, 0, what)

#define GEMM_INV(ta, tb, m, n, k, a, lda, b, ldb, c, ldc) do { \
    for (int md = 0; md < 3; md++) { \
        ozblas_mode_t mds[] = TU_MODES; ozblas_set_mode(h, mds[md]); \
        EXPECT_ST(ozblas_dgemm(h, ta, tb, m, n, k, 1.5, a, lda, b, ldb, 0.5, c, ldc), INV); \
        CHECK_C_UNTOUCHED("dgemm invalid call modified C: " #ta "," #tb "," #m "," #n "," #k "," #lda "," #ldb "," #ldc); \
    } } while (0)

START_TEST(args_dgemm_invalid)
{
    ozblas_handle_t h = tu_handle(OZBLAS_MODE_DOUBLE);
    const ozblas_operation_t N = OZBLAS_OP_N, T = OZBLAS_OP_T, BAD = (ozblas_operation_t)7;
    EXPECT_ST(ozblas_dgemm(NULL, N, N, 4, 4, 4, 1.0, A, 4, B, 4, 0.0, C, 4), INV);
    CHECK_C_UNTOUCHED("NULL handle");
    GEMM_INV(BAD, N, 4, 4, 4, A, 4, B, 4, C, 4);
    GEMM_INV(N, BAD, 4, 4, 4, A, 4, B, 4, C, 4);
    GEMM_INV((ozblas_operation_t)-1, N, 4, 4, 4, A, 4, B, 4, C, 4);
    GEMM_INV((ozblas_operation_t)2, N, 4, 4, 4, A, 4, B, 4, C, 4);
    GEMM_INV(N, N, -1, 4, 4, A, 4, B, 4, C, 4);
    GEMM_INV(N, N, 4, -1, 4, A, 4, B, 4, C, 4);
    GEMM_INV(N, N, 4, 4, -1, A, 4, B, 4, C, 4);
    /* lda < max(1, rows of A as stored) */
    GEMM_INV(N, N, 5, 4, 3, A, 4, B, 3, C, 5);   /* N: rows = m = 5 */
    GEMM_INV(T, N, 5, 4, 3, A, 2, B, 3, C, 5);   /* T: rows = k = 3 */
    GEMM_INV(T, N, 3, 4, 5, A, 3, B, 5, C, 3);   /* T: lda=m is not enough when k > m */
    GEMM_INV(N, N, 0, 4, 3, A, 0, B, 3, C, 1);   /* lda >= 1 even when m == 0 (validated before quick return) */
    GEMM_INV(N, N, 4, 4, 0, A, 3, B, 1, C, 4);   /* k == 0 does not excuse lda < m */
    /* ldb */
    GEMM_INV(N, N, 4, 5, 3, A, 4, B, 2, C, 4);   /* N: rows = k */
    GEMM_INV(N, T, 4, 5, 3, A, 4, B, 4, C, 4);   /* T: rows = n = 5 */
    GEMM_INV(N, N, 4, 5, 0, A, 4, B, 0, C, 4);   /* ldb >= 1 when k == 0 */
    /* ldc */
    GEMM_INV(N, N, 5, 4, 3, A, 5, B, 3, C, 4);
    GEMM_INV(N, N, 0, 4, 3, A, 1, B, 3, C, 0);   /* ldc >= 1 even when m == 0 */
    GEMM_INV(N, N, 4, 0, 3, A, 4, B, 3, C, 3);   /* n == 0 does not excuse ldc < m */
    /* NULL data pointers where data is needed */
    GEMM_INV(N, N, 4, 4, 4, NULL, 4, B, 4, C, 4);
    GEMM_INV(N, N, 4, 4, 4, A, 4, NULL, 4, C, 4);
    for (int md = 0; md < 3; md++) {
        ozblas_mode_t mds[] = TU_MODES;
        ozblas_set_mode(h, mds[md]);
        EXPECT_ST(ozblas_dgemm(h, N, N, 4, 4, 4, 1.0, A, 4, B, 4, 0.0, NULL, 4), INV);
    }
    CHECK_C_UNTOUCHED("after invalid calls");
    ozblas_destroy(h);
}
END_TEST

#define GEMV_INV(tr, m, n, a, lda, xx, incx, yy, incy) do { \
    for (int md = 0; md < 3; md++) { \
        ozblas_mode_t mds[] = TU_MODES; ozblas_set_mode(h, mds[md]); \
        EXPECT_ST(ozblas_dgemv(h, tr, m, n, 1.5, a, lda, xx, incx, 0.5, yy, incy), INV); \
        CHECK_Y_UNTOUCHED("dgemv invalid call modified y: " #tr "," #m "," #n "," #lda "," #incx "," #incy); \
    } } while (0)

START_TEST(args_dgemv_invalid)
{
    ozblas_handle_t h = tu_handle(OZBLAS_MODE_DOUBLE);
    const ozblas_operation_t N = OZBLAS_OP_N, T = OZBLAS_OP_T;
    EXPECT_ST(ozblas_dgemv(NULL, N, 4, 4, 1.0, A, 4, x, 1, 0.0, y, 1), INV);
    CHECK_Y_UNTOUCHED("NULL handle");
    GEMV_INV((ozblas_operation_t)7, 4, 4, A, 4, x, 1, y, 1);
    GEMV_INV((ozblas_operation_t)-3, 4, 4, A, 4, x, 1, y, 1);
    GEMV_INV(N, -1, 4, A, 4, x, 1, y, 1);
    GEMV_INV(T, 4, -2, A, 4, x, 1, y, 1);
    GEMV_INV(N, 5, 4, A, 4, x, 1, y, 1);
    GEMV_INV(T, 5, 4, A, 4, x, 1, y, 1);      /* lda >= m also for T */
    GEMV_INV(N, 0, 4, A, 0, x, 1, y, 1);      /* lda >= 1 before the quick return */
    GEMV_INV(N, 4, 4, A, 4, x, 0, y, 1);
    GEMV_INV(T, 4, 4, A, 4, x, 1, y, 0);
    GEMV_INV(N, 0, 0, A, 1, x, 0, y, 1);      /* zero increment invalid even for an empty problem */
    GEMV_INV(N, 4, 4, NULL, 4, x, 1, y, 1);
    GEMV_INV(N, 4, 4, A, 4, NULL, 1, y, 1);
    for (int md = 0; md < 3; md++) {
        ozblas_mode_t mds[] = TU_MODES;
        ozblas_set_mode(h, mds[md]);
        EXPECT_ST(ozblas_dgemv(h, N, 4, 4, 1.0, A, 4, x, 1, 0.0, NULL, 1), INV);
    }
    CHECK_Y_UNTOUCHED("after invalid calls");
    ozblas_destroy(h);
}
END_TEST

START_TEST(args_ddot_invalid)
{
    ozblas_handle_t h = tu_handle(OZBLAS_MODE_DOUBLE);
    ozblas_mode_t mds[] = TU_MODES;
    for (int md = 0; md < 3; md++) {
        ozblas_set_mode(h, mds[md]);
        double res = tu_from_bits(TU_SENTINEL_BITS);
        EXPECT_ST(ozblas_ddot(NULL, 4, x, 1, y, 1, &res), INV);
        ck_assert(tu_is_sentinel(res));
        EXPECT_ST(ozblas_ddot(h, 4, x, 1, y, 1, NULL), INV);
        EXPECT_ST(ozblas_ddot(h, 4, NULL, 1, y, 1, &res), INV);
        ck_assert(tu_is_sentinel(res));
        EXPECT_ST(ozblas_ddot(h, 4, x, 1, NULL, 1, &res), INV);
        ck_assert(tu_is_sentinel(res));
    }
    ozblas_destroy(h);
}
END_TEST

START_TEST(args_quick_returns)
{
    ozblas_mode_t mds[] = TU_MODES;
    const ozblas_operation_t N = OZBLAS_OP_N, T = OZBLAS_OP_T;
    for (int md = 0; md < 3; md++) {
        ozblas_handle_t h = tu_handle(mds[md]);
        const char *mn = tu_mode_name(mds[md]);
        /* m == 0 || n == 0: no-op */
        EXPECT_ST(ozblas_dgemm(h, N, N, 0, 4, 4, 1.0, A, 1, B, 4, 2.0, C, 1), OK);
        CHECK_C_UNTOUCHED(mn);
        EXPECT_ST(ozblas_dgemm(h, T, T, 4, 0, 4, 1.0, A, 4, B, 1, 2.0, C, 4), OK);
        CHECK_C_UNTOUCHED(mn);
        /* k == 0: C := beta*C (one IEEE multiply), A and B not read */
        for (int ib = 0; ib < 4; ib++) {
            double betas[4] = {0.0, 1.0, -0.5, 3.0};
            double beta = betas[ib];
            double Cq[12], Ce[12];
            for (int i = 0; i < 12; i++) Cq[i] = C0[i];
            Cq[5] = NAN; Cq[6] = -0.0; Cq[7] = INFINITY; Cq[8] = 0x1p-1074;
            for (int i = 0; i < 12; i++) Ce[i] = beta == 0 ? 0.0 : beta * Cq[i];
            EXPECT_ST(ozblas_dgemm(h, N, N, 3, 4, 0, 2.0, A, 3, B, 1, beta, Cq, 3), OK);
            tu_check_bits(Cq, Ce, 12, 1, "k == 0: C := beta*C");
            /* alpha == 0: same, A holds NaN that must not be read */
            for (int i = 0; i < 12; i++) Cq[i] = C0[i];
            Cq[5] = NAN; Cq[6] = -0.0; Cq[7] = INFINITY; Cq[8] = 0x1p-1074;
            double An[9] = {NAN, NAN, NAN, INFINITY, NAN, NAN, NAN, NAN, NAN};
            EXPECT_ST(ozblas_dgemm(h, N, N, 3, 4, 3, 0.0, An, 3, B, 3, beta, Cq, 3), OK);
            tu_check_bits(Cq, Ce, 12, 1, "alpha == 0: C := beta*C");
            /* gemv alpha == 0 */
            double yq[3] = {1.0, NAN, -0.0}, ye[3];
            for (int i = 0; i < 3; i++) ye[i] = beta == 0 ? 0.0 : beta * yq[i];
            EXPECT_ST(ozblas_dgemv(h, N, 3, 3, 0.0, An, 3, x, 1, beta, yq, 1), OK);
            tu_check_bits(yq, ye, 3, 1, "gemv alpha == 0: y := beta*y");
        }
        /* gemv: m == 0 with n > 0 for N (empty output) leaves y alone */
        EXPECT_ST(ozblas_dgemv(h, N, 0, 4, 1.0, A, 1, x, 1, 2.0, y, 1), OK);
        CHECK_Y_UNTOUCHED(mn);
        EXPECT_ST(ozblas_dgemv(h, T, 4, 0, 1.0, A, 4, x, 1, 2.0, y, 1), OK);
        CHECK_Y_UNTOUCHED(mn);
        EXPECT_ST(ozblas_dgemv(h, N, 0, 0, 1.0, A, 1, x, 1, 2.0, y, 1), OK);
        CHECK_Y_UNTOUCHED(mn);
        /* an empty inner dimension with beta == 1 leaves y alone under both readings (BLAS no-op, beta*y) */
        EXPECT_ST(ozblas_dgemv(h, N, 4, 0, 1.0, A, 4, x, 1, 1.0, y, 1), OK);
        CHECK_Y_UNTOUCHED(mn);
        EXPECT_ST(ozblas_dgemv(h, T, 0, 4, 1.0, A, 1, x, 1, 1.0, y, 1), OK);
        CHECK_Y_UNTOUCHED(mn);
        /* DOT: n <= 0 gives +0 */
        for (int n = 0; n >= -3; n -= 3) {
            double res = tu_from_bits(TU_SENTINEL_BITS);
            EXPECT_ST(ozblas_ddot(h, n, x, 1, y, 1, &res), OK);
            ck_assert_msg(tu_bits(res) == 0, "ddot n=%d gave %a, expected +0 [%s]", n, res, mn);
        }
        ozblas_destroy(h);
    }
}
END_TEST

START_TEST(args_gemv_inner_zero_beta)
{
    /* GEMV with an empty inner dimension and beta != 1.  CONTRACT: "m == 0 || n == 0 is a no-op";
     * the reference semantics read it as "inner dimension 0 gives beta*y".  Either is accepted, but it
     * must be the same in every mode and bitwise one of the two. */
    ozblas_mode_t mds[] = TU_MODES;
    int seen = -1;
    for (int md = 0; md < 3; md++) {
        ozblas_handle_t h = tu_handle(mds[md]);
        for (int tr = 0; tr < 2; tr++) {
            double yq[4] = {1.0, -2.0, NAN, 0.25}, yb[4], yorig[4];
            memcpy(yorig, yq, sizeof yq);
            for (int i = 0; i < 4; i++) yb[i] = 3.0 * yq[i];
            EXPECT_ST(ozblas_dgemv(h, tr ? OZBLAS_OP_T : OZBLAS_OP_N, tr ? 0 : 4, tr ? 4 : 0, 1.0, A, tr ? 1 : 4,
                                   x, 1, 3.0, yq, 1), OK);
            int noop = memcmp(yq, yorig, sizeof yq) == 0;
            int scaled = 1;
            for (int i = 0; i < 4; i++) scaled &= (tu_bits(yq[i]) == tu_bits(yb[i])) || (isnan(yq[i]) && isnan(yb[i]));
            ck_assert_msg(noop || scaled, "gemv inner dimension 0: y is neither untouched nor beta*y");
            int kind = noop ? 0 : 1;
            if (seen < 0) seen = kind;
            ck_assert_msg(seen == kind, "gemv inner dimension 0 treated differently across modes/transposes");
        }
        ozblas_destroy(h);
    }
    printf("gemv with empty inner dimension: %s\n", seen == 0 ? "no-op (BLAS)" : "y := beta*y");
}
END_TEST

START_TEST(args_info)
{
    ozblas_mode_t mds[] = TU_MODES;
    for (int md = 0; md < 3; md++) {
        ozblas_handle_t h = tu_handle(mds[md]);
        EXPECT_ST(ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_T, 40, 30, 50, 1.0, A, 40, B, 30, 0.0, C, 40), OK);
        ozblas_info_t info;
        memset(&info, 0xff, sizeof info);
        EXPECT_ST(ozblas_get_info(h, &info), OK);
        ck_assert_msg(info.slices_a >= 1 && info.slices_b >= 1, "slices %d %d", info.slices_a, info.slices_b);
        /* CORRECTLY_ROUNDED (and DOUBLE with FP64 slices) GEMMs this size go through the
         * error-free sums (info.fused = 2): no slice GEMM */
        ck_assert_msg(info.fused == 2 ? mds[md] != OZBLAS_MODE_FIXED : info.fused == 0, "fused %d", info.fused);
        ck_assert_msg(info.fused == 2 || info.gemm_calls >= 1, "gemm_calls %lld", (long long)info.gemm_calls);
        ck_assert_msg(info.fused == 2 || info.slice_products >= 1, "slice_products %lld", (long long)info.slice_products);
        ck_assert_msg(info.fused == 2 || info.gemm_flops > 0, "gemm_flops %g", info.gemm_flops);
        ck_assert_msg(info.blocks >= 1, "blocks %lld", (long long)info.blocks);
        ck_assert_msg(info.block_m >= 1 && info.block_n >= 1 && info.block_k >= 1, "block sizes");
        ck_assert_int_eq(info.mode, mds[md]);
        ck_assert(info.summation == OZBLAS_SUM_DOUBLE || info.summation == OZBLAS_SUM_NEARSUM);
        ck_assert(info.fast_mode == 0 || info.fast_mode == 1);
        ck_assert(info.exact_fallbacks >= 0);
        ck_assert(info.seconds_split >= 0 && info.seconds_multiply >= 0 && info.seconds_sum >= 0 && info.seconds_total >= 0);
        ck_assert(info.seconds_total < 1e4);
        /* FIXED honours the settings */
        if (mds[md] == OZBLAS_MODE_FIXED) {
            ck_assert_int_eq(info.summation, OZBLAS_SUM_NEARSUM); /* default */
            ck_assert_int_eq(info.fast_mode, 0);                  /* default */
            ck_assert_msg(info.slices_a <= 3 && info.slices_b <= 3, "default split count 3: slices %d %d", info.slices_a, info.slices_b);
            ck_assert_msg(info.slice_products <= 9 * info.blocks, "slice_products %lld blocks %lld",
                          (long long)info.slice_products, (long long)info.blocks);
        }
        double res;
        /* correctly rounded DOT and GEMV run the fused kernels (no GEMM) where the CPU has them,
         * and so does DOUBLE mode with FP64 slices (it computes them correctly rounded) */
        EXPECT_ST(ozblas_ddot(h, NB, x, 1, y, 1, &res), OK);
        EXPECT_ST(ozblas_get_info(h, &info), OK);
        ck_assert(info.slices_a >= 1 && info.slices_b >= 1 && info.seconds_total >= 0);
        ck_assert(info.fused >= 0 && info.fused <= 2);
        /* FIXED DOT and GEMV-T by the fused kernels too (src/fixed/fixed_dot.c), the pipeline's bits */
        ck_assert(info.fused ? mds[md] != OZBLAS_MODE_FIXED || info.fused == 1 : info.gemm_calls >= 1);
        EXPECT_ST(ozblas_dgemv(h, OZBLAS_OP_T, 30, 20, 1.0, A, 30, x, 1, 0.0, y, 1), OK);
        EXPECT_ST(ozblas_get_info(h, &info), OK);
        ck_assert(info.slices_a >= 1 && info.slices_b >= 1 && info.seconds_total >= 0);
        ck_assert(info.fused ? mds[md] != OZBLAS_MODE_FIXED || info.fused == 1 : info.gemm_calls >= 1);
        ozblas_destroy(h);
    }
}
END_TEST

/* A call leaves the program's OpenMP default thread count as it found it (the OpenMP
 * build of OpenBLAS sets it when its own thread count is set). */
START_TEST(args_threads_no_side_effect)
{
    omp_set_num_threads(3);
    ozblas_handle_t h = tu_handle(OZBLAS_MODE_DOUBLE);
    ck_assert_int_eq(ozblas_set_num_threads(h, 1), OZBLAS_STATUS_SUCCESS);
    double A[64], B[64], C[64], r;
    for (int i = 0; i < 64; i++) { A[i] = 0.1 * i; B[i] = 1.0 / (i + 1); }
    ck_assert_int_eq(ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, 8, 8, 8, 1.0, A, 8, B, 8, 0.0, C, 8), OZBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(ozblas_dgemv(h, OZBLAS_OP_T, 8, 8, 1.0, A, 8, B, 1, 0.0, C, 1), OZBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(ozblas_ddot(h, 64, A, 1, B, 1, &r), OZBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(omp_get_max_threads(), 3);
    ozblas_destroy(h);
}
END_TEST

/* The CUDA handle API: creation without a device says NOT_SUPPORTED with a reason; on the
 * emulated device (host memory) the argument rules, quick returns and padding rules are the
 * CPU handle's. */
START_TEST(args_cuda_api)
{
    EXPECT_ST(ozblas_create_cuda(NULL, 0), INV);
    ozblas_handle_t h = NULL;
    EXPECT_ST(ozblas_create_cuda(&h, -1), INV);
    unsetenv("OZBLAS_CUDA_EMULATE");
    const char *why = ozblas_cuda_unavailable_reason(0);
    ozblas_status_t st = ozblas_create_cuda(&h, 0);
    if (why) {
        ck_assert_int_eq(st, OZBLAS_STATUS_NOT_SUPPORTED);
        printf("test_args: no GPU here (%s): ozblas_create_cuda returned NOT_SUPPORTED as documented\n", why);
    } else {
        ck_assert_int_eq(st, OK);
        ozblas_destroy(h);
    }
    ck_assert_ptr_nonnull(ozblas_cuda_unavailable_reason(1 << 20));   /* no such device */
    ozblas_handle_t c;
    EXPECT_ST(ozblas_create(&c), OK);
    EXPECT_ST(ozblas_set_stream(c, NULL), OZBLAS_STATUS_NOT_SUPPORTED);
    EXPECT_ST(ozblas_set_stream(NULL, NULL), INV);
    /* the products' route: named for FP64 (OpenBLAS), NULL for no handle or an unknown format,
     * INT8 and CRT_INT8 named exactly where the format can be set */
    ck_assert_ptr_null(ozblas_products_name(NULL, OZBLAS_ENGINE_FP64));
    ck_assert_ptr_null(ozblas_products_name(c, (ozblas_engine_t)99));
    ck_assert_ptr_nonnull(ozblas_products_name(c, OZBLAS_ENGINE_FP64));
    const int has_int8 = ozblas_set_engine(c, OZBLAS_ENGINE_INT8) == OK;
    ck_assert_int_eq(ozblas_products_name(c, OZBLAS_ENGINE_INT8) != NULL, has_int8);
    ck_assert_int_eq(ozblas_products_name(c, OZBLAS_ENGINE_CRT_INT8) != NULL, has_int8);
    EXPECT_ST(ozblas_set_engine(c, OZBLAS_ENGINE_FP64), OK);
    ozblas_backend_t be;
    EXPECT_ST(ozblas_get_backend(c, &be), OK);
    ck_assert_int_eq(be, OZBLAS_BACKEND_CPU);
    ozblas_destroy(c);

    setenv("OZBLAS_CUDA_EMULATE", "1", 1);
    EXPECT_ST(ozblas_create_cuda(&h, 0), OK);
    unsetenv("OZBLAS_CUDA_EMULATE");
    EXPECT_ST(ozblas_get_backend(h, &be), OK);
    ck_assert_int_eq(be, OZBLAS_BACKEND_CUDA);
    EXPECT_ST(ozblas_set_stream(h, NULL), OK);
    EXPECT_ST(ozblas_set_engine(h, OZBLAS_ENGINE_INT8), OK);           /* cuBLAS: no oneDNN needed */
    EXPECT_ST(ozblas_set_engine(h, OZBLAS_ENGINE_CRT_INT8), OK);
    EXPECT_ST(ozblas_set_engine(h, OZBLAS_ENGINE_FP64), OK);
    double A[12], B[12], C[12], C0[12];
    for (int i = 0; i < 12; i++) { A[i] = i + 1; B[i] = 2 * i - 5; C[i] = C0[i] = tu_from_bits(TU_SENTINEL_BITS); }
    /* invalid: lda < m; nothing written */
    EXPECT_ST(ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, 3, 2, 2, 1.0, A, 2, B, 2, 0.0, C, 4), INV);
    tu_check_bits(C, C0, 12, 0, "cuda invalid dgemm wrote C");
    /* alpha == 0, beta == 0: the window becomes +0 (NaN there ignored), padding row 3 untouched */
    EXPECT_ST(ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, 3, 2, 2, 0.0, A, 3, B, 2, 0.0, C, 4), OK);
    for (int j = 0; j < 2; j++)
        for (int i = 0; i < 4; i++)
            ck_assert_uint_eq(tu_bits(C[i + 4 * j]), i < 3 ? 0u : TU_SENTINEL_BITS);
    /* a real product, padding untouched, the same bits as a CPU handle */
    double D[8], E[8];
    for (int i = 0; i < 8; i++) D[i] = E[i] = tu_from_bits(TU_SENTINEL_BITS);
    EXPECT_ST(ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_T, 3, 2, 2, 0.5, A, 3, B, 2, 0.0, D, 4), OK);
    EXPECT_ST(ozblas_create(&c), OK);
    EXPECT_ST(ozblas_dgemm(c, OZBLAS_OP_N, OZBLAS_OP_T, 3, 2, 2, 0.5, A, 3, B, 2, 0.0, E, 4), OK);
    tu_check_bits(D, E, 8, 0, "cuda (emulated) dgemm against cpu");
    /* DOT: the result is host memory; n <= 0 gives 0 */
    double r = 7.0, r2 = 0.0;
    EXPECT_ST(ozblas_ddot(h, 0, A, 1, B, 1, &r), OK);
    ck_assert_uint_eq(tu_bits(r), 0u);
    EXPECT_ST(ozblas_ddot(h, 5, A, -2, B, 1, &r), OK);
    EXPECT_ST(ozblas_ddot(c, 5, A, -2, B, 1, &r2), OK);
    ck_assert_uint_eq(tu_bits(r), tu_bits(r2));
    /* GEMV with a negative increment of y: gaps untouched */
    double y[7], y2[7];
    for (int i = 0; i < 7; i++) y[i] = y2[i] = tu_from_bits(TU_SENTINEL_BITS);
    EXPECT_ST(ozblas_dgemv(h, OZBLAS_OP_T, 2, 3, 1.0, A, 2, B, 1, 0.0, y, -3), OK);
    EXPECT_ST(ozblas_dgemv(c, OZBLAS_OP_T, 2, 3, 1.0, A, 2, B, 1, 0.0, y2, -3), OK);
    tu_check_bits(y, y2, 7, 0, "cuda (emulated) dgemv against cpu");
    ozblas_destroy(c);
    ozblas_destroy(h);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("args");
    TCase *tc = tcase_create("config");
    tcase_set_timeout(tc, tu_timeout(60));
    tcase_add_test(tc, args_handle_and_config);
    tcase_add_test(tc, args_threads_no_side_effect);
    tcase_add_test(tc, args_cuda_api);
    suite_add_tcase(s, tc);
    TCase *tr = tcase_create("routines");
    tcase_set_timeout(tr, tu_timeout(60));
    tcase_add_checked_fixture(tr, setup_bufs, teardown_bufs);
    tcase_add_test(tr, args_dgemm_invalid);
    tcase_add_test(tr, args_dgemv_invalid);
    tcase_add_test(tr, args_ddot_invalid);
    tcase_add_test(tr, args_quick_returns);
    tcase_add_test(tr, args_gemv_inner_zero_beta);
    tcase_add_test(tr, args_info);
    suite_add_tcase(s, tr);
    return s;
}

TU_MAIN("test_args", suite)
