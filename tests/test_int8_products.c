/* The INT8 product engine (oneDNN s8s8s32) against an exact int64 GEMM: random digits,
 * the extremes +-127 in every position, and k at the bit budget's edge (2^17 terms of
 * 127*127 sum to 2^31 - 2^17 - ..., the largest the format allows). */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "core/format.h"
#include "tu.h"

static void check_products(int64_t mr, int64_t nr, int64_t kb, int sa, int sb, int dmax, int pattern, uint64_t seed)
{
    const ozb_format *f = ozb_format_of(OZBLAS_ENGINE_INT8);
    ck_assert_ptr_nonnull(f);
    ozb_slices A = {0}, B = {0};
    A.rows = mr; A.kb = kb; A.s = sa; A.cap = sa;
    B.rows = nr; B.kb = kb; B.s = sb; B.cap = sb;
    A.slice = malloc(sizeof(double) * sa * mr * kb);
    B.slice = malloc(sizeof(double) * sb * nr * kb);
    ozref_rng r;
    ozref_rng_seed(&r, seed);
    for (int64_t i = 0; i < sa * mr * kb; i++)
        A.slice[i] = pattern == 0 ? (double)((int)(ozref_uniform(&r) * 255.0) - 127) : (pattern == 1 ? 127.0 : ((i % 2) ? -127.0 : 127.0));
    for (int64_t i = 0; i < sb * nr * kb; i++)
        B.slice[i] = pattern == 0 ? (double)((int)(ozref_uniform(&r) * 255.0) - 127) : (pattern == 1 ? 127.0 : -127.0);
    const int64_t ldp = mr * sa;
    double *P = malloc(sizeof(double) * ldp * nr * sb);
    for (int64_t i = 0; i < ldp * nr * sb; i++) P[i] = -1e300;
    void *scr = malloc(f->scratch_bytes(mr, nr, kb, sa, sb));
    ozb_prod_stats st = {0, 0, 0.0};
    f->products(&A, &B, dmax, P, ldp, scr, 2, &st);
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
    suite_add_tcase(s, tc);
    return s;
}

TU_MAIN("test_int8_products", suite)
