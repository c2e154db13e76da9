/* Self-test of the exact references (ozref), independent of the library. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include "tu.h"

#define BITS_EQ(got, exp) ck_assert_msg(tu_bits(got) == tu_bits(exp), "got %a expected %a", (got), (exp))

START_TEST(ref_easy)
{
    double x[4] = {1, 2, 3, 4}, y[4] = {5, 6, 7, 8};
    BITS_EQ(ozref_ddot(4, x, 1, y, 1), 70.0);
    BITS_EQ(ozref_ddot(4, x, -1, y, 1), 60.0);
    BITS_EQ(ozref_ddot(4, x, 0, y, 1), 26.0);
    BITS_EQ(ozref_ddot(2, x, 2, y, -2), 1 * 7.0 + 3 * 5.0);
    BITS_EQ(ozref_ddot(0, x, 1, y, 1), 0.0);
    BITS_EQ(ozref_ddot(-3, x, 1, y, 1), 0.0);
    double a[3] = {1.5 * 0x1p1023, 3, -1.5 * 0x1p1023}, b[3] = {8, 1e-300, 8};
    BITS_EQ(ozref_ddot(3, a, 1, b, 1), 3e-300);
    /* exact zero is +0 */
    double z1[2] = {1, -1}, z2[2] = {1, 1}, mz[1] = {-0.0};
    BITS_EQ(ozref_ddot(2, z1, 1, z2, 1), 0.0);
    BITS_EQ(ozref_ddot(1, mz, 1, z2, 1), 0.0);
}
END_TEST

START_TEST(ref_random_integers)
{
    /* integer-valued inputs whose exact sums fit in 53 bits: naive summation is exact */
    ozref_rng r;
    tu_rng(&r, "ref_random_integers");
    for (int t = 0; t < 200; t++) {
        int n = 1 + (int)(ozref_uniform(&r) * 300);
        double x[300], y[300], s = 0;
        for (int i = 0; i < n; i++) {
            x[i] = floor((ozref_uniform(&r) - 0.5) * 2048);
            y[i] = floor((ozref_uniform(&r) - 0.5) * 2048);
            s += x[i] * y[i];
        }
        double e = ozref_ddot(n, x, 1, y, 1);
        ck_assert_msg(e == s, "n=%d got %a expected %a [seed %llu]", n, e, s, (unsigned long long)tu_seed);
        /* scaled by powers of two into the subnormal range and near overflow */
        double xs[300], ys[300];
        for (int i = 0; i < n; i++) { xs[i] = ldexp(x[i], -600); ys[i] = ldexp(y[i], -450); }
        ck_assert(tu_bits(ozref_ddot(n, xs, 1, ys, 1)) == tu_bits(s == 0 ? 0.0 : ldexp(s, -1050)));
        for (int i = 0; i < n; i++) { xs[i] = ldexp(x[i], 900); ys[i] = ldexp(y[i], 80); }
        ck_assert(tu_bits(ozref_ddot(n, xs, 1, ys, 1)) == tu_bits(ldexp(s, 980)));
    }
}
END_TEST

