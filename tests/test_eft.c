/* The error-free DOT/GEMV (src/eft/eft_dot.c, eft_gemv_n.c): exact references over the
 * kernels' edges (lanes of 8, blocks of 128 products per lane, GEMV-N strips of 8 rows and
 * blocks of 32 columns, the parallel DOT's pieces, GEMM strips and column groups of 64, all
 * transposes), strides, alpha/beta and phi; magnitudes
 * that grow and shrink from block to block (a block summed again with a larger sigma);
 * special values, extreme exponents, exact zeros and cancellation, which go to the deep
 * (two-level) sums, the fused kernels or Scheme I; residuals b - A x, whose exact values are
 * often doubles or midpoints (the deep sums' exact-grid case); every path compared bit for bit. */
#define _POSIX_C_SOURCE 200112L   /* setenv */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tu.h"

static const ozblas_mode_t CR = OZBLAS_MODE_CORRECTLY_ROUNDED;

/* the knobs are read when a handle is created (core/knobs.c): each path gets its own handle */
enum { NPATHS = 4 };
static void set_path(int p)
{
    unsetenv("OZBLAS_NO_DEEP");
    unsetenv("OZBLAS_NO_DOT2");
    unsetenv("OZBLAS_NO_FUSED");
    if (p == 1) setenv("OZBLAS_NO_DEEP", "1", 1);    /* one level, then the fused kernels */
    if (p >= 2) setenv("OZBLAS_NO_DOT2", "1", 1);    /* the fused kernels, then Scheme I */
    if (p >= 3) setenv("OZBLAS_NO_FUSED", "1", 1);   /* Scheme I alone                  */
}

static int eft_ran(ozblas_handle_t h)
{
    ozblas_info_t info;
    ozblas_get_info(h, &info);
    return info.fused >= 2;     /* 3: the deep sums ran for some elements too */
}

START_TEST(eft_dot_reference)
{
    ozblas_handle_t h = tu_handle(CR);
    ozref_rng r;
    tu_rng(&r, "eft_dot_reference");
    /* lanes of 8, blocks of 1024 products, gathers of 512, parallel pieces from 65536 */
    const int64_t sizes[] = {1, 2, 7, 8, 9, 100, 511, 1023, 1024, 1025, 8191, 10000, 70001, 300000};
    const int64_t incs[][2] = {{1, 1}, {-1, 2}, {3, -1}};
    const double phis[] = {0, 1, 4, 12};
    int c = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (size_t q = 0; q < 3; q++, c++) {
            tu_dot_random(h, CR, sizes[s], incs[q][0], incs[q][1], phis[c % 4], &r, "eft_dot_reference");
            ck_assert_msg(eft_ran(h), "DOT n=%lld did not take the error-free path", (long long)sizes[s]);
        }
    ozblas_destroy(h);
}
END_TEST

START_TEST(eft_gemv_reference)
{
    ozblas_handle_t h = tu_handle(CR);
    ozref_rng r;
    tu_rng(&r, "eft_gemv_reference");
    /* rows of op(A) across strips of 8, inner sizes across blocks of 32 and 128 columns */
    const int64_t rows[] = {1, 3, 8, 9, 17, 64, 257};
    const int64_t inner[] = {1, 31, 32, 33, 127, 129, 1000, 4100};
    const double phis[] = {0, 1, 4, 12};
    int c = 0;
    for (int tr = 0; tr < 2; tr++)
        for (size_t a = 0; a < sizeof rows / sizeof *rows; a++)
            for (size_t b = 0; b < sizeof inner / sizeof *inner; b++, c++) {
                tu_gemv_params p = {0};
                p.trans = tr;
                p.m = tr ? inner[b] : rows[a];
                p.n = tr ? rows[a] : inner[b];
                p.lda = c % 2 ? p.m + 3 : 0;
                p.incx = c % 3 == 1 ? -2 : 1;
                p.incy = c % 4 == 3 ? 3 : 1;
                p.alpha = c % 3 ? 1.0 : -0.75;
                p.beta = c % 2 ? 0.5 : 0.0;
                tu_gemv_random(h, CR, p, phis[c % 4], &r, "eft_gemv_reference");
            }
    ozblas_destroy(h);
}
END_TEST

/* one GEMV on fixed inputs through each path: the same bits, and the reference's */
static void paths_agree(ozblas_handle_t h, int trans, int64_t m, int64_t n, int64_t lda, const double *A,
                        const double *x, double alpha, double beta, const double *y0, const char *ctx)
{
    const int64_t leny = trans ? n : m;
    double *y[NPATHS];
    for (int p = 0; p < NPATHS; p++) {
        y[p] = tu_alloc((size_t)leny);
        memcpy(y[p], y0, sizeof(double) * (size_t)leny);
        set_path(p);
        ozblas_handle_t hp = tu_handle(CR);
        ozblas_status_t st = ozblas_dgemv(hp, trans ? OZBLAS_OP_T : OZBLAS_OP_N, m, n, alpha, A, lda, x, 1, beta, y[p], 1);
        ck_assert_int_eq(st, OZBLAS_STATUS_SUCCESS);
        ozblas_destroy(hp);
    }
    set_path(0);
    for (int p = 1; p < NPATHS; p++) tu_check_bits(y[p], y[0], (size_t)leny, 1, ctx);
    tu_gemv_params prm = {trans, m, n, lda, 1, 1, alpha, beta};
    double *yc = tu_alloc((size_t)leny);
    memcpy(yc, y0, sizeof(double) * (size_t)leny);
    tu_gemv_run(h, CR, &prm, A, x, yc, ctx);
    for (int p = 0; p < NPATHS; p++) free(y[p]);
    free(yc);
}

/* GEMV-T rows of 257..1024 products (sigma from max|a| max|x| before the pass,
 * ozb_eft_split1_bounded): products growing 2^15 after the first four, one huge product
 * beside tiny ones, a row beyond 2^490, Inf and NaN in a row, NaN in x, cancellation to a
 * near tie, zero rows; every path the same bits, and the reference's. */
START_TEST(eft_gemv_t_bounded)
{
    ozblas_handle_t h = tu_handle(CR);
    ozref_rng r;
    tu_rng(&r, "eft_gemv_t_bounded");
    const int64_t ks[] = {257, 300, 1024};
    enum { ROWS = 9 };
    for (size_t q = 0; q < sizeof ks / sizeof *ks; q++)
        for (int pat = 0; pat < 6; pat++) {
            const int64_t k = ks[q], lda = k + 1;
            double *A = tu_alloc((size_t)(lda * ROWS)), *x = tu_alloc((size_t)k), y0[ROWS];
            tu_fill_mat(&r, A, k, ROWS, lda, 1.0);
            tu_fill_vec(&r, x, k, 1, 1.0);
            tu_fill_vec(&r, y0, ROWS, 1, 1.0);
            double *c0 = A, *c1 = A + lda, *c2 = A + 2 * lda, *c3 = A + 3 * lda, *c4 = A + 4 * lda, *c5 = A + 5 * lda;
            for (int64_t l = 0; l < k; l++) {
                c0[l] = l < 4 ? 1.0 : ldexp(1.0 + fabs(c0[l]), 15);          /* growth after four */
                c1[l] = l == k / 2 ? 0x1p200 : ldexp(c1[l], -30);              /* one huge, many tiny */
                c4[l] = 0.0;                                                   /* a zero row */
            }
            c2[k - 1] = pat == 1 ? INFINITY : pat == 2 ? NAN : 0x1p495;         /* beyond 2^490: the general path */
            if (pat == 3) x[k / 3] = NAN;
            if (pat == 4) for (int64_t l = 0; l < k; l++) x[l] = ldexp(x[l], -1000);   /* subnormal products */
            /* row 3: x's dot minus RN of it plus a half-ulp (a near tie that cancels) */
            double d = 0.0;
            for (int64_t l = 0; l < k - 1; l++) d += c3[l] * x[l];
            c3[k - 1] = x[k - 1] != 0.0 ? -(d + ldexp(d, -53)) / x[k - 1] : 0.0;
            if (pat == 5) for (int64_t l = 0; l < k; l++) c5[l] = -c0[l];       /* two rows that cancel */
            char ctx[80];
            snprintf(ctx, sizeof ctx, "eft gemv T bounded k=%lld pattern %d", (long long)k, pat);
            paths_agree(h, 1, k, ROWS, lda, A, x, pat % 2 ? -1.0 : 0.75, pat % 3 ? 0.5 : 0.0, y0, ctx);
            free(A); free(x);
        }
    ozblas_destroy(h);
}
END_TEST

/* GEMV-N strips in pairs (eft_gemv_n.c, strip_block2, the running split with max|d| as the
 * proof): products growing 2^25 inside a block (the pair's sigma too small: summed again), an
 * Inf in one strip of a pair (the pair refused: each strip alone, that one left to the later
 * methods), products beyond 2^990 in another, a last partial strip, and lda a multiple of
 * 2048 (single strips only); every path the same bits, and MPFR's. */
START_TEST(eft_gemv_n_pairs)
{
    ozblas_handle_t h = tu_handle(CR);
    ozref_rng r;
    tu_rng(&r, "eft_gemv_n_pairs");
    /* and columns of 2100 rows (at least 2048: blocks of BLN / 4 columns, a partial strip) */
    const int64_t ms[] = {40, 40, 2100}, ns[] = {200, 200, 75}, ldas[] = {40, 2048, 2100};
    double *A = tu_alloc((size_t)(2100 * 200)), *x = tu_alloc(200), *y0 = tu_alloc(2100);
    for (int q = 0; q < 3; q++)
        for (int variant = 0; variant < 3; variant++) {
            const int64_t lda = ldas[q], m = ms[q], n = ns[q];
            tu_fill_mat(&r, A, m, n, lda, 1);
            tu_fill_vec(&r, x, n, 1, 1);
            tu_fill_vec(&r, y0, m, 1, 1);
            for (int64_t l = 70 * n / 200; l < n; l++) A[3 + l * lda] = ldexp(A[3 + l * lda], 25);   /* grows mid-block */
            if (variant >= 1) A[20 + (150 * n / 200) * lda] = INFINITY;
            if (variant == 2)
                for (int64_t l = 0; l < n; l++) A[33 + l * lda] = ldexp(A[33 + l * lda], 700), x[l] = ldexp(x[l], l % 2 ? 300 : 0);
            paths_agree(h, 0, m, n, lda, A, x, variant == 1 ? -1.0 : 0.75, variant ? 0.5 : 0.0, y0, "eft gemv-n pairs");
        }
    free(A); free(x); free(y0);
    ozblas_destroy(h);
}
END_TEST

/* Magnitudes that grow by 2^40 and shrink by 2^60 between blocks, and a huge element in the
 * middle of a block: blocks summed again with a larger sigma; RN(exact) on every path. */
START_TEST(eft_magnitude_steps)
{
    ozblas_handle_t h = tu_handle(CR);
    ozref_rng r;
    tu_rng(&r, "eft_magnitude_steps");
    const int64_t m = 19, n = 3000, lda = 19;
    double *A = tu_alloc((size_t)(lda * n)), *x = tu_alloc((size_t)n), *y0 = tu_alloc((size_t)n);
    for (int tr = 0; tr < 2; tr++) {
        tu_fill_mat(&r, A, m, n, lda, 1);
        tu_fill_vec(&r, x, tr ? m : n, 1, 1);
        tu_fill_vec(&r, y0, tr ? n : m, 1, 1);
        const int64_t nx = tr ? m : n;
        for (int64_t l = 0; l < nx; l++) {
            const int64_t step = l / 100;              /* GEMV-N: blocks of 32 columns */
            x[l] = ldexp(x[l], (int)(step % 3 == 1 ? 40 : step % 3 == 2 ? -60 : 0));
        }
        x[nx / 2] = 0x1p300;
        paths_agree(h, tr, m, n, lda, A, x, 1.0, 0.0, y0, "eft magnitude steps");
    }
    /* DOT: growth inside the lanes' blocks of 128 */
    for (int64_t l = 0; l < n; l++) x[l] = ldexp(ozref_uniform(&r) - 0.5, (int)(l / 300) * 25);
    double d;
    ck_assert_int_eq(ozblas_ddot(h, n, A, 1, x, 1, &d), OZBLAS_STATUS_SUCCESS);
    ck_assert(d == ozref_ddot(n, A, 1, x, 1));
    ozblas_info_t info;
    ozblas_get_info(h, &info);
    /* the error-free path ran; whether every element was certified depends on how close the
     * (random) exact values fall to a rounding boundary, so it is not asserted: the bits are */
    ck_assert_msg(info.fused == 2, "fused %d", info.fused);
    free(A); free(x); free(y0);
    ozblas_destroy(h);
}
END_TEST

/* Rows with Inf, NaN, subnormal-only entries, entries near overflow, zeros, a huge spread,
 * and alpha, beta, C that make the result overflow or vanish. */
START_TEST(eft_special_rows)
{
    ozblas_handle_t h = tu_handle(CR);
    ozref_rng r;
    tu_rng(&r, "eft_special_rows");
    const int64_t m = 27, n = 700, lda = 27;
    double *A = tu_alloc((size_t)(lda * n)), *x = tu_alloc((size_t)n), *y0 = tu_alloc((size_t)n);
    for (int tr = 0; tr < 2; tr++)
        for (int variant = 0; variant < 4; variant++) {
            tu_fill_mat(&r, A, m, n, lda, 1);
            tu_fill_vec(&r, x, tr ? m : n, 1, 1);
            tu_fill_vec(&r, y0, tr ? n : m, 1, 1);
#define OPA(i, l) (*(tr ? &A[(l) + (i) * lda] : &A[(i) + (l) * lda]))
            const int64_t rows = tr ? n : m, inner = tr ? m : n;
            for (int64_t l = 0; l < inner; l++) {
                OPA(1 % rows, l) *= 0x1p-1070;                      /* subnormal row */
                OPA(2 % rows, l) *= 0x1p1015;                       /* near overflow */
                OPA(4 % rows, l) = 0.0;                             /* zero row: exact zero */
                if (l >= inner / 2) OPA(5 % rows, l) *= 0x1p-1000;  /* huge exponent spread */
                OPA(6 % rows, l) *= 0x1p-520;                       /* products near 2^-1040 */
                if (l % 2) OPA(7 % rows, l) = -OPA(7 % rows, l - 1);   /* cancels exactly (x pairs below) */
            }
            OPA(3 % rows, inner / 3) = variant == 0 ? INFINITY : variant == 1 ? NAN : -INFINITY;
            if (variant == 3) for (int64_t l = 1; l < inner; l += 2) x[l] = x[l - 1];
            if (variant == 1) x[inner - 1] = 0x1.fp1020;
            if (variant == 2) y0[0] = INFINITY;
            const double alpha = variant == 2 ? 0x1p-600 : variant == 1 ? 0x1p600 : 1.0;
            paths_agree(h, tr, m, n, lda, A, x, alpha, variant >= 1 ? 2.0 : 0.0, y0, "eft special rows");
#undef OPA
        }
    free(A); free(x); free(y0);
    ozblas_destroy(h);
}
END_TEST

