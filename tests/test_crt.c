/* Ozaki scheme II (CRT_INT8): the moduli table and reconstruction constants checked in exact
 * integer arithmetic (GMP), exact products where the scaling keeps every bit, the error
 * within the truncation bound of each moduli count (a bound that shrinks as moduli are added),
 * DOUBLE mode within the row bound it selects its moduli for (k from 1 to 2^16 + 3),
 * power-of-two rescaling, special values.  Every accuracy check is a guaranteed bound, never
 * a comparison of two observed errors (one such comparison, ACCURATE <= 1.5 x FAST, failed on
 * seed 1709739142272774: more bits kept per row need not give a smaller maximum).  Reproducibility
 * across threads and workspace limits is in test_formats. */
#include <cblas.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include <gmp.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tu.h"
#include "crt/crt_consts.h"
#include "crt/crt_garner.h"

static ozblas_handle_t crt_handle(ozblas_mode_t mode, int moduli)
{
    ozblas_handle_t h = tu_handle(mode);
    ck_assert_int_eq(ozblas_set_engine(h, OZBLAS_ENGINE_CRT_INT8), OZBLAS_STATUS_SUCCESS);
    if (mode == OZBLAS_MODE_FIXED) ck_assert_int_eq(ozblas_set_split_count(h, moduli), OZBLAS_STATUS_SUCCESS);
    return h;
}

START_TEST(crt_constants)
{
    for (int a = 0; a < OZB_CRT_NMOD; a++)
        for (int b = a + 1; b < OZB_CRT_NMOD; b++) {
            int x = ozb_crt_moduli[a], y = ozb_crt_moduli[b];
            while (y) { int t = x % y; x = y; y = t; }
            ck_assert_msg(x == 1, "moduli %d and %d share a factor", ozb_crt_moduli[a], ozb_crt_moduli[b]);
        }
    mpz_t M, Mt, r, q;
    mpz_inits(M, Mt, r, q, NULL);
    mpf_set_default_prec(400);
    for (int s = 2; s <= OZB_CRT_MAXMOD; s++) {
        ozb_crt_consts c;
        ozb_crt_consts_init(s, &c);
        mpz_set_ui(M, 1);
        for (int t = 0; t < s; t++) mpz_mul_ui(M, M, (unsigned long)ozb_crt_moduli[t]);
        /* floor(log2 M) and the Cauchy-Schwarz budget 2^(2 alpha + 1) < M */
        ck_assert_int_eq(c.log2M, (int)mpz_sizeinbase(M, 2) - 1);
        mpz_ui_pow_ui(r, 2, (unsigned long)(2 * c.alpha + 1));
        ck_assert(mpz_cmp(r, M) < 0);
        /* M = Mh + Ml to 2^-100 */
        mpf_t Mf, d;
        mpf_inits(Mf, d, NULL);
        mpf_set_z(Mf, M);
        mpf_set_d(d, c.Mh);
        mpf_sub(d, Mf, d);
        {
            mpf_t l; mpf_init(l); mpf_set_d(l, c.Ml); mpf_sub(d, d, l);
            mpf_div(d, d, Mf); mpf_abs(d, d);
            ck_assert(mpf_get_d(d) < 0x1p-100);
            mpf_clear(l);
        }
        for (int t = 0; t < s; t++) {
            const unsigned long m = (unsigned long)ozb_crt_moduli[t];
            mpz_divexact_ui(Mt, M, m);
            /* y_t = (M/m_t)^-1 mod m_t, recovered from F1 (y = floor(F1 m / 2^44) + 1 unless exact) */
            mpz_set_si(q, c.F1[t]);
            mpz_mul_ui(q, q, m);
            mpz_tdiv_q_2exp(q, q, 44);
            unsigned long y = mpz_get_ui(q);
            if (((unsigned __int128)y << 44) != (unsigned __int128)c.F1[t] * m) y++;   /* F1 = floor(y 2^44 / m) */
            mpz_mul_ui(r, Mt, y);
            ck_assert_msg(mpz_fdiv_ui(r, m) == 1, "y_%d wrong for s = %d", t, s);
            /* F1 2^-44 + F2 2^-88 + f3 2^-88 = y / m to 2^-140 */
            mpf_t f, e;
            mpf_inits(f, e, NULL);
            mpf_set_ui(f, y); mpf_div_ui(f, f, m);
            mpf_set_si(e, c.F1[t]); mpf_div_2exp(e, e, 44); mpf_sub(f, f, e);
            mpf_set_si(e, c.F2[t]); mpf_div_2exp(e, e, 88); mpf_sub(f, f, e);
            mpf_set_d(e, c.f3[t]); mpf_div_2exp(e, e, 88); mpf_sub(f, f, e);
            mpf_abs(f, f);
            mpf_mul_2exp(f, f, 140);
            ck_assert_msg(mpf_cmp_ui(f, 1) < 0, "fraction of modulus %d inexact", t);
            mpf_clears(f, e, NULL);
        }
        mpf_clears(Mf, d, NULL);
    }
    mpz_clears(M, Mt, r, q, NULL);
}
END_TEST