START_TEST(ref_rounding)
{
    double s1[1] = {0x1p-600}, s2[1] = {0x1.8p-475}, s3[1] = {0x1p-475};
    BITS_EQ(ozref_ddot(1, s1, 1, s2, 1), 0x1p-1074);         /* 1.5*2^-1075 -> 2^-1074 */
    BITS_EQ(ozref_ddot(1, s1, 1, s3, 1), 0.0);               /* tie -> even (0) */
    double s4[1] = {0x1.0000000000001p-475}, s5[1] = {0x1.0000000000001p-600};
    BITS_EQ(ozref_ddot(1, s5, 1, s4, 1), 0x1p-1074);         /* just above the tie: no double rounding */
    double t1[2] = {0x1p-537, -0x1p-537}, t2[2] = {0x1p-537, 0x1.0000000000001p-537};
    BITS_EQ(ozref_ddot(2, t1, 1, t2, 1), -0.0);              /* nonzero negative below 2^-1075 -> -0 */
    double o1[2] = {DBL_MAX, 0x1p970}, o2[2] = {1, 1};
    BITS_EQ(ozref_ddot(2, o1, 1, o2, 1), INFINITY);          /* DBL_MAX + half ulp -> Inf */
    double o3[3] = {DBL_MAX, 0x1p970, -0x1p800}, o4[3] = {1, 1, 1};
    BITS_EQ(ozref_ddot(3, o3, 1, o4, 1), DBL_MAX);
    double big[2] = {0x1p1000, 0x1p1000}, big2[2] = {0x1p23, 0x1p23};
    BITS_EQ(ozref_ddot(2, big, 1, big2, 1), INFINITY);
    double sub[3] = {0x1p-1074, 0x1p-1074, 0x1p-1074}, one[3] = {1, 1, -0.5};
    BITS_EQ(ozref_ddot(3, sub, 1, one, 1), 0x1p-1073);       /* 1.5*2^-1074 ties to even 2^-1073 */
}
END_TEST

START_TEST(ref_special)
{
    double n1[2] = {INFINITY, 1}, n2[2] = {0, 1};
    ck_assert(isnan(ozref_ddot(2, n1, 1, n2, 1)));
    double n3[2] = {INFINITY, -INFINITY}, n4[2] = {1, 1};
    ck_assert(isnan(ozref_ddot(2, n3, 1, n4, 1)));
    double n5[2] = {INFINITY, 1e308}, n6[2] = {1, 1e308};
    BITS_EQ(ozref_ddot(2, n5, 1, n6, 1), INFINITY);
    double n7[2] = {-INFINITY, 1}, n8[2] = {2, NAN};
    ck_assert(isnan(ozref_ddot(2, n7, 1, n8, 1)));
    double A[2] = {1, -1}, B[2] = {1, 1};
    ck_assert(isnan(ozref_dgemm_elem(0, 0, 0, 0, 2, INFINITY, A, 1, B, 2, 1.0, 5.0)));
    BITS_EQ(ozref_dgemm_elem(0, 0, 0, 0, 1, INFINITY, A, 1, B, 2, 1.0, 5.0), INFINITY);
    BITS_EQ(ozref_dgemm_elem(0, 0, 0, 0, 1, -INFINITY, A, 1, B, 2, 1.0, 5.0), -INFINITY);
    ck_assert(isnan(ozref_dgemm_elem(0, 0, 0, 0, 1, INFINITY, A, 1, B, 2, -INFINITY, 5.0)));
    BITS_EQ(ozref_dgemm_elem(0, 0, 0, 0, 2, 0.0, A, 1, B, 2, 2.0, 5.0), 10.0);
    BITS_EQ(ozref_dgemm_elem(0, 0, 0, 0, 2, 0.0, A, 1, B, 2, -1.0, 0.0), -0.0);   /* IEEE beta*c */
    BITS_EQ(ozref_dgemm_elem(0, 0, 0, 0, 0, 1.0, A, 1, B, 2, 0.0, NAN), 0.0);
    BITS_EQ(ozref_dgemm_elem(0, 0, 0, 0, 2, 1.0, A, 1, B, 2, 0.0, NAN), 0.0);
    double An[1] = {NAN};
    BITS_EQ(ozref_dgemm_elem(0, 0, 0, 0, 1, 0.0, An, 1, B, 1, 1.0, 7.0), 7.0);   /* alpha=0: A not read */
    ck_assert(isnan(ozref_dgemm_elem(0, 0, 0, 0, 1, 1.0, A, 1, B, 1, 1.0, NAN)));
    ck_assert(isnan(ozref_dgemm_elem(0, 0, 0, 0, 1, 1.0, A, 1, B, 1, INFINITY, 0.0)));
}
END_TEST