/* x = [u, u], a row = [v, -v] with one element perturbed by 2^-s relative: the exact result is
 * ~2^-s of the row's scale, so large s leaves the row to the fused kernels (and an exact zero
 * to Scheme I). */
START_TEST(eft_cancellation)
{
    ozblas_handle_t h = tu_handle(CR);
    ozref_rng r;
    tu_rng(&r, "eft_cancellation");
    const int64_t half = 1500, n = 2 * half, m = 7;
    const int shifts[] = {0, 20, 40, 60, 75, 130, 1000};
    double *A = tu_alloc((size_t)(m * n)), *x = tu_alloc((size_t)n), *y0 = tu_alloc((size_t)m);
    tu_fill_vec(&r, x, half, 1, 1);
    memcpy(x + half, x, sizeof(double) * (size_t)half);
    for (int64_t i = 0; i < m; i++) {
        for (int64_t l = 0; l < half; l++) {
            const double v = (ozref_uniform(&r) - 0.5) * exp(ozref_normal(&r));
            A[i + l * m] = v;
            A[i + (l + half) * m] = -v;
        }
        const int64_t l = (int64_t)(ozref_uniform(&r) * (double)half);
        if (shifts[i] < 1000) A[i + (l + half) * m] += ldexp(A[i + l * m], -shifts[i]);
        y0[i] = 0.0;
    }
    paths_agree(h, 0, m, n, m, A, x, 1.0, 0.0, y0, "eft cancellation N");
    ozblas_info_t info;
    ozblas_get_info(h, &info);
    /* the rows at 2^-130 and the exact zero are beyond any bound of the error-free sums */
    ck_assert_msg(info.fused >= 2 && info.exact_fallbacks >= 2, "fused %d fallbacks %lld", info.fused, (long long)info.exact_fallbacks);
    double *At = tu_alloc((size_t)(m * n));
    for (int64_t i = 0; i < m; i++)
        for (int64_t l = 0; l < n; l++) At[l + i * n] = A[i + l * m];
    paths_agree(h, 1, n, m, n, At, x, 1.0, 0.0, y0, "eft cancellation T");
    for (int64_t i = 0; i < m; i++) {
        double d;
        ck_assert_int_eq(ozblas_ddot(h, n, At + i * n, 1, x, 1, &d), OZBLAS_STATUS_SUCCESS);
        ck_assert(d == ozref_ddot(n, At + i * n, 1, x, 1));
    }
    free(A); free(At); free(x); free(y0);
    ozblas_destroy(h);
}
END_TEST

/* A contiguous short DDOT takes the direct path (dispatch.c: ozb_run_dot_direct, its report
 * written when read) and a strided one with the same values the general path: the same
 * RN(exact) and the same report, field for field, also when the handle's mode changes
 * between the call and the read (the report is the call's). */
START_TEST(eft_dot_direct_info)
{
    ozblas_handle_t h = tu_handle(OZBLAS_MODE_DOUBLE);
    ozref_rng r;
    tu_rng(&r, "eft_dot_direct_info");
    const int64_t sizes[] = {1, 3, 16, 100, 1024};
    double *x = tu_alloc(2048), *y = tu_alloc(2048), *x2 = tu_alloc(4096);
    for (int s = 0; s < 5; s++) {
        const int64_t n = sizes[s];
        tu_fill_vec(&r, x, n, 1, 2);
        tu_fill_vec(&r, y, n, 1, 1);
        for (int64_t l = 0; l < n; l++) x2[2 * l] = x[l];
        ck_assert_int_eq(ozblas_set_mode(h, OZBLAS_MODE_DOUBLE), OZBLAS_STATUS_SUCCESS);
        double d1 = 0.0, d2 = 0.0;
        ck_assert_int_eq(ozblas_ddot(h, n, x2, 2, y, 1, &d2), OZBLAS_STATUS_SUCCESS);
        ozblas_info_t general, direct;
        ck_assert_int_eq(ozblas_get_info(h, &general), OZBLAS_STATUS_SUCCESS);
        ck_assert_int_eq(ozblas_ddot(h, n, x, 1, y, 1, &d1), OZBLAS_STATUS_SUCCESS);
        ck_assert_int_eq(ozblas_set_mode(h, OZBLAS_MODE_FIXED), OZBLAS_STATUS_SUCCESS);
        ck_assert_int_eq(ozblas_get_info(h, &direct), OZBLAS_STATUS_SUCCESS);
        const double ref = ozref_ddot(n, x, 1, y, 1);
        ck_assert_msg(d1 == ref && d2 == ref, "n=%lld: direct %a, general %a, RN(exact) %a", (long long)n, d1, d2, ref);
        ck_assert_msg(direct.fused == 2 && direct.block_k == n && direct.mode == OZBLAS_MODE_DOUBLE,
                      "n=%lld: fused %d block_k %lld mode %d", (long long)n, direct.fused, (long long)direct.block_k, (int)direct.mode);
#define SAME(f) ck_assert_msg(direct.f == general.f, "n=%lld: the direct path's report differs in " #f, (long long)n)
        SAME(slices_a); SAME(slices_b); SAME(split_count); SAME(fast_mode); SAME(mode); SAME(summation); SAME(engine);
        SAME(bits_per_slice); SAME(gemm_calls); SAME(slice_products); SAME(gemm_flops); SAME(blocks); SAME(block_m);
        SAME(block_n); SAME(block_k); SAME(exact_fallbacks); SAME(lazy_fixups); SAME(seconds_split);
        SAME(seconds_multiply); SAME(seconds_sum); SAME(seconds_total); SAME(fused);
#undef SAME
        /* a later call's report replaces the short DOT's */
        ck_assert_int_eq(ozblas_ddot(h, n, x, 1, y, 1, &d1), OZBLAS_STATUS_SUCCESS);
        ck_assert_int_eq(ozblas_get_info(h, &direct), OZBLAS_STATUS_SUCCESS);
        ck_assert_msg(direct.mode == OZBLAS_MODE_FIXED, "n=%lld: FIXED call's report: mode %d", (long long)n, (int)direct.mode);
    }
    /* what the direct path leaves undecided or refuses, contiguous: products beyond 2^990
     * (the split on the scaled DOT), Inf, NaN, exact zeros, cancellation to 2^-60 */
    ozblas_handle_t hc = tu_handle(CR);
    const int64_t ns[] = {3, 100};
    char ctx[96];
    for (int s = 0; s < 2; s++)
        for (int pat = 0; pat < 5; pat++) {
            const int64_t n = ns[s];
            tu_fill_vec(&r, x, n, 1, 1);
            tu_fill_vec(&r, y, n, 1, 1);
            switch (pat) {
            case 0: for (int64_t l = 0; l < n; l++) { x[l] = ldexp(x[l], 520); y[l] = ldexp(y[l], 480); } break;
            case 1: x[n / 2] = INFINITY; break;
            case 2: y[n - 1] = NAN; break;
            case 3: for (int64_t l = 0; l < n; l++) x[l] = 0.0; break;
            default:
                for (int64_t l = 0; l + 1 < n; l += 2) { x[l + 1] = -x[l]; y[l + 1] = y[l]; }
                x[0] += ldexp(x[0], -60);
                break;
            }
            snprintf(ctx, sizeof ctx, "direct DOT n=%lld case %d", (long long)n, pat);
            tu_dot_run(hc, CR, n, x, 1, y, 1, ctx);
        }
    ozblas_destroy(hc);
    free(x); free(y); free(x2);
    ozblas_destroy(h);
}
END_TEST

/* Short DOTs (k <= 1024: one sigma for every product, src/eft/eft_dot_small.c) across its
 * edges: the vector tail (k mod 4), the 256-product budget switch, strides; magnitudes that
 * grow past the first products' guess (a second pass), fall far below them, or reach the range
 * limit; special values in the first vector, the middle and the tail; cancellation; tiny
 * products; alpha and beta (a GEMV with one output element).  RN(exact) bit for bit. */
START_TEST(eft_dot_short)
{
    ozblas_handle_t h = tu_handle(CR);
    ozref_rng r;
    tu_rng(&r, "eft_dot_short");
    const int64_t sizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 15, 16, 17, 100, 255, 256, 257, 300, 1023, 1024};
    const int64_t incs[][2] = {{1, 1}, {-1, 2}, {3, -1}};
    const int nsz = (int)(sizeof sizes / sizeof *sizes);
    double *x = tu_alloc(3 * 1024), *y = tu_alloc(3 * 1024);
    char ctx[128];
    for (int s = 0; s < nsz; s++) {
        const int64_t n = sizes[s];
        for (int pat = 0; pat < 10; pat++) {
            const int64_t ix = incs[pat % 3][0], iy = incs[pat % 3][1];
            tu_fill_vec(&r, x, n, ix, pat % 2 ? 4 : 1);
            tu_fill_vec(&r, y, n, iy, 1);
            for (int64_t l = 0; l < n; l++) {
                double *xl = tu_vec_elem(x, n, ix, l), *yl = tu_vec_elem(y, n, iy, l);
                switch (pat) {
                case 1: *xl = ldexp(*xl, (int)(l * 45 / n)); break;               /* growth past the guess */
                case 2: *xl = ldexp(*xl, l < 4 ? 0 : -80); break;                 /* far below the first */
                case 3: if (l == n - 1) *xl = ldexp(*xl, 200); break;             /* the last one huge */
                case 4: *xl = ldexp(*xl, 500); *yl = ldexp(*yl, 489); break;      /* near the range limit */
                case 5: *xl = ldexp(*xl, -540); *yl = ldexp(*yl, -530); break;    /* tiny products */
                case 6:                                                           /* cancellation */
                    if (l >= n / 2 && l - n / 2 < n / 2) {
                        *xl = -*tu_vec_elem(x, n, ix, l - n / 2);
                        *yl = *tu_vec_elem(y, n, iy, l - n / 2);
                        if (l == n - 1) *xl += ldexp(*xl, -60);
                    }
                    break;
                case 7: if (l == (n - 1) / 2) *xl = (s % 2) ? INFINITY : NAN; break;
                case 8: if (l == n - 1) *yl = -INFINITY; break;
                case 9:   /* one sign, 2^14..2^16 after four 1s: sums beyond sigma unless it is redone */
                    *xl = l < 4 ? 1.0 : ldexp(1.0 + fabs(*xl) / (1.0 + fabs(*xl)), 15);
                    *yl = l < 4 ? 1.0 : 0.5 + fabs(*yl) / (2.0 + 2.0 * fabs(*yl));
                    break;
                default: break;
                }
            }
            snprintf(ctx, sizeof ctx, "eft dot short pattern %d", pat);
            tu_dot_run(h, CR, n, x, ix, y, iy, ctx);
            if (pat == 0 || pat == 1) {
                ozblas_info_t info;
                ozblas_get_info(h, &info);
                ck_assert_msg(info.fused == 2, "n=%lld pattern %d: fused %d", (long long)n, pat, info.fused);
            }
        }
        /* one output element: alpha and beta */
        tu_gemv_params p = {0};
        p.trans = s % 2;
        p.m = p.trans ? n : 1;
        p.n = p.trans ? 1 : n;
        p.incx = s % 3 == 1 ? -2 : 1;
        p.incy = 1;
        p.alpha = s % 3 ? -0.75 : 3.0;
        p.beta = s % 2 ? 0.5 : 0.0;
        tu_gemv_random(h, CR, p, 1, &r, "eft dot short gemv");
    }
    /* the exact sum 1 + 2^-53 - 2^-96 (RN: 1) where the sum of the split's residuals is
     * 1 + 2^-53 + 2^-96 (the residual of (2^-37 + 2^-66)(1 - 2^-29) = 2^-37 - 2^-95 rounds to
     * 2^-37): only the bound keeps it from being certified as 1 + 2^-52 */
    const double tx[4] = {1.0, 0x1p-37 + 0x1p-66, 0x1p-96, -0x1p-37 + 0x1p-53};
    const double ty[4] = {1.0, 1.0 - 0x1p-29, 1.0, 1.0};
    double d;
    ck_assert_int_eq(ozblas_ddot(h, 4, tx, 1, ty, 1, &d), OZBLAS_STATUS_SUCCESS);
    ck_assert_msg(d == 1.0 && d == ozref_ddot(4, tx, 1, ty, 1), "near tie: %a", d);
    free(x); free(y);
    ozblas_destroy(h);
}
END_TEST

START_TEST(eft_gemm_reference)
{
    ozblas_handle_t h = tu_handle(CR);
    ozref_rng r;
    tu_rng(&r, "eft_gemm_reference");
    /* m below and above a strip of 8, n around the column groups of 64 (units by strip up to
     * 128 columns, by group beyond), k across blocks of 128 */
    const int64_t shapes[][3] = {{1, 5, 40}, {3, 9, 129}, {8, 2, 128}, {9, 17, 1}, {17, 129, 33},
                                 {40, 200, 300}, {130, 3, 257}};
    const double phis[] = {0, 1, 4, 12};
    int c = 0;
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++)
            for (size_t q = 0; q < sizeof shapes / sizeof *shapes; q++, c++) {
                tu_gemm_params p = {0};
                p.ta = ta; p.tb = tb;
                p.m = shapes[q][0]; p.n = shapes[q][1]; p.k = shapes[q][2];
                p.lda = c % 2 ? (ta ? p.k : p.m) + 2 : 0;
                p.ldc = c % 3 == 1 ? p.m + 1 : 0;
                p.alpha = c % 3 == 0 ? 1.0 : c % 3 == 1 ? -1.0 : 0.625;
                p.beta = c % 2 ? 0.0 : -1.5;
                tu_gemm_random(h, CR, p, phis[c % 4], &r, "eft_gemm_reference");
                /* which path certifies depends on the data where phi = 12 (entries over ~2^50
                 * binades), and the inputs come from libm's exp, whose last bits may differ
                 * between C libraries: on an H100 host (Ubuntu's glibc) one 40x200x300 case
                 * takes another path, with the same (MPFR-checked) bits */
                if (phis[c % 4] <= 4)
                    ck_assert_msg(eft_ran(h), "GEMM %lldx%lldx%lld did not take the error-free path", (long long)p.m,
                              (long long)p.n, (long long)p.k);
            }
    ozblas_destroy(h);
}
END_TEST