/* Integer inputs whose scaled copies keep every bit: the CRT returns the exact product. */
START_TEST(crt_exact_integers)
{
    ozref_rng r;
    tu_rng(&r, "crt_exact_integers");
    const int64_t m = 37, n = 29, k = 300;
    double *A = tu_alloc(m * k), *B = tu_alloc(k * n), *C = tu_alloc(m * n), *R = tu_alloc(m * n);
    for (int64_t i = 0; i < m * k; i++) A[i] = floor((ozref_uniform(&r) - 0.5) * 2048.0);
    for (int64_t i = 0; i < k * n; i++) B[i] = floor((ozref_uniform(&r) - 0.5) * 2048.0) * 0x1p-20;
    /* the reconstruction carries C' to 2^-97 M absolutely (crt.c): exact up to 10 moduli */
    for (int s = 6; s <= 10; s += 2) {
        ozblas_handle_t h = crt_handle(OZBLAS_MODE_FIXED, s);
        ck_assert_int_eq(ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, m, n, k, 1.0, A, m, B, k, 0.0, C, m), OZBLAS_STATUS_SUCCESS);
        ozref_dgemm(0, 0, m, n, k, 1.0, A, m, B, k, 0.0, R, m);
        tu_check_bits(C, R, (size_t)(m * n), 0, "CRT on 11-bit integers (exact)");
        ozblas_destroy(h);
    }
    free(A); free(B); free(C); free(R);
}
END_TEST

/* max over elements of |C - exact| / (|A||B|): DGEMM's own (componentwise) error measure */
static double comp_error(int64_t m, int64_t n, int64_t k, const double *A, const double *B, const double *C, const double *R)
{
    double e = 0.0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            long double ab = 0;
            for (int64_t l = 0; l < k; l++) ab += fabsl((long double)A[i + l * m]) * fabsl((long double)B[l + j * k]);
            if (ab == 0) continue;
            double x = (double)(fabsl((long double)C[i + j * m] - (long double)R[i + j * m]) / ab);
            e = x > e ? x : e;
        }
    return e;
}

/* The truncation bound of FIXED mode with s moduli (crt.c, header): a 2^ka = A' + d with
 * |d| < 1, so |C - exact|_ij <= ||a_i||_1 2^-kb_j + ||b_j||_1 2^-ka_i + k 2^-(ka_i + kb_j),
 * plus the reconstruction (relative 2^-52 of C') and the final rounding.  FAST scaling takes
 * 2^-ka_i = 2^(c_i - alpha) with 2^c_i the power of two at or just above ||a_i||_2 (a
 * rounding margin: below 4 ||a_i||_2); ACCURATE takes ka_i at least that (more bits) for the
 * rows of op(A), so the same bound holds for both. */
