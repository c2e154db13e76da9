#define _POSIX_C_SOURCE 200809L
/* The INT8 product engine (oneDNN s8s8s32) against an exact int64 GEMM: random digits,
 * the extremes +-127 in every position, and k at the bit budget's edge (2^17 terms of
 * 127*127 sum to 2^31 - 2^17 - ..., the largest the format allows).
 * The CUDA backend's product engines (FP64, FP16, INT8: src/cuda/products_cuda.c) and its
 * CRT product likewise, on the emulated device (OZBLAS_CUDA_EMULATE=1: the same calls and
 * layouts, host loops for cuBLAS) and, where one is present, on the GPU. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/backend.h"
#include "tu.h"

static void check_with(const ozb_format *f, struct ozb_dev *dev, int64_t mr, int64_t nr, int64_t kb, int sa, int sb,
                       int dmax, int pattern, uint64_t seed)
{
    ck_assert_ptr_nonnull(f);
    ozb_slices A = {0}, B = {0};
    A.rows = mr; A.kb = kb; A.s = sa; A.cap = sa;
    B.rows = nr; B.kb = kb; B.s = sb; B.cap = sb;
    A.slice = malloc(sizeof(double) * sa * mr * kb);
    B.slice = malloc(sizeof(double) * sb * nr * kb);
    ozref_rng r;
    ozref_rng_seed(&r, seed);
    for (int64_t i = 0; i < sa * mr * kb; i++)
        A.slice[i] = pattern == 3 ? (double)((int64_t)(ozref_uniform(&r) * 2097151.0) - 1048575) : pattern == 0 ? (double)((int)(ozref_uniform(&r) * 255.0) - 127) : (pattern == 1 ? 127.0 : ((i % 2) ? -127.0 : 127.0));
    for (int64_t i = 0; i < sb * nr * kb; i++)
        B.slice[i] = pattern == 3 ? (double)((int64_t)(ozref_uniform(&r) * 2097151.0) - 1048575) : pattern == 0 ? (double)((int)(ozref_uniform(&r) * 255.0) - 127) : (pattern == 1 ? 127.0 : -127.0);
    const int64_t ldp = mr * sa;
    double *P = malloc(sizeof(double) * ldp * nr * sb);
    for (int64_t i = 0; i < ldp * nr * sb; i++) P[i] = -1e300;
    void *scr = malloc(f->scratch_bytes(mr, nr, kb, sa, sb));
    ozb_prod_stats st = {0, 0, 0.0};
    ck_assert_int_eq(f->products(dev, &A, &B, dmax, P, ldp, scr, 2, &st), 0);
    for (int t = 0; t < sa; t++)
        for (int u = 0; u < sb; u++) {
            if (dmax > 0 && t + u > dmax - 1) continue;
            for (int64_t i = 0; i < mr; i++)
                for (int64_t j = 0; j < nr; j++) {
                    int64_t exact = 0;
                    for (int64_t l = 0; l < kb; l++)
                        exact += (int64_t)A.slice[(t * mr + i) * kb + l] * (int64_t)B.slice[(u * nr + j) * kb + l];
                    double got = P[(t * mr + i) + (u * nr + j) * ldp];
                    ck_assert_msg(got == (double)exact, "pair (%d,%d) elem (%lld,%lld) k=%lld: got %.17g exact %lld",
                                  t, u, (long long)i, (long long)j, (long long)kb, got, (long long)exact);
                }
        }
    free(A.slice); free(B.slice); free(P); free(scr);
}

static void check_products(int64_t mr, int64_t nr, int64_t kb, int sa, int sb, int dmax, int pattern, uint64_t seed)
{
    /* a CPU handle's INT8 format: the oneDNN route where it is exact here, unless
     * OZBLAS_NO_DNNL (read by the handle) asks for DGEMM's */
    ozblas_handle_t h;
    ck_assert_int_eq(ozblas_create(&h), OZBLAS_STATUS_SUCCESS);
    ozb_format f;
    ck_assert(ozb_format_for(h, OZBLAS_ENGINE_INT8, &f));
    check_with(&f, NULL, mr, nr, kb, sa, sb, dmax, pattern, seed);
    ozblas_destroy(h);
}

/* a CUDA handle on the emulated device (emulate) or the GPU; NULL when there is none */
static ozblas_handle_t cuda_handle(int emulate)
{
    if (emulate) setenv("OZBLAS_CUDA_EMULATE", "1", 1); else unsetenv("OZBLAS_CUDA_EMULATE");
    ozblas_handle_t h = NULL;
    ozblas_status_t st = ozblas_create_cuda(&h, 0);
    unsetenv("OZBLAS_CUDA_EMULATE");
    /* the GPU case runs only under OZBLAS_TEST_CUDA=1, where tu_main has already reported a
     * missing GPU to ctest as a skip (exit 77): no case passes without having run */
    ck_assert_msg(st == OZBLAS_STATUS_SUCCESS, "no CUDA handle (%s): %s", emulate ? "emulated" : "GPU",
                  emulate ? "" : ozblas_cuda_unavailable_reason(0));
    return h;
}