/* Updates C := C -+ A B (alpha = +-1, beta = 1, as LAPACK's blocked algorithms make them: the
 * bracketing certificate, eft_cert4.h) against MPFR: random C; C = RN(-+A B) (every element a
 * residual, exact zeros among them); C near the overflow threshold; one and two blocks of k;
 * and values just off a rounding midpoint, which only a bracket that holds can leave to the
 * exact sums: (1 + 3 2^-52) - (2^-53 + 2^-107) lies just below the midpoint of 1 + 2^-52 and
 * 1 + 2^-51 (so RN is 1 + 2^-52), while its TwoSum and a single rounding of the rest would
 * land on the midpoint and round to even */
START_TEST(eft_gemm_update)
{
    ozblas_handle_t h = tu_handle(CR);
    ozref_rng r;
    tu_rng(&r, "eft_gemm_update");
    const int64_t shapes[][3] = {{8, 2, 5}, {16, 7, 64}, {40, 13, 130}, {17, 6, 1}};
    char ctx[120];
    for (size_t q = 0; q < sizeof shapes / sizeof *shapes; q++)
        for (int sign = -1; sign <= 1; sign += 2)
            for (int kind = 0; kind < 3; kind++) {
                tu_gemm_params p = {0};
                p.m = shapes[q][0]; p.n = shapes[q][1]; p.k = shapes[q][2];
                p.alpha = sign; p.beta = 1.0;
                int64_t lda, ldb, ldc;
                size_t na, nb, nc;
                tu_gemm_sizes(&p, &lda, &ldb, &ldc, &na, &nb, &nc);
                double *A = tu_alloc(na), *B = tu_alloc(nb), *C = tu_alloc(nc);
                ozref_fill_phi(&r, A, (int64_t)na, 1.0);
                ozref_fill_phi(&r, B, (int64_t)nb, 1.0);
                if (kind == 1)
                    ck_assert_int_eq(ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, p.m, p.n, p.k, -p.alpha, A, lda, B, ldb, 0.0, C,
                                                  ldc), 0);
                else {
                    ozref_fill_phi(&r, C, (int64_t)nc, 1.0);
                    if (kind == 2)
                        for (size_t i = 0; i < nc; i++) C[i] = ldexp(C[i], 1022) + (i % 5 == 0 ? 0x1.ffffffffffffep1023 : 0.0);
                }
                snprintf(ctx, sizeof ctx, "update %lldx%lldx%lld alpha %d kind %d", (long long)p.m, (long long)p.n,
                         (long long)p.k, sign, kind);
                tu_gemm_run(h, CR, &p, A, B, C, ctx);
                free(A); free(B); free(C);
            }
    /* just off midpoints: rows with + 2^-107, - 2^-107, 0 (an exact midpoint: even) */
    tu_gemm_params p = {0};
    p.m = 16; p.n = 2; p.k = 2; p.alpha = -1.0; p.beta = 1.0;
    double A[32], B[4] = { 1.0, 1.0, 1.0, 1.0 }, C[32];
    for (int i = 0; i < 16; i++) {
        A[i] = 0x1p-53;
        A[16 + i] = i % 3 == 0 ? 0x1p-107 : i % 3 == 1 ? -0x1p-107 : 0.0;
        C[i] = C[16 + i] = 1.0 + 3 * 0x1p-52;
    }
    tu_gemm_run(h, CR, &p, A, B, C, "update: just off a midpoint");
    ozblas_destroy(h);
}
END_TEST

/* C = alpha op(A) B + beta C0 (B k x n, ldb k; C m x n, ldc m) on every path, the same bits on
 * all and RN(exact) (the reference); returns 1 where the default path's info says the deep
 * sums ran. */
static int gemm_paths(ozblas_handle_t h, int ta, int64_t m, int64_t n, int64_t k, double alpha, const double *A,
                      int64_t lda, const double *B, double beta, const double *C0, const char *ctx)
{
    double *Cp[NPATHS];
    int deep = 0;
    for (int p = 0; p < NPATHS; p++) {
        Cp[p] = tu_alloc((size_t)(m * n));
        memcpy(Cp[p], C0, sizeof(double) * (size_t)(m * n));
        set_path(p);
        ozblas_handle_t hp = tu_handle(CR);
        ck_assert_int_eq(ozblas_dgemm(hp, ta ? OZBLAS_OP_T : OZBLAS_OP_N, OZBLAS_OP_N, m, n, k, alpha, A, lda, B, k, beta,
                                      Cp[p], m), OZBLAS_STATUS_SUCCESS);
        if (p == 0) {
            ozblas_info_t info;
            ozblas_get_info(hp, &info);
            deep = info.fused == 3;
        }
        ozblas_destroy(hp);
    }
    set_path(0);
    for (int p = 1; p < NPATHS; p++) tu_check_bits(Cp[p], Cp[0], (size_t)(m * n), 1, ctx);
    tu_gemm_params prm = {0};
    prm.ta = ta; prm.m = m; prm.n = n; prm.k = k; prm.alpha = alpha; prm.beta = beta;
    double *Cr = tu_alloc((size_t)(m * n));
    memcpy(Cr, C0, sizeof(double) * (size_t)(m * n));
    tu_gemm_run(h, CR, &prm, A, B, Cr, ctx);
    tu_check_bits(Cr, Cp[0], (size_t)(m * n), 1, ctx);
    for (int p = 0; p < NPATHS; p++) free(Cp[p]);
    free(Cr);
    return deep;
}

/* The GEMM's probe (eft_cr.c: the middle strip times the middle pair of columns, computed
 * first as part of the call) with mixed outcomes and beta != 0: a few probed elements cancel
 * (the probe passes, they go on to the deep sums, the rest stays certified and is not computed
 * again), or most of them do (the call is a residual: the probed elements certified stay, every
 * other one goes to the deep sums); either way every path gives MPFR's bits, C read once. */
START_TEST(eft_probe_mixed)
{
    ozblas_handle_t h = tu_handle(CR);
    ozref_rng r;
    tu_rng(&r, "eft_probe_mixed");
    const int64_t m = 16, n = 16, k = 16;
    double *A = tu_alloc((size_t)(m * k)), *X = tu_alloc((size_t)(k * n)), *C0 = tu_alloc((size_t)(m * n));
    double *R = tu_alloc((size_t)(m * n));
    for (int variant = 0; variant < 2; variant++) {
        tu_fill_mat(&r, A, m, k, m, 1.0);
        tu_fill_mat(&r, X, k, n, k, 1.0);
        tu_fill_mat(&r, C0, m, n, m, 1.0);
        ozref_dgemm(0, 0, m, n, k, 1.0, A, m, X, k, 0.0, R, m);          /* RN(A X) */
        /* the probe: rows 8..15 (strip 1), columns 6 and 7 */
        const int cancel = variant == 0 ? 3 : 12;
        for (int q = 0; q < cancel; q++) {
            const int64_t i = 8 + (q % 8), j = 6 + q / 8;
            C0[i + j * m] = R[i + j * m];
        }
        C0[0] = R[0];                                                     /* one outside it too */
        gemm_paths(h, 0, m, n, k, -1.0, A, m, X, 1.0, C0, "eft probe mixed");
    }
    free(A); free(X); free(C0); free(R);
    ozblas_destroy(h);
}
END_TEST

/* Products at the top of the error-free GEMM's range: every max|a| max|x| up to 2^990, so the
 * a-priori sigma is 2^1000 (the largest it takes), where ozb_eft_cert4's one_block leaves out a
 * range test that such totals can fail; results near 2^994, C near 2^995 with beta = 1, alpha
 * +-1: every path the same bits, and MPFR's. */
START_TEST(eft_sigma_top)
{
    ozblas_handle_t h = tu_handle(CR);
    ozref_rng r;
    tu_rng(&r, "eft_sigma_top");
    const int64_t m = 16, n = 16, k = 16;
    double *A = tu_alloc((size_t)(m * k)), *X = tu_alloc((size_t)(k * n)), *C0 = tu_alloc((size_t)(m * n));
    for (int variant = 0; variant < 3; variant++) {
        for (int64_t q = 0; q < m * k; q++) A[q] = ldexp(1.0 - ozref_uniform(&r) * 0x1p-20, 495) * (q % 3 ? 1.0 : -1.0);
        for (int64_t q = 0; q < k * n; q++) X[q] = ldexp(1.0 - ozref_uniform(&r) * 0x1p-20, 495);
        /* every row's and column's largest magnitude exactly 2^495: max|a| max|x| = 2^990 for
         * every pair, so sigma = 2^1000, and every product at most 2^990 */
        for (int64_t i = 0; i < m; i++) A[i + 7 * m] = i % 2 ? -0x1p495 : 0x1p495;
        for (int64_t j = 0; j < n; j++) X[7 + j * k] = 0x1p495;
        tu_fill_mat(&r, C0, m, n, m, 1.0);
        for (int64_t q = 0; q < m * n; q++) C0[q] = ldexp(C0[q], 995);
        gemm_paths(h, 0, m, n, k, variant == 1 ? -1.0 : 1.0, A, m, X, variant ? 1.0 : 0.0, C0, "eft sigma top");
    }
    free(A); free(X); free(C0);
    ozblas_destroy(h);
}
END_TEST

/* Short-wide GEMMs (fewer than 8 rows, at least 8 columns: a row vector or a few rows times a
 * matrix), which the dispatch works transposed (C^T = op(B)^T op(A)^T): random data, residuals
 * (C = RN(A B), alpha -1, beta 1: the later stages on the transposed call), an Inf in a row of
 * A and a NaN in a column of B, both transposes of A; every path the same bits, and MPFR's. */
START_TEST(eft_short_wide)
{
    ozblas_handle_t h = tu_handle(CR);
    ozref_rng r;
    tu_rng(&r, "eft_short_wide");
    const int64_t shapes[][3] = {{1, 64, 20}, {2, 30, 300}, {5, 100, 7}, {7, 8, 129}, {3, 9, 2}};
    for (size_t q = 0; q < sizeof shapes / sizeof *shapes; q++)
        for (int variant = 0; variant < 3; variant++) {
            const int64_t m = shapes[q][0], n = shapes[q][1], k = shapes[q][2];
            const int ta = (int)((q + (size_t)variant) % 2);
            const int64_t lda = ta ? k : m;
            double *A = tu_alloc((size_t)(m * k)), *X = tu_alloc((size_t)(k * n)), *C0 = tu_alloc((size_t)(m * n));
            tu_fill_mat(&r, A, ta ? k : m, ta ? m : k, lda, 1.0);
            tu_fill_mat(&r, X, k, n, k, 1.0);
            tu_fill_mat(&r, C0, m, n, m, 1.0);
            double alpha = 0.75, beta = -1.5;
            if (variant == 1) {                           /* residuals */
                ozref_dgemm(ta, 0, m, n, k, 1.0, A, lda, X, k, 0.0, C0, m);
                alpha = -1.0; beta = 1.0;
            }
            if (variant == 2) {
                A[ta ? 0 : (m - 1)] = INFINITY;           /* row m - 1 (or 0) of op(A) */
                X[(n / 2) * k + k - 1] = NAN;             /* column n / 2 of B */
                alpha = 1.0; beta = 0.0;
            }
            gemm_paths(h, ta, m, n, k, alpha, A, lda, X, beta, C0, "eft short-wide");
            free(A); free(X); free(C0);
        }
    ozblas_destroy(h);
}
END_TEST

/* GEMMs through each path: special values in A, B and C, rows and columns scaled far apart
 * (products beyond 2^990: the bound-based sigma is out of range), cancellation; the same bits
 * on every path and the reference's. */
START_TEST(eft_gemm_paths_agree)
{
    ozblas_handle_t h = tu_handle(CR);
    ozref_rng r;
    tu_rng(&r, "eft_gemm_paths_agree");
    const int64_t m = 21, n = 11, k = 150;
    double *A = tu_alloc((size_t)(m * k)), *B = tu_alloc((size_t)(k * n)), *C0 = tu_alloc((size_t)(m * n));
    for (int variant = 0; variant < 4; variant++) {
        tu_fill_mat(&r, A, m, k, m, 1);
        tu_fill_mat(&r, B, k, n, k, 1);
        tu_fill_mat(&r, C0, m, n, m, 1);
        if (variant == 0) { A[3 + 7 * m] = INFINITY; B[5 + 2 * k] = NAN; C0[4] = -INFINITY; }
        if (variant == 1)
            for (int64_t l = 0; l < k; l++) { A[2 + l * m] *= 0x1p1000; A[9 + l * m] *= 0x1p-1060; B[l + 6 * k] *= 0x1p-700; }
        if (variant == 2)                              /* row 4 = -row 3 and column 1 = column 0 */
            for (int64_t l = 0; l < k; l++) { A[4 + l * m] = -A[3 + l * m]; B[l + k] = B[l]; A[5 + l * m] = 0.0; }
        if (variant == 3)
            for (int64_t l = 0; l < k; l++) B[l + 3 * k] = ldexp(B[l + 3 * k], (int)(l % 7) * 60 - 200);
        gemm_paths(h, 0, m, n, k, -1.0, A, m, B, variant == 1 ? 0.0 : 0.5, C0, "eft gemm paths");
    }
    free(A); free(B); free(C0);
    ozblas_destroy(h);
}
END_TEST

/* Tiny inner dimensions (LAPACK's panel updates C - A B with k = 1..4, residuals of a few
 * right-hand sides up to k = 16): what the first level leaves, the exact tiny sums (TwoProduct
 * and one to three VecSum passes, eight rows at a time)
 * certify, cancelling results too (residuals C - A B with C = RN(A B): no deep sums, info.fused
 * 2), exact results of integer data (zeros, doubles, midpoints) and random ones; rows scaled beyond TwoProduct's range, Inf and NaN go
 * on to the later methods.  Every path the same bits, and MPFR's. */