static void check_fixed_bound(int64_t m, int64_t n, int64_t k, const double *A, const double *B, const double *C,
                              const double *R, int s, const char *ctx)
{
    ozb_crt_consts cs;
    ozb_crt_consts_init(s, &cs);
    const long double q = ldexpl(4.0L, -cs.alpha);
    for (int64_t j = 0; j < n; j++) {
        long double b1 = 0, b2 = 0;
        for (int64_t l = 0; l < k; l++) { const long double b = fabsl((long double)B[l + j * k]); b1 += b; b2 += b * b; }
        b2 = sqrtl(b2) * (1 + 0x1p-50L);
        for (int64_t i = 0; i < m; i++) {
            long double a1 = 0, a2 = 0;
            for (int64_t l = 0; l < k; l++) { const long double a = fabsl((long double)A[i + l * m]); a1 += a; a2 += a * a; }
            a2 = sqrtl(a2) * (1 + 0x1p-50L);
            const long double tr = a1 * q * b2 + b1 * q * a2 + (long double)k * q * a2 * q * b2;
            const long double bound = tr * (1 + 0x1p-40L) + ldexpl(fabsl((long double)R[i + j * m]) + tr, -50) + 0x1p-1070L;
            const long double err = fabsl((long double)C[i + j * m] - (long double)R[i + j * m]);
            ck_assert_msg(err <= bound, "%s, %d moduli: |C - exact| = %Lg above the truncation bound %Lg at (%lld, %lld) [seed %llu]",
                          ctx, s, err, bound, (long long)i, (long long)j, (unsigned long long)tu_seed);
        }
    }
}

/* DOUBLE mode's guarantee (crt.c, certify_tile): every element's truncation error is at most a
 * quarter of Algorithm 3's bound, 0.5 sqrt(k) u (|A||B|)_ij, componentwise (an element the
 * moduli count does not certify is correctly rounded); each element adds the reconstruction
 * (2^-52 relative) and the final rounding. */
static void check_double_bound(int64_t m, int64_t n, int64_t k, const double *A, const double *B, const double *C,
                               const double *R, const char *ctx)
{
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            long double ab = 0;
            for (int64_t l = 0; l < k; l++) ab += fabsl((long double)A[i + l * m]) * fabsl((long double)B[l + j * k]);
            const long double err = fabsl((long double)C[i + j * m] - (long double)R[i + j * m]);
            const long double bound = 0.5L * sqrtl((long double)k) * 0x1p-53L * ab * (1 + 0x1p-30L) +
                                      ldexpl(fabsl((long double)R[i + j * m]) + ab, -50) + 0x1p-1070L;
            ck_assert_msg(err <= bound, "%s: element (%lld, %lld) error %Lg above DOUBLE's bound %Lg [seed %llu]", ctx,
                          (long long)i, (long long)j, err, bound, (unsigned long long)tu_seed);
        }
}

START_TEST(crt_error_shrinks_with_moduli)
{
    ozref_rng r;
    tu_rng(&r, "crt_error_shrinks");
    const int64_t m = 40, n = 30, k = 700;
    double *A = tu_alloc(m * k), *B = tu_alloc(k * n), *C = tu_alloc(m * n), *R = tu_alloc(m * n);
    for (int f = 0; f < 3; f++) {
        const double phi = f * 0.5;
        tu_fill_mat(&r, A, m, k, m, phi);
        tu_fill_mat(&r, B, k, n, k, phi);
        ozref_dgemm(0, 0, m, n, k, 1.0, A, m, B, k, 0.0, R, m);
        for (int s = 6; s <= 16; s += 2) {
            ozblas_handle_t h = crt_handle(OZBLAS_MODE_FIXED, s);
            ck_assert_int_eq(ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, m, n, k, 1.0, A, m, B, k, 0.0, C, m), OZBLAS_STATUS_SUCCESS);
            ozblas_info_t info;
            ozblas_get_info(h, &info);
            ck_assert_int_eq(info.split_count, s);
            /* two moduli add ~16 bits to M, 8 per side: the bound drops ~256x per step */
            char ctx[64];
            snprintf(ctx, sizeof ctx, "phi %g", phi);
            check_fixed_bound(m, n, k, A, B, C, R, s, ctx);
            ozblas_destroy(h);
        }
    }
    free(A); free(B); free(C); free(R);
}
END_TEST

/* DOUBLE mode against OpenBLAS on the same inputs.  The measure is DGEMM's own:
 * componentwise |C - exact| / (|A||B|) (an ulp count would compare the two on the elements
 * that cancel, where both are far from the exact result and neither bound says anything). */