static void cuda_products(int emulate)
{
    ozblas_handle_t h = cuda_handle(emulate);
    const ozblas_engine_t engines[3] = {OZBLAS_ENGINE_FP64, OZBLAS_ENGINE_FP16, OZBLAS_ENGINE_INT8};
    for (int e = 0; e < 3; e++) {
        ozb_format fr;
        ck_assert(ozb_format_for(h, engines[e], &fr));
        const ozb_format *f = &fr;
        /* digits up to 127: every format's budget holds for kb <= 512 (FP16: 127^2 2^9 < 2^24) */
        check_with(f, h->dev, 7, 5, 333, 3, 2, 0, 0, tu_seed + 10 + e);
        check_with(f, h->dev, 16, 3, 500, 4, 4, 4, 0, tu_seed + 20 + e);   /* fast mode: per-slice GEMMs */
        check_with(f, h->dev, 1, 1, 512, 5, 5, 0, 1, 0);
        check_with(f, h->dev, 3, 2, 17, 2, 3, 0, 2, 0);                     /* k not a multiple of 16 */
        check_with(f, h->dev, 5, 9, 200, 2, 2, 0, 0, tu_seed + 30 + e);     /* 18 columns: not skinny */
    }
    /* FP64 digits of 21 bits at k = 2^11 (2 * 21 + 11 = 53: the budget's edge), the skinny
     * INT32-packed kernel (1 and 3 columns) and cuBLAS (17 columns) */
    ozb_format f64r;
    ck_assert(ozb_format_for(h, OZBLAS_ENGINE_FP64, &f64r));
    const ozb_format *f64 = &f64r;
    check_with(f64, h->dev, 40, 1, 2048, 3, 1, 0, 3, tu_seed + 40);
    check_with(f64, h->dev, 1, 1, 2048, 3, 3, 0, 3, tu_seed + 41);
    check_with(f64, h->dev, 4, 17, 2048, 2, 1, 0, 3, tu_seed + 42);
    /* the CRT product: exact (mod 0) for values in [0, 255] x [-128, 127], and congruent
     * modulo m otherwise, against int64 sums, both operand layouts */
    ozref_rng r;
    tu_rng(&r, "crt_cuda");
    const int64_t mb = 9, nb = 6, kb = 301;
    uint8_t *RB = malloc((size_t)nb * kb);
    int8_t *RA = malloc((size_t)mb * kb);
    int32_t *dst = malloc(sizeof(int32_t) * mb * nb);
    for (int trial = 0; trial < 8; trial++) {
        const int colA = trial & 1, colB = (trial >> 1) & 1, exact = trial >> 2;
        const int32_t m = exact ? 0 : 251;
        for (int64_t i = 0; i < nb * kb; i++) RB[i] = (uint8_t)(ozref_uniform(&r) * (exact ? 129.0 : 251.0));
        for (int64_t i = 0; i < mb * kb; i++) RA[i] = (int8_t)((int)(ozref_uniform(&r) * 256.0) - 128);
        ck_assert_int_eq(h->be->crt_gemm(h, RB, colB, RA, colA, mb, nb, kb, dst, m, 1), 0);
        for (int64_t j = 0; j < nb; j++)
            for (int64_t i = 0; i < mb; i++) {
                int64_t ex = 0;
                for (int64_t l = 0; l < kb; l++)
                    ex += (int64_t)RA[colA ? i + l * mb : i * kb + l] * (int64_t)RB[colB ? j + l * nb : j * kb + l];
                const int64_t got = dst[i + j * mb];
                if (exact) ck_assert_msg(got == ex, "crt exact (%lld,%lld): %lld vs %lld", (long long)i, (long long)j, (long long)got, (long long)ex);
                else ck_assert_msg(((got - ex) % m) == 0, "crt mod %d (%lld,%lld): %lld vs %lld", m, (long long)i, (long long)j,
                                   (long long)got, (long long)ex);
            }
    }
    free(RB); free(RA); free(dst);
    ozblas_destroy(h);
}

START_TEST(cuda_emulated_products) { cuda_products(1); }
END_TEST

START_TEST(cuda_gpu_products) { cuda_products(0); }
END_TEST

START_TEST(int8_random)
{
    check_products(7, 5, 333, 3, 2, 0, 0, tu_seed);
    check_products(16, 3, 1024, 4, 4, 4, 0, tu_seed + 1);   /* fast mode: per-slice GEMMs */
    check_products(1, 1, 4096, 5, 5, 0, 0, tu_seed + 2);
}
END_TEST

START_TEST(int8_extremes_at_budget)
{
    /* 2^17 * 127^2 = 2114060288 < 2^31: the largest sums int32 must hold exactly */
    check_products(2, 2, (int64_t)1 << 17, 1, 1, 0, 1, 0);
    check_products(2, 2, (int64_t)1 << 17, 1, 1, 0, 2, 0);
    check_products(3, 2, 4099, 2, 3, 0, 2, 0);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("int8_products");
    TCase *tc = tcase_create("int8");
    tcase_set_timeout(tc, tu_timeout(120));
    tcase_add_test(tc, int8_random);
    tcase_add_test(tc, int8_extremes_at_budget);
    tcase_add_test(tc, cuda_emulated_products);
    const char *tc_cuda = getenv("OZBLAS_TEST_CUDA");
    if (tc_cuda && !strcmp(tc_cuda, "1")) tcase_add_test(tc, cuda_gpu_products);   /* ctest test_int8_products_cuda */
    suite_add_tcase(s, tc);
    return s;
}

TU_MAIN("test_int8_products", suite)