static int tiny_ran(ozblas_handle_t h)
{
    ozblas_info_t info;
    ozblas_get_info(h, &info);
    return info.fused == 2;          /* no deep sums: the first level, then the exact tiny sums */
}

START_TEST(eft_exact_tiny)
{
    ozblas_handle_t h = tu_handle(CR);
    ozref_rng r;
    tu_rng(&r, "eft_exact_tiny");
    /* worked transposed: {1, 5}, {3, 20} (fewer rows than columns), {13, 7}, {10, 45} (fewer
     * groups of eight rows so) */
    const int64_t shapes[][2] = {{13, 7}, {4, 3}, {1, 5}, {30, 2}, {3, 20}, {10, 45}};
    const int64_t ks[] = {1, 2, 3, 4, 5, 10, 16};
    for (size_t kq = 0; kq < sizeof ks / sizeof *ks; kq++)
        for (size_t q = 0; q < sizeof shapes / sizeof *shapes; q++)
            for (int kind = 0; kind < 4; kind++) {
                const int64_t k = ks[kq];
                const int64_t m = shapes[q][0], n = shapes[q][1];
                const int ta = (int)((k + (int64_t)q + kind) % 2);
                const int64_t lda = ta ? k : m;
                double *A = tu_alloc((size_t)(m * k)), *B = tu_alloc((size_t)(k * n)), *C0 = tu_alloc((size_t)(m * n));
                tu_fill_mat(&r, A, ta ? k : m, ta ? m : k, lda, kind == 1 ? 4 : 1);
                tu_fill_mat(&r, B, k, n, k, kind == 1 ? 4 : 1);
                if (kind == 2) {                                  /* small integers: exact results */
                    for (int64_t e = 0; e < m * k; e++) A[e] = (double)((int)(A[e] * 8.0) % 5);
                    for (int64_t e = 0; e < k * n; e++) B[e] = (double)((int)(B[e] * 8.0) % 3) * 0.5;
                }
                ozref_dgemm(ta, 0, m, n, k, 1.0, A, lda, B, k, 0.0, C0, m);   /* RN(A B): residuals */
                if (kind == 1) tu_fill_mat(&r, C0, m, n, m, 2);
                if (kind == 3) C0[0] = ldexp(C0[0], 1020), A[0] = ldexp(A[0], -1000);   /* out of range */
                const double alpha = kind == 1 ? 1.0 : -1.0, beta = kind == 1 ? -0.75 : 1.0;
                gemm_paths(h, ta, m, n, k, alpha, A, lda, B, beta, C0, "eft exact tiny");
                double *C = tu_alloc((size_t)(m * n));
                memcpy(C, C0, sizeof(double) * (size_t)(m * n));
                ck_assert_int_eq(ozblas_dgemm(h, ta ? OZBLAS_OP_T : OZBLAS_OP_N, OZBLAS_OP_N, m, n, k, alpha, A, lda, B, k,
                                              beta, C, m), OZBLAS_STATUS_SUCCESS);
                /* guaranteed for integer data only: every TwoSum there is exact, so every lane is
                 * certified as exact; on random data a lane within the chain's bound of a
                 * midpoint (a chance near 2^-45) would rightly go on to the deep sums */
                if (kind == 2)
                    ck_assert_msg(tiny_ran(h), "%lldx%lldx%lld kind %d: the deep sums ran", (long long)m,
                                  (long long)n, (long long)k, kind);
                free(A); free(B); free(C0); free(C);
            }
    /* 1 + 2^-53 + 2^-200: after the two passes y + z is the tie 1 + 2^-53 and the chain of the
     * lower terms dropped 2^-200 (E > 0): the certificate must decline, RN is 1 + 2^-52 */
    double At[10], An[10], Bt[2] = {0x1p-27, 0x1p-100}, Ct[5], Cn[5];    /* five rows: not a DOT */
    for (int i = 0; i < 5; i++) {
        At[i] = 0x1p-26; At[i + 5] = 0x1p-100; An[i] = -0x1p-26; An[i + 5] = -0x1p-100;
        Ct[i] = 1.0; Cn[i] = -1.0;
    }
    gemm_paths(h, 0, 5, 1, 2, 1.0, At, 5, Bt, 1.0, Ct, "eft exact tiny near tie");
    gemm_paths(h, 0, 5, 1, 2, 1.0, An, 5, Bt, 1.0, Cn, "eft exact tiny near tie, negative");
    /* special values: Inf times zero, NaN, Inf in C */
    double A[8] = {1, 2, INFINITY, 4, 0, 1, 1, 1}, B[2] = {0, 1}, C0[4] = {1, NAN, 3, -INFINITY};
    gemm_paths(h, 0, 4, 1, 2, -1.0, A, 4, B, 1.0, C0, "eft exact tiny special");
    ozblas_destroy(h);
}
END_TEST

/* Residuals C - A X with C = RN(A X) (and GEMV's y - A x, a DOT's x.y - RN(x.y)): results
 * about 2^-53 of the products, beyond the one-level bound, certified by the deep sums; for
 * phi = 0 their exact values are often doubles or midpoints (the exact-grid case).  RN(exact)
 * on every path, and the deep sums ran. */
static int deep_ran(ozblas_handle_t h)
{
    ozblas_info_t info;
    ozblas_get_info(h, &info);
    return info.fused == 3;
}

START_TEST(eft_deep_residuals)
{
    ozblas_handle_t h = tu_handle(CR);
    ozref_rng r;
    tu_rng(&r, "eft_deep_residuals");
    const int64_t shapes[][3] = {{16, 16, 17}, {37, 20, 150}, {9, 70, 300}, {64, 3, 64}, {1, 1, 150}};   /* k > 16: past the exact tiny sums */
    const double phis[] = {0, 1, 4};
    for (size_t q = 0; q < sizeof shapes / sizeof *shapes; q++)
        for (int f = 0; f < 3; f++) {
            const int64_t m = shapes[q][0], n = shapes[q][1], k = shapes[q][2];
            const int ta = (int)((q + (size_t)f) % 2);
            const int64_t lda = ta ? k : m;
            double *A = tu_alloc((size_t)(m * k)), *X = tu_alloc((size_t)(k * n)), *C0 = tu_alloc((size_t)(m * n));
            tu_fill_mat(&r, A, ta ? k : m, ta ? m : k, lda, phis[f]);
            tu_fill_mat(&r, X, k, n, k, phis[f]);
            ozref_dgemm(ta, 0, m, n, k, 1.0, A, lda, X, k, 0.0, C0, m);      /* RN(A X) */
            const double alphas[] = {-1.0, 1.0, 0.75};
            for (int v = 0; v < 3; v++) {
                const double alpha = alphas[v], beta = v == 1 ? -1.0 : v == 2 ? -0.75 : 1.0;
                ck_assert_msg(gemm_paths(h, ta, m, n, k, alpha, A, lda, X, beta, C0, "eft deep residual"),
                              "residual %lldx%lldx%lld phi %g: no deep sums", (long long)m, (long long)n, (long long)k, phis[f]);
            }
            /* GEMV: column 0 of the same residual, N and T */
            double *y0 = tu_alloc((size_t)(ta ? m : m));
            memcpy(y0, C0, sizeof(double) * (size_t)m);
            paths_agree(h, ta, ta ? k : m, ta ? m : k, lda, A, X, -1.0, 1.0, y0, "eft deep residual GEMV");
            ck_assert_msg(deep_ran(h) || m < 2, "GEMV residual: no deep sums");
            /* DOT: row 0 of op(A) times column 0 of X, minus RN of it, as one more element */
            double *xa = tu_alloc((size_t)(k + 1)), *xb = tu_alloc((size_t)(k + 1));
            for (int64_t l = 0; l < k; l++) { xa[l] = ta ? A[l] : A[l * lda]; xb[l] = X[l]; }
            xa[k] = -ozref_ddot(k, xa, 1, xb, 1);
            xb[k] = 1.0;
            tu_dot_run(h, CR, k + 1, xa, 1, xb, 1, "eft deep residual DOT");
            free(A); free(X); free(C0); free(y0); free(xa); free(xb);
        }
    ozblas_destroy(h);
}
END_TEST

#if defined(__x86_64__)
#include <immintrin.h>
/* A caller under flush-to-zero and denormals-are-zero (what -ffast-math sets at start-up):
 * the calls still give RN(exact), and the caller's MXCSR comes back.  The DOT is a
 * counterexample to running under the caller's modes: with DAZ, x3 y3 = 2^-989 reads as 0
 * and 1.5 2^-930 would be certified. */
START_TEST(eft_ftz_daz_caller)
{
    ozblas_handle_t h = tu_handle(CR);
    const double x[3] = {0x3p-931, 0x7fp-990, 0x1p-1074}, y[3] = {1.0, 1.0, 0x1p85};
    const double ref = ozref_ddot(3, x, 1, y, 1);          /* before DAZ: MPFR reads doubles */
    ozref_rng r;
    tu_rng(&r, "eft_ftz_daz_caller");
    const int64_t m = 40, n = 9, k = 300;
    double *A = tu_alloc((size_t)(m * k)), *B = tu_alloc((size_t)(k * n)), *C = tu_alloc((size_t)(m * n));
    tu_fill_mat(&r, A, m, k, m, 1);
    tu_fill_mat(&r, B, k, n, k, 1);
    for (int64_t i = 0; i < m * k; i += 7) A[i] *= 0x1p-1000;   /* products in the subnormal range */
    double *Cref = tu_alloc((size_t)(m * n));
    memset(Cref, 0, sizeof(double) * (size_t)(m * n));
    ck_assert_int_eq(ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, m, n, k, 1.0, A, m, B, k, 0.0, Cref, m), OZBLAS_STATUS_SUCCESS);
    const unsigned csr = _mm_getcsr();
    _mm_setcsr(csr | 0x8040u);                              /* FTZ and DAZ */
    double d;
    const ozblas_status_t st = ozblas_ddot(h, 3, x, 1, y, 1, &d);
    memset(C, 0, sizeof(double) * (size_t)(m * n));
    const ozblas_status_t st2 = ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, m, n, k, 1.0, A, m, B, k, 0.0, C, m);
    const unsigned after = _mm_getcsr();
    _mm_setcsr(csr);
    ck_assert_int_eq(st, OZBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(st2, OZBLAS_STATUS_SUCCESS);
    ck_assert_msg((after & 0xffc0u) == ((csr | 0x8040u) & 0xffc0u), "the caller's MXCSR modes were not restored: %#x", after);
    ck_assert_msg(d == ref, "DOT under FTZ/DAZ: %a, RN(exact) %a", d, ref);
    tu_check_bits(C, Cref, (size_t)(m * n), 1, "GEMM under FTZ/DAZ");
    free(A); free(B); free(C); free(Cref);
    ozblas_destroy(h);
}
END_TEST

/* The same caller whose own OpenMP pool was started under FTZ/DAZ (its threads keep those
 * modes): a DROT long enough for threads must still give RN(exact) -- under the caller's
 * other environment every chunk runs on the calling thread, whose modes ozblas sets (a pool
 * thread would read the subnormal x_i as 0 and certify 0). */
START_TEST(rot_pool_under_daz)
{
    ozblas_handle_t h = tu_handle(CR);
    ozblas_set_num_threads(h, 2);
    enum { N = 8192 };
    double *x = tu_alloc(N), *y = tu_alloc(N);
    for (int64_t i = 0; i < N; i++) { x[i] = 1.0 + (double)(i % 7); y[i] = 0.0; }
    for (int64_t i = N / 2; i < N; i += 97) x[i] = 0x1p-1070;   /* in the second thread's half */
    const unsigned csr = _mm_getcsr();
    _mm_setcsr(csr | 0x8040u);                              /* FTZ and DAZ */
    int team = 0;
#pragma omp parallel num_threads(2)
    {
#pragma omp atomic
        team++;
    }
    const ozblas_status_t st = ozblas_drot(h, N, x, 1, y, 1, 1.0, 0.5);
    _mm_setcsr(csr);
    ck_assert_int_eq(st, OZBLAS_STATUS_SUCCESS);
    ck_assert_int_ge(team, 1);
    for (int64_t i = N / 2; i < N; i += 97) {
        ck_assert_msg(x[i] == 0x1p-1070, "x[%lld] = %a, RN(exact) 0x1p-1070", (long long)i, x[i]);
        ck_assert_msg(y[i] == -0x1p-1071, "y[%lld] = %a, RN(exact) -0x1p-1071", (long long)i, y[i]);
    }
    free(x); free(y);
    ozblas_destroy(h);
}
END_TEST

/* A pool started under FTZ/DAZ, its caller back in the standard modes: the call runs on the
 * threads (ozblas sees the standard modes), whose loops (core/par.h) must enter them there
 * too.  DNRM2 of subnormals in four chunks of 2^16, two on each thread: a pool thread left with
 * DAZ would read its chunks as zeros, and the certificate on the calling thread cannot see
 * that. */
START_TEST(nrm2_pool_daz_restored)
{
    ozblas_handle_t h = tu_handle(CR);
    ozblas_set_num_threads(h, 2);
    const int64_t n = 4 * ((int64_t)1 << 16);
    double *x = tu_alloc((size_t)n);
    for (int64_t i = 0; i < n; i++) x[i] = (double)(1 + i % 5) * 0x1p-1070;
    const double ref = ozref_dnrm2(n, x, 1);
    const unsigned csr = _mm_getcsr();
    _mm_setcsr(csr | 0x8040u);                              /* FTZ and DAZ */
    int team = 0;
#pragma omp parallel num_threads(2)
    {
#pragma omp atomic
        team++;
    }
    _mm_setcsr(csr);
    double got;
    const ozblas_status_t st = ozblas_dnrm2(h, n, x, 1, &got);
    ck_assert_int_eq(st, OZBLAS_STATUS_SUCCESS);
    ck_assert_int_ge(team, 1);
    ck_assert_msg(got == ref, "DNRM2 on a pool started under FTZ/DAZ: %a, RN(exact) %a", got, ref);
    free(x);
    ozblas_destroy(h);
}
END_TEST
#endif