START_TEST(crt_double_vs_openblas)
{
    ozblas_handle_t h = crt_handle(OZBLAS_MODE_DOUBLE, 0);
    ozref_rng r;
    tu_rng(&r, "crt_double_vs_openblas");
    const int64_t shapes[][3] = {{30, 20, 1}, {30, 20, 7}, {40, 30, 100}, {60, 50, 1000}, {4, 3, 65539}};
    /* every phi: each element is certified against its own |A||B| or correctly rounded (a
     * row-wise choice keeps only the row bound at phi 2 and 4: measured 40x30x100, phi 4,
     * 2.6e-15 to 5e-14 against OpenBLAS's 1.1e-15 to 1.6e-15) */
    const double phis[] = {0, 0.5, 1, 2, 4};
    for (size_t sh = 0; sh < sizeof shapes / sizeof *shapes; sh++)
        for (size_t f = 0; f < sizeof phis / sizeof *phis; f++) {
            const int64_t m = shapes[sh][0], n = shapes[sh][1], k = shapes[sh][2];
            double *A = tu_alloc(m * k), *B = tu_alloc(k * n), *C = tu_alloc(m * n), *R = tu_alloc(m * n), *O = tu_alloc(m * n);
            tu_fill_mat(&r, A, m, k, m, phis[f]);
            tu_fill_mat(&r, B, k, n, k, phis[f]);
            ck_assert_int_eq(ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, m, n, k, 1.0, A, m, B, k, 0.0, C, m), OZBLAS_STATUS_SUCCESS);
            ozref_dgemm(0, 0, m, n, k, 1.0, A, m, B, k, 0.0, R, m);
            cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, 1.0, A, (int)m, B, (int)k, 0.0, O, (int)m);
            const double eo = comp_error(m, n, k, A, B, C, R), eb = comp_error(m, n, k, A, B, O, R);
            ozblas_info_t info;
            ozblas_get_info(h, &info);
            char ctx[128];
            snprintf(ctx, sizeof ctx, "%lldx%lldx%lld phi %g, CRT DOUBLE (%d moduli; error %g, OpenBLAS %g)", (long long)m,
                     (long long)n, (long long)k, phis[f], info.split_count, eo, eb);
            check_double_bound(m, n, k, A, B, C, R, ctx);
            free(A); free(B); free(C); free(R); free(O);
        }
    ozblas_destroy(h);
}
END_TEST

/* Scaling A by 2^p and B by 2^q scales the result by exactly 2^(p+q) (the scaling is chosen
 * from exponents only), in DOUBLE and FIXED mode. */
START_TEST(crt_pow2_rescaling)
{
    ozref_rng r;
    tu_rng(&r, "crt_pow2_rescaling");
    const int64_t m = 23, n = 17, k = 150;
    double *A = tu_alloc(m * k), *B = tu_alloc(k * n), *A2 = tu_alloc(m * k), *B2 = tu_alloc(k * n),
           *C = tu_alloc(m * n), *C2 = tu_alloc(m * n);
    const int ps[][2] = {{1, 0}, {-7, 13}, {300, -500}, {-900, 850}};
    for (int md = 0; md < 2; md++) {
        ozblas_handle_t h = crt_handle(md ? OZBLAS_MODE_FIXED : OZBLAS_MODE_DOUBLE, 12);
        for (size_t q = 0; q < 4; q++) {
            tu_fill_mat(&r, A, m, k, m, 1);
            tu_fill_mat(&r, B, k, n, k, 1);
            for (int64_t i = 0; i < m * k; i++) A2[i] = ldexp(A[i], ps[q][0]);
            for (int64_t i = 0; i < k * n; i++) B2[i] = ldexp(B[i], ps[q][1]);
            ck_assert_int_eq(ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, m, n, k, 1.0, A, m, B, k, 0.0, C, m), OZBLAS_STATUS_SUCCESS);
            ck_assert_int_eq(ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, m, n, k, 1.0, A2, m, B2, k, 0.0, C2, m), OZBLAS_STATUS_SUCCESS);
            for (int64_t i = 0; i < m * n; i++) {
                const double want = ldexp(C[i], ps[q][0] + ps[q][1]);
                ck_assert_msg(tu_bits(C2[i]) == tu_bits(want), "rescaled by 2^%d, 2^%d: %a vs %a", ps[q][0], ps[q][1], C2[i], want);
            }
        }
        ozblas_destroy(h);
    }
    free(A); free(B); free(A2); free(B2); free(C); free(C2);
}
END_TEST

