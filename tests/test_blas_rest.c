/* The rest of the double BLAS (CONTRACT §6) against MPFR-exact references: every routine,
 * uplo/trans/diag/side, odd sizes, padding, increments, phi in {0, 1, 4, 8}.  CORRECTLY_ROUNDED
 * and DOUBLE (FP64 slices: correctly rounded) bit for bit; FIXED bit for bit where the contract
 * says every mode is correctly rounded, and for the rest the same bits on 1 and 2 threads and
 * for a solve cut into single columns.  The other triangle and the padding stay untouched. */
#define _DEFAULT_SOURCE   /* mmap's MAP_ANONYMOUS, for the guarded bands */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "tu.h"

static const ozblas_mode_t MODES[3] = TU_MODES;

/* RN(sum a_l b_l), exact */
static double rn_dot(int64_t k, const double *a, const double *b) { return ozref_ddot(k, a, 1, b, 1); }

static double *mat(ozref_rng *r, int64_t rows, int64_t cols, int64_t ld, double phi)
{
    double *A = tu_alloc((size_t)ld * (size_t)(cols > 0 ? cols : 1));
    tu_fill_mat(r, A, rows, cols, ld, phi);
    return A;
}

/* op(T) whole (n x n, ld n) from the stored triangle: zeros, unit diagonal */
static double *tri_whole(const double *A, int64_t lda, int64_t n, int lower, int trans, int unit)
{
    double *F = calloc((size_t)(n * n), sizeof(double));
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) {
            const int64_t r = trans ? j : i, c = trans ? i : j;
            const int in = lower ? r >= c : r <= c;
            F[i + j * n] = r == c && unit ? 1.0 : in ? A[r + c * lda] : 0.0;
        }
    return F;
}

static double *sym_whole(const double *A, int64_t lda, int64_t n, int lower)
{
    double *F = malloc(sizeof(double) * (size_t)(n * n));
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) {
            const int in = lower ? i >= j : i <= j;
            F[i + j * n] = in ? A[i + j * lda] : A[j + i * lda];
        }
    return F;
}

/* exact checks only in the modes whose bits the contract fixes: CR, DOUBLE with FP64 */
static int exact_mode(ozblas_mode_t m) { return m != OZBLAS_MODE_FIXED; }

static void check_bits(const double *got, const double *exp, size_t n, const char *ctx)
{
    tu_check_bits(got, exp, n, 1, ctx);
}

/* ---- level 1 ---- */
START_TEST(level1)
{
    ozblas_mode_t mode = MODES[_i];
    ozblas_handle_t h = tu_handle(mode);
    ozref_rng r;
    tu_rng(&r, "level1");
    const int64_t ns[] = { 1, 2, 7, 100, 1001 };
    const int64_t incs[][2] = { { 1, 1 }, { -2, 3 }, { 2, -1 } };
    const double phis[] = { 0, 1, 4, 8 };
    char ctx[160];
    for (size_t a = 0; a < 5; a++)
        for (size_t b = 0; b < 3; b++)
            for (size_t f = 0; f < 4; f++) {
                const int64_t n = ns[a], ix = incs[b][0], iy = incs[b][1];
                const size_t lx = tu_vec_len(n, ix), ly = tu_vec_len(n, iy);
                double *x = tu_alloc(lx), *y = tu_alloc(ly), *y2 = tu_alloc(ly), *x2 = tu_alloc(lx);
                tu_fill_vec(&r, x, n, ix, phis[f]);
                tu_fill_vec(&r, y, n, iy, phis[f]);
                const double alpha = f == 0 ? 1.0 : -0.3 * (double)f, c = 0.6, s = -0.8;
                snprintf(ctx, sizeof ctx, "%s n=%lld inc=%lld,%lld phi=%g", tu_mode_name(mode), (long long)n,
                         (long long)ix, (long long)iy, phis[f]);
                /* daxpy: RN(alpha x + y) */
                memcpy(y2, y, ly * sizeof *y);
                ck_assert_int_eq(ozblas_daxpy(h, n, alpha, x, ix, y2, iy), OZBLAS_STATUS_SUCCESS);
                for (int64_t i = 0; i < n; i++) {
                    const double u[2] = { alpha, 1.0 }, v[2] = { *tu_vec_elem(x, n, ix, i), *tu_vec_elem(y, n, iy, i) };
                    const double e = rn_dot(2, u, v), g = *tu_vec_elem(y2, n, iy, i);
                    check_bits(&g, &e, 1, ctx);
                }
                /* drot */
                memcpy(y2, y, ly * sizeof *y);
                memcpy(x2, x, lx * sizeof *x);
                ck_assert_int_eq(ozblas_drot(h, n, x2, ix, y2, iy, c, s), OZBLAS_STATUS_SUCCESS);
                for (int64_t i = 0; i < n; i++) {
                    const double xi = *tu_vec_elem(x, n, ix, i), yi = *tu_vec_elem(y, n, iy, i);
                    const double u1[2] = { c, s }, u2[2] = { c, -s }, v1[2] = { xi, yi }, v2[2] = { yi, xi };
                    const double ex = rn_dot(2, u1, v1), ey = rn_dot(2, u2, v2);
                    check_bits(tu_vec_elem(x2, n, ix, i), &ex, 1, ctx);
                    check_bits(tu_vec_elem(y2, n, iy, i), &ey, 1, ctx);
                }
                /* drotm, full H */
                const double param[5] = { -1.0, 0.7, -0.2, 1.3, 0.9 };
                memcpy(y2, y, ly * sizeof *y);
                memcpy(x2, x, lx * sizeof *x);
                ck_assert_int_eq(ozblas_drotm(h, n, x2, ix, y2, iy, param), OZBLAS_STATUS_SUCCESS);
                for (int64_t i = 0; i < n; i++) {
                    const double xi = *tu_vec_elem(x, n, ix, i), yi = *tu_vec_elem(y, n, iy, i);
                    const double u1[2] = { param[1], param[3] }, u2[2] = { param[2], param[4] }, v[2] = { xi, yi };
                    const double ex = rn_dot(2, u1, v), ey = rn_dot(2, u2, v);
                    check_bits(tu_vec_elem(x2, n, ix, i), &ex, 1, ctx);
                    check_bits(tu_vec_elem(y2, n, iy, i), &ey, 1, ctx);
                }
                /* dasum, dnrm2, idamax on a positive increment */
                const int64_t ip = ix > 0 ? ix : -ix;
                double *ax = malloc(sizeof(double) * (size_t)n), *ones = malloc(sizeof(double) * (size_t)n);
                int64_t best = 0;
                for (int64_t i = 0; i < n; i++) {
                    ax[i] = fabs(x[i * ip]);
                    ones[i] = 1.0;
                    if (ax[i] > ax[best]) best = i;
                }
                double got, exp = rn_dot(n, ax, ones);
                ck_assert_int_eq(ozblas_dasum(h, n, x, ip, &got), OZBLAS_STATUS_SUCCESS);
                check_bits(&got, &exp, 1, ctx);
                exp = ozref_dnrm2(n, x, ip);
                ck_assert_int_eq(ozblas_dnrm2(h, n, x, ip, &got), OZBLAS_STATUS_SUCCESS);
                check_bits(&got, &exp, 1, ctx);
                int64_t im;
                ck_assert_int_eq(ozblas_idamax(h, n, x, ip, &im), OZBLAS_STATUS_SUCCESS);
                ck_assert_int_eq(im, best + 1);
                /* dscal, dcopy, dswap */
                memcpy(x2, x, lx * sizeof *x);
                ck_assert_int_eq(ozblas_dscal(h, n, alpha, x2, ip), OZBLAS_STATUS_SUCCESS);
                for (int64_t i = 0; i < n; i++) {
                    const double e = alpha * x[i * ip];
                    check_bits(&x2[i * ip], &e, 1, ctx);
                }
                memcpy(y2, y, ly * sizeof *y);
                ck_assert_int_eq(ozblas_dcopy(h, n, x, ix, y2, iy), OZBLAS_STATUS_SUCCESS);
                for (int64_t i = 0; i < n; i++) check_bits(tu_vec_elem(y2, n, iy, i), tu_vec_elem(x, n, ix, i), 1, ctx);
                memcpy(x2, x, lx * sizeof *x);
                ck_assert_int_eq(ozblas_dswap(h, n, x2, ix, y2, iy), OZBLAS_STATUS_SUCCESS);
                for (int64_t i = 0; i < n; i++) check_bits(tu_vec_elem(y2, n, iy, i), tu_vec_elem(x, n, ix, i), 1, ctx);
                free(ax); free(ones); free(x); free(y); free(x2); free(y2);
            }
    ozblas_destroy(h);
}
END_TEST

/* daxpy and dscal on long contiguous vectors, in chunks on 3 threads (vec_update.c): every
 * element RN of its one operation, the chunks' ends included (n is no multiple of a chunk) */
START_TEST(level1_chunks)
{
    ozblas_handle_t h = tu_handle(OZBLAS_MODE_CORRECTLY_ROUNDED);
    ozblas_set_num_threads(h, 3);
    ozblas_set_parallel_threshold(h, 1);
    ozref_rng r;
    tu_rng(&r, "level1_chunks");
    const int64_t n = 3 * 4096 + 1029;
    double *x = tu_alloc((size_t)n), *y = tu_alloc((size_t)n), *y2 = tu_alloc((size_t)n);
    tu_fill_vec(&r, x, n, 1, 4.0);
    tu_fill_vec(&r, y, n, 1, 4.0);
    const double alpha = -0.3;
    memcpy(y2, y, sizeof(double) * (size_t)n);
    ck_assert_int_eq(ozblas_daxpy(h, n, alpha, x, 1, y2, 1), OZBLAS_STATUS_SUCCESS);
    for (int64_t i = 0; i < n; i++) {
        const double e = fma(alpha, x[i], y[i]);
        check_bits(&y2[i], &e, 1, "level1_chunks: daxpy");
    }
    memcpy(y2, y, sizeof(double) * (size_t)n);
    ck_assert_int_eq(ozblas_dscal(h, n, alpha, y2, 1), OZBLAS_STATUS_SUCCESS);
    for (int64_t i = 0; i < n; i++) {
        const double e = alpha * y[i];
        check_bits(&y2[i], &e, 1, "level1_chunks: dscal");
    }
    free(x); free(y); free(y2);
    ozblas_destroy(h);
}
END_TEST

/* dnrm2 at the ends of the range: no spurious overflow or underflow, subnormal results */
START_TEST(nrm2_range)
{
    ozblas_handle_t h = tu_handle(OZBLAS_MODE_CORRECTLY_ROUNDED);
    ozref_rng r;
    tu_rng(&r, "nrm2_range");
    const double scales[] = { 0x1p1020, 0x1p-1070, 0x1p-1030, 0x1p600, 0x1p-600, 1.0 };
    for (size_t s = 0; s < 6; s++)
        for (int64_t n = 1; n <= 40; n += 13) {
            double *x = tu_alloc((size_t)n);
            tu_fill_vec(&r, x, n, 1, 2.0);
            for (int64_t i = 0; i < n; i++) x[i] *= scales[s];
            double got, exp = ozref_dnrm2(n, x, 1);
            ck_assert_int_eq(ozblas_dnrm2(h, n, x, 1, &got), OZBLAS_STATUS_SUCCESS);
            check_bits(&got, &exp, 1, "dnrm2 range");
            free(x);
        }
    /* exact squares and a tie-free exact root: 3, 4 -> 5; every element equal */
    double v[2] = { 3.0 * 0x1p-1060, 4.0 * 0x1p-1060 }, got;
    ck_assert_int_eq(ozblas_dnrm2(h, 2, v, 1, &got), OZBLAS_STATUS_SUCCESS);
    ck_assert(got == 5.0 * 0x1p-1060);
    double big[3] = { 0x1.fffffffffffffp1023, 0x1.fffffffffffffp1023, 1.0 };
    const double eb = ozref_dnrm2(3, big, 1);
    ck_assert_int_eq(ozblas_dnrm2(h, 3, big, 1, &got), OZBLAS_STATUS_SUCCESS);
    check_bits(&got, &eb, 1, "dnrm2 overflow");
    double sp[3] = { 1.0, NAN, INFINITY };
    ck_assert_int_eq(ozblas_dnrm2(h, 3, sp, 1, &got), OZBLAS_STATUS_SUCCESS);
    ck_assert(isnan(got));
    ozblas_destroy(h);
}
END_TEST

/* dnrm2 on vectors longer than one chunk of its sum (2^16 elements): the chunks' double-doubles
 * added, contiguous and strided, over several phi */
START_TEST(nrm2_long)
{
    ozblas_handle_t h = tu_handle(OZBLAS_MODE_CORRECTLY_ROUNDED);
    ozref_rng r;
    tu_rng(&r, "nrm2_long");
    const int64_t n = 3 * ((int64_t)1 << 16) + 5;
    const double phis[] = { 0, 1, 4, 8 };
    for (int f = 0; f < 4; f++)
        for (int64_t inc = 1; inc <= 3; inc += 2) {
            double *x = tu_alloc((size_t)tu_vec_len(n, inc));
            tu_fill_vec(&r, x, n, inc, phis[f]);
            double got, exp = ozref_dnrm2(n, x, inc);
            ck_assert_int_eq(ozblas_dnrm2(h, n, x, inc, &got), OZBLAS_STATUS_SUCCESS);
            check_bits(&got, &exp, 1, "dnrm2 long");
            free(x);
        }
    ozblas_destroy(h);
}
END_TEST

/* dnrm2's two passes on the handle's threads (1, 2, 3), chunk by chunk in groups of 64: two
 * groups (65 chunks and a short one; a NaN in the first), the largest element in the last
 * chunk, a NaN there beyond an Inf in the first, an Inf in the last, a vector all subnormal,
 * and a stride of 3 (two chunks); against MPFR bit for bit */
START_TEST(nrm2_threads)
{
    ozblas_handle_t h = tu_handle(OZBLAS_MODE_CORRECTLY_ROUNDED);
    ozref_rng r;
    tu_rng(&r, "nrm2_threads");
    const int64_t c = (int64_t)1 << 16, nl = 65 * c + 7, n = 3 * c + 5;
    double *xl = tu_alloc((size_t)nl), *x = tu_alloc((size_t)n);
    tu_fill_vec(&r, xl, nl, 1, 4.0);
    const double el = ozref_dnrm2(nl, xl, 1);
    for (int t = 1; t <= 3; t++) {
        ozblas_set_num_threads(h, t);
        double got;
        ck_assert_int_eq(ozblas_dnrm2(h, nl, xl, 1, &got), OZBLAS_STATUS_SUCCESS);
        check_bits(&got, &el, 1, "dnrm2 two groups");
        const double keep = xl[100];
        xl[100] = NAN;                                             /* the first group ends the scan */
        ck_assert_int_eq(ozblas_dnrm2(h, nl, xl, 1, &got), OZBLAS_STATUS_SUCCESS);
        ck_assert(isnan(got));
        xl[100] = keep;
        for (int k = 0; k < 6; k++) {
            tu_fill_vec(&r, x, n, 1, 1.0);
            if (k == 1) x[n - 2] = 3.0e10;                         /* the frame from the last chunk */
            if (k == 2) { x[n - 1] = NAN; x[5] = INFINITY; }       /* NaN beyond an Inf: NaN */
            if (k == 3) x[n - 3] = -INFINITY;
            if (k == 4) for (int64_t i = 0; i < n; i++) x[i] *= 0x1p-1060;   /* all subnormal */
            const int64_t inc = k == 5 ? 3 : 1, len = k == 5 ? (n - 1) / 3 + 1 : n;   /* strided */
            const double e = ozref_dnrm2(len, x, inc);
            ck_assert_int_eq(ozblas_dnrm2(h, len, x, inc, &got), OZBLAS_STATUS_SUCCESS);
            if (k == 2) ck_assert(isnan(got));
            else check_bits(&got, &e, 1, "dnrm2 threads");
        }
    }
    free(xl);
    free(x);
    ozblas_destroy(h);
}
END_TEST

/* ---- level 2 ---- */
/* DROT on vectors scaled toward underflow (as LAPACK's test matrices are): both tiny (the
 * certified sum in the frame 2^600), results normal, near 2^-1022 and subnormal (left to the
 * exact sums), subnormal inputs, one side tiny and the other not; 37 pairs (the chunks) and
 * 4, 2, 1 (the short rotations' own path: scaled_rn2 on each pair where all are tiny); against
 * MPFR bit for bit */