/* Elements whose products are all exactly zero (zero rows, zeros of op(A) meeting the nonzeros
 * of x and the reverse) resolve to RN(beta c) before any later method: c normal, subnormal,
 * +-0, a tie below 2^-1074 that rounds to +-0, Inf and NaN; a 0 x Inf pair that must stay NaN.
 * GEMV both ways, a GEMM with a zero block, and DOTs; RN(exact) on every path. */
START_TEST(eft_zero_products)
{
    ozblas_handle_t h = tu_handle(CR);
    ozref_rng r;
    tu_rng(&r, "eft_zero_products");
    const int64_t m = 21, n = 300, lda = 23;
    const double cs[] = {0.75, -0x1p-1060, 0x1p-1074, -0x1p-1074, -0.0, 0x1p-1073, INFINITY, NAN, 3.0};
    double *A = tu_alloc((size_t)(lda * n)), *x = tu_alloc((size_t)n), *y0 = tu_alloc((size_t)n);
    for (int tr = 0; tr < 2; tr++)
        for (int bv = 0; bv < 3; bv++) {
            tu_fill_mat(&r, A, m, n, lda, 1);
            const int64_t rows = tr ? n : m, inner = tr ? m : n;
            tu_fill_vec(&r, x, inner, 1, 1);
            for (int64_t l = 0; l < inner; l += 2) x[l] = 0.0;       /* x zero at even l */
            for (int64_t i = 0; i < rows; i++) y0[i] = cs[i % 9];
#define OPA(i, l) (*(tr ? &A[(l) + (i) * lda] : &A[(i) + (l) * lda]))
            for (int64_t i = 0; i < rows; i++) {
                if (i % 3 == 2) continue;                              /* rows with real products */
                for (int64_t l = 1; l < inner; l += 2) OPA(i, l) = 0.0; /* zero where x is not */
                if (i % 3 == 1) for (int64_t l = 0; l < inner; l += 2) OPA(i, l) = 0.0;   /* zero row */
            }
            OPA(3 % rows, 4) = INFINITY;                              /* meets x[4] = 0: NaN */
            const double beta = bv == 0 ? 0.0 : bv == 1 ? 0.5 : -1.0;
            paths_agree(h, tr, m, n, lda, A, x, 1.0, beta, y0, "eft zero products");
#undef OPA
        }
    /* a GEMM whose op(A) has a zero block of rows and op(B) a zero column */
    tu_gemm_params p = {0, 0, 40, 9, 70, 0, 0, 0, -1.0, 0.5, 0};
    double *Ag = tu_alloc(40 * 70), *B = tu_alloc(70 * 9), *C = tu_alloc(40 * 9);
    tu_fill_mat(&r, Ag, 40, 70, 40, 2);
    tu_fill_mat(&r, B, 70, 9, 70, 2);
    for (int64_t l = 0; l < 70; l++) for (int64_t i = 8; i < 24; i++) Ag[i + l * 40] = 0.0;
    for (int64_t l = 0; l < 70; l++) B[l + 3 * 70] = 0.0;
    for (int64_t e = 0; e < 40 * 9; e++) C[e] = cs[e % 9];
    tu_gemm_run(h, CR, &p, Ag, B, C, "eft zero products GEMM");
    /* zero products with alpha or beta not finite: alpha 0 and Inf 0 are NaN, not beta c */
    const double A0[2] = {0.0, 0.0}, x1[1] = {1.0}, yz[2] = {0.0, 0.0};
    paths_agree(h, 0, 2, 1, 2, A0, x1, INFINITY, 0.0, yz, "zero products, alpha Inf");
    paths_agree(h, 0, 2, 1, 2, A0, x1, NAN, 0.0, yz, "zero products, alpha NaN");
    paths_agree(h, 0, 2, 1, 2, A0, x1, 1.0, INFINITY, yz, "zero products, beta Inf, c 0");
    paths_agree(h, 0, 2, 1, 2, A0, x1, 1.0, NAN, yz, "zero products, beta NaN");
    /* DOTs: all products zero, and an exact zero of real products (Scheme I's) */
    double xd[16], yd[16];
    for (int l = 0; l < 16; l++) { xd[l] = l % 2 ? 1.5 : 0.0; yd[l] = l % 2 ? 0.0 : -2.0; }
    double d = 1.0;
    ck_assert_int_eq(ozblas_ddot(h, 16, xd, 1, yd, 1, &d), OZBLAS_STATUS_SUCCESS);
    ck_assert_msg(tu_bits(d) == 0, "DOT of zero products: %a, not +0", d);
    yd[1] = 1.0; yd[3] = 1.0; xd[3] = -1.5;
    ck_assert_int_eq(ozblas_ddot(h, 16, xd, 1, yd, 1, &d), OZBLAS_STATUS_SUCCESS);
    ck_assert_msg(tu_bits(d) == 0, "DOT cancelling to zero: %a, not +0", d);
    free(A); free(x); free(y0); free(Ag); free(B); free(C);
    ozblas_destroy(h);
}
END_TEST

/* Elements with one nonzero product (an identity or diagonal operand, a unit vector: LAPACK's
 * test programs' I - A A^-1 and B - I B), which ozb_one_product rounds by one FMA where alpha
 * = +-1 and beta = 0 or +-1: GEMMs with op(A) or op(B) diagonal (each orientation, so that the
 * spans, the column walk and the row walk take them; k = 12 and 5), C = alpha op(A) op(B)
 * exactly (exact zeros: +0), random C, a zero column of op(A) meeting -0 in C, products near
 * 2^-1074 (a result that rounds to -0 stays with the later methods), a product beyond 2^1024,
 * Inf and NaN in C; alpha 2 and beta 0.5 (not taken); GEMV with a unit vector x.  RN(exact)
 * on every path (CR), and DOUBLE's checks. */
START_TEST(eft_one_product)
{
    ozblas_handle_t h = tu_handle(CR), hd = tu_handle(OZBLAS_MODE_DOUBLE);
    ozref_rng r;
    tu_rng(&r, "eft_one_product");
    const double alphas[] = {1.0, -1.0, 2.0}, betas[] = {0.0, 1.0, -1.0, 0.5};
    const int64_t m = 13, n = 11;
    double A[13 * 12], B[12 * 11], C[13 * 11];
    char ctx[120];
    for (int ks = 0; ks < 2; ks++)
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++)
                for (int side = 0; side < 2; side++)
                    for (int kind = 0; kind < 4; kind++) {
                        const int64_t k = ks ? 5 : 12;
                        const double alpha = alphas[(kind + side) % 3], beta = betas[(kind + ta + 2 * tb) % 4];
                        /* op(A) m x k, op(B) k x n; one of them diagonal (side 0: op(B)) */
                        const int64_t lda = ta ? k : m, ldb = tb ? n : k;
#define OPA(i, l) (*(ta ? &A[(l) + (i) * lda] : &A[(i) + (l) * lda]))
#define OPB(l, j) (*(tb ? &B[(j) + (l) * ldb] : &B[(l) + (j) * ldb]))
                        tu_fill_mat(&r, A, lda, ta ? m : k, lda, 1);
                        tu_fill_mat(&r, B, ldb, tb ? k : n, ldb, 1);
                        for (int64_t i = 0; i < (side ? m : k); i++)
                            for (int64_t j = 0; j < (side ? k : n); j++) {
                                if (side ? i % k == j : j % k == i) {
                                    /* the diagonal: 1, or -2 (exact), or 2^-540 (products near 2^-1074) */
                                    const double d = kind == 2 ? 0x1p-540 : kind == 3 ? 0x1p600 : (i % 3 == 0 ? -2.0 : 1.0);
                                    if (side) OPA(i, j) = d; else OPB(i, j) = d;
                                } else if (side) {
                                    OPA(i, j) = (i + j) % 2 ? 0.0 : -0.0;
                                } else {
                                    OPB(i, j) = (i + j) % 2 ? 0.0 : -0.0;
                                }
                            }
                        if (kind == 2) {  /* the dense operand near 2^-540 too, some signs negative */
                            for (int64_t i = 0; i < (side ? k : m); i++)
                                for (int64_t j = 0; j < (side ? n : k); j++) {
                                    if (side) { OPB(i, j) *= (j % 2 ? -0x1p-534 : 0x1p-536); } else { OPA(i, j) *= (i % 2 ? -0x1p-534 : 0x1p-536); }
                                }
                        }
                        if (kind == 3)    /* products beyond 2^1024 in some rows */
                            for (int64_t j = 0; j < (side ? n : k); j++) {
                                if (side) { OPB(1 % k, j) = 0x1p500; } else { OPA(1, j) = -0x1p500; }
                            }
                        if (!side && k > 3) for (int64_t i = 0; i < m; i++) OPA(i, 3) = -0.0;   /* meets row 3 of op(B) */
                        if (kind == 1) {  /* an Inf of the dense operand meeting the other's zeros: NaN */
                            if (side) { OPB(2, 4) = -INFINITY; } else { OPA(4, 2) = INFINITY; }
                        }
                        /* C: alpha op(A) op(B) in floating point in half the elements (exactly
                         * where the diagonal holds +-1 or -2: those cancel to +0), random
                         * elsewhere, -0 at the zero column's products, Inf and NaN in two */
                        for (int64_t j = 0; j < n; j++)
                            for (int64_t i = 0; i < m; i++) {
                                double v = 0.0;
                                for (int64_t l = 0; l < k; l++) v += OPA(i, l) * OPB(l, j);
                                const double rv = (ozref_uniform(&r) - 0.5) * (kind == 2 ? 0x1p-1070 : 1.0);
                                C[i + j * m] = (i + j) % 2 ? alpha * v : (i == 3 ? -0.0 : rv);
                            }
                        C[5] = INFINITY;
                        C[2 * m + 7] = NAN;
                        tu_gemm_params p = {ta, tb, m, n, k, lda, ldb, m, alpha, beta, 0};
                        snprintf(ctx, sizeof ctx, "one product: k %lld ta %d tb %d side %d kind %d alpha %g beta %g",
                                 (long long)k, ta, tb, side, kind, alpha, beta);
                        double C2[13 * 11];
                        memcpy(C2, C, sizeof C);
                        tu_gemm_run(h, CR, &p, A, B, C, ctx);
                        tu_gemm_run(hd, OZBLAS_MODE_DOUBLE, &p, A, B, C2, ctx);
#undef OPA
#undef OPB
                    }
    /* GEMV with x = e_j times a value (N and T): one product an element */
    double Av[17 * 9], x[17], y[17];
    for (int tr = 0; tr < 2; tr++)
        for (int b = 0; b < 3; b++) {
            tu_fill_mat(&r, Av, 17, 9, 17, 1);
            const int64_t inner = tr ? 17 : 9, rows = tr ? 9 : 17;
            for (int64_t l = 0; l < inner; l++) x[l] = l == 4 ? -0.75 : 0.0;
            for (int64_t i = 0; i < rows; i++)
                y[i] = i % 2 ? -0.75 * (tr ? Av[4 + i * 17] : Av[i + 4 * 17]) : (i % 4 ? -0.0 : 0.375);
            tu_gemv_params pv = {tr, 17, 9, 17, 1, 1, b == 2 ? 1.0 : -1.0, betas[b]};
            paths_agree(h, tr, 17, 9, 17, Av, x, pv.alpha, pv.beta, y, "one product: GEMV, x a unit vector");
            tu_gemv_run(hd, OZBLAS_MODE_DOUBLE, &pv, Av, x, y, "one product: GEMV, x a unit vector");
        }
    ozblas_destroy(h);
    ozblas_destroy(hd);
}
END_TEST

/* Operands near 2^-970 (LAPACK's scaling tests): the one-level sums certify nothing there,
 * the scaled sums do where the result is normal; results in the subnormal range, tiny C with
 * beta, a C too large to scale, both operands tiny (products near 2^-1940) and a NaN.
 * GEMV both ways, GEMM, DOT; RN(exact) on every path. */