/* Inf and NaN in rows and columns, beta and C special: CONTRACT §4 through the CRT path */
START_TEST(crt_special_values)
{
    ozref_rng r;
    tu_rng(&r, "crt_special_values");
    for (int md = 0; md < 2; md++) {
        const ozblas_mode_t mode = md ? OZBLAS_MODE_FIXED : OZBLAS_MODE_DOUBLE;
        ozblas_handle_t h = crt_handle(mode, 14);
        const int64_t m = 9, n = 7, k = 60;
        double *A = tu_alloc(m * k), *B = tu_alloc(k * n), *C = tu_alloc(m * n);
        for (int v = 0; v < 4; v++) {
            tu_fill_mat(&r, A, m, k, m, 1);
            tu_fill_mat(&r, B, k, n, k, 1);
            tu_fill_mat(&r, C, m, n, m, 1);
            A[2 + 5 * m] = v == 0 ? INFINITY : v == 1 ? NAN : -INFINITY;
            B[7 + 3 * k] = v == 2 ? INFINITY : 1.0;
            if (v == 3) { for (int64_t l = 0; l < k; l++) B[l + 4 * k] = 0.0; A[3 + 6 * m] = INFINITY; }   /* Inf * 0 */
            C[1] = v == 1 ? NAN : C[1];
            tu_gemm_params p = {0};
            p.m = m; p.n = n; p.k = k; p.alpha = 1.0; p.beta = v == 0 ? 0.0 : 0.5;
            tu_gemm_run(h, mode, &p, A, B, C, "crt special values");
        }
        free(A); free(B); free(C);
        ozblas_destroy(h);
    }
}
END_TEST

/* DOUBLE mode's uncertified elements (phi 4: most of them) with Inf, -Inf and NaN in C and a
 * negative beta: the correctly rounded fallback takes them with C as it came, so beta applies
 * once (guards the double application of beta: the output step writing beta C into such
 * elements and the fallback applying beta again give -0.5 * Inf, then -0.5 * -Inf = +Inf). */
START_TEST(crt_double_uncertified_specials)
{
    ozref_rng r;
    tu_rng(&r, "crt_double_uncertified_specials");
    ozblas_handle_t h = crt_handle(OZBLAS_MODE_DOUBLE, 0);
    const int64_t m = 24, n = 19, k = 80;
    double *A = tu_alloc(m * k), *B = tu_alloc(k * n), *C = tu_alloc(m * n), *C0 = tu_alloc(m * n);
    for (int rep = 0; rep < 3; rep++) {
        tu_fill_mat(&r, A, m, k, m, 4);
        tu_fill_mat(&r, B, k, n, k, 4);
        tu_fill_mat(&r, C, m, n, m, 1);
        for (int64_t e = rep; e < m * n; e += 5) C[e] = e % 3 == 0 ? INFINITY : e % 3 == 1 ? -INFINITY : NAN;
        for (int64_t e = 0; e < m * n; e++) C0[e] = C[e];
        ck_assert_int_eq(ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, m, n, k, 1.5, A, m, B, k, -0.5, C, m), OZBLAS_STATUS_SUCCESS);
        for (int64_t e = 0; e < m * n; e++) {
            if (isfinite(C0[e])) continue;
            const double want = -0.5 * C0[e];   /* the product is finite: beta C decides */
            ck_assert_msg(isnan(want) ? isnan(C[e]) : C[e] == want, "element %lld: C was %g, got %g, want %g [seed %llu]",
                          (long long)e, C0[e], C[e], want, (unsigned long long)tu_seed);
        }
        tu_gemm_params p = {0};
        p.m = m; p.n = n; p.k = k; p.alpha = 1.5; p.beta = -0.5;
        tu_gemm_run(h, OZBLAS_MODE_DOUBLE, &p, A, B, C0, "crt double uncertified specials");
    }
    free(A); free(B); free(C); free(C0);
    ozblas_destroy(h);
}
END_TEST