START_TEST(rot_scaled)
{
    ozblas_handle_t h = tu_handle(MODES[_i]);
    ozref_rng r;
    tu_rng(&r, "rot_scaled");
    const int ex[] = { -1000, -960, -1015, -1030, -1060 };
    const double cs[][2] = { { 0.6, -0.8 }, { 0x1.3p-1, 0x1.7p-1 }, { 1.0, 0x1p-40 } };
    char ctx[120];
    for (size_t e = 0; e < sizeof ex / sizeof *ex; e++)
        for (size_t q = 0; q < 3; q++)
            for (int mixed = 0; mixed < 8; mixed++) {
                static const int64_t lens[4] = { 37, 4, 2, 1 };
                const int64_t n = lens[mixed / 2];
                double x[37], y[37], x2[37], y2[37];
                for (int64_t i = 0; i < n; i++) {
                    x[i] = ldexp(2.0 * ozref_uniform(&r) - 1.0, ex[e]);
                    y[i] = mixed % 2 && i % 3 == 0 ? 2.0 * ozref_uniform(&r) - 1.0 : ldexp(2.0 * ozref_uniform(&r) - 1.0, ex[e]);
                }
                memcpy(x2, x, sizeof x);
                memcpy(y2, y, sizeof y);
                const double c = cs[q][0], s = cs[q][1];
                ck_assert_int_eq(ozblas_drot(h, n, x2, 1, y2, 1, c, s), OZBLAS_STATUS_SUCCESS);
                snprintf(ctx, sizeof ctx, "%s 2^%d c=%a s=%a mixed=%d n=%d", tu_mode_name(MODES[_i]), ex[e], c, s, mixed % 2, (int)n);
                for (int64_t i = 0; i < n; i++) {
                    const double u1[2] = { c, s }, u2[2] = { c, -s }, v1[2] = { x[i], y[i] }, v2[2] = { y[i], x[i] };
                    const double wx = rn_dot(2, u1, v1), wy = rn_dot(2, u2, v2);
                    check_bits(&x2[i], &wx, 1, ctx);
                    check_bits(&y2[i], &wy, 1, ctx);
                }
                /* the same pairs strided (x by 2, y by -3: through a copy of the chunk) */
                double xs[2 * 37], ys[3 * 37];
                for (int64_t i = 0; i < n; i++) { xs[2 * i] = x[i]; ys[3 * (n - 1 - i)] = y[i]; }
                ck_assert_int_eq(ozblas_drot(h, n, xs, 2, ys, -3, c, s), OZBLAS_STATUS_SUCCESS);
                for (int64_t i = 0; i < n; i++) {
                    check_bits(&xs[2 * i], &x2[i], 1, ctx);
                    check_bits(&ys[3 * (n - 1 - i)], &y2[i], 1, ctx);
                }
            }
    /* inputs far above the scaled frame's 2^-200 and factors near 2^-850: results between
     * 2^-1020 and 2^-968 (the pair loop's bound, at least 2^-1022, leaves them to the two-term
     * loop and the exact sums) and near 2^-950 (certified), n = 37 and 5 */
    for (int q = 0; q < 2; q++)
        for (int64_t n = 37; n >= 5; n -= 32) {
            double xt[37], yt[37];
            const double c = ldexp(0x1.3p-1, q ? -800 : -850), s = ldexp(0x1.7p-1, q ? -800 : -850);
            for (int64_t i = 0; i < n; i++) {
                xt[i] = ldexp(2.0 * ozref_uniform(&r) - 1.0, -150 - (int)(i % 5));
                yt[i] = ldexp(2.0 * ozref_uniform(&r) - 1.0, -150 - (int)(i % 7));
            }
            double xt2[37], yt2[37];
            memcpy(xt2, xt, sizeof xt);
            memcpy(yt2, yt, sizeof yt);
            ck_assert_int_eq(ozblas_drot(h, n, xt2, 1, yt2, 1, c, s), OZBLAS_STATUS_SUCCESS);
            snprintf(ctx, sizeof ctx, "%s rot_scaled: results near 2^%d, n=%d", tu_mode_name(MODES[_i]), q ? -950 : -1000, (int)n);
            for (int64_t i = 0; i < n; i++) {
                const double u1[2] = { c, s }, u2[2] = { c, -s }, v1[2] = { xt[i], yt[i] }, v2[2] = { yt[i], xt[i] };
                const double wx = rn_dot(2, u1, v1), wy = rn_dot(2, u2, v2);
                check_bits(&xt2[i], &wx, 1, ctx);
                check_bits(&yt2[i], &wy, 1, ctx);
            }
        }
    /* a subnormal result above a midpoint of its grid by less than the scaled sum's half-ulp:
     * 0.5 (2^41 + 1) 2^-1074 + 2^-20 2^-1074 rounds up to (2^40 + 1) 2^-1074; rounded at 53
     * bits in the frame 2^600 first it would be the midpoint, then even, 2^40 2^-1074 */
    double x[1] = { ldexp((double)((1LL << 41) + 1), -1074) }, y[1] = { 0x1p-1074 };
    const double u[2] = { 0.5, 0x1p-20 }, v[2] = { x[0], y[0] }, want = rn_dot(2, u, v);
    ck_assert(want == ldexp((double)((1LL << 40) + 1), -1074));
    ck_assert_int_eq(ozblas_drot(h, 1, x, 1, y, 1, 0.5, 0x1p-20), OZBLAS_STATUS_SUCCESS);
    check_bits(&x[0], &want, 1, "rot_scaled: a subnormal result past a midpoint");
    /* Inf and NaN among finite elements (n = 11), first in the vector loop's elements only (a
     * chunk whose every element that loop decides is not done again), then in the tail only:
     * CONTRACT §4, the IEEE value of the exact sum (a finite term adds nothing next to an
     * infinite one, +Inf and -Inf meet as NaN), the finite elements RN(exact) */
    for (int part = 0; part < 2; part++) {
        double xs[11], ys[11], xs2[11], ys2[11];
        for (int64_t i = 0; i < 11; i++) { xs[i] = 2.0 * ozref_uniform(&r) - 1.0; ys[i] = 2.0 * ozref_uniform(&r) - 1.0; }
        if (part == 0) { xs[1] = INFINITY; ys[2] = -INFINITY; xs[5] = NAN; xs[6] = INFINITY; ys[6] = INFINITY; }
        else { ys[9] = NAN; xs[10] = -INFINITY; }
        memcpy(xs2, xs, sizeof xs);
        memcpy(ys2, ys, sizeof ys);
        ck_assert_int_eq(ozblas_drot(h, 11, xs2, 1, ys2, 1, 0.6, -0.8), OZBLAS_STATUS_SUCCESS);
        for (int64_t i = 0; i < 11; i++) {
            const double a[2] = { 0.6, -0.8 }, b[2] = { 0.6, 0.8 }, v1[2] = { xs[i], ys[i] }, v2[2] = { ys[i], xs[i] };
            const int fin = isfinite(xs[i]) && isfinite(ys[i]);
            const double wx = fin ? rn_dot(2, a, v1) : (isfinite(xs[i]) ? 0.0 : 0.6 * xs[i]) + (isfinite(ys[i]) ? 0.0 : -0.8 * ys[i]);
            const double wy = fin ? rn_dot(2, b, v2) : (isfinite(ys[i]) ? 0.0 : 0.6 * ys[i]) + (isfinite(xs[i]) ? 0.0 : 0.8 * xs[i]);
            check_bits(&xs2[i], &wx, 1, part ? "rot_scaled: Inf and NaN in the tail, x" : "rot_scaled: Inf and NaN, x");
            check_bits(&ys2[i], &wy, 1, part ? "rot_scaled: Inf and NaN in the tail, y" : "rot_scaled: Inf and NaN, y");
        }
    }
    /* increment 0 (CONTRACT §6): x_0 rotated against each y_i in turn, each pair reading the
     * x_0 the pair before it wrote, as the reference BLAS's loop; 600 pairs, more than a chunk */
    {
        enum { NZ = 600 };
        double yz[NZ], yz2[NZ], xz = 0.75, w = 0.75;
        for (int64_t i = 0; i < NZ; i++) yz[i] = 2.0 * ozref_uniform(&r) - 1.0;
        memcpy(yz2, yz, sizeof yz);
        ck_assert_int_eq(ozblas_drot(h, NZ, &xz, 0, yz2, 1, 0.6, -0.8), OZBLAS_STATUS_SUCCESS);
        for (int64_t i = 0; i < NZ; i++) {
            const double a[2] = { 0.6, -0.8 }, b[2] = { 0.6, 0.8 }, v1[2] = { w, yz[i] }, v2[2] = { yz[i], w };
            const double wy = rn_dot(2, b, v2);
            check_bits(&yz2[i], &wy, 1, "rot_scaled: increment 0, y");
            w = rn_dot(2, a, v1);
        }
        check_bits(&xz, &w, 1, "rot_scaled: increment 0, x_0");
    }
    ozblas_destroy(h);
}
END_TEST

START_TEST(level2)
{
    ozblas_mode_t mode = MODES[_i];
    ozblas_handle_t h = tu_handle(mode);
    ozref_rng r;
    tu_rng(&r, "level2");
    /* 300: DSYMV's and DTRMV's DOTs down the columns beyond one split (eft/eft_symv.c) */
    const int64_t ns[] = { 1, 5, 33, 70, 300 };
    char ctx[160];
    int c = 0;
    for (size_t a = 0; a < 5; a++)
        for (int lower = 0; lower < 2; lower++)
            for (int tr = 0; tr < 2; tr++, c++) {
                const int64_t n = ns[a], lda = n + 1 + c % 3, ix = c % 3 == 1 ? -2 : 1, iy = c % 2 ? 3 : 1;
                const double phi = (double)(c % 4) * 2.0, alpha = c % 3 ? -1.5 : 1.0, beta = c % 4 == 0 ? 0.0 : 0.75;
                snprintf(ctx, sizeof ctx, "%s n=%lld lower=%d trans=%d", tu_mode_name(mode), (long long)n, lower, tr);
                double *A = mat(&r, n, n, lda, phi), *x = tu_alloc(tu_vec_len(n, ix)), *y = tu_alloc(tu_vec_len(n, iy));
                tu_fill_vec(&r, x, n, ix, phi);
                tu_fill_vec(&r, y, n, iy, phi);
                /* dsymv */
                double *S = sym_whole(A, lda, n, lower), *y2 = tu_alloc(tu_vec_len(n, iy));
                memcpy(y2, y, tu_vec_len(n, iy) * sizeof *y);
                double *ye = tu_alloc(tu_vec_len(n, iy));
                memcpy(ye, y, tu_vec_len(n, iy) * sizeof *y);
                ozref_dgemv(0, n, n, alpha, S, n, x, ix, beta, ye, iy);
                ck_assert_int_eq(ozblas_dsymv(h, lower ? OZBLAS_LOWER : OZBLAS_UPPER, n, alpha, A, lda, x, ix, beta, y2, iy),
                                 OZBLAS_STATUS_SUCCESS);
                if (exact_mode(mode)) check_bits(y2, ye, tu_vec_len(n, iy), ctx);
                for (int unit = 0; unit < 2; unit++) {
                    /* dtrmv */
                    double *T = tri_whole(A, lda, n, lower, tr, unit), *x2 = tu_alloc(tu_vec_len(n, ix));
                    double *xe = tu_alloc(tu_vec_len(n, ix));
                    memcpy(x2, x, tu_vec_len(n, ix) * sizeof *x);
                    ozref_dgemv(0, n, n, 1.0, T, n, x, ix, 0.0, xe, ix);
                    ck_assert_int_eq(ozblas_dtrmv(h, lower ? OZBLAS_LOWER : OZBLAS_UPPER, tr ? OZBLAS_OP_T : OZBLAS_OP_N,
                                                  unit ? OZBLAS_UNIT : OZBLAS_NON_UNIT, n, A, lda, x2, ix),
                                     OZBLAS_STATUS_SUCCESS);
                    if (exact_mode(mode)) check_bits(x2, xe, tu_vec_len(n, ix), ctx);
                    free(T); free(x2); free(xe);
                }
                /* dger, dsyr, dsyr2: every mode correctly rounded */
                double *A2 = tu_alloc((size_t)(lda * n)), *Ae = tu_alloc((size_t)(lda * n));
                memcpy(A2, A, sizeof(double) * (size_t)(lda * n));
                memcpy(Ae, A, sizeof(double) * (size_t)(lda * n));
                ck_assert_int_eq(ozblas_dger(h, n, n, alpha, x, ix, y, iy, A2, lda), OZBLAS_STATUS_SUCCESS);
                for (int64_t j = 0; j < n; j++)
                    for (int64_t i = 0; i < n; i++) {
                        const double e = ozref_dgemm_elem(0, 1, 0, 0, 1, alpha, tu_vec_elem(x, n, ix, i), 1,
                                                          tu_vec_elem(y, n, iy, j), 1, 1.0, A[i + j * lda]);
                        Ae[i + j * lda] = e;
                    }
                check_bits(A2, Ae, (size_t)(lda * n), ctx);
                memcpy(A2, A, sizeof(double) * (size_t)(lda * n));
                memcpy(Ae, A, sizeof(double) * (size_t)(lda * n));
                ck_assert_int_eq(ozblas_dsyr2(h, lower ? OZBLAS_LOWER : OZBLAS_UPPER, n, alpha, x, ix, y, iy, A2, lda),
                                 OZBLAS_STATUS_SUCCESS);
                for (int64_t j = 0; j < n; j++)
                    for (int64_t i = lower ? j : 0; i < (lower ? n : j + 1); i++) {
                        const double p[2] = { *tu_vec_elem(x, n, ix, i), *tu_vec_elem(y, n, iy, i) };
                        const double q[2] = { *tu_vec_elem(y, n, iy, j), *tu_vec_elem(x, n, ix, j) };
                        Ae[i + j * lda] = ozref_dgemm_elem(0, 1, 0, 0, 2, alpha, p, 1, q, 1, 1.0, A[i + j * lda]);
                    }
                check_bits(A2, Ae, (size_t)(lda * n), ctx);
                for (int64_t back = 0; back < 2 && ix == 1 && iy == 1; back++) {
                    /* the same with y a multiple of 4 KB before x in one allocation, or that
                     * less one element (the L1's sets alike either way: DSYR2 reads y from a
                     * copy), the same bits */
                    const int64_t gap = 512 * ((n + 512) / 512) - back;
                    double *xy = tu_alloc((size_t)(gap + n));
                    memcpy(xy, y, sizeof(double) * (size_t)n);
                    memcpy(xy + gap, x, sizeof(double) * (size_t)n);
                    memcpy(A2, A, sizeof(double) * (size_t)(lda * n));
                    ck_assert_int_eq(ozblas_dsyr2(h, lower ? OZBLAS_LOWER : OZBLAS_UPPER, n, alpha, xy + gap, 1, xy, 1, A2, lda),
                                     OZBLAS_STATUS_SUCCESS);
                    check_bits(A2, Ae, (size_t)(lda * n), ctx);
                    free(xy);
                }
                memcpy(A2, A, sizeof(double) * (size_t)(lda * n));
                memcpy(Ae, A, sizeof(double) * (size_t)(lda * n));
                ck_assert_int_eq(ozblas_dsyr(h, lower ? OZBLAS_LOWER : OZBLAS_UPPER, n, alpha, x, ix, A2, lda),
                                 OZBLAS_STATUS_SUCCESS);
                for (int64_t j = 0; j < n; j++)
                    for (int64_t i = lower ? j : 0; i < (lower ? n : j + 1); i++)
                        Ae[i + j * lda] = ozref_dgemm_elem(0, 1, 0, 0, 1, alpha, tu_vec_elem(x, n, ix, i), 1,
                                                           tu_vec_elem(x, n, ix, j), 1, 1.0, A[i + j * lda]);
                check_bits(A2, Ae, (size_t)(lda * n), ctx);
                free(A); free(x); free(y); free(S); free(y2); free(ye); free(A2); free(Ae);
            }
    ozblas_destroy(h);
}
END_TEST

/* the solve rule of CONTRACT §6 on one column, from exact sums: a lower op(T) given whole */
static void ref_solve_col(const double *L, int64_t n, int unit, double *x)
{
    const int64_t nb = OZBLAS_TRSM_BLOCK;
    double *u = malloc(sizeof(double) * (size_t)(n + 1)), *v = malloc(sizeof(double) * (size_t)(n + 1));
    for (int64_t s = 0; s < n; s += nb) {
        const int64_t e = s + nb < n ? s + nb : n;
        for (int64_t i = s; i < e && s > 0; i++) {
            u[0] = 1.0; v[0] = x[i];
            for (int64_t j = 0; j < s; j++) { u[j + 1] = -L[i + j * n]; v[j + 1] = x[j]; }
            x[i] = rn_dot(s + 1, u, v);
        }
        for (int64_t i = s; i < e; i++) {
            /* a block's first row has no in-block sum: r_i itself (a -0 stays -0) */
            u[0] = 1.0; v[0] = x[i];
            for (int64_t j = s; j < i; j++) { u[j - s + 1] = -L[i + j * n]; v[j - s + 1] = x[j]; }
            if (i > s) x[i] = rn_dot(i - s + 1, u, v);
            if (!unit) x[i] /= L[i + i * n];
        }
    }
    free(u); free(v);
}

/* reference for dtrsm/dtrsv: B (m x n, ldb) := solution, by columns (left) or rows (right) */
static void ref_trsm(int left, int lower, int tr, int unit, int64_t m, int64_t n, double alpha, const double *A,
                     int64_t lda, double *B, int64_t ldb)
{
    const int64_t ka = left ? m : n;
    /* the system's matrix: left op(T), right op(T)^T; reversed when upper */
    double *F = tri_whole(A, lda, ka, lower, left ? tr : !tr, unit);
    const int up = left ? (lower == tr) : (lower != tr);
    double *L = malloc(sizeof(double) * (size_t)(ka * ka)), *col = malloc(sizeof(double) * (size_t)ka);
    for (int64_t j = 0; j < ka; j++)
        for (int64_t i = 0; i < ka; i++) L[i + j * ka] = up ? F[(ka - 1 - i) + (ka - 1 - j) * ka] : F[i + j * ka];
    const int64_t ncol = left ? n : m;
    for (int64_t c = 0; c < ncol; c++) {
        for (int64_t i = 0; i < ka; i++) {
            const int64_t ii = up ? ka - 1 - i : i;
            const double b = left ? B[ii + c * ldb] : B[c + ii * ldb];
            col[i] = alpha == 1.0 ? b : alpha * b;
        }
        ref_solve_col(L, ka, unit, col);
        for (int64_t i = 0; i < ka; i++) {
            const int64_t ii = up ? ka - 1 - i : i;
            if (left) B[ii + c * ldb] = col[i];
            else B[c + ii * ldb] = col[i];
        }
    }
    free(F); free(L); free(col);
}