START_TEST(eft_scaled_tiny)
{
    ozblas_handle_t h = tu_handle(CR);
    ozref_rng r;
    tu_rng(&r, "eft_scaled_tiny");
    const int64_t m = 13, n = 90, lda = 13;
    double *A = tu_alloc((size_t)(lda * n)), *x = tu_alloc((size_t)n), *y0 = tu_alloc((size_t)n);
    for (int tr = 0; tr < 2; tr++)
        for (int variant = 0; variant < 5; variant++) {
            tu_fill_mat(&r, A, m, n, lda, 1);
            const int64_t rows = tr ? n : m, inner = tr ? m : n;
            tu_fill_vec(&r, x, inner, 1, 1);
            tu_fill_vec(&r, y0, rows, 1, 1);
            for (int64_t e = 0; e < lda * n; e++) A[e] = ldexp(A[e], variant == 1 ? -1040 : -970);
            if (variant == 3) for (int64_t l = 0; l < inner; l++) x[l] = ldexp(x[l], -970);   /* products ~2^-1940 */
            for (int64_t i = 0; i < rows; i++) y0[i] = ldexp(y0[i], variant == 2 ? 0 : -972);   /* C too large to scale */
            if (variant == 4) A[5] = NAN;
            const double beta = variant == 0 ? 0.0 : -0.75;
            paths_agree(h, tr, m, n, lda, A, x, -1.0, beta, y0, "eft scaled tiny");
        }
    tu_gemm_params p = {1, 0, 30, 11, 40, 0, 0, 0, 1.0, 1.0, 0};
    double *Ag = tu_alloc(40 * 30), *B = tu_alloc(40 * 11), *C = tu_alloc(30 * 11);
    tu_fill_mat(&r, Ag, 40, 30, 40, 1);
    tu_fill_mat(&r, B, 40, 11, 40, 1);
    tu_fill_mat(&r, C, 30, 11, 30, 1);
    for (int64_t e = 0; e < 40 * 11; e++) B[e] = ldexp(B[e], -975);
    for (int64_t e = 0; e < 30 * 11; e++) C[e] = ldexp(C[e], -975);
    tu_gemm_run(h, CR, &p, Ag, B, C, "eft scaled tiny GEMM");
    double xd[50], yd[50];
    for (int q = 0; q < 3; q++) {
        tu_fill_vec(&r, xd, 50, 1, 2);
        tu_fill_vec(&r, yd, 50, 1, 2);
        for (int l = 0; l < 50; l++) xd[l] = ldexp(xd[l], q == 2 ? -1060 : -990);
        const double ref = ozref_ddot(50, xd, 1, yd, 1);
        double d;
        ck_assert_int_eq(ozblas_ddot(h, 50, xd, 1, yd, 1, &d), OZBLAS_STATUS_SUCCESS);
        ck_assert_msg(tu_bits(d) == tu_bits(ref), "tiny DOT %d: %a, exact %a", q, d, ref);
    }
    /* residuals of tiny operands (LAPACK's dtrt tests: A near 2^-980, C - A X subnormal): past
     * the scaled sums, k <= 64 to the exact short sums, beyond to the deep sums */
    const int64_t ks[2] = {40, 90};
    for (int q = 0; q < 2; q++) {
        const int64_t mr = 20, nr = 9, kr = ks[q];
        double *Ar = tu_alloc((size_t)(mr * kr)), *Xr = tu_alloc((size_t)(kr * nr)), *Cr = tu_alloc((size_t)(mr * nr));
        tu_fill_mat(&r, Ar, mr, kr, mr, 1);
        tu_fill_mat(&r, Xr, kr, nr, kr, 1);
        for (int64_t e = 0; e < mr * kr; e++) Ar[e] = ldexp(Ar[e], -980);
        ozref_dgemm(0, 0, mr, nr, kr, 1.0, Ar, mr, Xr, kr, 0.0, Cr, mr);     /* RN(A X) */
        gemm_paths(h, 0, mr, nr, kr, -1.0, Ar, mr, Xr, 1.0, Cr, "eft scaled tiny residual");
        free(Ar); free(Xr); free(Cr);
    }
    /* 2^-1075 + 2^-1135 rounds up to 2^-1074; scaled by 2^1075 it rounds to 1, a midpoint once
     * scaled back (a double rounding to 0): left to the next method */
    const double xm[2] = {0x1p-540, 0x1p-600}, ym[2] = {0x1p-535, 0x1p-535};
    double dm;
    ck_assert_int_eq(ozblas_ddot(h, 2, xm, 1, ym, 1, &dm), OZBLAS_STATUS_SUCCESS);
    ck_assert_msg(dm == 0x1p-1074, "DOT 2^-1075 + 2^-1135: %a, not 0x1p-1074", dm);
    /* products near 2^-2044, from the smallest normal factors: the exact short sums' shift up
     * is at most 1075 (their subnormal grid's constant 2^(t-1021) stays far from overflow),
     * the result a zero with the exact value's sign, bits against MPFR */
    for (int q = 0; q < 4; q++) {
        const double xz[2] = {0x1.8p-1022, 0x1.4p-1022 * (q & 1 ? -1 : 1)}, yz[2] = {0x1.cp-1022, -0x1.2p-1022 * (q & 2 ? 3 : 1)};
        const double ref = ozref_ddot(2, xz, 1, yz, 1);
        double dz;
        ck_assert_int_eq(ozblas_ddot(h, 2, xz, 1, yz, 1, &dz), OZBLAS_STATUS_SUCCESS);
        ck_assert_msg(tu_bits(dz) == tu_bits(ref), "DOT of products near 2^-2044 (%d): %a, exact %a", q, dz, ref);
    }
    free(A); free(x); free(y0); free(Ag); free(B); free(C);
    ozblas_destroy(h);
}
END_TEST

/* Short DOTs and GEMVs whose products span the exponent range (LAPACK's scaling tests: 1e-292
 * against 1e-146, products below the subnormal range, results near zero or subnormal): the
 * error-free sums certify none of them, the exact short sums do; Inf and NaN still follow
 * the special-value rules.  RN(exact) on every path. */
START_TEST(eft_exact_small)
{
    ozblas_handle_t h = tu_handle(CR);
    ozref_rng r;
    tu_rng(&r, "eft_exact_small");
    const double scales[] = {0x1p-970, 1.0, 0x1p-485, 0x1p-1074, 0x1p500};
    for (int q = 0; q < 60; q++) {
        const int64_t n = 2 + q % 5;
        double x[8], y[8];
        tu_fill_vec(&r, x, n, 1, 1);
        tu_fill_vec(&r, y, n, 1, 1);
        for (int64_t l = 0; l < n; l++) {
            x[l] *= scales[(q + l) % 5];
            y[l] *= scales[(q + 2 * l + 1) % 5] * (q % 3 == 0 ? 0x1p-485 : 1.0);
        }
        if (q % 7 == 3) y[1] = -x[0] * y[0] / x[1];        /* near cancellation of two products */
        if (q == 50) x[0] = INFINITY;
        if (q == 51) y[1] = NAN;
        const double ref = ozref_ddot(n, x, 1, y, 1);
        double d;
        ck_assert_int_eq(ozblas_ddot(h, n, x, 1, y, 1, &d), OZBLAS_STATUS_SUCCESS);
        ck_assert_msg(tu_bits(d) == tu_bits(ref) || (isnan(d) && isnan(ref)), "short DOT %d: %a, exact %a", q, d, ref);
    }
    const int64_t m = 9, k = 4;
    double A[36], xv[9], y0[9];
    for (int tr = 0; tr < 2; tr++) {
        tu_fill_mat(&r, A, m, k, m, 1);
        const int64_t rows = tr ? k : m, inner = tr ? m : k;
        tu_fill_vec(&r, xv, inner, 1, 1);
        tu_fill_vec(&r, y0, rows, 1, 1);
        for (int64_t e = 0; e < m * k; e++) A[e] *= scales[e % 5];
        for (int64_t l = 0; l < inner; l++) xv[l] *= scales[(l + 3) % 5];
        for (int64_t i = 0; i < rows; i++) y0[i] *= 0x1p-1000;
        paths_agree(h, tr, m, k, m, A, xv, -1.0, 0.5, y0, "eft exact small");
    }
    ozblas_destroy(h);
}
END_TEST

/* Residuals of a Sylvester-like solve (LAPACK's DSYL01: op(A) X - s C with X's rows graded
 * from 2^355 down to 2^-971 and s tiny): products below TwoProduct's range and results that
 * cancel past the deep sums' reach leave a third of C to the exact sums, which take inner
 * dimensions beyond OZB_EXACT_SMALL_K (100, 130) here, where Scheme I would cut X into some 60
 * slices (info: one slice each, not Scheme I's).  Bits against MPFR. */
START_TEST(eft_exact_long)
{
    ozblas_handle_t h = tu_handle(CR);
    ozref_rng r;
    tu_rng(&r, "eft_exact_long");
    const int64_t ms[2] = {100, 130};
    for (int q = 0; q < 2; q++) {
        const int64_t m = ms[q], n = 12 + 5 * q;
        double *A = tu_alloc((size_t)(m * m)), *X = tu_alloc((size_t)(m * n)), *C = tu_alloc((size_t)(m * n));
        tu_fill_mat(&r, A, m, m, m, 1.0);
        for (int64_t j = 0; j < m; j++)           /* upper triangular, a small diagonal */
            for (int64_t i = 0; i < m; i++) A[i + j * m] = i > j ? 0.0 : i == j ? A[i + j * m] * 1e-6 : A[i + j * m];
        tu_fill_mat(&r, X, m, n, m, 0.5);
        for (int64_t j = 0; j < n; j++)
            for (int64_t l = 0; l < m; l++) X[l + j * m] = ldexp(X[l + j * m], (int)(355 - (1326 * l) / (m - 1) - j % 7));
        tu_fill_mat(&r, C, m, n, m, 0.5);
        tu_gemm_params p = {0};
        p.ta = q; p.m = m; p.n = n; p.k = m; p.alpha = 1.0; p.beta = -0x1p-960;
        if (q) {                                   /* op(A) = A^T: the same rows from the transpose */
            double *At = tu_alloc((size_t)(m * m));
            for (int64_t j = 0; j < m; j++)
                for (int64_t i = 0; i < m; i++) At[j + i * m] = A[i + j * m];
            memcpy(A, At, sizeof(double) * (size_t)(m * m));
            free(At);
        }
        double *C2 = tu_alloc((size_t)(m * n));
        memcpy(C2, C, sizeof(double) * (size_t)(m * n));
        tu_gemm_run(h, CR, &p, A, X, C, "eft exact long residual");
        ozblas_info_t info;
        ozblas_get_info(h, &info);
        ck_assert_msg(info.slices_b == 1, "k %lld: the remainder went to Scheme I (%d slices of X), not the exact sums",
                      (long long)m, info.slices_b);
        /* without the deep sums, what the error-free sums leave (some, exact_fallbacks) must
         * reach the exact sums: the same bits, and still not Scheme I's slices */
        set_path(1);
        ozblas_handle_t hn = tu_handle(CR);
        set_path(0);
        ck_assert_int_eq(ozblas_dgemm(hn, q ? OZBLAS_OP_T : OZBLAS_OP_N, OZBLAS_OP_N, m, n, m, 1.0, A, m, X, m, -0x1p-960, C2,
                                      m), OZBLAS_STATUS_SUCCESS);
        ozblas_get_info(hn, &info);
        ck_assert_msg(info.exact_fallbacks > 0 && info.slices_b == 1, "k %lld, no deep sums: %lld left, %d slices of X",
                      (long long)m, (long long)info.exact_fallbacks, info.slices_b);
        tu_check_bits(C2, C, (size_t)(m * n), 1, "eft exact long residual, no deep sums");
        ozblas_destroy(hn);
        free(A); free(X); free(C); free(C2);
    }
    ozblas_destroy(h);
}
END_TEST

/* Short DOTs that cancel to about 2^-53 of their products (LAPACK's orthogonality checks and
 * residuals): the first level cannot certify them (its bound is at least 2^8 n^2 times the
 * result's half-gap there), so the exact short sum takes them (TwoProduct and NearSum, no
 * workspace: info.fused 0); ties, exact zeros, subnormal results and products at the edge of
 * TwoProduct's range too.  Bits against MPFR. */
static void exact_dot_case(ozblas_handle_t h, int64_t n, const double *x, const double *y, int want_exact, const char *what)
{
    const double ref = ozref_ddot(n, x, 1, y, 1);
    double d;
    ck_assert_int_eq(ozblas_ddot(h, n, x, 1, y, 1, &d), OZBLAS_STATUS_SUCCESS);
    ck_assert_msg(tu_bits(d) == tu_bits(ref), "%s (n %lld): %a, exact %a", what, (long long)n, d, ref);
    if (want_exact) {
        ozblas_info_t info;
        ozblas_get_info(h, &info);
        ck_assert_msg(info.fused == 0, "%s (n %lld): not the exact short sum (fused %d)", what, (long long)n, info.fused);
    }
}

/* DOTs whose products exceed the split's range (LAPACK's SVD tests scale matrices near
 * overflow: products to 2^1013): the split on the DOT scaled by 2^-s, where every scaled
 * element stays exact.  Positive multiples of 2^994 summing to a few bits are certified there
 * (guaranteed: the sum is a double, far from every rounding boundary) and take that path;
 * 1x1 GEMMs carry alpha and beta c (c scaled too); an element that scaling would round, a
 * cancelling sum and an overflowing one go on to the general path.  Bits against MPFR. */
START_TEST(eft_dot_huge)
{
    ozblas_handle_t h = tu_handle(CR);
    ozref_rng r;
    tu_rng(&r, "eft_dot_huge");
    double x[48], y[48];
    const int64_t n = 40;
    for (int64_t l = 0; l < n; l++) {
        x[l] = ldexp(1.0 + floor(ozref_uniform(&r) * 7.0), 497);
        y[l] = ldexp(1.0 + floor(ozref_uniform(&r) * 7.0), 497);
    }
    exact_dot_case(h, n, x, y, 0, "huge products");
    ozblas_info_t info;
    ozblas_get_info(h, &info);
    ck_assert_msg(info.fused == 2, "huge products: not the scaled split (fused %d)", info.fused);
    /* alpha and beta c: 1 x 1 GEMMs */
    const double cs[] = {0x1p1005, -3.0, 0x1p-1060, 0.0};
    for (int q = 0; q < 4; q++) {
        double c = cs[q], ref = cs[q];
        ck_assert_int_eq(ozblas_dgemm(h, OZBLAS_OP_T, OZBLAS_OP_N, 1, 1, n, -0.75, x, n, y, n, 0.5, &c, 1), OZBLAS_STATUS_SUCCESS);
        ozref_dgemm(1, 0, 1, 1, n, -0.75, x, n, y, n, 0.5, &ref, 1);
        tu_check_bits(&c, &ref, 1, 0, "huge 1x1 GEMM");
    }
    /* an element that 2^-s would round (2^-1010 + 2^-1062), a cancelling sum, an overflow */
    x[3] = 0x1p-1010 + 0x1p-1062;
    exact_dot_case(h, n, x, y, 0, "huge products, one tiny element");
    x[3] = x[4];
    y[n - 1] = 0.0;
    double t = 0.0;
    for (int64_t l = 0; l + 1 < n; l++) t += x[l] * y[l];
    y[n - 1] = -t / x[n - 1];
    exact_dot_case(h, n, x, y, 0, "huge products cancelling");
    for (int64_t l = 0; l < n; l++) x[l] = y[l] = 0x1.8p511;
    exact_dot_case(h, n, x, y, 0, "huge products overflowing");
    /* the scaled value just below 2^-1022 (2^-1022 (1 - 2^-53), a tie on the subnormal grid
     * that rounds up to 2^-1022): scaled back it would be 2^-970, one ulp above the exact
     * 2^-970 (1 - 2^-53), a double */
    const double xb[3] = {0x1p1000, -0x1p961, 0x1p-970}, yb[3] = {0x1p-9, 0x1p30, 1.0 - 0x1p-53};
    exact_dot_case(h, 3, xb, yb, 0, "huge products, scaled result at 2^-1022");
    ozblas_destroy(h);
}
END_TEST