/* CORRECTLY_ROUNDED through the CRT: bit for bit the exact reference, transposes, alpha and
 * beta, wide spans (phi 4, exponents spread by 2^+-200 across rows: more moduli), spans past
 * the table (then FP64 slices, same bits), and multiple k-blocks are left to the sizes below. */
START_TEST(crt_correctly_rounded)
{
    ozblas_handle_t h = crt_handle(OZBLAS_MODE_CORRECTLY_ROUNDED, 0);
    ozref_rng r;
    tu_rng(&r, "crt_correctly_rounded");
    const int64_t sizes[][3] = {{20, 17, 1}, {33, 40, 300}, {9, 12, 2000}, {64, 65, 64}};
    const double phis[] = {0, 1, 4};
    int c = 0;
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++)
            for (size_t q = 0; q < 4; q++, c++) {
                tu_gemm_params p = {0};
                p.ta = ta; p.tb = tb;
                p.m = sizes[q][0]; p.n = sizes[q][1]; p.k = sizes[q][2];
                p.alpha = c % 3 == 0 ? 1.0 : c % 3 == 1 ? -0.375 : 3.0;
                p.beta = c % 2 ? 0.0 : -1.5;
                tu_gemm_random(h, OZBLAS_MODE_CORRECTLY_ROUNDED, p, phis[c % 3], &r, "crt_correctly_rounded");
            }
    /* rows and columns scaled far apart, cancellation to zero and to tiny results */
    const int64_t m = 30, n = 20, k = 50;
    double *A = tu_alloc(m * k), *B = tu_alloc(k * n), *C = tu_alloc(m * n);
    for (int v = 0; v < 3; v++) {
        tu_fill_mat(&r, A, m, k, m, 1);
        tu_fill_mat(&r, B, k, n, k, 1);
        for (int64_t i = 0; i < m; i++)
            for (int64_t l = 0; l < k; l++) A[i + l * m] = ldexp(A[i + l * m], v == 0 ? (int)(i * 13 % 400) - 200 : 0);
        if (v == 1)                                    /* column 3 = -(column 2): exact zeros */
            for (int64_t l = 0; l < k; l++) B[l + 3 * k] = -B[l + 2 * k];
        if (v == 2)                                    /* a span past the table: 2^-900 next to 1 */
            A[5] = 0x1.0000000000001p-900;
        tu_gemm_params p = {0};
        p.m = m; p.n = n; p.k = k; p.alpha = 1.0; p.beta = 0.0;
        tu_gemm_run(h, OZBLAS_MODE_CORRECTLY_ROUNDED, &p, A, B, C, "crt_correctly_rounded spans");
        ozblas_info_t info;
        ozblas_get_info(h, &info);
        if (v < 2) ck_assert_msg(info.engine == OZBLAS_ENGINE_CRT_INT8 && info.split_count >= 2, "CR through the CRT");
    }
    free(A); free(B); free(C);
    ozblas_destroy(h);
}
END_TEST

/* ACCURATE scaling: argument checks; at least FAST's accuracy (more bits per row, never
 * fewer); DOUBLE no worse than OpenBLAS; power-of-two rescaling and reproducibility. */