/* a well-conditioned triangle: a dominant diagonal */
static double *tri_operand(ozref_rng *r, int64_t n, int64_t lda, double phi)
{
    double *A = mat(r, n, n, lda, phi);
    for (int64_t i = 0; i < n; i++) A[i + i * lda] = (A[i + i * lda] < 0 ? -1.0 : 1.0) * (4.0 + fabs(A[i + i * lda]));
    return A;
}

/* NaN where T is not referenced: the other triangle, and a unit diagonal */
static void nan_unreferenced(double *A, int64_t lda, int64_t ka, int lower, int unit)
{
    for (int64_t j = 0; j < ka; j++)
        for (int64_t i = 0; i < ka; i++)
            if (lower ? i < j : i > j) A[i + j * lda] = NAN;
            else if (i == j && unit) A[i + j * lda] = NAN;
}

/* DTRMM on a copy of B, its bits against the exact product on op(T) made whole (every mode but
 * FIXED) */
static void check_trmm(ozblas_handle_t h, ozblas_mode_t mode, int left, int lower, int tr, int unit, int64_t m, int64_t n,
                       double alpha, const double *A, int64_t lda, const double *B, int64_t ldb, const char *ctx)
{
    const int64_t ka = left ? m : n;
    const size_t nb = (size_t)(ldb * n);
    double *B2 = tu_alloc(nb), *Be = tu_alloc(nb);
    memcpy(B2, B, nb * sizeof *B);
    memcpy(Be, B, nb * sizeof *B);
    ck_assert_int_eq(ozblas_dtrmm(h, left ? OZBLAS_LEFT : OZBLAS_RIGHT, lower ? OZBLAS_LOWER : OZBLAS_UPPER,
                                  tr ? OZBLAS_OP_T : OZBLAS_OP_N, unit ? OZBLAS_UNIT : OZBLAS_NON_UNIT, m, n, alpha, A, lda, B2, ldb),
                     OZBLAS_STATUS_SUCCESS);
    if (exact_mode(mode)) {
        double *F = tri_whole(A, lda, ka, lower, tr, unit);
        if (left) ozref_dgemm(0, 0, m, n, m, alpha, F, m, B, ldb, 0.0, Be, ldb);
        else ozref_dgemm(0, 0, m, n, n, alpha, B, ldb, F, n, 0.0, Be, ldb);
        check_bits(B2, Be, nb, ctx);
        free(F);
    }
    free(B2); free(Be);
}

START_TEST(level3_tri)
{
    ozblas_mode_t mode = MODES[_i];
    ozblas_handle_t h = tu_handle(mode);
    ozref_rng r;
    tu_rng(&r, "level3_tri");
    /* 150: DTRMM's blocks of 64 where its results are RN(exact), the last one partial */
    const int64_t sizes[][2] = { { 1, 1 }, { 7, 3 }, { 3, 7 }, { 40, 17 }, { 17, 40 }, { 150, 5 }, { 6, 150 } };
    char ctx[200];
    int c = 0;
    for (size_t s = 0; s < 7; s++)
        for (int left = 0; left < 2; left++)
            for (int lower = 0; lower < 2; lower++)
                for (int tr = 0; tr < 2; tr++)
                    for (int unit = 0; unit < 2; unit++, c++) {
                        const int64_t m = sizes[s][0], n = sizes[s][1], ka = left ? m : n;
                        const int64_t lda = ka + c % 3, ldb = m + (c / 3) % 2;
                        const double alpha = c % 3 == 0 ? 1.0 : c % 3 == 1 ? -0.5 : 3.0, phi = (double)(c % 3) * 2.0;
                        snprintf(ctx, sizeof ctx, "%s %dx%d left=%d lower=%d trans=%d unit=%d", tu_mode_name(mode),
                                 (int)m, (int)n, left, lower, tr, unit);
                        double *A = tri_operand(&r, ka, lda, phi), *B = mat(&r, m, n, ldb, phi);
                        nan_unreferenced(A, lda, ka, lower, unit);
                        const size_t nb = (size_t)(ldb * n);
                        double *B2 = tu_alloc(nb), *Be = tu_alloc(nb);
                        const ozblas_side_t sd = left ? OZBLAS_LEFT : OZBLAS_RIGHT;
                        const ozblas_uplo_t ul = lower ? OZBLAS_LOWER : OZBLAS_UPPER;
                        const ozblas_operation_t op = tr ? OZBLAS_OP_T : OZBLAS_OP_N;
                        const ozblas_diag_t dg = unit ? OZBLAS_UNIT : OZBLAS_NON_UNIT;
                        /* dtrsm */
                        memcpy(B2, B, nb * sizeof *B);
                        memcpy(Be, B, nb * sizeof *B);
                        ck_assert_int_eq(ozblas_dtrsm(h, sd, ul, op, dg, m, n, alpha, A, lda, B2, ldb), OZBLAS_STATUS_SUCCESS);
                        if (exact_mode(mode)) {
                            ref_trsm(left, lower, tr, unit, m, n, alpha, A, lda, Be, ldb);
                            check_bits(B2, Be, nb, ctx);
                        }
                        /* the same bits column by column (left) / row by row as DTRSV (right: rows of B) */
                        memcpy(Be, B, nb * sizeof *B);
                        for (int64_t q = 0; q < (left ? n : m); q++) {
                            if (left) ck_assert_int_eq(ozblas_dtrsm(h, sd, ul, op, dg, m, 1, alpha, A, lda, Be + q * ldb, ldb), 0);
                            else {
                                if (alpha != 1.0) for (int64_t j = 0; j < n; j++) Be[q + j * ldb] *= alpha;
                                ck_assert_int_eq(ozblas_dtrsv(h, ul, tr ? OZBLAS_OP_N : OZBLAS_OP_T, dg, n, A, lda, Be + q, ldb), 0);
                            }
                        }
                        check_bits(B2, Be, nb, ctx);
                        check_trmm(h, mode, left, lower, tr, unit, m, n, alpha, A, lda, B, ldb, ctx);
                        free(A); free(B); free(B2); free(Be);
                    }
    ozblas_destroy(h);
}
END_TEST

/* Tiny DTRMMs (order at most 4, B at most 16 elements, alpha = +-1: shapes/tri_tiny.c's
 * element-by-element path) against the exact product on op(T) made whole, every side,
 * triangle, transpose and diagonal, NaN where T is not referenced; results that cancel to
 * zero (left to the general path) and a result near underflow among them */
START_TEST(trmm_tiny)
{
    ozblas_mode_t mode = MODES[_i];
    ozblas_handle_t h = tu_handle(mode);
    ozref_rng r;
    tu_rng(&r, "trmm_tiny");
    char ctx[200];
    int c = 0;
    for (int64_t m = 1; m <= 4; m++)
        for (int64_t n = 1; n <= 4; n++)
            for (int left = 0; left < 2; left++)
                for (int lower = 0; lower < 2; lower++)
                    for (int tr = 0; tr < 2; tr++)
                        for (int unit = 0; unit < 2; unit++, c++) {
                            const int64_t ka = left ? m : n, lda = ka + c % 2, ldb = m + (c / 2) % 2;
                            const double alpha = c % 3 == 1 ? -1.0 : 1.0, phi = (double)(c % 3) * 2.0;
                            snprintf(ctx, sizeof ctx, "trmm_tiny %s %dx%d left=%d lower=%d trans=%d unit=%d alpha=%g",
                                     tu_mode_name(mode), (int)m, (int)n, left, lower, tr, unit, alpha);
                            double *A = tri_operand(&r, ka, lda, phi), *B = mat(&r, m, n, ldb, phi);
                            nan_unreferenced(A, lda, ka, lower, unit);
                            if (c % 7 == 3) B[0] = 0.0;                     /* a zero product */
                            if (c % 11 == 5) B[(m - 1) + (n - 1) * ldb] = 0x1.8p-1070;   /* a subnormal one */
                            check_trmm(h, mode, left, lower, tr, unit, m, n, alpha, A, lda, B, ldb, ctx);
                            free(A); free(B);
                        }
    ozblas_destroy(h);
}
END_TEST

/* DTRMM and DTRMV with Inf and NaN in B (x): only the triangle's terms count (CONTRACT §4),
 * as in the reference BLAS, which never multiplies op(T)'s absent zeros: an element whose
 * triangle meets no Inf or NaN is finite, RN(exact) over the triangle in every mode (its
 * special elements are computed so), though op(T) made whole would give it 0 Inf = NaN.  Every
 * side, triangle, transpose and diagonal, m = 80 (the diagonal block of the blocked product
 * crosses the special rows), in every mode. */
START_TEST(trmm_absent_zeros)
{
    ozblas_mode_t mode = MODES[_i];
    ozblas_handle_t h = tu_handle(mode);
    ozref_rng r;
    tu_rng(&r, "trmm_absent_zeros");
    const int64_t m = 80, n = 7, lda = 81, ldb = 82;
    const size_t nb = (size_t)(ldb * n);
    char ctx[160];
    int c = 0;
    for (int left = 0; left < 2; left++)
        for (int lower = 0; lower < 2; lower++)
            for (int tr = 0; tr < 2; tr++)
                for (int unit = 0; unit < 2; unit++, c++) {
                    const int64_t ka = left ? m : n;
                    double *A = tri_operand(&r, ka, lda, 1.0), *B = mat(&r, m, n, ldb, 1.0);
                    for (int64_t q = 0; q < lda * ka; q++)   /* the other triangle: never read */
                        if ((lower ? q % lda < q / lda : q % lda > q / lda) && q % lda < ka) A[q] = NAN;
                    /* an Inf, a -Inf and a NaN in B, away from its edges and at them; two in
                     * one vector (left: column 4, rows 3 and 60; right: row 3, columns 1 and 4),
                     * whose rows between are Inf on their triangle and NaN on the whole */
                    B[70 + 2 * ldb] = INFINITY;
                    B[3 + 4 * ldb] = -INFINITY;
                    B[60 + 4 * ldb] = INFINITY;
                    B[3 + 1 * ldb] = INFINITY;
                    B[(left ? 40 : 5) + (left ? 6 : 1) * ldb] = NAN;
                    B[0] = c % 2 ? INFINITY : 1.0;
                    const ozblas_side_t sd = left ? OZBLAS_LEFT : OZBLAS_RIGHT;
                    const ozblas_uplo_t ul = lower ? OZBLAS_LOWER : OZBLAS_UPPER;
                    const ozblas_operation_t op = tr ? OZBLAS_OP_T : OZBLAS_OP_N;
                    const ozblas_diag_t dg = unit ? OZBLAS_UNIT : OZBLAS_NON_UNIT;
                    snprintf(ctx, sizeof ctx, "trmm_absent_zeros %s left=%d lower=%d trans=%d unit=%d", tu_mode_name(mode),
                             left, lower, tr, unit);
                    double *B2 = tu_alloc(nb), *Bf = tu_alloc(nb), *Be = tu_alloc(nb);
                    memcpy(B2, B, nb * sizeof *B);
                    ck_assert_int_eq(ozblas_dtrmm(h, sd, ul, op, dg, m, n, -0.5, A, lda, B2, ldb), OZBLAS_STATUS_SUCCESS);
                    /* the expected: per element, the triangle's terms; B's specials as 0 for the
                     * finite ones (exact: T's absent zeros are zeros in F) */
                    double *F = tri_whole(A, lda, ka, lower, tr, unit);
                    for (size_t q = 0; q < nb; q++) Bf[q] = isfinite(B[q]) ? B[q] : 0.0;
                    if (left) ozref_dgemm(0, 0, m, n, m, -0.5, F, m, Bf, ldb, 0.0, Be, ldb);
                    else ozref_dgemm(0, 0, m, n, n, -0.5, Bf, ldb, F, n, 0.0, Be, ldb);
                    for (int64_t j = 0; j < n; j++)
                        for (int64_t i = 0; i < m; i++) {
                            /* the special terms of element (i, j): Inf or NaN in its triangle */
                            double sp = 0.0;
                            for (int64_t l = 0; l < ka; l++) {
                                const double f = left ? F[i + l * m] : F[l + j * n], b = left ? B[l + j * ldb] : B[i + l * ldb];
                                const int in = (left ? (lower != tr ? l <= i : l >= i) : (lower != tr ? l >= j : l <= j));
                                if (in && !isfinite(b)) sp += -0.5 * f * b;
                            }
                            const double got = B2[i + j * ldb];
                            if (sp != 0.0 || isnan(sp))
                                ck_assert_msg(isnan(sp) ? isnan(got) : got == sp, "%s: (%lld, %lld) got %a, want %a", ctx,
                                              (long long)i, (long long)j, got, sp);
                            else if (exact_mode(mode))
                                ck_assert_msg(got == Be[i + j * ldb], "%s: (%lld, %lld) got %a, want %a", ctx, (long long)i,
                                              (long long)j, got, Be[i + j * ldb]);
                            else
                                ck_assert_msg(isfinite(got), "%s: (%lld, %lld) got %a, want a finite value", ctx, (long long)i,
                                              (long long)j, got);
                        }
                    /* DTRMV on each column (left) or row (right) alike */
                    memcpy(B2, B, nb * sizeof *B);
                    for (int64_t q = 0; q < (left ? n : m); q++) {
                        if (left) ck_assert_int_eq(ozblas_dtrmv(h, ul, op, dg, m, A, lda, B2 + q * ldb, 1), 0);
                        else ck_assert_int_eq(ozblas_dtrmv(h, ul, tr ? OZBLAS_OP_N : OZBLAS_OP_T, dg, n, A, lda, B2 + q, ldb), 0);
                    }
                    for (int64_t j = 0; j < n; j++)
                        for (int64_t i = 0; i < m; i++) {
                            double sp = 0.0, e = 0.0;
                            for (int64_t l = 0; l < ka; l++) {
                                const double f = left ? F[i + l * m] : F[l + j * n], b = left ? B[l + j * ldb] : B[i + l * ldb];
                                const int in = (left ? (lower != tr ? l <= i : l >= i) : (lower != tr ? l >= j : l <= j));
                                if (in && !isfinite(b)) sp += f * b;
                            }
                            const double got = B2[i + j * ldb];
                            if (sp != 0.0 || isnan(sp)) e = sp;
                            else e = -2.0 * Be[i + j * ldb];   /* alpha 1: the same sums, exactly -2 times (a power of two) */
                            if (isfinite(e) && !exact_mode(mode)) e = isfinite(got) ? got : e;   /* FIXED: finite */
                            ck_assert_msg(isnan(e) ? isnan(got) : got == e, "%s dtrmv: (%lld, %lld) got %a, want %a", ctx,
                                          (long long)i, (long long)j, got, e);
                        }
                    free(F); free(A); free(B); free(B2); free(Bf); free(Be);
                }
    ozblas_destroy(h);
}
END_TEST

/* DTRSM's in-block rows eight columns at a time (a lane each), with lanes left to the short
 * sums: a column of zeros (every in-block product zero), of -0, an identity column, exactly
 * cancelling sums (integer T and X, so B = T X is exact), an Inf, a NaN, products below the
 * underflow threshold; each against the column-by-column solve (one column: the short sums
 * alone), the same bits on 1 and 2 threads, and MPFR's in the exact modes.  m = 37: three
 * blocks, the last partial; n = 21: groups of 8, 8 and 5 lanes. */