START_TEST(eft_exact_short_dot)
{
    ozblas_handle_t h = tu_handle(CR);
    ozref_rng r;
    tu_rng(&r, "eft_exact_short_dot");
    const int64_t ns[] = {5, 8, 16, 20, 33, 47, 64, 65};
    const double phis[] = {0, 1, 4};
    double x[80], y[80];
    for (size_t q = 0; q < sizeof ns / sizeof *ns; q++)
        for (int f = 0; f < 3; f++)
            for (int rep = 0; rep < 4; rep++) {
                const int64_t n = ns[q];
                tu_fill_vec(&r, x, n, 1, phis[f]);
                tu_fill_vec(&r, y, n, 1, phis[f]);
                if (x[n - 1] == 0.0) x[n - 1] = 1.0;
                double s = 0.0;                          /* the last product cancels the rest */
                for (int64_t l = 0; l + 1 < n; l++) s += x[l] * y[l];
                y[n - 1] = -s / x[n - 1];
                exact_dot_case(h, n, x, y, n <= 64, "cancelling DOT");
            }
    /* ties to even, an exact zero (+0), and the other side of a power of two */
    const double ones[6] = {1, 1, 1, 1, 1, 1};
    const double tie[6] = {1, 0x1p-53, 3, -3, 5, -5}, tie3[6] = {1, 0x1.8p-52, 3, -3, 5, -5};
    const double zero[6] = {1, 2, 3, -1, -2, -3}, below[6] = {1, -0x1p-54, 3, -3, 5, -5};
    exact_dot_case(h, 6, tie, ones, 1, "tie 1 + 2^-53");
    exact_dot_case(h, 6, tie3, ones, 1, "tie 1 + 3 2^-53");
    exact_dot_case(h, 6, zero, ones, 1, "exact zero");
    exact_dot_case(h, 6, below, ones, 1, "1 - 2^-54");
    double d;
    ck_assert_int_eq(ozblas_ddot(h, 6, zero, 1, ones, 1, &d), OZBLAS_STATUS_SUCCESS);
    ck_assert_msg(!signbit(d), "exact zero: %a, not +0", d);
    /* a TwoProduct error as the result: subnormal (2^-1073), products at 2^-969 */
    const double a = 1 + 0x1p-52, b = (1 + 0x1p-52) * 0x1p-969;
    const double xs[6] = {a, -1, 3, -3, 5, -5}, ys[6] = {b, a * b, 1, 1, 1, 1};
    exact_dot_case(h, 6, xs, ys, 1, "subnormal result");
    /* products just below TwoProduct's range: scaled by a power of two first, the result 2^-1074
     * (subnormal: rounded on the grid of 2^-1074 scaled) */
    const double xt[6] = {a, -1, 3, -3, 5, -5}, yt[6] = {b * 0.5, a * b * 0.5, 1, 1, 1, 1};
    exact_dot_case(h, 6, xt, yt, 0, "products below 2^-969");
    /* 2^-1023 + 2^-1075 + 2^-1130: RN on 2^-1074's grid rounds up; the 53 bits of a scaled sum
     * would drop 2^-1130 and leave a tie that rounds to even, down (a double rounding) */
    const double xd[3] = {0x1p-500, 0x1p-500, -0x1p-565}, yd[3] = {0x1p-523, 0x1p-575, -0x1p-565};
    exact_dot_case(h, 3, xd, yd, 0, "subnormal result next to a double rounding");
    const double xn[3] = {-0x1p-500, -0x1p-500, 0x1p-565};
    exact_dot_case(h, 3, xn, yd, 0, "subnormal result next to a double rounding, negative");
    /* LAPACK's scaled matrices: cancelling DOTs with products near 2^-1000 (results subnormal,
     * some below 2^-1075: signed zeros) and near 2^1010 (beyond TwoProduct's range) */
    const double scl[] = {0x1p-500, 0x1p-520, 0x1p-537, 0x1p505, 0x1p511};
    for (int q = 0; q < 5; q++)
        for (int rep = 0; rep < 6; rep++) {
            const int64_t n = 20 + 7 * rep;
            tu_fill_vec(&r, x, n, 1, 1);
            tu_fill_vec(&r, y, n, 1, 1);
            if (x[n - 1] == 0.0) x[n - 1] = 1.0;
            double s = 0.0;
            for (int64_t l = 0; l + 1 < n; l++) s += x[l] * y[l];
            y[n - 1] = -s / x[n - 1];
            for (int64_t l = 0; l < n; l++) { x[l] *= scl[q]; y[l] *= scl[q]; }
            exact_dot_case(h, n, x, y, 0, "scaled cancelling DOT");
        }
    /* GEMV residuals y - A x with A near 1 and x, y near 2^-975 (an SVD test's): subnormal results */
    const int64_t m = 24, k = 40;
    double *A = tu_alloc((size_t)(m * k)), *xv = tu_alloc((size_t)k), *y0 = tu_alloc((size_t)m);
    for (int f = 0; f < 2; f++) {
        tu_fill_mat(&r, A, m, k, m, f);
        tu_fill_vec(&r, xv, k, 1, 1);
        for (int64_t l = 0; l < k; l++) xv[l] *= 0x1p-975;
        ozref_dgemv(0, m, k, 1.0, A, m, xv, 1, 0.0, y0, 1);           /* RN(A x) */
        paths_agree(h, 0, m, k, m, A, xv, -1.0, 1.0, y0, "tiny GEMV residual");
    }
    free(A); free(xv); free(y0);
    ozblas_destroy(h);
}
END_TEST

/* DOUBLE mode with FP64 slices computes DOT and GEMV correctly rounded: the same bits. */
START_TEST(eft_double_mode_is_cr)
{
    ozblas_handle_t hd = tu_handle(OZBLAS_MODE_DOUBLE), hc = tu_handle(CR);
    ozref_rng r;
    tu_rng(&r, "eft_double_mode_is_cr");
    const int64_t m = 37, n = 2000;
    double *A = tu_alloc((size_t)(m * n)), *x = tu_alloc((size_t)n), *yd = tu_alloc((size_t)n), *yc = tu_alloc((size_t)n);
    for (int tr = 0; tr < 2; tr++) {
        tu_fill_mat(&r, A, m, n, m, 2);
        tu_fill_vec(&r, x, tr ? m : n, 1, 2);
        const int64_t ny = tr ? n : m;
        for (int64_t i = 0; i < ny; i++) yd[i] = yc[i] = 0.0;
        ck_assert_int_eq(ozblas_dgemv(hd, tr ? OZBLAS_OP_T : OZBLAS_OP_N, m, n, 1.5, A, m, x, 1, 0.0, yd, 1), OZBLAS_STATUS_SUCCESS);
        ck_assert(eft_ran(hd));
        ck_assert_int_eq(ozblas_dgemv(hc, tr ? OZBLAS_OP_T : OZBLAS_OP_N, m, n, 1.5, A, m, x, 1, 0.0, yc, 1), OZBLAS_STATUS_SUCCESS);
        tu_check_bits(yd, yc, (size_t)ny, 1, "eft DOUBLE = CR");
    }
    free(A); free(x); free(yd); free(yc);
    ozblas_destroy(hd);
    ozblas_destroy(hc);
}
END_TEST

/* Results within an ulp of a power of two P (a RN(1/a) is the common case: LAPACK's inverses,
 * unit triangles): exact values P (1 + k 2^-55), k = -7..13, by DOT, GEMV N and T and GEMM (8-row
 * strips), alpha +-1, beta 0 and 0.5 (beta c supplying the offset).  Above P the gap is twice
 * the gap below it, so the first level certifies every k but the midpoints (-6, -2, 4, 12) by
 * the sign of TwoSum's error, k = 2 and 3 included (within P's upper half-gap but beyond its
 * lower one: a test by the smaller half-gap alone sends them to the deep sums).  Bits against
 * MPFR everywhere; the first level's certificate where it must decide. */
static int first_level(ozblas_handle_t h)
{
    ozblas_info_t info;
    ozblas_get_info(h, &info);
    return info.fused == 2 && info.exact_fallbacks == 0;
}

static int midpoint_k(int k) { return k == -6 || k == -2 || k == 4 || k == 12; }

START_TEST(eft_near_powers_of_two)
{
    ozblas_handle_t h = tu_handle(CR);
    ozref_rng r;
    tu_rng(&r, "eft_near_powers_of_two");
    const double P[] = {1.0, 0x1p-3, 0x1p7, 0x1.8p0 /* not a power of two: symmetric gaps */};
    for (size_t q = 0; q < sizeof P / sizeof *P; q++)
        for (int sg = -1; sg <= 1; sg += 2)
            for (int k = -7; k <= 13; k++) {
                /* DOT: x = (1, k 2^-55, a_2 ..), y = (s P, s P, t, t, ..) with the a's in
                 * cancelling pairs (their products sum to zero exactly) */
                for (int n = 2; n <= 40; n += 38) {
                    double x[40], y[40];
                    x[0] = 1.0; x[1] = k * 0x1p-55; y[0] = y[1] = sg * P[q];
                    for (int l = 2; l < n; l += 2) {
                        x[l] = ozref_uniform(&r) - 0.5; x[l + 1] = -x[l];
                        y[l] = y[l + 1] = ozref_uniform(&r) + 0.5;
                    }
                    double d = 0.0;
                    ck_assert_int_eq(ozblas_ddot(h, n, x, 1, y, 1, &d), OZBLAS_STATUS_SUCCESS);
                    const double ref = ozref_ddot(n, x, 1, y, 1);
                    ck_assert_msg(d == ref, "DOT n %d P %a k %d: %a, RN %a", n, sg * P[q], k, d, ref);
                    if (!midpoint_k(k) && P[q] != 0x1.8p0)
                        ck_assert_msg(first_level(h), "DOT n %d P %a k %d: not certified by the first level", n, sg * P[q], k);
                }
            }
    /* GEMV N and T and GEMM: row i's offset k_i = -7 + i mod 21; alpha +-1; beta 0.5 with c
     * = 2 k 2^-55 P carrying the offset instead of op(A) */
    const int64_t m = 21, kk = 6, nc = 3;
    double *A = tu_alloc((size_t)(m * kk)), *B = tu_alloc((size_t)(kk * nc)), *C = tu_alloc((size_t)(m * nc)),
           *R = tu_alloc((size_t)(m * nc)), *C0 = tu_alloc((size_t)(m * nc));
    for (int v = 0; v < 8; v++) {
        const double alpha = v & 1 ? -1.0 : 1.0, beta = v & 2 ? 0.5 : 0.0, Pv = v & 4 ? 0x1p-3 : 1.0;
        for (int64_t i = 0; i < m; i++) {
            const int k = -7 + (int)i;
            A[i] = 1.0;                                              /* column-major m x kk */
            A[i + m] = beta != 0.0 ? 0.0 : k * 0x1p-55;
            for (int64_t l = 2; l < kk; l += 2) { A[i + l * m] = ozref_uniform(&r) - 0.5; A[i + (l + 1) * m] = -A[i + l * m]; }
            for (int64_t j = 0; j < nc; j++) C0[i + j * m] = beta != 0.0 ? 2.0 * k * 0x1p-55 * Pv : 0.0;
        }
        for (int64_t j = 0; j < nc; j++) {
            B[j * kk] = B[1 + j * kk] = Pv;
            for (int64_t l = 2; l < kk; l += 2) B[l + j * kk] = B[l + 1 + j * kk] = ozref_uniform(&r) + 0.5;
        }
        for (int tr = 0; tr < 3; tr++) {         /* GEMV N, GEMV T (on A^T's copy), GEMM */
            memcpy(C, C0, sizeof(double) * (size_t)(m * nc));
            memcpy(R, C0, sizeof(double) * (size_t)(m * nc));
            if (tr == 0) {
                ck_assert_int_eq(ozblas_dgemv(h, OZBLAS_OP_N, m, kk, alpha, A, m, B, 1, beta, C, 1), OZBLAS_STATUS_SUCCESS);
                ozref_dgemv(0, m, kk, alpha, A, m, B, 1, beta, R, 1);
            } else if (tr == 1) {
                double *At = tu_alloc((size_t)(m * kk));
                for (int64_t i = 0; i < m; i++)
                    for (int64_t l = 0; l < kk; l++) At[l + i * kk] = A[i + l * m];
                ck_assert_int_eq(ozblas_dgemv(h, OZBLAS_OP_T, kk, m, alpha, At, kk, B, 1, beta, C, 1), OZBLAS_STATUS_SUCCESS);
                ozref_dgemv(1, kk, m, alpha, At, kk, B, 1, beta, R, 1);
                free(At);
            } else {
                ck_assert_int_eq(ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, m, nc, kk, alpha, A, m, B, kk, beta, C, m),
                                 OZBLAS_STATUS_SUCCESS);
                ozref_dgemm(0, 0, m, nc, kk, alpha, A, m, B, kk, beta, R, m);
            }
            char ctx[96];
            snprintf(ctx, sizeof ctx, "near 2^e: %s alpha %g beta %g P %a", tr == 0 ? "GEMV N" : tr == 1 ? "GEMV T" : "GEMM",
                     alpha, beta, Pv);
            tu_check_bits(C, R, (size_t)(tr < 2 ? m : m * nc), 0, ctx);
        }
    }
    free(A); free(B); free(C); free(R); free(C0);
    ozblas_destroy(h);
}
END_TEST

/* A product of two upper triangular matrices (LAPACK's inverses): its lower triangle is exact
 * zeros, which the first level leaves and the dispatch resolves after it (ozb_exact_zero_products).
 * The probe that sends a residual to the deep sums at once must not count them: it looks at
 * rows 1-7 times the first columns, all zeros here, and sent the whole call to the deep sums
 * (2.2x the time at 50^3).  Bits against MPFR, and the first level certifies every other element:
 * guaranteed, not likely, since the entries are positive multiples of 1/8 below 2 (every sum is
 * exact, none cancels, none lies near a rounding boundary). */