START_TEST(crt_accurate_scaling)
{
    ozblas_handle_t h = crt_handle(OZBLAS_MODE_FIXED, 12), hf = crt_handle(OZBLAS_MODE_FIXED, 12);
    ozblas_crt_scaling_t sc;
    ck_assert_int_eq(ozblas_get_crt_scaling(h, &sc), OZBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(sc, OZBLAS_CRT_SCALING_FAST);
    ck_assert_int_eq(ozblas_set_crt_scaling(h, (ozblas_crt_scaling_t)7), OZBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(ozblas_set_crt_scaling(NULL, OZBLAS_CRT_SCALING_FAST), OZBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(ozblas_get_crt_scaling(h, NULL), OZBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(ozblas_set_crt_scaling(h, OZBLAS_CRT_SCALING_ACCURATE), OZBLAS_STATUS_SUCCESS);
    ozref_rng r;
    tu_rng(&r, "crt_accurate_scaling");
    const int64_t m = 40, n = 30, k = 500;
    double *A = tu_alloc(m * k), *B = tu_alloc(k * n), *C = tu_alloc(m * n), *Cf = tu_alloc(m * n), *R = tu_alloc(m * n),
           *A2 = tu_alloc(m * k), *C2 = tu_alloc(m * n);
    const double phis[] = {0.5, 1, 2};
    for (int f = 0; f < 3; f++) {
        tu_fill_mat(&r, A, m, k, m, phis[f]);
        tu_fill_mat(&r, B, k, n, k, phis[f]);
        ozref_dgemm(0, 0, m, n, k, 1.0, A, m, B, k, 0.0, R, m);
        ck_assert_int_eq(ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, m, n, k, 1.0, A, m, B, k, 0.0, C, m), OZBLAS_STATUS_SUCCESS);
        ck_assert_int_eq(ozblas_dgemm(hf, OZBLAS_OP_N, OZBLAS_OP_N, m, n, k, 1.0, A, m, B, k, 0.0, Cf, m), OZBLAS_STATUS_SUCCESS);
        char ctx[64];
        snprintf(ctx, sizeof ctx, "phi %g, ACCURATE", phis[f]);
        check_fixed_bound(m, n, k, A, B, C, R, 12, ctx);
        snprintf(ctx, sizeof ctx, "phi %g, FAST", phis[f]);
        check_fixed_bound(m, n, k, A, B, Cf, R, 12, ctx);
        /* rescaling by 2^-300 (A) is exact */
        for (int64_t i = 0; i < m * k; i++) A2[i] = ldexp(A[i], -300);
        ck_assert_int_eq(ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, m, n, k, 1.0, A2, m, B, k, 0.0, C2, m), OZBLAS_STATUS_SUCCESS);
        for (int64_t i = 0; i < m * n; i++) ck_assert(tu_bits(C2[i]) == tu_bits(ldexp(C[i], -300)));
        /* threads and workspace limits */
        for (int t = 1; t <= 3; t++) {
            ozblas_set_num_threads(h, t);
            ozblas_set_workspace_limit(h, t == 2 ? (size_t)64 << 10 : 0);
            ck_assert_int_eq(ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, m, n, k, 1.0, A, m, B, k, 0.0, C2, m), OZBLAS_STATUS_SUCCESS);
            ck_assert(memcmp(C2, C, sizeof(double) * m * n) == 0);
        }
        ozblas_set_num_threads(h, 0);
        ozblas_set_workspace_limit(h, 0);
    }
    /* DOUBLE with ACCURATE set (DOUBLE takes the FAST scaling: the element property) */
    ozblas_handle_t hd = crt_handle(OZBLAS_MODE_DOUBLE, 0);
    ozblas_set_crt_scaling(hd, OZBLAS_CRT_SCALING_ACCURATE);
    for (int f = 0; f < 2; f++) {
        tu_fill_mat(&r, A, m, k, m, phis[f]);
        tu_fill_mat(&r, B, k, n, k, phis[f]);
        ozref_dgemm(0, 0, m, n, k, 1.0, A, m, B, k, 0.0, R, m);
        ck_assert_int_eq(ozblas_dgemm(hd, OZBLAS_OP_N, OZBLAS_OP_N, m, n, k, 1.0, A, m, B, k, 0.0, C, m), OZBLAS_STATUS_SUCCESS);
        check_double_bound(m, n, k, A, B, C, R, "ACCURATE DOUBLE");
        tu_gemm_params p = {0};
        p.m = m; p.n = n; p.k = k; p.alpha = -2.5; p.beta = 0.5;
        tu_gemm_random(hd, OZBLAS_MODE_DOUBLE, p, phis[f], &r, "crt accurate double");
    }
    ozblas_destroy(hd);
    free(A); free(B); free(C); free(Cf); free(R); free(A2); free(C2);
    ozblas_destroy(h);
    ozblas_destroy(hf);
}
END_TEST

/* RN(X 2^E) of a limb integer (crt_garner.c's ozb_round_limbs, and the device's copy in
 * kernels/ozb_crcr_ops.h): the round bit set, the 53 bits even, and the only other set bits in
 * the third limb from the top or lower -- above the midpoint, so rounded up (guards the third
 * limb left out of the sticky bit when the top limb's highest bit is set: 2^191 + 2^138 + 1
 * then rounds down to 2^191) */
#if defined(__x86_64__)
/* A pool started under FTZ/DAZ, its caller back in the standard modes: the CRT stages' own
 * regions (OZB_PARALLEL_IF, OZB_PARALLEL_FOR_IF) must enter the standard modes on every
 * thread.  A DGEMM with some rows of A subnormal, on 2 threads, against the same call on 1
 * (the calling thread alone, in the standard modes): the same bits. */
START_TEST(crt_pool_daz_restored)
{
    ozblas_handle_t h = crt_handle(OZBLAS_MODE_DOUBLE, 0);
    ozref_rng r;
    tu_rng(&r, "crt_pool_daz_restored");
    const int64_t n = 300;
    double *A = tu_alloc((size_t)(n * n)), *B = tu_alloc((size_t)(n * n));
    double *C1 = tu_alloc((size_t)(n * n)), *C2 = tu_alloc((size_t)(n * n));
    tu_fill_mat(&r, A, n, n, n, 1.0);
    tu_fill_mat(&r, B, n, n, n, 1.0);
    for (int64_t i = 3; i < n; i += 7)
        for (int64_t l = 0; l < n; l++) A[i + l * n] *= 0x1p-1060;           /* subnormal rows */
    ozblas_set_num_threads(h, 1);
    ck_assert_int_eq(ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, n, n, n, 1.0, A, n, B, n, 0.0, C1, n), OZBLAS_STATUS_SUCCESS);
    const unsigned csr = _mm_getcsr();
    _mm_setcsr(csr | 0x8040u);                              /* FTZ and DAZ */
    int team = 0;
#pragma omp parallel num_threads(2)
    {
#pragma omp atomic
        team++;
    }
    _mm_setcsr(csr);
    ozblas_set_num_threads(h, 2);
    ck_assert_int_eq(ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, n, n, n, 1.0, A, n, B, n, 0.0, C2, n), OZBLAS_STATUS_SUCCESS);
    ck_assert_int_ge(team, 1);
    tu_check_bits(C2, C1, (size_t)(n * n), 1, "CRT DGEMM on a pool started under FTZ/DAZ");
    free(A); free(B); free(C1); free(C2);
    ozblas_destroy(h);
}
END_TEST
#endif