START_TEST(trsm_lanes)
{
    ozblas_mode_t mode = MODES[_i];
    ozref_rng r;
    tu_rng(&r, "trsm_lanes");
    const int64_t m = 37, n = 21, lda = 39, ldb = 40;
    const size_t nb = (size_t)(ldb * n);
    char ctx[160];
    double *A = tu_alloc((size_t)(lda * m)), *B = mat(&r, m, n, ldb, 2.0), *X = tu_alloc(nb), *Be = tu_alloc(nb);
    for (int64_t j = 0; j < m; j++)
        for (int64_t i = 0; i < m; i++) A[i + j * lda] = i == j ? (i % 3 ? 1.0 : -1.0) : (double)((i * 7 + j * 3) % 7 - 3);
    for (int lower = 0; lower < 2; lower++)
        for (int unit = 0; unit < 2; unit++) {
            /* column 6: B = T X with X integers, every third zero: the in-block sums of those
             * rows cancel exactly */
            for (int64_t i = 0; i < m; i++) X[i] = i % 3 == 1 ? 0.0 : (double)(i % 5 - 2);
            for (int64_t i = 0; i < m; i++) {
                double v = 0.0;
                for (int64_t l = lower ? 0 : i; lower ? l <= i : l < m; l++)
                    v += (l == i ? (unit ? 1.0 : A[i + i * lda]) : A[i + l * lda]) * X[l];
                B[i + 6 * ldb] = v;
            }
            for (int64_t i = 0; i < m; i++) {
                B[i] = 0.0;                                        /* column 0: zeros */
                if (i < 20) B[i + ldb] = 0.0;                      /* column 1: zeros, then values */
                B[i + 2 * ldb] = -0.0;                             /* column 2: -0 */
                B[i + 5 * ldb] = ldexp(B[i + 5 * ldb], -1000);     /* column 5: tiny */
                B[i + 16 * ldb] = i == 17 ? 1.0 : 0.0;             /* column 16: identity */
            }
            B[5 + 3 * ldb] = INFINITY;                             /* column 3: an Inf */
            B[20 + 4 * ldb] = NAN;                                 /* column 4: a NaN */
            const ozblas_uplo_t ul = lower ? OZBLAS_LOWER : OZBLAS_UPPER;
            const ozblas_diag_t dg = unit ? OZBLAS_UNIT : OZBLAS_NON_UNIT;
            /* t = 0: one thread; 1: two, the call cut into two parts (8 and 13 columns, each
             * on its own thread: core/parts.h); 2: two, in two calls of 13 and 8 columns,
             * too few for parts, so that the 13 columns' two lane groups run on both threads */
            double *got[3];
            for (int t = 0; t < 3; t++) {
                ozblas_handle_t h = tu_handle(mode);
                ozblas_set_num_threads(h, t ? 2 : 1);
                ozblas_set_parallel_threshold(h, 1);
                got[t] = tu_alloc(nb);
                memcpy(got[t], B, nb * sizeof *B);
                if (t < 2) ck_assert_int_eq(ozblas_dtrsm(h, OZBLAS_LEFT, ul, OZBLAS_OP_N, dg, m, n, 1.0, A, lda, got[t], ldb), 0);
                else
                    for (int64_t q = 0; q < n; q += 13)
                        ck_assert_int_eq(ozblas_dtrsm(h, OZBLAS_LEFT, ul, OZBLAS_OP_N, dg, m, n - q < 13 ? n - q : 13, 1.0, A,
                                                      lda, got[t] + q * ldb, ldb), 0);
                memcpy(Be, B, nb * sizeof *B);
                for (int64_t q = 0; q < n; q++)
                    ck_assert_int_eq(ozblas_dtrsm(h, OZBLAS_LEFT, ul, OZBLAS_OP_N, dg, m, 1, 1.0, A, lda, Be + q * ldb, ldb), 0);
                snprintf(ctx, sizeof ctx, "%s lower=%d unit=%d case %d: columns against one by one", tu_mode_name(mode),
                         lower, unit, t);
                tu_check_bits(got[t], Be, nb, 0, ctx);
                ozblas_destroy(h);
            }
            tu_check_bits(got[1], got[0], nb, 0, "trsm_lanes: two parts against one thread");
            tu_check_bits(got[2], got[0], nb, 0, "trsm_lanes: lane groups on two threads against one thread");
            if (exact_mode(mode)) {
                memcpy(Be, B, nb * sizeof *B);
                ref_trsm(1, lower, 0, unit, m, n, 1.0, A, lda, Be, ldb);
                snprintf(ctx, sizeof ctx, "%s lower=%d unit=%d: against MPFR", tu_mode_name(mode), lower, unit);
                check_bits(got[0], Be, nb, ctx);
                for (int64_t i = 0; i < m; i++) ck_assert(got[0][i + 6 * ldb] == X[i]);
            }
            for (int t = 0; t < 3; t++) free(got[t]);
        }
    /* a NaN and an Inf in T beside zero rows of X: the products NaN 0 and Inf 0 are NaN, so
     * rows 2 and 3 are NaN in every column, though every other product of theirs is zero (the
     * lanes must not take the zero-products value) */
    {
        const int64_t m5 = 5, n9 = 9;
        double T5[25], B5[45], G5[45], E5[45];
        for (int64_t j = 0; j < 5; j++)
            for (int64_t i = 0; i < 5; i++) T5[i + 5 * j] = i == j ? 2.0 : i > j ? 0.0 : 7.0;
        T5[2] = NAN;       /* T(2, 0) */
        T5[3] = INFINITY;  /* T(3, 0) */
        for (int64_t q = 0; q < n9; q++)
            for (int64_t i = 0; i < m5; i++) B5[i + 5 * q] = i < 2 ? 0.0 : 1.0 + (double)q;
        ozblas_handle_t h = tu_handle(mode);
        memcpy(G5, B5, sizeof B5);
        ck_assert_int_eq(ozblas_dtrsm(h, OZBLAS_LEFT, OZBLAS_LOWER, OZBLAS_OP_N, OZBLAS_NON_UNIT, m5, n9, 1.0, T5, 5, G5, 5), 0);
        memcpy(E5, B5, sizeof B5);
        for (int64_t q = 0; q < n9; q++)
            ck_assert_int_eq(ozblas_dtrsm(h, OZBLAS_LEFT, OZBLAS_LOWER, OZBLAS_OP_N, OZBLAS_NON_UNIT, m5, 1, 1.0, T5, 5, E5 + 5 * q, 5), 0);
        tu_check_bits(G5, E5, 45, 1, "trsm_lanes: NaN and Inf in T, against one column at a time");
        for (int64_t q = 0; q < n9; q++)
            ck_assert_msg(isnan(G5[2 + 5 * q]) && isnan(G5[3 + 5 * q]) && G5[5 * q] == 0.0, "trsm_lanes: column %lld", (long long)q);
        ozblas_destroy(h);
    }
    /* Just past a midpoint: T unit lower, its row 7 -1 in the columns of x_0 and x_1 (the rest
     * identity), so x_7 = RN(b_7 + 2^-53 + 2^-200) with b_7 = 1 + q 2^-51 in column q: above
     * the midpoint, RN = b_7 + 2^-52.  row_chain (eft_subst.c) gets S = 2^-53 and R = 2^-200,
     * and w = RN(z1 + R) = 2^-53 loses R: y + z is the midpoint itself, so its certificate must
     * leave the row to the strip's sums.  8 columns (one lane group) with rows 2-6 zero (each
     * a zero result, which no certificate takes: every row from 2 on by the 256-bit rows); 24
     * (with 512-bit vectors, two groups side by side, eft_subst512.c, and one alone) and 16
     * whose first group is not near a midpoint (2^-54 in place of 2^-53: RN = b_7), with rows
     * 2-6 one, so that the 512-bit rows reach row 7 and their certificate must leave it: for
     * every group (24) or, the pair stopping there for the second group alone, the first
     * going on by itself (16). */
    for (int cs = 0; cs < 3; cs++) {
        const int64_t nn = cs == 0 ? 8 : cs == 1 ? 24 : 16;
        double T8[64], B8[8 * 24];
        for (int64_t j = 0; j < 8; j++)
            for (int64_t i = 0; i < 8; i++) T8[i + 8 * j] = i == j ? 1.0 : i == 7 && j < (cs ? 2 : 7) ? -1.0 : 0.0;
        for (int64_t q = 0; q < nn; q++) {
            const double mid = cs ? 1.0 : 0.0;
            const double x[8] = { cs == 2 && q < 8 ? 0x1p-54 : 0x1p-53, 0x1p-200, mid, mid, mid, mid, mid, 1.0 + (double)q * 0x1p-51 };
            memcpy(B8 + 8 * q, x, sizeof x);
        }
        ozblas_handle_t h = tu_handle(mode);
        ck_assert_int_eq(ozblas_dtrsm(h, OZBLAS_LEFT, OZBLAS_LOWER, OZBLAS_OP_N, OZBLAS_UNIT, 8, nn, 1.0, T8, 8, B8, 8), 0);
        for (int64_t q = 0; q < nn; q++) {
            const double want = 1.0 + (double)q * 0x1p-51 + (cs == 2 && q < 8 ? 0.0 : 0x1p-52);
            ck_assert_msg(B8[7 + 8 * q] == want, "trsm_lanes: near a midpoint, %lld columns, column %lld: got %a, want %a",
                          (long long)nn, (long long)q, B8[7 + 8 * q], want);
        }
        ozblas_destroy(h);
    }
    free(A); free(B); free(X); free(Be);
}
END_TEST

START_TEST(level3_sym)
{
    ozblas_mode_t mode = MODES[_i];
    ozblas_handle_t h = tu_handle(mode);
    ozref_rng r;
    tu_rng(&r, "level3_sym");
    /* the last: operands near 2^-480, C near 2^-960 (LAPACK's scaled matrices): every product
     * below the sums' range, so the scaled sums take the diagonal blocks */
    const int64_t sizes[][3] = { { 1, 1, 0 }, { 5, 9, 0 }, { 70, 3, 0 }, { 130, 20, 0 }, { 100, 24, 1 } };
    char ctx[200];
    int c = 0;
    for (size_t s = 0; s < 5; s++)
        for (int lower = 0; lower < 2; lower++)
            for (int tr = 0; tr < 2; tr++, c++) {
                const int64_t n = sizes[s][0], k = sizes[s][1];
                const int64_t lda = (tr ? k : n) + c % 2, ldc = n + 1;
                const double alpha = c % 2 ? -2.0 : 1.0, beta = c % 3 == 0 ? 0.0 : 0.5, phi = (double)(c % 4) * 2.0;
                snprintf(ctx, sizeof ctx, "%s n=%d k=%d lower=%d trans=%d", tu_mode_name(mode), (int)n, (int)k, lower, tr);
                double *A = mat(&r, tr ? k : n, tr ? n : k, lda, phi), *B = mat(&r, tr ? k : n, tr ? n : k, lda, phi);
                double *C = mat(&r, n, n, ldc, phi);
                const size_t nc = (size_t)(ldc * n);
                if (sizes[s][2])
                    for (int64_t q = 0; q < (tr ? n : k) * lda; q++) {
                        A[q] = ldexp(A[q], -480);
                        B[q] = ldexp(B[q], -480);
                    }
                if (sizes[s][2])
                    for (size_t q = 0; q < nc; q++) C[q] = ldexp(C[q], -960);
                double *C2 = tu_alloc(nc), *Ce = tu_alloc(nc);
                const ozblas_uplo_t ul = lower ? OZBLAS_LOWER : OZBLAS_UPPER;
                const ozblas_operation_t op = tr ? OZBLAS_OP_T : OZBLAS_OP_N;
                /* dsyrk: the triangle RN(exact), the rest untouched */
                memcpy(C2, C, nc * sizeof *C);
                memcpy(Ce, C, nc * sizeof *C);
                ck_assert_int_eq(ozblas_dsyrk(h, ul, op, n, k, alpha, A, lda, beta, C2, ldc), OZBLAS_STATUS_SUCCESS);
                for (int64_t j = 0; j < n; j++)
                    for (int64_t i = lower ? j : 0; i < (lower ? n : j + 1); i++)
                        Ce[i + j * ldc] = ozref_dgemm_elem(tr, !tr, i, j, k, alpha, A, lda, A, lda, beta, C[i + j * ldc]);
                if (exact_mode(mode)) check_bits(C2, Ce, nc, ctx);
                /* dsyr2k: one exact sum of both products */
                memcpy(C2, C, nc * sizeof *C);
                memcpy(Ce, C, nc * sizeof *C);
                ck_assert_int_eq(ozblas_dsyr2k(h, ul, op, n, k, alpha, A, lda, B, lda, beta, C2, ldc), OZBLAS_STATUS_SUCCESS);
                double *P = malloc(sizeof(double) * (size_t)(n * 2 * k)), *Q = malloc(sizeof(double) * (size_t)(n * 2 * k));
                for (int64_t l = 0; l < k; l++)
                    for (int64_t i = 0; i < n; i++) {
                        const double av = tr ? A[l + i * lda] : A[i + l * lda], bv = tr ? B[l + i * lda] : B[i + l * lda];
                        P[i + l * n] = Q[i + (l + k) * n] = av;
                        P[i + (l + k) * n] = Q[i + l * n] = bv;
                    }
                for (int64_t j = 0; j < n; j++)
                    for (int64_t i = lower ? j : 0; i < (lower ? n : j + 1); i++)
                        Ce[i + j * ldc] = ozref_dgemm_elem(0, 1, i, j, 2 * k, alpha, P, n, Q, n, beta, C[i + j * ldc]);
                if (exact_mode(mode)) check_bits(C2, Ce, nc, ctx);
                free(P); free(Q);
                /* dsymm: A (n x n symmetric from its triangle), B n x k: left C(n x k) */
                double *S = mat(&r, n, n, n + 2, phi), *Bm = mat(&r, n, k, n, phi), *Cm = mat(&r, n, k, n, phi);
                double *F = sym_whole(S, n + 2, n, lower), *Cm2 = tu_alloc((size_t)(n * k)), *Cme = tu_alloc((size_t)(n * k));
                memcpy(Cm2, Cm, sizeof(double) * (size_t)(n * k));
                memcpy(Cme, Cm, sizeof(double) * (size_t)(n * k));
                ck_assert_int_eq(ozblas_dsymm(h, OZBLAS_LEFT, ul, n, k, alpha, S, n + 2, Bm, n, beta, Cm2, n), 0);
                ozref_dgemm(0, 0, n, k, n, alpha, F, n, Bm, n, beta, Cme, n);
                if (exact_mode(mode)) check_bits(Cm2, Cme, (size_t)(n * k), ctx);
                /* right: C (k x n) = B^T-shaped (k x n) A */
                double *Br = mat(&r, k, n, k, phi), *Cr = mat(&r, k, n, k, phi);
                double *Cr2 = tu_alloc((size_t)(n * k)), *Cre = tu_alloc((size_t)(n * k));
                memcpy(Cr2, Cr, sizeof(double) * (size_t)(n * k));
                memcpy(Cre, Cr, sizeof(double) * (size_t)(n * k));
                ck_assert_int_eq(ozblas_dsymm(h, OZBLAS_RIGHT, ul, k, n, alpha, S, n + 2, Br, k, beta, Cr2, k), 0);
                ozref_dgemm(0, 0, k, n, n, alpha, Br, k, F, n, beta, Cre, k);
                if (exact_mode(mode)) check_bits(Cr2, Cre, (size_t)(n * k), ctx);
                free(S); free(Bm); free(Cm); free(F); free(Cm2); free(Cme); free(Br); free(Cr); free(Cr2); free(Cre);
                free(A); free(B); free(C); free(C2); free(Ce);
            }
    ozblas_destroy(h);
}
END_TEST

/* the packed routines give the bits of their full-storage counterparts (CONTRACT §6) */
START_TEST(packed)
{
    ozblas_mode_t mode = MODES[_i];
    ozblas_handle_t h = tu_handle(mode);
    ozref_rng r;
    tu_rng(&r, "packed");
    char ctx[120];
    /* 450: the triangle's copies on 3 threads (packed.c: pairs of column blocks) */
    const int64_t ns[] = { 1, 24, 47, 70, 450 };
    for (size_t q = 0; q < 5; q++)
        for (int lower = 0; lower < 2; lower++) {
            const int64_t n = ns[q];
            ozblas_set_num_threads(h, n > 400 ? 3 : 0);
            double *A = tri_operand(&r, n, n, 2.0), *AP = malloc(sizeof(double) * (size_t)(n * (n + 1) / 2 + 1));
            for (int64_t j = 0, k = 0; j < n; j++)
                for (int64_t i = lower ? j : 0; i < (lower ? n : j + 1); i++) AP[k++] = A[i + j * n];
            double *x = tu_alloc((size_t)(2 * n)), *y = tu_alloc((size_t)(2 * n)), *a1 = tu_alloc((size_t)(2 * n)),
                   *a2 = tu_alloc((size_t)(2 * n));
            tu_fill_vec(&r, x, n, 2, 2.0);
            tu_fill_vec(&r, y, n, 1, 2.0);
            const ozblas_uplo_t ul = lower ? OZBLAS_LOWER : OZBLAS_UPPER;
            snprintf(ctx, sizeof ctx, "%s packed n=%d lower=%d", tu_mode_name(mode), (int)n, lower);
            memcpy(a1, y, sizeof(double) * (size_t)(2 * n)); memcpy(a2, y, sizeof(double) * (size_t)(2 * n));
            ck_assert_int_eq(ozblas_dspmv(h, ul, n, -1.5, AP, x, 2, 0.5, a1, 1), 0);
            ck_assert_int_eq(ozblas_dsymv(h, ul, n, -1.5, A, n, x, 2, 0.5, a2, 1), 0);
            check_bits(a1, a2, (size_t)(2 * n), ctx);
            /* the same with an Inf and a NaN in x (DTPMV: the rows they reach only through the
             * absent zeros recomputed, on the triangle unpacked), then x as it was */
            for (int sp = 0; sp < 2 && n > 2; sp++) {
                const double keep[2] = { x[2 * (n / 3)], x[2 * (n / 2)] };
                x[2 * (n / 3)] = INFINITY;
                x[2 * (n / 2)] = NAN;
                memcpy(a1, sp ? x : y, sizeof(double) * (size_t)(2 * n)); memcpy(a2, sp ? x : y, sizeof(double) * (size_t)(2 * n));
                if (sp) {
                    ck_assert_int_eq(ozblas_dtpmv(h, ul, OZBLAS_OP_N, OZBLAS_NON_UNIT, n, AP, a1, 2), 0);
                    ck_assert_int_eq(ozblas_dtrmv(h, ul, OZBLAS_OP_N, OZBLAS_NON_UNIT, n, A, n, a2, 2), 0);
                } else {
                    ck_assert_int_eq(ozblas_dspmv(h, ul, n, 0.75, AP, x, 2, -1.0, a1, 1), 0);
                    ck_assert_int_eq(ozblas_dsymv(h, ul, n, 0.75, A, n, x, 2, -1.0, a2, 1), 0);
                }
                check_bits(a1, a2, (size_t)(2 * n), ctx);
                x[2 * (n / 3)] = keep[0];
                x[2 * (n / 2)] = keep[1];
            }
            for (int tr = 0; tr < 2; tr++)
                for (int unit = 0; unit < 2; unit++) {
                    const ozblas_operation_t op = tr ? OZBLAS_OP_T : OZBLAS_OP_N;
                    const ozblas_diag_t dg = unit ? OZBLAS_UNIT : OZBLAS_NON_UNIT;
                    memcpy(a1, x, sizeof(double) * (size_t)(2 * n)); memcpy(a2, x, sizeof(double) * (size_t)(2 * n));
                    ck_assert_int_eq(ozblas_dtpmv(h, ul, op, dg, n, AP, a1, 2), 0);
                    ck_assert_int_eq(ozblas_dtrmv(h, ul, op, dg, n, A, n, a2, 2), 0);
                    check_bits(a1, a2, (size_t)(2 * n), ctx);
                    memcpy(a1, x, sizeof(double) * (size_t)(2 * n)); memcpy(a2, x, sizeof(double) * (size_t)(2 * n));
                    ck_assert_int_eq(ozblas_dtpsv(h, ul, op, dg, n, AP, a1, 2), 0);
                    ck_assert_int_eq(ozblas_dtrsv(h, ul, op, dg, n, A, n, a2, 2), 0);
                    check_bits(a1, a2, (size_t)(2 * n), ctx);
                }
            /* the updates: packed back, equal to the full routine's triangle */
            const size_t np = (size_t)(n * (n + 1) / 2);
            double *P1 = malloc(sizeof(double) * np), *F = malloc(sizeof(double) * (size_t)(n * n)), *P2 = malloc(sizeof(double) * np);
            for (int two = 0; two < 2; two++) {
                memcpy(P1, AP, sizeof(double) * np);
                memcpy(F, A, sizeof(double) * (size_t)(n * n));
                if (two) {
                    ck_assert_int_eq(ozblas_dspr2(h, ul, n, 0.7, x, 2, y, 1, P1), 0);
                    ck_assert_int_eq(ozblas_dsyr2(h, ul, n, 0.7, x, 2, y, 1, F, n), 0);
                } else {
                    ck_assert_int_eq(ozblas_dspr(h, ul, n, 0.7, x, 2, P1), 0);
                    ck_assert_int_eq(ozblas_dsyr(h, ul, n, 0.7, x, 2, F, n), 0);
                }
                for (int64_t j = 0, k = 0; j < n; j++)
                    for (int64_t i = lower ? j : 0; i < (lower ? n : j + 1); i++) P2[k++] = F[i + j * n];
                check_bits(P1, P2, np, ctx);
            }
            free(P1); free(P2); free(F); free(A); free(AP); free(x); free(y); free(a1); free(a2);
        }
    ozblas_destroy(h);
}
END_TEST