START_TEST(eft_triangular_product)
{
    ozblas_handle_t h = tu_handle(CR);
    ozref_rng r;
    tu_rng(&r, "eft_triangular_product");
    const int64_t n = 50;
    double *A = tu_alloc((size_t)(n * n)), *B = tu_alloc((size_t)(n * n)), *C = tu_alloc((size_t)(n * n)),
           *R = tu_alloc((size_t)(n * n));
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) {
            A[i + j * n] = i <= j ? (1.0 + floor(ozref_uniform(&r) * 15.0)) / 8.0 : 0.0;
            B[i + j * n] = i <= j ? (1.0 + floor(ozref_uniform(&r) * 15.0)) / 8.0 : 0.0;
        }
    ck_assert_int_eq(ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, n, n, n, -1.0, A, n, B, n, 0.0, C, n), OZBLAS_STATUS_SUCCESS);
    ck_assert_msg(first_level(h), "a product of triangular matrices left the first level");
    ozref_dgemm(0, 0, n, n, n, -1.0, A, n, B, n, 0.0, R, n);
    tu_check_bits(C, R, (size_t)(n * n), 0, "triangular product");
    /* banded op(A) (A^T stored: rows contiguous) and upper triangular B, beta c with c's
     * special values on the structured zeros (beta c, +0, subnormal, -0, Inf, NaN), and an Inf in
     * a row's band (its zero products with B's zeros are NaN: the spans must not decide that
     * row): every path bit for bit and against the reference */
    const double cs[] = {0.75, -0x1p-1060, 0x1p-1074, -0x1p-1074, -0.0, 0x1p-1073, INFINITY, NAN, 3.0};
    double *At = tu_alloc((size_t)(n * n)), *C0 = tu_alloc((size_t)(n * n));
    for (int64_t i = 0; i < n; i++)
        for (int64_t l = 0; l < n; l++) At[l + i * n] = l >= i - 3 && l <= i + 2 ? (ozref_uniform(&r) - 0.5) * 4.0 : 0.0;
    At[33 + 30 * n] = INFINITY;
    for (int64_t e = 0; e < n * n; e++) C0[e] = cs[e % 9];
    gemm_paths(h, 1, n, n, n, 1.0, At, n, B, 0.5, C0, "banded times triangular");
    free(At); free(C0);
    free(A); free(B); free(C); free(R);
    ozblas_destroy(h);
}
END_TEST

/* A GEMM with an all-zero operand or column (LAPACK's block reflectors of a zero panel):
 * where one side of a strip and column pair is all zero and the other finite, every element
 * is RN(beta c) at once; an Inf on the other side (0 Inf = NaN) must not take that way, and C's
 * special values and a beta c that underflows go on to the later methods.  Every path bit
 * for bit and against MPFR. */
START_TEST(eft_zero_operand)
{
    ozblas_handle_t h = tu_handle(CR);
    ozref_rng r;
    tu_rng(&r, "eft_zero_operand");
    const int64_t m = 27, n = 19, k = 3;
    double *A = tu_alloc((size_t)(m * k)), *B = tu_alloc((size_t)(k * n)), *C0 = tu_alloc((size_t)(m * n));
    for (int kind = 0; kind < 4; kind++) {
        tu_fill_mat(&r, A, m, k, m, 1.0);
        tu_fill_mat(&r, B, k, n, k, 1.0);
        tu_fill_mat(&r, C0, m, n, m, 1.0);
        if (kind == 0) memset(A, 0, sizeof(double) * (size_t)(m * k));           /* op(A) zero */
        if (kind >= 1) for (int64_t j = 0; j < n; j += 2) memset(B + j * k, 0, sizeof(double) * (size_t)k);   /* zero columns */
        if (kind == 2) { A[9 + 1 * m] = INFINITY; A[20] = NAN; }                 /* Inf 0, NaN 0 */
        if (kind == 3) { C0[0] = INFINITY; C0[1] = NAN; C0[2] = 0x1p-1074; C0[3] = -0.0; C0[m + 4] = 0x1p-1073; }
        const double beta = kind == 3 ? 0.5 : 1.0;
        gemm_paths(h, 0, m, n, k, -1.0, A, m, B, beta, C0, "zero operand");
        gemm_paths(h, 0, m, n, k, 1.0, A, m, B, 0.0, C0, "zero operand, beta 0");
    }
    free(A); free(B); free(C0);
    ozblas_destroy(h);
}
END_TEST

/* k = 1 with beta 0 or +-1 (rank-1 updates): one FMA per element, its zero and non-finite
 * results left to the VecSum path.  Random 37x21 (N: vectors of 8 rows, and the rest) and
 * 5x30 (worked transposed), then a column of edge cases: a subnormal result, an exact zero
 * (+0), a product cancelling c to 2^-1074, overflow, Inf and NaN.  Every path bit for bit
 * and against MPFR; the rows of C that the FMA alone decides take no other method. */
START_TEST(eft_rank1_fma)
{
    ozblas_handle_t h = tu_handle(CR);
    ozref_rng r;
    tu_rng(&r, "eft_rank1_fma");
    const int64_t shapes[][2] = {{37, 21}, {5, 30}, {16, 1}};
    const double betas[] = {0.0, 1.0, -1.0, 0.5};
    for (size_t q = 0; q < 3; q++)
        for (int v = 0; v < 8; v++) {
            const int64_t m = shapes[q][0], n = shapes[q][1];
            const int ta = v & 1;
            const double alpha = v & 2 ? -1.0 : 1.0, beta = betas[(v >> 1) % 4];
            double *A = tu_alloc((size_t)m), *B = tu_alloc((size_t)n), *C0 = tu_alloc((size_t)(m * n));
            tu_fill_vec(&r, A, m, 1, 1.0);
            tu_fill_vec(&r, B, n, 1, 1.0);
            tu_fill_mat(&r, C0, m, n, m, 1.0);
            gemm_paths(h, ta, m, n, 1, alpha, A, ta ? 1 : m, B, beta, C0, "rank-1 update");
            free(A); free(B); free(C0);
        }
    /* edge cases, one column of 16 rows: C - a b with b = 1 */
    const double a[16] = {0x1.8p-1000, 3.0, 0x1.0000000000001p-537, 0x1p1023, INFINITY, NAN, 2.0, -0.0,
                          1.5, 0.25, -7.0, 0x1p-1074, 1.0, 1.0, 1.0, 1.0};
    const double c[16] = {0x1.8p-1000 + 0x1p-1060, 3.0, 0x1p-537, -0x1p1023, 1.0, 1.0, 2.0 + 0x1p-51, 0.0,
                          1.5, -0.25, 7.0, 0.0, 1.0, 1.0, 1.0, 1.0};
    const double ones[1] = {1.0};
    double Cs[16];
    memcpy(Cs, c, sizeof Cs);
    Cs[2] = 0x1.0000000000001p-537 - 0x1p-1074 * 0.0;    /* a product cancelling c exactly: 0 */
    gemm_paths(h, 0, 16, 1, 1, -1.0, a, 16, ones, 1.0, c, "rank-1 edge cases");
    gemm_paths(h, 0, 16, 1, 1, 1.0, a, 16, ones, 1.0, c, "rank-1 edge cases, overflow");
    gemm_paths(h, 0, 16, 1, 1, -1.0, a, 16, ones, -1.0, Cs, "rank-1 edge cases, beta -1");
    /* the FMA alone: all 8 rows of each group finite and nonzero */
    double A8[16], B2[2] = {0.75, -3.0}, C8[32], R8[32];
    for (int i = 0; i < 16; i++) A8[i] = (ozref_uniform(&r) - 0.5) * 0x1p-1000;   /* subnormal-range products */
    for (int i = 0; i < 32; i++) C8[i] = R8[i] = (ozref_uniform(&r) - 0.5) * 0x1p-1012;
    ck_assert_int_eq(ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_T, 16, 2, 1, -1.0, A8, 16, B2, 2, 1.0, C8, 16), OZBLAS_STATUS_SUCCESS);
    ozref_dgemm(0, 1, 16, 2, 1, -1.0, A8, 16, B2, 2, 1.0, R8, 16);
    tu_check_bits(C8, R8, 32, 0, "rank-1 update, subnormal results");
    ozblas_destroy(h);
}
END_TEST

/* Residuals C - A B of structured operands: op(A) upper triangular, B zero below row j + 100
 * in column j.  The deep sums take only the steps where both factors may be nonzero, which
 * is exact only where the other operand is finite there: an Inf in op(A) where a column of B
 * is zero, and an Inf in B where a row of op(A) is zero, each make one element's sum NaN
 * (Inf 0).  Every path bit for bit and against MPFR, N and T, and the deep sums ran. */
START_TEST(eft_deep_structured)
{
    ozblas_handle_t h = tu_handle(CR);
    ozref_rng r;
    tu_rng(&r, "eft_deep_structured");
    const int64_t m = 40, n = 24, k = 150;
    for (int kind = 0; kind < 3; kind++)
        for (int ta = 0; ta < 2; ta++) {
            const int64_t lda = ta ? k : m;
            double *A = tu_alloc((size_t)(m * k)), *B = tu_alloc((size_t)(k * n)), *C0 = tu_alloc((size_t)(m * n));
            for (int64_t i = 0; i < m; i++)
                for (int64_t l = 0; l < k; l++) {
                    const double v = l >= i ? (ozref_uniform(&r) - 0.5) * exp(ozref_normal(&r)) : 0.0;
                    if (ta) A[l + i * k] = v; else A[i + l * m] = v;
                }
            for (int64_t j = 0; j < n; j++)
                for (int64_t l = 0; l < k; l++) B[l + j * k] = l <= j + 100 ? (ozref_uniform(&r) - 0.5) * exp(ozref_normal(&r)) : 0.0;
            ozref_dgemm(ta, 0, m, n, k, 1.0, A, lda, B, k, 0.0, C0, m);      /* RN(A B) */
            if (kind == 1) {          /* op(A)(5, 130) = Inf, B(130, 3) = 0: C(5, 3) NaN */
                if (ta) A[130 + 5 * k] = INFINITY; else A[5 + 130 * m] = INFINITY;
            }
            if (kind == 2) B[2 + 10 * k] = -INFINITY;   /* op(A)(20, 2) = 0: C(20, 10) NaN */
            ck_assert_msg(gemm_paths(h, ta, m, n, k, -1.0, A, lda, B, 1.0, C0, "eft deep structured"),
                          "kind %d op %d: no deep sums", kind, ta);
            free(A); free(B); free(C0);
        }
    ozblas_destroy(h);
}
END_TEST

/* A triangular op(A) times a graded op(B) (LAPACK's triangular solves with scaling, dec.in:
 * columns of B falling 2^200 along k): a bound from the blocks' maxima is 2^100 above a late
 * row's products and left 80 % of such a GEMM to the deep sums; the sub-blocks' maxima bound
 * them within 2^13.  The first level certifies every element: guaranteed, not likely, since
 * op(A) is banded upper triangular with entries k/8 (k = 1..7), B's entries c 2^-l (c = 1/8..7/8),
 * so every result is a sum of 4 positive products, exact in a double, with its largest
 * product within 2^13 of the bound.  Bits against MPFR, N and T. */
START_TEST(eft_graded_operand)
{
    ozblas_handle_t h = tu_handle(CR);
    ozref_rng r;
    tu_rng(&r, "eft_graded_operand");
    const int64_t m = 96, n = 24, k = 200;
    double *A = tu_alloc((size_t)(m * k)), *At = tu_alloc((size_t)(m * k)), *B = tu_alloc((size_t)(k * n)),
           *C = tu_alloc((size_t)(m * n)), *R = tu_alloc((size_t)(m * n));
    for (int64_t i = 0; i < m; i++)
        for (int64_t l = 0; l < k; l++) {
            const double v = l >= i && l <= i + 3 ? (1.0 + floor(ozref_uniform(&r) * 7.0)) / 8.0 : 0.0;
            A[i + l * m] = v;
            At[l + i * k] = v;
        }
    for (int64_t j = 0; j < n; j++)
        for (int64_t l = 0; l < k; l++) B[l + j * k] = ldexp((1.0 + floor(ozref_uniform(&r) * 7.0)) / 8.0, -(int)l);
    ozref_dgemm(0, 0, m, n, k, 1.0, A, m, B, k, 0.0, R, m);
    for (int ta = 0; ta < 2; ta++) {
        ck_assert_int_eq(ozblas_dgemm(h, ta ? OZBLAS_OP_T : OZBLAS_OP_N, OZBLAS_OP_N, m, n, k, 1.0, ta ? At : A, ta ? k : m,
                                      B, k, 0.0, C, m), OZBLAS_STATUS_SUCCESS);
        ck_assert_msg(first_level(h), "op %d: a graded product left the first level", ta);
        tu_check_bits(C, R, (size_t)(m * n), 0, "graded product");
    }
    free(A); free(At); free(B); free(C); free(R);
    ozblas_destroy(h);
}
END_TEST

static Suite *eft_suite(void)
{
    Suite *s = suite_create("eft");
    TCase *tc = tcase_create("eft");
    tcase_set_timeout(tc, tu_timeout(300));
    tcase_add_test(tc, eft_dot_reference);
    tcase_add_test(tc, eft_dot_short);
    tcase_add_test(tc, eft_dot_direct_info);
    tcase_add_test(tc, eft_gemv_reference);
    tcase_add_test(tc, eft_gemv_t_bounded);
    tcase_add_test(tc, eft_magnitude_steps);
    tcase_add_test(tc, eft_gemv_n_pairs);
    tcase_add_test(tc, eft_special_rows);
    tcase_add_test(tc, eft_cancellation);
    tcase_add_test(tc, eft_zero_products);
    tcase_add_test(tc, eft_one_product);
    tcase_add_test(tc, eft_scaled_tiny);
    tcase_add_test(tc, eft_exact_small);
    tcase_add_test(tc, eft_exact_long);
    tcase_add_test(tc, eft_exact_short_dot);
    tcase_add_test(tc, eft_dot_huge);
    tcase_add_test(tc, eft_double_mode_is_cr);
    tcase_add_test(tc, eft_near_powers_of_two);
    tcase_add_test(tc, eft_triangular_product);
    tcase_add_test(tc, eft_graded_operand);
    tcase_add_test(tc, eft_deep_structured);
    tcase_add_test(tc, eft_rank1_fma);
    tcase_add_test(tc, eft_zero_operand);
    tcase_add_test(tc, eft_gemm_reference);
    tcase_add_test(tc, eft_gemm_update);
    tcase_add_test(tc, eft_gemm_paths_agree);
    tcase_add_test(tc, eft_probe_mixed);
    tcase_add_test(tc, eft_sigma_top);
    tcase_add_test(tc, eft_short_wide);
    tcase_add_test(tc, eft_deep_residuals);
    tcase_add_test(tc, eft_exact_tiny);
#if defined(__x86_64__)
    tcase_add_test(tc, eft_ftz_daz_caller);
    tcase_add_test(tc, rot_pool_under_daz);
    tcase_add_test(tc, nrm2_pool_daz_restored);
#endif
    suite_add_tcase(s, tc);
    return s;
}

TU_MAIN("test_eft", eft_suite)