START_TEST(crt_round_limbs_sticky)
{
    const uint64_t cases[][3] = {
        {1, 0, (1ull << 63) | (1ull << 10)},          /* 2^191 + 2^138 + 1: sticky in X[0] */
        {0, 1ull << 40, (1ull << 63) | (1ull << 10)}, /* sticky in X[1] (lo) */
        {1ull << 63, 0, (1ull << 63) | (1ull << 10)}, /* sticky at X[0]'s top */
    };
    for (int c = 0; c < 3; c++) {
        int ok = 0;
        const double r = ozb_round_limbs(cases[c], 3, 0, &ok);
        ck_assert_msg(ok && r == 0x1.0000000000001p191, "case %d: %a", c, r);
    }
    const uint64_t tie[3] = {0, 0, (1ull << 63) | (1ull << 10)};   /* an exact tie: to even (down) */
    int ok = 0;
    ck_assert(ozb_round_limbs(tie, 3, 0, &ok) == 0x1p191 && ok);
}
END_TEST

static Suite *crt_suite(void)
{
    Suite *s = suite_create("crt");
    TCase *tc = tcase_create("crt");
    tcase_set_timeout(tc, tu_timeout(300));
    tcase_add_test(tc, crt_constants);
    tcase_add_test(tc, crt_round_limbs_sticky);
#if defined(__x86_64__)
    tcase_add_test(tc, crt_pool_daz_restored);
#endif
    tcase_add_test(tc, crt_exact_integers);
    tcase_add_test(tc, crt_error_shrinks_with_moduli);
    tcase_add_test(tc, crt_double_vs_openblas);
    tcase_add_test(tc, crt_pow2_rescaling);
    tcase_add_test(tc, crt_special_values);
    tcase_add_test(tc, crt_double_uncertified_specials);
    tcase_add_test(tc, crt_correctly_rounded);
    tcase_add_test(tc, crt_accurate_scaling);
    suite_add_tcase(s, tc);
    return s;
}

TU_MAIN("test_crt", crt_suite)