/* the band routines: correctly rounded, so (CR, DOUBLE) the bits of their full-storage twins */
START_TEST(banded)
{
    ozblas_mode_t mode = MODES[_i];
    ozblas_handle_t h = tu_handle(mode);
    ozref_rng r;
    tu_rng(&r, "banded");
    char ctx[160];
    /* (kl, ku): { 20, 17 } wider than one block of the band strips' kernel (32 columns); { 10,
     * 250 } a band far wider than the matrix (the windows clipped to it: no strip is regular,
     * and nothing sized by the band's width may be) */
    const int64_t ns[] = { 1, 9, 40 }, ks[][2] = { { 0, 0 }, { 1, 2 }, { 3, 0 }, { 5, 7 }, { 20, 17 }, { 10, 250 } };
    for (size_t a = 0; a < 3; a++)
        for (size_t b = 0; b < 6; b++) {
            const int64_t n = ns[a], m = n + 3, kl = ks[b][0], ku = ks[b][1], ldab = kl + ku + 2;
            double *F = tri_operand(&r, m, m, 2.0);   /* full m x m, ld m; the band taken from it */
            double *AB = tu_alloc((size_t)(ldab * m));
            double *G = calloc((size_t)(m * m), sizeof(double));   /* the band only, full storage */
            for (int64_t j = 0; j < n; j++)
                for (int64_t i = (j - ku > 0 ? j - ku : 0); i < m && i <= j + kl; i++) {
                    AB[ku + i - j + j * ldab] = F[i + j * m];
                    G[i + j * m] = F[i + j * m];
                }
            /* the band held only up to its last element (the last column with an element, down to
             * its last row), as the CBLAS testers allocate it: under ASan a read beyond fails */
            const int64_t jl = n - 1 < m - 1 + ku ? n - 1 : m - 1 + ku, il = m - 1 < jl + kl ? m - 1 : jl + kl;
            const size_t ab_end = (size_t)(jl * ldab + ku + il - jl + 1);
            double *ABt = malloc(sizeof(double) * ab_end);
            memcpy(ABt, AB, sizeof(double) * ab_end);
            double *x = tu_alloc((size_t)(2 * m)), *y = tu_alloc((size_t)(2 * m)), *y1 = tu_alloc((size_t)(2 * m)),
                   *y2 = tu_alloc((size_t)(2 * m));
            tu_fill_vec(&r, x, 2 * m, 1, 2.0);   /* x read with increments up to 2 */
            tu_fill_vec(&r, y, m, 2, 2.0);
            snprintf(ctx, sizeof ctx, "%s band n=%d kl=%d ku=%d", tu_mode_name(mode), (int)n, (int)kl, (int)ku);
            for (int tr = 0; tr < 2 && exact_mode(mode); tr++) {
                memcpy(y1, y, sizeof(double) * (size_t)(2 * m)); memcpy(y2, y, sizeof(double) * (size_t)(2 * m));
                const ozblas_operation_t op = tr ? OZBLAS_OP_T : OZBLAS_OP_N;
                const int64_t ix = b % 2 ? -2 : 1;   /* x strided (gathered for the strips) or not */
                ck_assert_int_eq(ozblas_dgbmv(h, op, m, n, kl, ku, -1.5, ABt, ldab, x, ix, 0.5, y1, 2), 0);
                ck_assert_int_eq(ozblas_dgemv(h, op, m, n, -1.5, G, m, x, ix, 0.5, y2, 2), 0);
                check_bits(y1, y2, (size_t)(2 * m), ctx);
            }
            /* symmetric and triangular bands of order n, k = ku off-diagonals */
            const int64_t k = ku, lds = k + 1;
            for (int lower = 0; lower < 2 && exact_mode(mode); lower++) {
                double *SB = tu_alloc((size_t)(lds * n)), *S = calloc((size_t)(n * n), sizeof(double));
                for (int64_t j = 0; j < n; j++)
                    for (int64_t i = 0; i < n; i++) {
                        const int in = lower ? (i >= j && i - j <= k) : (i <= j && j - i <= k);
                        if (!in) continue;
                        S[i + j * n] = F[i + j * m];
                        SB[(lower ? i - j : k + i - j) + j * lds] = F[i + j * m];
                    }
                const ozblas_uplo_t ul = lower ? OZBLAS_LOWER : OZBLAS_UPPER;
                /* held only up to the last diagonal element, as ABt above */
                const size_t sb_end = (size_t)((n - 1) * lds + (lower ? 0 : k) + 1);
                double *SBt = malloc(sizeof(double) * sb_end);
                memcpy(SBt, SB, sizeof(double) * sb_end);
                memcpy(y1, y, sizeof(double) * (size_t)(2 * m)); memcpy(y2, y, sizeof(double) * (size_t)(2 * m));
                ck_assert_int_eq(ozblas_dsbmv(h, ul, n, k, 0.75, SBt, lds, x, 1, -1.0, y1, 2), 0);
                ck_assert_int_eq(ozblas_dsymv(h, ul, n, 0.75, S, n, x, 1, -1.0, y2, 2), 0);
                check_bits(y1, y2, (size_t)(2 * m), ctx);
                for (int tr = 0; tr < 2; tr++)
                    for (int unit = 0; unit < 2; unit++) {
                        const ozblas_operation_t op = tr ? OZBLAS_OP_T : OZBLAS_OP_N;
                        const ozblas_diag_t dg = unit ? OZBLAS_UNIT : OZBLAS_NON_UNIT;
                        memcpy(y1, y, sizeof(double) * (size_t)(2 * m)); memcpy(y2, y, sizeof(double) * (size_t)(2 * m));
                        ck_assert_int_eq(ozblas_dtbmv(h, ul, op, dg, n, k, SBt, lds, y1, 2), 0);
                        ck_assert_int_eq(ozblas_dtrmv(h, ul, op, dg, n, S, n, y2, 2), 0);
                        check_bits(y1, y2, (size_t)(2 * m), ctx);
                        memcpy(y1, y, sizeof(double) * (size_t)(2 * m)); memcpy(y2, y, sizeof(double) * (size_t)(2 * m));
                        ck_assert_int_eq(ozblas_dtbsv(h, ul, op, dg, n, k, SBt, lds, y1, -2), 0);
                        ck_assert_int_eq(ozblas_dtrsv(h, ul, op, dg, n, S, n, y2, -2), 0);
                        check_bits(y1, y2, (size_t)(2 * m), ctx);
                        /* a right-hand side of signed zeros: the first position solved has no
                         * term (its -0 kept), every other an exact zero sum, as DTRSV's */
                        for (int64_t q = 0; q < 2 * m; q++) y1[q] = y2[q] = q % 4 ? 0.0 : -0.0;
                        ck_assert_int_eq(ozblas_dtbsv(h, ul, op, dg, n, k, SBt, lds, y1, -2), 0);
                        ck_assert_int_eq(ozblas_dtrsv(h, ul, op, dg, n, S, n, y2, -2), 0);
                        check_bits(y1, y2, (size_t)(2 * m), ctx);
                    }
                free(SB); free(SBt); free(S);
            }
            free(F); free(AB); free(ABt); free(G); free(x); free(y); free(y1); free(y2);
        }
    ozblas_destroy(h);
}
END_TEST

/* Band residuals y - A x with y = RN(A x): every output cancels to about half an ulp of y,
 * beyond the band strips' one-level certificates, so the deep sums on the same strip take
 * them (eft_band.c); a strip whose window holds an x_j = Inf leaves its rows to the exact
 * sums, one by one; the band scaled by 2^-970 runs in the strips' scaled frame.  The bits of
 * DGEMV (DSYMV) on the band in full storage; with the Inf, the outputs whose band does not
 * reach it keep their bits and the others are not finite. */
START_TEST(banded_residuals)
{
    ozblas_mode_t mode = MODES[_i];
    ozblas_handle_t h = tu_handle(mode);
    ozref_rng r;
    tu_rng(&r, "banded_residuals");
    char ctx[160];
    const int64_t n = 150, ks[][2] = { { 3, 5 }, { 8, 8 }, { 0, 12 }, { 30, 2 } }, jinf = 70;
    double *x = tu_alloc((size_t)(2 * n)), *xi = tu_alloc((size_t)(2 * n)), *y0 = tu_alloc((size_t)(2 * n));
    double *y1 = tu_alloc((size_t)(2 * n)), *y2 = tu_alloc((size_t)(2 * n)), *y3 = tu_alloc((size_t)(2 * n));
    tu_fill_vec(&r, x, 2 * n, 1, 1.0);
    for (size_t b = 0; b < 4 && exact_mode(mode); b++) {
        const int64_t kl = ks[b][0], ku = ks[b][1], ldab = kl + ku + 1;
        double *F = mat(&r, n, n, n, 1.0), *AB = tu_alloc((size_t)(ldab * n));
        double *G = calloc((size_t)(n * n), sizeof(double));
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = (j - ku > 0 ? j - ku : 0); i < n && i <= j + kl; i++) {
                AB[ku + i - j + j * ldab] = F[i + j * n];
                G[i + j * n] = F[i + j * n];
            }
        for (int tr = 0; tr < 2; tr++) {
            const ozblas_operation_t op = tr ? OZBLAS_OP_T : OZBLAS_OP_N;
            const int64_t ix = tr ? -2 : 1;
            snprintf(ctx, sizeof ctx, "%s band residual kl=%d ku=%d trans=%d", tu_mode_name(mode), (int)kl, (int)ku, tr);
            memset(y0, 0, sizeof(double) * (size_t)(2 * n));
            ck_assert_int_eq(ozblas_dgemv(h, op, n, n, 1.0, G, n, x, ix, 0.0, y0, 2), 0);
            memcpy(y1, y0, sizeof(double) * (size_t)(2 * n));
            memcpy(y2, y0, sizeof(double) * (size_t)(2 * n));
            memcpy(y3, y0, sizeof(double) * (size_t)(2 * n));
            ck_assert_int_eq(ozblas_dgbmv(h, op, n, n, kl, ku, -1.0, AB, ldab, x, ix, 1.0, y1, 2), 0);
            ck_assert_int_eq(ozblas_dgemv(h, op, n, n, -1.0, G, n, x, ix, 1.0, y2, 2), 0);
            check_bits(y1, y2, (size_t)(2 * n), ctx);
            memcpy(xi, x, sizeof(double) * (size_t)(2 * n));
            xi[ix > 0 ? jinf : (n - 1 - jinf) * -ix] = INFINITY;
            ck_assert_int_eq(ozblas_dgbmv(h, op, n, n, kl, ku, -1.0, AB, ldab, xi, ix, 1.0, y3, 2), 0);
            for (int64_t o = 0; o < n; o++) {
                /* output o's terms: columns o - kl .. o + ku (rows o - ku .. o + kl transposed) */
                const int reach = tr ? o - ku <= jinf && jinf <= o + kl : o - kl <= jinf && jinf <= o + ku;
                if (reach) ck_assert_msg(!isfinite(y3[2 * o]), "%s: output %d", ctx, (int)o);
                else check_bits(&y3[2 * o], &y1[2 * o], 1, ctx);
            }
        }
        /* the band scaled by 2^-970 (every product below the strips' range, the residuals
         * subnormal): the strips' frame scaled by a power of two, and the results scaled back */
        for (int64_t q = 0; q < ldab * n; q++) AB[q] *= 0x1p-970;
        for (int64_t q = 0; q < n * n; q++) G[q] *= 0x1p-970;
        for (int q = 0; q < 4; q++) {         /* N and T (x backwards), beta 0 and 1 */
            const int tr = q / 2, beta1 = q % 2;
            const ozblas_operation_t op = tr ? OZBLAS_OP_T : OZBLAS_OP_N;
            const int64_t ix = tr ? -2 : 1;
            snprintf(ctx, sizeof ctx, "%s band scaled kl=%d ku=%d trans=%d beta=%d", tu_mode_name(mode), (int)kl,
                     (int)ku, tr, beta1);
            memset(y0, 0, sizeof(double) * (size_t)(2 * n));
            ck_assert_int_eq(ozblas_dgemv(h, op, n, n, 1.0, G, n, x, ix, 0.0, y0, 2), 0);
            memcpy(y1, y0, sizeof(double) * (size_t)(2 * n));
            memcpy(y2, y0, sizeof(double) * (size_t)(2 * n));
            ck_assert_int_eq(ozblas_dgbmv(h, op, n, n, kl, ku, -1.0, AB, ldab, x, ix, beta1, y1, 2), 0);
            ck_assert_int_eq(ozblas_dgemv(h, op, n, n, -1.0, G, n, x, ix, beta1, y2, 2), 0);
            check_bits(y1, y2, (size_t)(2 * n), ctx);
        }
        /* the symmetric band (lower, k = ku off-diagonals) and DSYMV */
        const int64_t k = ku, lds = k + 1;
        double *SB = tu_alloc((size_t)(lds * n)), *S = calloc((size_t)(n * n), sizeof(double));
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = j; i < n && i - j <= k; i++) {
                S[i + j * n] = F[i + j * n];
                SB[i - j + j * lds] = F[i + j * n];
            }
        memset(y0, 0, sizeof(double) * (size_t)(2 * n));
        ck_assert_int_eq(ozblas_dsymv(h, OZBLAS_LOWER, n, 1.0, S, n, x, 1, 0.0, y0, 2), 0);
        memcpy(y1, y0, sizeof(double) * (size_t)(2 * n));
        memcpy(y2, y0, sizeof(double) * (size_t)(2 * n));
        ck_assert_int_eq(ozblas_dsbmv(h, OZBLAS_LOWER, n, k, -1.0, SB, lds, x, 1, 1.0, y1, 2), 0);
        ck_assert_int_eq(ozblas_dsymv(h, OZBLAS_LOWER, n, -1.0, S, n, x, 1, 1.0, y2, 2), 0);
        check_bits(y1, y2, (size_t)(2 * n), "band residual dsbmv");
        free(F); free(AB); free(G); free(SB); free(S);
    }
    free(x); free(xi); free(y0); free(y1); free(y2); free(y3);
    ozblas_destroy(h);
}
END_TEST

/* DSYMV and DTRMV rows the error-free pass on the triangle leaves (a NaN, an Inf, rows of
 * zeros whose sums are exactly zero): the panels compute them, every row as DGEMV computes it
 * on the matrix made whole, correctly rounded */