START_TEST(ref_gemm_gemv_layout)
{
    /* column-major 2x3 A, transposes and increments against hand-computed values */
    double A[8] = {1, 2, 99, 3, 4, 99, 5, 6}; /* lda 3: A = [1 3 5; 2 4 6] */
    double B[6] = {1, 0, 2, 0, 1, 1};          /* 3x2, ldb 3: B = [1 0; 0 1; 2 1] */
    double C[4] = {100, 200, 300, 400};        /* 2x2, ldc 2 */
    ozref_dgemm(0, 0, 2, 2, 3, 1.0, A, 3, B, 3, 1.0, C, 2);
    BITS_EQ(C[0], 111.0); BITS_EQ(C[1], 214.0); BITS_EQ(C[2], 308.0); BITS_EQ(C[3], 410.0);
    double x[3] = {1, 1, 1}, y[5] = {0, -1, 0, -1, 0};
    ozref_dgemv(0, 2, 3, 2.0, A, 3, x, 1, 1.0, y, -2); /* y(0) at y[2], y(1) at y[0] */
    BITS_EQ(y[2], 18.0); BITS_EQ(y[0], 24.0); BITS_EQ(y[1], -1.0); BITS_EQ(y[4], 0.0);
    double xt[2] = {1, -1}, yt[3] = {1, 1, 1};
    ozref_dgemv(1, 2, 3, 1.0, A, 3, xt, 1, 0.0, yt, 1);
    BITS_EQ(yt[0], -1.0); BITS_EQ(yt[1], -1.0); BITS_EQ(yt[2], -1.0);
    /* gemv with an empty inner dimension: y := beta*y */
    double ye[2] = {3, 4};
    ozref_dgemv(0, 2, 0, 1.0, A, 3, x, 1, 2.0, ye, 1);
    BITS_EQ(ye[0], 6.0); BITS_EQ(ye[1], 8.0);
}
END_TEST

START_TEST(ref_rng)
{
    ozref_rng a, b;
    ozref_rng_seed(&a, 12345);
    ozref_rng_seed(&b, 12345);
    double s = 0, s2 = 0;
    for (int i = 0; i < 20000; i++) {
        double u = ozref_uniform(&a);
        ck_assert(u >= 0 && u < 1);
        ck_assert(tu_bits(u) == tu_bits(ozref_uniform(&b)));
        double g = ozref_normal(&a);
        ozref_normal(&b);
        s += g; s2 += g * g;
    }
    ck_assert_msg(fabs(s / 20000) < 0.05 && fabs(s2 / 20000 - 1) < 0.05, "normal moments %g %g", s / 20000, s2 / 20000);
    double v[1000];
    ozref_fill_phi(&a, v, 1000, 8);
    double mx = 0, mn = INFINITY;
    for (int i = 0; i < 1000; i++) { ck_assert(isfinite(v[i])); mx = fmax(mx, fabs(v[i])); mn = fmin(mn, fabs(v[i])); }
    ck_assert_msg(mx / mn > 1e10, "phi=8 range too small: %g", mx / mn);
    ck_assert(ozref_ulps(1.0 + DBL_EPSILON, 1.0) == 1.0);
    ck_assert(ozref_ulps(0x1p-1074, 0.0) == 1.0);
    ck_assert(isinf(ozref_ulps(NAN, 1.0)));
    ck_assert(ozref_ulps(NAN, -NAN) == 0.0);
    ck_assert(isinf(ozref_ulps(INFINITY, DBL_MAX)));
    ck_assert(ozref_ulps(3.0, 3.0) == 0.0);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("ozref");
    TCase *tc = tcase_create("ref");
    tcase_set_timeout(tc, tu_timeout(60));
    tcase_add_test(tc, ref_easy);
    tcase_add_test(tc, ref_random_integers);
    tcase_add_test(tc, ref_rounding);
    tcase_add_test(tc, ref_special);
    tcase_add_test(tc, ref_gemm_gemv_layout);
    tcase_add_test(tc, ref_rng);
    suite_add_tcase(s, tc);
    return s;
}

TU_MAIN("test_ref", suite)