START_TEST(symv_rows_left)
{
    ozblas_handle_t h = tu_handle(OZBLAS_MODE_CORRECTLY_ROUNDED);
    ozref_rng r;
    tu_rng(&r, "symv_rows_left");
    /* 1100: DSYMV's strips with the prefetches (eft_symv.c: from n = 1024 on); 2100: its
     * column blocks of BLN / 4 (from n = 2048 on) */
    const int64_t ns[] = { 40, 300, 1100, 2100 };
    char ctx[160];
    for (size_t a = 0; a < 4; a++)
        for (int lower = 0; lower < 2; lower++) {
            const int64_t n = ns[a], lda = n + 3;
            double *A = mat(&r, n, n, lda, 1.0), *x = tu_alloc((size_t)n), *y = tu_alloc((size_t)n);
            tu_fill_vec(&r, x, n, 1, 1.0);
            tu_fill_vec(&r, y, n, 1, 1.0);
            for (int64_t j = 0; j < n; j++) A[7 + j * lda] = A[j + 7 * lda] = 0.0;   /* row and column 7 */
            A[20 + 3 * lda] = A[3 + 20 * lda] = NAN;
            A[n - 2 + (n - 5) * lda] = A[n - 5 + (n - 2) * lda] = INFINITY;
            x[11] = 0.0;
            /* 1 to 3 threads: the triangle's column partitions, one per thread (eft_symv.c) */
            const int nth = (int)(1 + (a + (size_t)lower) % 3);
            ozblas_set_num_threads(h, nth);
            snprintf(ctx, sizeof ctx, "n=%d lower=%d threads=%d", (int)n, lower, nth);
            const ozblas_uplo_t ul = lower ? OZBLAS_LOWER : OZBLAS_UPPER;
            double *S = sym_whole(A, lda, n, lower), *y1 = tu_alloc((size_t)n), *y2 = tu_alloc((size_t)n);
            for (int beta0 = 0; beta0 < 2; beta0++) {
                const double beta = beta0 ? 0.0 : -0.5;
                memcpy(y1, y, sizeof(double) * (size_t)n);
                memcpy(y2, y, sizeof(double) * (size_t)n);
                ck_assert_int_eq(ozblas_dsymv(h, ul, n, 1.25, A, lda, x, 1, beta, y1, 1), 0);
                ck_assert_int_eq(ozblas_dgemv(h, OZBLAS_OP_N, n, n, 1.25, S, n, x, 1, beta, y2, 1), 0);
                check_bits(y1, y2, (size_t)n, ctx);
                ck_assert(isnan(y1[3]) && isnan(y1[20]) && y1[7] == beta * y[7]);
            }
            for (int tr = 0; tr < 2; tr++)
                for (int unit = 0; unit < 2; unit++) {
                    double *T = tri_whole(A, lda, n, lower, tr, unit);
                    memcpy(y1, x, sizeof(double) * (size_t)n);
                    ck_assert_int_eq(ozblas_dtrmv(h, ul, tr ? OZBLAS_OP_T : OZBLAS_OP_N, unit ? OZBLAS_UNIT : OZBLAS_NON_UNIT,
                                                  n, A, lda, y1, 1), 0);
                    ck_assert_int_eq(ozblas_dgemv(h, OZBLAS_OP_N, n, n, 1.0, T, n, x, 1, 0.0, y2, 1), 0);
                    check_bits(y1, y2, (size_t)n, ctx);
                    free(T);
                }
            free(A); free(x); free(y); free(S); free(y1); free(y2);
        }
    ozblas_destroy(h);
}
END_TEST

/* A2 := A + (-0.3) x y^T by ozblas_dger, checked element by element against MPFR (Ae) */
static void dger_against_mpfr(ozblas_handle_t h, int64_t m, int64_t n, const double *x, const double *y, const double *A,
                              double *A2, double *Ae, const char *what)
{
    memcpy(A2, A, sizeof(double) * (size_t)(m * n));
    ck_assert_int_eq(ozblas_dger(h, m, n, -0.3, x, 1, y, 1, A2, m), 0);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++)
            Ae[i + j * m] = ozref_dgemm_elem(0, 1, 0, 0, 1, -0.3, &x[i], 1, &y[j], 1, 1.0, A[i + j * m]);
    check_bits(A2, Ae, (size_t)(m * n), what);
}

/* rank updates of matrices scaled toward underflow (LAPACK's scaled test matrices): products
 * below TwoProduct's range, still RN(exact) (the scaled frame a column at a time, else the
 * exact short sums); DGER and DSYR2 */
START_TEST(rank_tiny)
{
    ozblas_handle_t h = tu_handle(OZBLAS_MODE_CORRECTLY_ROUNDED);
    ozref_rng r;
    tu_rng(&r, "rank_tiny");
    const double scales[] = { 0x1p-963, 0x1p-1000, 0x1p-1060 };
    for (int sc = 0; sc < 3; sc++) {
        const int64_t m = sc == 1 ? 300 : 23, n = 17;     /* 300: chunks of 256 rows crossed */
        double *A = mat(&r, m, n, m, 1.0), *x = tu_alloc((size_t)m), *y = tu_alloc((size_t)n);
        tu_fill_vec(&r, x, m, 1, 1.0);
        tu_fill_vec(&r, y, n, 1, 1.0);
        for (int64_t i = 0; i < m * n; i++) A[i] *= scales[sc];
        for (int64_t j = 0; j < n; j++) y[j] *= scales[sc];
        double *A2 = tu_alloc((size_t)(m * n)), *Ae = tu_alloc((size_t)(m * n));
        dger_against_mpfr(h, m, n, x, y, A, A2, Ae, "dger tiny");
        /* x tiny instead (LAPACK's DGETF2 on a matrix near underflow): alpha y_j splits, every
         * product x_i alpha y_j is below TwoProduct's range */
        for (int64_t i = 0; i < m; i++) x[i] *= scales[sc];
        for (int64_t j = 0; j < n; j++) y[j] /= scales[sc];
        dger_against_mpfr(h, m, n, x, y, A, A2, Ae, "dger tiny x");
        for (int64_t i = 0; i < m; i++) x[i] /= scales[sc];
        for (int64_t j = 0; j < n; j++) y[j] *= scales[sc];
        /* DSYR2 on the lower triangle of the first n rows: both products tiny (x's scale too) */
        for (int64_t i = 0; i < n; i++) x[i] *= sc == 0 ? 1.0 : 0x1p-10;
        memcpy(A2, A, sizeof(double) * (size_t)(m * n));
        ck_assert_int_eq(ozblas_dsyr2(h, OZBLAS_LOWER, n, 0.7, x, 1, y, 1, A2, m), 0);
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++) {
                const double av[2] = { x[i], y[i < n ? i : 0] }, bv[2] = { y[j], x[j] };
                Ae[i + j * m] = i < j || i >= n ? A[i + j * m] : ozref_dgemm_elem(0, 0, 0, 0, 2, 0.7, av, 1, bv, 2, 1.0, A[i + j * m]);
            }
        check_bits(A2, Ae, (size_t)(m * n), "dsyr2 tiny");
        free(A); free(x); free(y); free(A2); free(Ae);
    }
    /* cancelling updates (LAPACK's unblocked LU on nearly singular matrices): a_ij within an
     * ulp or two of 0.3 x_i y_j, so the certified update leaves most elements, which the exact
     * short sums take with alpha folded into y_j's split (rank.c: exact_element) */
    {
        const int64_t m = 31, n = 9;
        double *A = tu_alloc((size_t)(m * n)), *x = tu_alloc((size_t)m), *y = tu_alloc((size_t)n);
        tu_fill_vec(&r, x, m, 1, 1.0);
        tu_fill_vec(&r, y, n, 1, 1.0);
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++) {
                const double p = 0.3 * x[i] * y[j];
                A[i + j * m] = (i + j) % 3 == 0 ? p : nextafter(p, (i + j) % 3 == 1 ? INFINITY : -INFINITY);
            }
        double *A2 = tu_alloc((size_t)(m * n)), *Ae = tu_alloc((size_t)(m * n));
        dger_against_mpfr(h, m, n, x, y, A, A2, Ae, "dger cancelling");
        free(A); free(x); free(y); free(A2); free(Ae);
    }
    ozblas_destroy(h);
}
END_TEST

/* Updates that cancel to about the first level's own bound (a Householder step that zeroes an
 * element leaves u |a|): the second level of exact/two_term.c (every product split, VecSum
 * passes) decides them; DGER and DSYR2 (nine terms) against MPFR, and DROT's Givens case
 * (which its first level takes: no product there is left unsplit).  Then the
 * one-FMA update (alpha y_j one double) where the FMA's result is zero: an exact zero is +0,
 * as the two-term loop gives it, also where the FMA gives -0 (a = -0, x_i alpha y_j = -0) */
START_TEST(update_cancelling)
{
    ozblas_handle_t h = tu_handle(MODES[_i]);
    ozref_rng r;
    tu_rng(&r, "update_cancelling");
    const int64_t m = 29, n = 7;
    double x[29], y[29], A[29 * 7], A2[29 * 7], Ae[29 * 7];
    tu_fill_vec(&r, x, m, 1, 1.0);
    tu_fill_vec(&r, y, m, 1, 1.0);
    const double alpha = -1.39541;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) A[i + j * m] = -(alpha * y[j]) * x[i];
    memcpy(A2, A, sizeof A);
    ck_assert_int_eq(ozblas_dger(h, m, n, alpha, x, 1, y, 1, A2, m), 0);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++)
            Ae[i + j * m] = ozref_dgemm_elem(0, 1, 0, 0, 1, alpha, &x[i], 1, &y[j], 1, 1.0, A[i + j * m]);
    check_bits(A2, Ae, (size_t)(m * n), "update_cancelling: dger alpha");
    /* DSYR2 on the lower triangle of the first n rows */
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) A[i + j * m] = -(0.7 * (x[i] * y[j] + y[i] * x[j]));
    memcpy(A2, A, sizeof A);
    ck_assert_int_eq(ozblas_dsyr2(h, OZBLAS_LOWER, n, 0.7, x, 1, y, 1, A2, m), 0);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            const double av[2] = { x[i], y[i] }, bv[2] = { y[j], x[j] };
            Ae[i + j * m] = i < j || i >= n ? A[i + j * m] : ozref_dgemm_elem(0, 0, 0, 0, 2, 0.7, av, 1, bv, 2, 1.0, A[i + j * m]);
        }
    check_bits(A2, Ae, (size_t)(m * n), "update_cancelling: dsyr2");
    /* DROT with y_i = RN(-c x_i / s): c x_i + s y_i is some u |c x_i| */
    const double c = 0x1.3p-1, s = 0x1.7p-1;
    double x2[29], y2[29];
    for (int64_t i = 0; i < m; i++) y[i] = -(c * x[i]) / s;
    memcpy(x2, x, sizeof x);
    memcpy(y2, y, sizeof y);
    ck_assert_int_eq(ozblas_drot(h, m, x2, 1, y2, 1, c, s), OZBLAS_STATUS_SUCCESS);
    for (int64_t i = 0; i < m; i++) {
        const double u1[2] = { c, s }, u2[2] = { c, -s }, v1[2] = { x[i], y[i] }, v2[2] = { y[i], x[i] };
        const double wx = rn_dot(2, u1, v1), wy = rn_dot(2, u2, v2);
        check_bits(&x2[i], &wx, 1, "update_cancelling: drot x");
        check_bits(&y2[i], &wy, 1, "update_cancelling: drot y");
    }
    /* rotations that annihilate one pair, as LAPACK's (c, s) = (f, g) / hypot(f, g) makes them:
     * -s f + c g is some u |g|.  One such pair among n = 1 to 4 (the short vectors' path), 5
     * and 37 (the chunks', which take a few flagged pairs one by one), first and last, with
     * unit and mixed increments; f and g from the generator (phi 1) scaled by 2^q and 2^-2q,
     * q = 0..6, and f = g (the pair cancels exactly: +0) */
    for (int64_t nn = 1; nn <= 6; nn++) {
        const int64_t len = nn == 6 ? 37 : nn;
        for (int last = 0; last < 2; last++)
            for (int q = 0; q < 8; q++) {
                double xa[37], ya[37], xw[37], yw[37], xs2[2 * 37], ys2[3 * 37];
                tu_fill_vec(&r, xa, len, 1, 1.0);
                tu_fill_vec(&r, ya, len, 1, 1.0);
                const int64_t at = last ? len - 1 : 0;
                double f = ldexp(xa[at], q), g = ldexp(ya[at], -2 * q);
                if (q == 7) g = f;
                xa[at] = f;
                ya[at] = g;
                const double rr = hypot(f, g), cc = f / rr, ss = g / rr;
                for (int64_t i = 0; i < len; i++) {
                    const double u1[2] = { cc, ss }, u2[2] = { cc, -ss }, v1[2] = { xa[i], ya[i] }, v2[2] = { ya[i], xa[i] };
                    xw[i] = rn_dot(2, u1, v1);
                    yw[i] = rn_dot(2, u2, v2);
                    xs2[2 * i] = xa[i];
                    ys2[3 * (len - 1 - i)] = ya[i];
                }
                ck_assert_int_eq(ozblas_drot(h, len, xa, 1, ya, 1, cc, ss), OZBLAS_STATUS_SUCCESS);
                check_bits(xa, xw, (size_t)len, "update_cancelling: annihilating drot x");
                check_bits(ya, yw, (size_t)len, "update_cancelling: annihilating drot y");
                ck_assert_int_eq(ozblas_drot(h, len, xs2, 2, ys2, -3, cc, ss), OZBLAS_STATUS_SUCCESS);
                for (int64_t i = 0; i < len; i++) {
                    check_bits(&xs2[2 * i], &xw[i], 1, "update_cancelling: annihilating drot x, strided");
                    check_bits(&ys2[3 * (len - 1 - i)], &yw[i], 1, "update_cancelling: annihilating drot y, strided");
                }
            }
    }
    /* exact zeros from the one-FMA update: alpha = -1, y = {-0, +0, 1, -2}, a = -0 except
     * column 3, where a = -(x_i y_3) alpha cancels exactly; 9 rows (a vector and a tail) */
    const double yz[4] = { -0.0, 0.0, 1.0, -2.0 };
    double xz[9], Z[9 * 4], Z2[9 * 4];
    for (int64_t i = 0; i < 9; i++) xz[i] = (i % 2 ? -1.0 : 1.0) * (double)(i + 1);
    for (int64_t j = 0; j < 4; j++)
        for (int64_t i = 0; i < 9; i++) Z[i + j * 9] = j == 3 ? -(xz[i] * 2.0) : -0.0;
    memcpy(Z2, Z, sizeof Z);
    ck_assert_int_eq(ozblas_dger(h, 9, 4, -1.0, xz, 1, yz, 1, Z2, 9), OZBLAS_STATUS_SUCCESS);
    for (int64_t j = 0; j < 4; j++)
        for (int64_t i = 0; i < 9; i++) {
            const double want = j == 2 ? -xz[i] : 0.0;
            check_bits(&Z2[i + j * 9], &want, 1, "update_cancelling: dger exact zeros are +0");
        }
    /* the one-FMA update up to a result that is not finite (NaN in a, Inf in a, an overflow):
     * the column's elements before it written once, it and the rest as the general loop takes
     * them; 13 rows (three vectors and a tail) */
    double xf[13], yf[3] = { 0.5, -1.25, 0x1p600 }, F[13 * 3], F2[13 * 3], Fe[13 * 3];
    tu_fill_vec(&r, xf, 13, 1, 1.0);
    xf[5] = -0x1p480;                                     /* x_5 alpha y_2 = 2^1080 */
    for (int64_t q = 0; q < 13 * 3; q++) F[q] = (double)(q % 5) - 1.75;
    F[6] = NAN;                                           /* column 0, its second vector */
    F[13 + 12] = INFINITY;                                /* column 1, its tail */
    F[26 + 5] = 0x1.fp1023;                               /* column 2: overflows */
    memcpy(F2, F, sizeof F);
    ck_assert_int_eq(ozblas_dger(h, 13, 3, -1.0, xf, 1, yf, 1, F2, 13), OZBLAS_STATUS_SUCCESS);
    for (int64_t j = 0; j < 3; j++)
        for (int64_t i = 0; i < 13; i++)
            Fe[i + j * 13] = ozref_dgemm_elem(0, 1, 0, 0, 1, -1.0, &xf[i], 1, &yf[j], 1, 1.0, F[i + j * 13]);
    ck_assert(isnan(Fe[6]) && Fe[25] == INFINITY && Fe[31] == INFINITY);
    check_bits(F2, Fe, 13 * 3, "update_cancelling: dger's FMA columns with a result not finite");
    ozblas_destroy(h);
}
END_TEST

/* op(T)(i, j) of a band matrix (upper: T(r, c) at A[k + r - c + c lda]; lower: A[r - c + c lda]) */
static double band_op(int lower, int trans, int64_t k, const double *A, int64_t lda, int64_t i, int64_t j)
{
    const int64_t r = trans ? j : i, c = trans ? i : j;
    return lower ? A[r - c + c * lda] : A[k + r - c + c * lda];
}

/* CONTRACT's triangular-solve rule on a band matrix, every sum exact (MPFR), in solve order: with
 * s the block's first position, r_i = RN(b_i - sum over positions before s) (b_i in the first
 * block), x_i = RN(RN(r_i - sum over positions in [s, p)) / t_ii) (no division for a unit
 * diagonal); an empty sum after the first position is exact too, so a zero r_i becomes the
 * exact sums' +0 there (the first position keeps its b_i) */
static void tbsv_rule(int lower, int trans, int unit, int64_t n, int64_t k, const double *A, int64_t lda, double *x)
{
    const int low = lower != trans;
    double *co = tu_alloc((size_t)(n + 1)), *va = tu_alloc((size_t)(n + 1));
    for (int64_t p = 0; p < n; p++) {
        const int64_t i = low ? p : n - 1 - p, s = p / OZBLAS_TRSM_BLOCK * OZBLAS_TRSM_BLOCK;
        double r = x[i];
        for (int part = 0; part < 2 && p > 0; part++) {
            const int64_t q0 = part == 0 ? (p - k > 0 ? p - k : 0) : (p - k > s ? p - k : s), q1 = part == 0 ? (s < p ? s : p) : p;
            if (part == 0 && s == 0) continue;
            if (q0 >= q1) {
                if (r == 0.0) r = 0.0;
                continue;
            }
            int64_t c = 0;
            co[c] = 1.0;
            va[c++] = r;
            for (int64_t q = q0; q < q1; q++) {
                const int64_t j = low ? q : n - 1 - q;
                co[c] = -band_op(lower, trans, k, A, lda, i, j);
                va[c++] = x[j];
            }
            r = ozref_ddot(c, co, 1, va, 1);
        }
        x[i] = unit ? r : r / band_op(lower, trans, k, A, lda, i, i);
    }
    free(co); free(va);
}

/* DTBSV on systems scaled toward underflow (LAPACK's scaled test matrices): products below the
 * short DOT's range, right-hand sides subnormal or tiny, so rows whose other products are
 * negligible next to b_i (b_i itself), rows summed in the frame 2^600, results on the subnormal
 * grid, and the exact short sums with a subnormal factor; against the rule computed with MPFR */
START_TEST(tbsv_scaled)
{
    ozblas_handle_t h = tu_handle(MODES[_i]);
    ozref_rng r;
    tu_rng(&r, "tbsv_scaled");
    const int sa[] = { -300, -600, -973, -20 }, sx[] = { -1000, -1040, -700, -300 };
    char ctx[160];
    for (int c = 0; c < 4; c++)
        for (int64_t k = 3; k <= 39; k += 18)
            for (int v = 0; v < 8; v++) {
                const int lower = v & 1, trans = v >> 1 & 1, unit = v >> 2 & 1;
                const int64_t n = 40, lda = k + 2;
                double *A = tu_alloc((size_t)(lda * n)), x[40], x1[40], x2[40];
                for (int64_t q = 0; q < lda * n; q++) A[q] = ldexp(ozref_uniform(&r) - 0.5, sa[c]);
                for (int64_t j = 0; j < n; j++) A[(lower ? 0 : k) + j * lda] = ldexp(ozref_uniform(&r) + 0.5, sa[c] + 5);
                for (int64_t i = 0; i < n; i++) {
                    x[i] = ldexp(ozref_uniform(&r) - 0.5, sx[c] + (int)(ozref_uniform(&r) * 40));
                    if (i % 7 == 3) x[i] = ldexp(floor((ozref_uniform(&r) - 0.5) * 64) + 0.5, -1074 + 1);
                }
                memcpy(x1, x, sizeof x);
                memcpy(x2, x, sizeof x);
                ck_assert_int_eq(ozblas_dtbsv(h, lower ? OZBLAS_LOWER : OZBLAS_UPPER, trans ? OZBLAS_OP_T : OZBLAS_OP_N,
                                              unit ? OZBLAS_UNIT : OZBLAS_NON_UNIT, n, k, A, lda, x1, 1), 0);
                tbsv_rule(lower, trans, unit, n, k, A, lda, x2);
                snprintf(ctx, sizeof ctx, "tbsv_scaled %s A 2^%d b 2^%d k=%lld lower=%d trans=%d unit=%d",
                         tu_mode_name(MODES[_i]), sa[c], sx[c], (long long)k, lower, trans, unit);
                check_bits(x1, x2, (size_t)n, ctx);
                free(A);
            }
    ozblas_destroy(h);
}
END_TEST

/* n doubles between two pages no access may touch, against the one after them (end) or the one
 * before them; *len the mapping's length, for munmap */
static double *guarded(size_t n, int end, void **base, size_t *len)
{
    const size_t pg = (size_t)sysconf(_SC_PAGESIZE), bytes = n * sizeof(double), data = (bytes + pg - 1) / pg * pg;
    *len = data + 2 * pg;
    char *m = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert(m != MAP_FAILED);
    ck_assert_int_eq(mprotect(m, pg, PROT_NONE), 0);
    ck_assert_int_eq(mprotect(m + pg + data, pg, PROT_NONE), 0);
    *base = m;
    return (double *)(end ? m + pg + data - bytes : m + pg);
}

/* position p's row of op(T) in DTBSV's solve order, and op(T)(i, j) := v in the band */
static int64_t low_row(int lower, int trans, int64_t n, int64_t p) { return lower != trans ? p : n - 1 - p; }
static void set_op(int lower, int trans, int64_t k, double *A, int64_t lda, int64_t i, int64_t j, double v)
{
    const int64_t r = trans ? j : i, c = trans ? i : j;
    A[(lower ? r - c : k + r - c) + c * lda] = v;
}

/* DTBSV's chains against the rule computed with MPFR: bands of 1 to 9 terms a row (the rows'
 * chain below four, the columns' lanes from four to eight, one and two vectors, full and
 * partial, loaded forward, backward and gathered for the eight variants), orders across block
 * boundaries, and what the certificate must leave: the papers' generator over several phi,
 * integer systems (exact zeros, whose sign the exact sums decide), Inf and NaN in b and in the
 * band, a system scaled toward underflow, and a position whose part before its block is
 * certified and whose part in it is an exact zero (the exact sums' part starts from the first
 * part's value); x strided (-2) gives the same bits. */
START_TEST(tbsv_lanes)
{
    ozblas_handle_t h = tu_handle(MODES[_i]);
    ozref_rng r;
    tu_rng(&r, "tbsv_lanes");
    const int64_t ks[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 }, ns[] = { 1, 4, 17, 50 };
    char ctx[160];
    for (size_t a = 0; a < sizeof ks / sizeof *ks; a++)
        for (size_t b = 0; b < sizeof ns / sizeof *ns; b++)
            for (int kind = 0; kind < 6; kind++)
                for (int v = 0; v < 8; v++) {
                    const int lower = v & 1, trans = v >> 1 & 1, unit = v >> 2 & 1;
                    const int64_t k = ks[a], n = ns[b], lda = k + 1 + (v % 3 == 0 ? 2 : 0);
                    double *A = tu_alloc((size_t)(lda * n)), *x = tu_alloc((size_t)n), *x1 = tu_alloc((size_t)n),
                           *x2 = tu_alloc((size_t)n), *xs = tu_alloc((size_t)(2 * n)), *bb = tu_alloc((size_t)n);
                    tu_fill_mat(&r, A, lda, n, lda, kind == 1 ? 6.0 : 1.0);
                    tu_fill_vec(&r, x, n, 1, kind == 1 ? 6.0 : 1.0);
                    for (int64_t q = 0; q < lda * n && kind == 2; q++) A[q] = (double)((int)(ozref_uniform(&r) * 7.0) - 3);
                    for (int64_t i = 0; i < n && kind == 2; i++) x[i] = (double)((int)(ozref_uniform(&r) * 9.0) - 4);
                    for (int64_t j = 0; j < n; j++)
                        A[(lower ? 0 : k) + j * lda] = kind == 2 ? 1.0 : (ozref_uniform(&r) + 0.5) * (j % 2 ? -1.0 : 1.0);
                    if (kind == 3 && n > 3) {
                        x[n / 2] = INFINITY;
                        x[n - 1] = NAN;
                        A[(lower ? 1 : k - 1) + (n / 3) * lda] = -INFINITY;
                    }
                    if (kind == 4)
                        for (int64_t q = 0; q < lda * n; q++) A[q] = ldexp(A[q], -600);
                    if (kind == 5) {   /* position 17: part before its block -1, in it an exact 0 */
                        for (int64_t q = 0; q < lda * n; q++) A[q] = 0.0;
                        for (int64_t i = 0; i < n; i++) x[i] = 0.0;
                        for (int64_t j = 0; j < n; j++) A[(lower ? 0 : k) + j * lda] = 1.0;
                        if (n > 17 && k >= 4) {
                            const int64_t r17 = low_row(lower, trans, n, 17), r16 = low_row(lower, trans, n, 16),
                                          r13 = low_row(lower, trans, n, 13);
                            set_op(lower, trans, k, A, lda, r17, r13, 1.0);
                            set_op(lower, trans, k, A, lda, r17, r16, 1.0);
                            x[r13] = 1.0;
                            x[r16] = -1.0;
                        }
                    }
                    for (int64_t i = 0; i < n && kind == 4; i++) x[i] = ldexp(x[i], -1000);
                    memcpy(x1, x, sizeof(double) * (size_t)n);
                    memcpy(x2, x, sizeof(double) * (size_t)n);
                    memcpy(bb, x, sizeof(double) * (size_t)n);
                    for (int64_t i = 0; i < n; i++) xs[2 * (n - 1 - i)] = x[i];
                    const ozblas_uplo_t ul = lower ? OZBLAS_LOWER : OZBLAS_UPPER;
                    const ozblas_operation_t op = trans ? OZBLAS_OP_T : OZBLAS_OP_N;
                    const ozblas_diag_t dg = unit ? OZBLAS_UNIT : OZBLAS_NON_UNIT;
                    ck_assert_int_eq(ozblas_dtbsv(h, ul, op, dg, n, k, A, lda, x1, 1), 0);
                    ck_assert_int_eq(ozblas_dtbsv(h, ul, op, dg, n, k, A, lda, xs, -2), 0);
                    tbsv_rule(lower, trans, unit, n, k, A, lda, x2);
                    snprintf(ctx, sizeof ctx, "tbsv_lanes %s n=%lld k=%lld kind=%d lower=%d trans=%d unit=%d",
                             tu_mode_name(MODES[_i]), (long long)n, (long long)k, kind, lower, trans, unit);
                    check_bits(x1, x2, (size_t)n, ctx);
                    for (int64_t i = 0; i < n; i++) x[i] = xs[2 * (n - 1 - i)];
                    check_bits(x, x1, (size_t)n, ctx);
                    /* the band and x against pages no access may touch, after them and before */
                    for (int end = 0; end < 2; end++) {
                        void *base, *xbase;
                        size_t len, xlen;
                        double *G = guarded((size_t)(lda * n), end, &base, &len), *gx = guarded((size_t)n, end, &xbase, &xlen);
                        memcpy(G, A, sizeof(double) * (size_t)(lda * n));
                        memcpy(gx, bb, sizeof(double) * (size_t)n);
                        ck_assert_int_eq(ozblas_dtbsv(h, ul, op, dg, n, k, G, lda, gx, 1), 0);
                        check_bits(gx, x1, (size_t)n, ctx);
                        munmap(base, len);
                        munmap(xbase, xlen);
                    }
                    free(A); free(x); free(x1); free(x2); free(xs); free(bb);
                }
    ozblas_destroy(h);
}
END_TEST

/* Parts (core/parts.h) where they share the caller's copies: DTRMM and DSYMM of order 520
 * (op(T) and A made whole once for every part) against DGEMM on the same matrices made whole
 * by hand (CR: RN(exact) is unique, so the bits must agree), and DSYR2K with panels beyond the
 * shared size (4 x 24 x 21848 elements, above 2^21) on 1, 2 and 3 threads (3: a middle part).  And FIXED
 * with CRT_INT8's ACCURATE scaling, whose row scales read every column: no parts there, so its
 * bits stay those of one thread. */
START_TEST(parts_shared)
{
    ozref_rng r;
    tu_rng(&r, "parts_shared");
    const int64_t ka = 520, nr = 16, n2 = 24, k2 = 21848;
    double *T = mat(&r, ka, ka, ka, 2.0), *F = tu_alloc((size_t)(ka * ka)), *B = mat(&r, ka, nr, ka, 2.0);
    double *X[3], *Y = tu_alloc((size_t)(ka * nr));
    for (int t = 0; t < 3; t++) X[t] = tu_alloc((size_t)(ka * ka));
    ozblas_handle_t hs[3];
    for (int t = 0; t < 3; t++) {
        hs[t] = tu_handle(OZBLAS_MODE_CORRECTLY_ROUNDED);
        ozblas_set_num_threads(hs[t], t + 1);
        ozblas_set_parallel_threshold(hs[t], 1);
    }
    /* DTRMM, lower, op(T) = T: F is T's lower triangle */
    for (int64_t j = 0; j < ka; j++)
        for (int64_t i = 0; i < ka; i++) F[i + j * ka] = i >= j ? T[i + j * ka] : 0.0;
    ck_assert_int_eq(ozblas_dgemm(hs[0], OZBLAS_OP_N, OZBLAS_OP_N, ka, nr, ka, 0.5, F, ka, B, ka, 0.0, Y, ka), 0);
    for (int t = 0; t < 3; t++) {
        memcpy(X[t], B, sizeof(double) * (size_t)(ka * nr));
        ck_assert_int_eq(ozblas_dtrmm(hs[t], OZBLAS_LEFT, OZBLAS_LOWER, OZBLAS_OP_N, OZBLAS_NON_UNIT, ka, nr, 0.5, T, ka, X[t], ka), 0);
        check_bits(X[t], Y, (size_t)(ka * nr), "parts_shared: dtrmm 520 against dgemm");
    }
    /* DSYMM from the right, upper: F is T's upper triangle mirrored */
    for (int64_t j = 0; j < ka; j++)
        for (int64_t i = 0; i < ka; i++) F[i + j * ka] = i <= j ? T[i + j * ka] : T[j + i * ka];
    double *Bt = mat(&r, nr, ka, nr, 2.0);
    ck_assert_int_eq(ozblas_dgemm(hs[0], OZBLAS_OP_N, OZBLAS_OP_N, nr, ka, ka, -1.0, Bt, nr, F, ka, 0.0, Y, nr), 0);
    for (int t = 0; t < 3; t++) {
        ck_assert_int_eq(ozblas_dsymm(hs[t], OZBLAS_RIGHT, OZBLAS_UPPER, nr, ka, -1.0, T, ka, Bt, nr, 0.0, X[t], nr), 0);
        check_bits(X[t], Y, (size_t)(ka * nr), "parts_shared: dsymm 520 against dgemm");
    }
    /* DSYR2K with shared panels, lower and upper, against one thread (which copies none) */
    double *P = mat(&r, n2, k2, n2, 2.0), *Q = mat(&r, n2, k2, n2, 2.0), *C = mat(&r, n2, n2, n2, 2.0);
    for (int up = 0; up < 2; up++) {
        for (int t = 0; t < 3; t++) {
            memcpy(X[t], C, sizeof(double) * (size_t)(n2 * n2));
            ck_assert_int_eq(ozblas_dsyr2k(hs[t], up ? OZBLAS_UPPER : OZBLAS_LOWER, OZBLAS_OP_N, n2, k2, 1.0, P, n2, Q, n2, 0.5,
                                           X[t], n2), 0);
        }
        check_bits(X[1], X[0], (size_t)(n2 * n2), "parts_shared: dsyr2k shared panels, 2 threads against 1");
        check_bits(X[2], X[0], (size_t)(n2 * n2), "parts_shared: dsyr2k shared panels, 3 threads against 1");
    }
    /* FIXED, CRT_INT8, ACCURATE: one thread's bits on 2 threads (rows of B of very different
     * magnitudes, so that a row scale read over part of the columns would differ) */
    for (int64_t j = 0; j < nr; j++)
        for (int64_t i = 0; i < ka; i++) B[i + j * ka] = ldexp(B[i + j * ka], (int)(j % 4) * 12 - 20);
    for (int t = 0; t < 2; t++) {
        ozblas_set_mode(hs[t], OZBLAS_MODE_FIXED);
        ozblas_set_engine(hs[t], OZBLAS_ENGINE_CRT_INT8);
        ozblas_set_crt_scaling(hs[t], OZBLAS_CRT_SCALING_ACCURATE);
        memcpy(X[t], B, sizeof(double) * (size_t)(ka * nr));
        ck_assert_int_eq(ozblas_dtrsm(hs[t], OZBLAS_LEFT, OZBLAS_LOWER, OZBLAS_OP_N, OZBLAS_UNIT, 64, nr, 1.0, T, ka, X[t], ka), 0);
    }
    check_bits(X[1], X[0], (size_t)(ka * nr), "parts_shared: FIXED CRT_INT8 ACCURATE dtrsm, 2 threads against 1");
    for (int t = 0; t < 2; t++) {
        memcpy(X[t], B, sizeof(double) * (size_t)(ka * nr));
        ck_assert_int_eq(ozblas_dtrmm(hs[t], OZBLAS_LEFT, OZBLAS_UPPER, OZBLAS_OP_T, OZBLAS_NON_UNIT, 64, nr, 1.0, T, ka, X[t], ka), 0);
    }
    check_bits(X[1], X[0], (size_t)(ka * nr), "parts_shared: FIXED CRT_INT8 ACCURATE dtrmm, 2 threads against 1");
    for (int t = 0; t < 3; t++) { ozblas_destroy(hs[t]); free(X[t]); }
    free(T); free(F); free(B); free(Bt); free(Y); free(P); free(Q); free(C);
}
END_TEST

/* the same bits on 1 and 2 threads, every mode (FIXED included) */
START_TEST(threads)
{
    ozblas_mode_t mode = MODES[_i];
    ozblas_handle_t h1 = tu_handle(mode), h2 = tu_handle(mode);
    ozblas_set_num_threads(h1, 1);
    ozblas_set_num_threads(h2, 2);
    ozblas_set_parallel_threshold(h2, 1);   /* every routine's threads, at these sizes too */
    ozref_rng r;
    tu_rng(&r, "threads");
    const int64_t n = 150, k = 90;
    double *A = tri_operand(&r, n, n, 4.0), *B = mat(&r, n, k, n, 4.0), *C = mat(&r, n, n, n, 4.0);
    double *X1 = tu_alloc((size_t)(n * k)), *X2 = tu_alloc((size_t)(n * k));
    double *C1 = tu_alloc((size_t)(n * n)), *C2 = tu_alloc((size_t)(n * n)), *L = tu_alloc((size_t)(n * n));
    for (int64_t j = 0; j < n; j++)   /* A's lower triangle, zeros above it */
        for (int64_t i = 0; i < n; i++) L[i + j * n] = i >= j ? A[i + j * n] : 0.0;
    for (int rt = 0; rt < 16; rt++) {
        memcpy(X1, B, sizeof(double) * (size_t)(n * k));
        memcpy(X2, B, sizeof(double) * (size_t)(n * k));
        if (rt == 4)   /* DROT's chunks on two threads, two of them left to the slow path */
            for (int t = 0; t < 2; t++) { (t ? X2 : X1)[700] = 0x1p-1000; (t ? X2 : X1)[9000] = INFINITY; }
        memcpy(C1, C, sizeof(double) * (size_t)(n * n));
        memcpy(C2, C, sizeof(double) * (size_t)(n * n));
        ozblas_handle_t hs[2] = { h1, h2 };
        double *Xs[2] = { X1, X2 }, *Cs[2] = { C1, C2 };
        for (int t = 0; t < 2; t++) {
            ozblas_status_t st = OZBLAS_STATUS_SUCCESS;
            if (rt == 0) st = ozblas_dtrsm(hs[t], OZBLAS_LEFT, OZBLAS_LOWER, OZBLAS_OP_N, OZBLAS_NON_UNIT, n, k, 1.0, A, n, Xs[t], n);
            if (rt == 1) st = ozblas_dtrmm(hs[t], OZBLAS_LEFT, OZBLAS_UPPER, OZBLAS_OP_T, OZBLAS_NON_UNIT, n, k, 0.5, A, n, Xs[t], n);
            if (rt == 2) st = ozblas_dsyrk(hs[t], OZBLAS_LOWER, OZBLAS_OP_N, n, k, -1.0, B, n, 1.0, Cs[t], n);
            if (rt == 3) st = ozblas_dsymv(hs[t], OZBLAS_UPPER, n, 1.0, C, n, B, 1, 0.5, Xs[t], 1);
            if (rt == 4) st = ozblas_drot(hs[t], n * k, Xs[t], 1, Cs[t], 1, 0.6, -0.8);
            /* and strided, through copies of the chunks, with pairs left in two of them */
            if (rt == 4 && st == OZBLAS_STATUS_SUCCESS) {
                Xs[t][1 + 3 * 233] = 0x1p-1000;
                Xs[t][1 + 3 * 3000] = NAN;
                st = ozblas_drot(hs[t], n * k / 3, Xs[t] + 1, 3, Cs[t] + n * k / 2, -2, 0.8, 0.6);
            }
            /* increment 0: x[0] rotated against every y_i in order, whatever the threads */
            if (rt == 5) st = ozblas_drot(hs[t], n * k, Xs[t], 0, Cs[t], 1, 0.6, 0.8);
            /* the band strips on both threads, with outputs left to the exact sums (an Inf in
             * x, a product below the strips' range) */
            if (rt >= 6) { B[40] = INFINITY; B[77] = 0x1p-1000; }
            if (rt == 6) st = ozblas_dgbmv(hs[t], OZBLAS_OP_N, n, n, 3, 5, 1.5, C, n, B, 1, -0.5, Xs[t], 1);
            if (rt == 7) st = ozblas_dtbmv(hs[t], OZBLAS_LOWER, OZBLAS_OP_T, OZBLAS_NON_UNIT, n, 4, C, n, Xs[t], 1);
            /* from the right, cut into parts by B's rows (core/parts.h) */
            if (rt == 8) st = ozblas_dtrsm(hs[t], OZBLAS_RIGHT, OZBLAS_UPPER, OZBLAS_OP_T, OZBLAS_UNIT, n, k, -3.0, A, n, Xs[t], n);
            if (rt == 9) st = ozblas_dtrmm(hs[t], OZBLAS_RIGHT, OZBLAS_LOWER, OZBLAS_OP_N, OZBLAS_NON_UNIT, n, k, 1.0, A, n, Xs[t], n);
            /* a triangular op(A) in one GEMM: the error-free walk's tiles by column groups */
            if (rt == 10) st = ozblas_dgemm(hs[t], OZBLAS_OP_N, OZBLAS_OP_N, n, k, n, 1.0, L, n, B, n, 0.0, Xs[t], n);
            /* the triangle's parts, each with its own rows of the panels */
            if (rt == 11) st = ozblas_dsyr2k(hs[t], OZBLAS_LOWER, OZBLAS_OP_N, n, k, 0.5, B, n, A, n, -1.0, Cs[t], n);
            if (rt == 12) st = ozblas_dsyr2k(hs[t], OZBLAS_UPPER, OZBLAS_OP_T, n, k, 2.0, A, n, C, n, 0.5, Cs[t], n);
            if (rt == 13) st = ozblas_dsymm(hs[t], OZBLAS_LEFT, OZBLAS_LOWER, n, k, 1.5, A, n, B, n, 0.5, Xs[t], n);
            if (rt == 14) st = ozblas_dsymm(hs[t], OZBLAS_RIGHT, OZBLAS_UPPER, n, k, -1.0, A, n, B, n, 0.0, Xs[t], n);
            if (rt == 15) st = ozblas_dsyrk(hs[t], OZBLAS_UPPER, OZBLAS_OP_T, n, k, 1.0, A, n, -0.5, Cs[t], n);
            ck_assert_int_eq(st, OZBLAS_STATUS_SUCCESS);
        }
        check_bits(X1, X2, (size_t)(n * k), "threads X");
        check_bits(C1, C2, (size_t)(n * n), "threads C");
    }
    free(A); free(B); free(C); free(X1); free(X2); free(C1); free(C2); free(L);
    ozblas_destroy(h1);
    ozblas_destroy(h2);
}
END_TEST

/* ozblas_dasum in parts of 2^15 elements on the handle's threads: n = 100003 (four parts, the
 * last partial, a tail of three past the lanes) and 2^16 exactly, contiguous and strided (3),
 * phi 0 and 8, against MPFR (RN(exact)) on 1 and 2 threads; then a NaN and an Inf in the last
 * part only, and a cancelling-free sum near the range test's limit (terms near 2^980) */
START_TEST(asum_parts)
{
    ozblas_handle_t h = tu_handle(MODES[_i]);
    ozref_rng r;
    tu_rng(&r, "asum_parts");
    const int64_t ns[] = { 100003, 65536 };
    char ctx[120];
    for (int a = 0; a < 2; a++)
        for (int64_t inc = 1; inc <= 3; inc += 2)
            for (int ph = 0; ph < 2; ph++) {
                const int64_t n = ns[a];
                double *x = tu_alloc((size_t)(n * inc)), *ax = tu_alloc((size_t)n), *ones = tu_alloc((size_t)n);
                tu_fill_vec(&r, x, n * inc, 1, ph ? 8.0 : 0.0);
                for (int64_t i = 0; i < n; i++) { ax[i] = fabs(x[i * inc]); ones[i] = 1.0; }
                const double want = rn_dot(n, ax, ones);
                for (int t = 1; t <= 2; t++) {
                    double got;
                    ck_assert_int_eq(ozblas_set_num_threads(h, t), OZBLAS_STATUS_SUCCESS);
                    ck_assert_int_eq(ozblas_dasum(h, n, x, inc, &got), OZBLAS_STATUS_SUCCESS);
                    snprintf(ctx, sizeof ctx, "%s dasum n=%lld inc=%lld phi=%d threads=%d", tu_mode_name(MODES[_i]), (long long)n,
                             (long long)inc, ph ? 8 : 0, t);
                    check_bits(&got, &want, 1, ctx);
                }
                if (a == 0 && inc == 1 && ph == 0) {
                    const double big = 0x1.8p980, keep = x[n - 2];
                    double got, w;
                    x[n - 2] = NAN;
                    ck_assert_int_eq(ozblas_dasum(h, n, x, 1, &got), OZBLAS_STATUS_SUCCESS);
                    ck_assert_msg(isnan(got), "dasum: a NaN in the last part gave %a", got);
                    x[n - 2] = -INFINITY;
                    ck_assert_int_eq(ozblas_dasum(h, n, x, 1, &got), OZBLAS_STATUS_SUCCESS);
                    ck_assert_msg(got == INFINITY, "dasum: an Inf in the last part gave %a", got);
                    x[n - 2] = keep;
                    for (int64_t i = 0; i < n; i += 4099) { x[i] = big; }
                    for (int64_t i = 0; i < n; i++) ax[i] = fabs(x[i]);
                    w = rn_dot(n, ax, ones);
                    ck_assert_int_eq(ozblas_dasum(h, n, x, 1, &got), OZBLAS_STATUS_SUCCESS);
                    check_bits(&got, &w, 1, "dasum: terms near 2^980");
                }
                free(x); free(ax); free(ones);
            }
    ozblas_destroy(h);
}
END_TEST

/* DASUM's bound on its lanes' error terms must cover their running values, not their final
 * ones: lane 0 takes 1, then 1024 terms just below the half-ulp of 1 (absorbed: TwoSum errors
 * of about +2^-53 whose low bits, down to 2^-106, the running c rounds away), then 1024 just
 * above it (errors of about -2^-53: c falls back toward 0 while its roundings stay), and lane
 * 1 two terms that put the exact sum (a multiple of 2^-106, kept in a 128-bit integer) one
 * unit of 2^-106 above, then below, a midpoint of the doubles near it: RN(exact) against the
 * rounding of c's lost bits (a bound from the final c certified the wrong neighbour) */
START_TEST(asum_running_errors)
{
    ozblas_handle_t h = tu_handle(MODES[_i]);
    ozref_rng r;
    tu_rng(&r, "asum_running_errors");
    enum { K = 1024 };
    const int64_t n = 8 * (1 + 2 * K);
    double *x = tu_alloc((size_t)n);
    for (int rep = 0; rep < 8; rep++)
        for (int side = -1; side <= 1; side += 2) {
            memset(x, 0, sizeof(double) * (size_t)n);
            __int128 tot = (__int128)1 << 106;            /* units of 2^-106 */
            x[0] = 1.0;
            for (int j = 0; j < 2 * K; j++) {
                /* r in [2^44, 2^45) units (2^-62 .. 2^-61), every bit but the last random (even:
                 * 2^53 + r is a double) */
                const int64_t ru = ((int64_t)1 << 44) + 2 * (int64_t)(ozref_uniform(&r) * 0x1p43);
                const int64_t au = j < K ? ((int64_t)1 << 53) - ru : ((int64_t)1 << 53) + ru;
                x[8 * (1 + j)] = ldexp((double)au, -106);  /* au < 2^54: exact */
                tot += au;
            }
            /* the midpoint M = (2q + 1) 2^53 units with tot < M <= tot + 2^54, then lane 1's two
             * terms, each below 2^53 units (exact doubles), bring the sum to M + side */
            const __int128 half = (__int128)1 << 53;
            __int128 M = (tot / (2 * half)) * (2 * half) + half;
            if (M <= tot) M += 2 * half;
            const __int128 f = M + side - tot;
            const int64_t f1 = (int64_t)(f / 2), f2 = (int64_t)(f - f / 2);
            x[1] = ldexp((double)f1, -106);
            x[9] = ldexp((double)f2, -106);
            /* RN: above the midpoint the upper neighbour, below it the lower (M = 1 + (2q + 1)
             * 2^-53 near 1, its neighbours M -+ 2^-53) */
            const double want = ldexp((double)((M + side * half) >> 53), -53);
            double got;
            ck_assert_int_eq(ozblas_dasum(h, n, x, 1, &got), OZBLAS_STATUS_SUCCESS);
            ck_assert_msg(tu_bits(got) == tu_bits(want), "%s rep %d side %d: %a, RN(exact) %a", tu_mode_name(MODES[_i]), rep,
                          side, got, want);
        }
    free(x);
    ozblas_destroy(h);
}
END_TEST

/* special values (CONTRACT §4) and invalid arguments */
START_TEST(specials_and_args)
{
    ozblas_handle_t h = tu_handle(OZBLAS_MODE_CORRECTLY_ROUNDED);
    double x[3] = { 1.0, NAN, 2.0 }, y[3] = { 1.0, 1.0, INFINITY }, g0;
    ck_assert_int_eq(ozblas_daxpy(h, 3, 2.0, x, 1, y, 1), 0);
    ck_assert(y[0] == 3.0 && isnan(y[1]) && y[2] == INFINITY);
    double xs[2] = { 0x1p990, 1.0 }, ys[2] = { 0x1p990, 1.0 };
    ck_assert_int_eq(ozblas_drot(h, 2, xs, 1, ys, 1, 0x1p30, -0x1p30), 0);   /* c x + s y = 0 exactly */
    ck_assert(xs[0] == 0.0 && ys[0] == 0x1p1021);
    /* short DASUMs whose sum lies on a tie of its leading terms and a tail decides it: 1 + 2^-53
     * (a tie, rounding to even 1) and 2^-160 above it round up; two terms of one binade on an
     * exact tie round to even; a subnormal sum is exact */
    const double t3[3] = { -1.0, 0x1p-53, -0x1p-160 }, t2[2] = { 0x1.0000000000001p0, -0x1p-53 }, s2[2] = { 0x1p-1070, -0x1.8p-1070 };
    ck_assert_int_eq(ozblas_dasum(h, 3, t3, 1, &g0), 0);
    ck_assert(g0 == 0x1.0000000000001p0);
    ck_assert_int_eq(ozblas_dasum(h, 2, t2, 1, &g0), 0);
    ck_assert(g0 == 0x1.0000000000002p0);
    ck_assert_int_eq(ozblas_dasum(h, 2, s2, 1, &g0), 0);
    ck_assert(g0 == 0x1.4p-1069);
    /* NaN and Inf inside the vector lanes of dnrm2 and dasum, and the idamax rule */
    double v40[40];
    for (int i = 0; i < 40; i++) v40[i] = 1.0 + i;
    v40[17] = NAN;
    double g;
    ck_assert_int_eq(ozblas_dnrm2(h, 40, v40, 1, &g), 0);
    ck_assert(isnan(g));
    ck_assert_int_eq(ozblas_dasum(h, 40, v40, 1, &g), 0);
    ck_assert(isnan(g));
    int64_t im;
    ck_assert_int_eq(ozblas_idamax(h, 40, v40, 1, &im), 0);
    ck_assert_int_eq(im, 40);   /* the NaN is never chosen after x_1 */
    v40[17] = -INFINITY;
    ck_assert_int_eq(ozblas_dnrm2(h, 40, v40, 1, &g), 0);
    ck_assert(g == INFINITY);
    ck_assert_int_eq(ozblas_dasum(h, 40, v40, 1, &g), 0);
    ck_assert(g == INFINITY);
    ck_assert_int_eq(ozblas_idamax(h, 40, v40, 1, &im), 0);
    ck_assert_int_eq(im, 18);
    double xn[3] = { NAN, 5.0, 1.0 };
    ck_assert_int_eq(ozblas_idamax(h, 3, xn, 1, &im), 0);
    ck_assert_int_eq(im, 1);
    double A[4] = { 1, 2, 3, 4 }, b[2] = { 1, 1 };
    ck_assert_int_eq(ozblas_dtrsv(h, (ozblas_uplo_t)7, OZBLAS_OP_N, OZBLAS_UNIT, 2, A, 2, b, 1), OZBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(ozblas_dtrsv(h, OZBLAS_LOWER, OZBLAS_OP_N, OZBLAS_UNIT, 2, A, 1, b, 1), OZBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(ozblas_dtrsv(h, OZBLAS_LOWER, OZBLAS_OP_N, OZBLAS_UNIT, 2, A, 2, b, 0), OZBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(ozblas_dtrsm(h, OZBLAS_LEFT, OZBLAS_LOWER, OZBLAS_OP_N, OZBLAS_UNIT, -1, 2, 1.0, A, 2, b, 2),
                     OZBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(ozblas_dsyrk(h, OZBLAS_LOWER, OZBLAS_OP_N, 2, 1, 1.0, A, 1, 0.0, A, 2), OZBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(ozblas_dger(h, 2, 2, 1.0, x, 0, y, 1, A, 2), OZBLAS_STATUS_INVALID_VALUE);
    ck_assert(b[0] == 1.0 && b[1] == 1.0 && A[0] == 1.0);
    /* beta == 0: NaN in C not read; alpha == 0 in dtrsm: B := 0 without reading T */
    double C[4] = { NAN, NAN, NAN, NAN }, B[4] = { 1, 2, 3, 4 };
    ck_assert_int_eq(ozblas_dsyrk(h, OZBLAS_UPPER, OZBLAS_OP_N, 2, 2, 1.0, B, 2, 0.0, C, 2), 0);
    ck_assert(C[0] == 10.0 && C[2] == 14.0 && C[3] == 20.0 && isnan(C[1]));
    double T[4] = { NAN, NAN, NAN, NAN };
    ck_assert_int_eq(ozblas_dtrsm(h, OZBLAS_LEFT, OZBLAS_LOWER, OZBLAS_OP_N, OZBLAS_NON_UNIT, 2, 2, 0.0, T, 2, B, 2), 0);
    ck_assert(B[0] == 0.0 && B[3] == 0.0);
    ozblas_destroy(h);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("blas_rest");
    TCase *t = tcase_create("routines");
    tcase_set_timeout(t, tu_timeout(600));
    tcase_add_loop_test(t, level1, 0, 3);
    tcase_add_test(t, level1_chunks);
    tcase_add_test(t, nrm2_range);
    tcase_add_test(t, nrm2_long);
    tcase_add_test(t, nrm2_threads);
    tcase_add_loop_test(t, rot_scaled, 0, 3);
    tcase_add_loop_test(t, level2, 0, 3);
    tcase_add_test(t, symv_rows_left);
    tcase_add_loop_test(t, level3_tri, 0, 3);
    tcase_add_loop_test(t, trsm_lanes, 0, 3);
    tcase_add_loop_test(t, trmm_absent_zeros, 0, 3);
    tcase_add_loop_test(t, trmm_tiny, 0, 3);
    tcase_add_loop_test(t, level3_sym, 0, 3);
    tcase_add_loop_test(t, threads, 0, 3);
    tcase_add_test(t, parts_shared);
    tcase_add_loop_test(t, packed, 0, 3);
    tcase_add_loop_test(t, banded, 0, 3);
    tcase_add_loop_test(t, banded_residuals, 0, 3);
    tcase_add_test(t, rank_tiny);
    tcase_add_loop_test(t, update_cancelling, 0, 3);
    tcase_add_loop_test(t, tbsv_scaled, 0, 3);
    tcase_add_loop_test(t, tbsv_lanes, 0, 3);
    tcase_add_test(t, specials_and_args);
    tcase_add_loop_test(t, asum_parts, 0, 3);
    tcase_add_loop_test(t, asum_running_errors, 0, 3);
    suite_add_tcase(s, t);
    return s;
}

TU_MAIN("test_blas_rest", suite)
