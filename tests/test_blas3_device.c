/* The level-3 routines beyond GEMM (dsymm, dsyrk, dsyr2k, dtrmm, dtrsm) on a CUDA handle with
 * device operands against a CPU handle, bit for bit, every output and the padding around it
 * (CONTRACT §6: one result per configuration, whatever the backend): every side, uplo, trans
 * and diag, odd sizes, more than one diagonal block of C (n = 130), alpha and beta special
 * cases, in DOUBLE, CORRECTLY_ROUNDED and FIXED.  The operands are shaped on the device
 * (kernels/ozb_shape_ops.h) and multiplied there, a solve's in-block rows certified there
 * (blocks with columns of zeros declined, to the exact rows): no call may be staged through
 * the host
 * (ozblas_info_t's host_staged, over all of a routine's problems).  The planted fault, the
 * staged path forced (OZBLAS_CUDA_STAGED=1), must fail it: ctest runs that as
 * test_blas3_device_cuda_emulated_staged, expected to fail.
 * ctest runs it with OZBLAS_TEST_CUDA=emulate (the emulated device: the same backend code and
 * the real kernels on the host, in CI) and =1 (the GPU; skipped without one); run without
 * either it reports itself skipped. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tu.h"

static const ozblas_mode_t MODES[3] = TU_MODES;
static ozblas_handle_t dev_h;

static double *mat(ozref_rng *r, int64_t rows, int64_t cols, int64_t ld, double phi)
{
    double *A = tu_alloc((size_t)ld * (size_t)(cols > 0 ? cols : 1));
    tu_fill_mat(r, A, rows, cols, ld, phi);
    return A;
}

static ozblas_handle_t device(ozblas_mode_t mode)
{
    if (!dev_h) ck_assert_int_eq(ozblas_create_cuda(&dev_h, 0), OZBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(ozblas_set_mode(dev_h, mode), OZBLAS_STATUS_SUCCESS);
    return dev_h;
}

/* The operands of one call: host copies for the CPU handle, device copies for the CUDA one */
typedef struct { double *h[3], *d[3]; size_t n[3]; int nb; } ops_t;

static void ops_put(ops_t *o, int q, const double *src, size_t n)
{
    o->n[q] = n;
    o->h[q] = tu_alloc(n);
    memcpy(o->h[q], src, n * sizeof(double));
    o->d[q] = tu_dev_copy(src, n);
    if (q + 1 > o->nb) o->nb = q + 1;
}

/* the output (operand `out`) of both handles, bit for bit, then everything freed; staged_ok:
 * the call may go through the host (operands holding Inf or NaN, which the device's engines
 * leave to the host's) */
static void ops_check_staged(ops_t *o, int out, ozblas_status_t sh, ozblas_status_t sd, const char *ctx, int staged_ok)
{
    ck_assert_msg(sh == sd, "%s: status CPU %d, CUDA %d", ctx, (int)sh, (int)sd);
    double *got = tu_alloc(o->n[out]);
    tu_dev_take(got, o->d[out], o->n[out]);
    tu_check_bits(got, o->h[out], o->n[out], 0, ctx);
    free(got);
    for (int q = 0; q < o->nb; q++) {
        if (q != out) tu_dev_take(NULL, o->d[q], o->n[q]);
        free(o->h[q]);
    }
    ozblas_info_t info;
    ck_assert_int_eq(ozblas_get_info(dev_h, &info), OZBLAS_STATUS_SUCCESS);
    /* the whole routine on the device: none of its problems went through the host */
    ck_assert_msg(staged_ok || info.host_staged == 0, "%s: staged through the host (%lld bytes to the device, %lld back)",
                  ctx, (long long)info.bytes_to_device, (long long)info.bytes_to_host);
}

START_TEST(sym)
{
    /* _i = 3: FIXED with CRT_INT8's ACCURATE scaling, whose row scales read every column of C's
     * block: the routines must cut C alike on both backends (core/parts.h ozb_cuts_free);
     * 4, 5: DOUBLE and FIXED on CRT_INT8, whose device engine leaves out the other triangle */
    const int accurate = _i == 3;
    const ozblas_mode_t mode = _i < 3 ? MODES[_i] : _i == 4 ? OZBLAS_MODE_DOUBLE : OZBLAS_MODE_FIXED;
    const char *mname = accurate ? "FIXED CRT_INT8 ACCURATE" : _i == 4 ? "DOUBLE CRT_INT8" : _i == 5 ? "FIXED CRT_INT8"
                                                                                              : tu_mode_name(mode);
    ozblas_handle_t h = tu_handle(mode), d = device(mode);
    for (int q = 0; _i >= 3 && q < 2; q++) {
        ck_assert_int_eq(ozblas_set_engine(q ? d : h, OZBLAS_ENGINE_CRT_INT8), OZBLAS_STATUS_SUCCESS);
        if (accurate)
            ck_assert_int_eq(ozblas_set_crt_scaling(q ? d : h, OZBLAS_CRT_SCALING_ACCURATE), OZBLAS_STATUS_SUCCESS);
    }
    /* the device's workspace small enough that C of order 130 goes in tiles of about 65, each in
     * blocks of columns or rows, some of them wholly outside C's triangle */
    if (_i >= 4) ck_assert_int_eq(ozblas_set_workspace_limit(d, 800000), OZBLAS_STATUS_SUCCESS);
    ozref_rng r;
    tu_rng(&r, "blas3_device_sym");
    const int64_t sizes[][2] = { { 1, 1 }, { 5, 9 }, { 70, 3 }, { 130, 20 } };
    char ctx[200];
    int c = 0;
    for (size_t s = 0; s < 4; s++)
        for (int lower = 0; lower < 2; lower++)
            for (int tr = 0; tr < 2; tr++, c++) {
                const int64_t n = sizes[s][0], k = sizes[s][1];
                const int64_t ra = tr ? k : n, ca = tr ? n : k, lda = ra + 1 + c % 2, ldc = n + 1;
                const double alpha = c % 4 == 3 ? 0.0 : c % 2 ? -2.0 : 1.0, beta = c % 3 == 0 ? 0.0 : 0.5;
                const double phi = (double)(c % 3) * 2.0;
                const ozblas_uplo_t ul = lower ? OZBLAS_LOWER : OZBLAS_UPPER;
                const ozblas_operation_t op = tr ? OZBLAS_OP_T : OZBLAS_OP_N;
                double *A = mat(&r, ra, ca, lda, phi), *B = mat(&r, ra, ca, lda, phi), *C = mat(&r, n, n, ldc, phi);
                ops_t o = { 0 };
                snprintf(ctx, sizeof ctx, "dsyrk %s n=%d k=%d lower=%d trans=%d", mname, (int)n, (int)k, lower, tr);
                ops_put(&o, 0, A, (size_t)(lda * ca));
                ops_put(&o, 1, C, (size_t)(ldc * n));
                /* (DOUBLE on CRT_INT8 may complete some elements through the host: tri's note) */
                ops_check_staged(&o, 1, ozblas_dsyrk(h, ul, op, n, k, alpha, o.h[0], lda, beta, o.h[1], ldc),
                                 ozblas_dsyrk(d, ul, op, n, k, alpha, o.d[0], lda, beta, o.d[1], ldc), ctx, _i == 4);
                memset(&o, 0, sizeof o);
                snprintf(ctx, sizeof ctx, "dsyr2k %s n=%d k=%d lower=%d trans=%d", mname, (int)n, (int)k, lower, tr);
                ops_put(&o, 0, A, (size_t)(lda * ca));
                ops_put(&o, 1, B, (size_t)(lda * ca));
                ops_put(&o, 2, C, (size_t)(ldc * n));
                ops_check_staged(&o, 2, ozblas_dsyr2k(h, ul, op, n, k, alpha, o.h[0], lda, o.h[1], lda, beta, o.h[2], ldc),
                                 ozblas_dsyr2k(d, ul, op, n, k, alpha, o.d[0], lda, o.d[1], lda, beta, o.d[2], ldc), ctx,
                                 _i == 4);
                /* dsymm: S (n x n, symmetric from its triangle) times an n x k or k x n B */
                const int left = tr;
                const int64_t m2 = left ? n : k, n2 = left ? k : n, lds = n + 2;
                double *S = mat(&r, n, n, lds, phi), *Bm = mat(&r, m2, n2, m2 + 1, phi), *Cm = mat(&r, m2, n2, m2, phi);
                memset(&o, 0, sizeof o);
                snprintf(ctx, sizeof ctx, "dsymm %s n=%d k=%d lower=%d left=%d", mname, (int)n, (int)k, lower, left);
                ops_put(&o, 0, S, (size_t)(lds * n));
                ops_put(&o, 1, Bm, (size_t)((m2 + 1) * n2));
                ops_put(&o, 2, Cm, (size_t)(m2 * n2));
                const ozblas_side_t sd = left ? OZBLAS_LEFT : OZBLAS_RIGHT;
                ops_check_staged(&o, 2, ozblas_dsymm(h, sd, ul, m2, n2, alpha, o.h[0], lds, o.h[1], m2 + 1, beta, o.h[2], m2),
                                 ozblas_dsymm(d, sd, ul, m2, n2, alpha, o.d[0], lds, o.d[1], m2 + 1, beta, o.d[2], m2), ctx,
                                 _i == 4);
                free(A); free(B); free(C); free(S); free(Bm); free(Cm);
            }
    ozblas_destroy(h);
    ozblas_destroy(d);
    dev_h = NULL;
}
END_TEST

START_TEST(tri)
{
    /* _i = 3, 4: DOUBLE and FIXED on CRT_INT8, whose device engine leaves out op(T)'s zeros */
    const ozblas_mode_t mode = _i < 3 ? MODES[_i] : _i == 3 ? OZBLAS_MODE_DOUBLE : OZBLAS_MODE_FIXED;
    const char *mname = _i == 3 ? "DOUBLE CRT_INT8" : _i == 4 ? "FIXED CRT_INT8" : tu_mode_name(mode);
    ozblas_handle_t h = tu_handle(mode), d = device(mode);
    for (int q = 0; _i >= 3 && q < 2; q++)
        ck_assert_int_eq(ozblas_set_engine(q ? d : h, OZBLAS_ENGINE_CRT_INT8), OZBLAS_STATUS_SUCCESS);
    if (_i >= 3) ck_assert_int_eq(ozblas_set_workspace_limit(d, 800000), OZBLAS_STATUS_SUCCESS);   /* tiles: sym's note */
    ozref_rng r;
    tu_rng(&r, "blas3_device_tri");
    /* 150 x 5: DTRMM's blocks of 64 (where its results are RN(exact)) and DTRSM's of 16; the
     * device's products by blocks of op(T)'s rows (left, 150) and columns (right, 130) */
    const int64_t sizes[][2] = { { 1, 1 }, { 7, 3 }, { 3, 7 }, { 40, 17 }, { 150, 5 }, { 9, 130 } };
    char ctx[200];
    int c = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int left = 0; left < 2; left++)
            for (int lower = 0; lower < 2; lower++)
                for (int tr = 0; tr < 2; tr++)
                    for (int unit = 0; unit < 2; unit++, c++) {
                        const int64_t m = sizes[s][0], n = sizes[s][1], ka = left ? m : n;
                        const int64_t lda = ka + c % 3, ldb = m + 1;
                        const double alpha = c % 5 == 4 ? 0.0 : c % 3 == 0 ? 1.0 : c % 3 == 1 ? -0.5 : 3.0;
                        const double phi = (double)(c % 3) * 2.0;
                        /* a well-conditioned triangle: its diagonal away from zero */
                        double *A = mat(&r, ka, ka, lda, phi), *B = mat(&r, m, n, ldb, phi);
                        for (int64_t i = 0; i < ka; i++) A[i + i * lda] = 1.5 + (double)(i % 4);
                        /* in every third case, columns whose in-block sums are exact zeros, which
                         * the device's certified rows decline (the block then by the exact rows):
                         * one all zero, one zero but in its last row */
                        for (int64_t i = 0; n > 2 && c % 3 == 0 && i < m; i++) {
                            B[i + ldb] = 0.0;
                            if (i + 1 < m) B[i + 2 * ldb] = 0.0;
                        }
                        const ozblas_side_t sd = left ? OZBLAS_LEFT : OZBLAS_RIGHT;
                        const ozblas_uplo_t ul = lower ? OZBLAS_LOWER : OZBLAS_UPPER;
                        const ozblas_operation_t op = tr ? OZBLAS_OP_T : OZBLAS_OP_N;
                        const ozblas_diag_t dg = unit ? OZBLAS_UNIT : OZBLAS_NON_UNIT;
                        for (int solve = 0; solve < 2; solve++) {
                            ops_t o = { 0 };
                            snprintf(ctx, sizeof ctx, "%s %s %dx%d left=%d lower=%d trans=%d unit=%d alpha=%g",
                                     solve ? "dtrsm" : "dtrmm", mname, (int)m, (int)n, left, lower, tr, unit, alpha);
                            ops_put(&o, 0, A, (size_t)(lda * ka));
                            ops_put(&o, 1, B, (size_t)(ldb * n));
                            ozblas_status_t sh, sv;
                            if (solve) {
                                sh = ozblas_dtrsm(h, sd, ul, op, dg, m, n, alpha, o.h[0], lda, o.h[1], ldb);
                                sv = ozblas_dtrsm(d, sd, ul, op, dg, m, n, alpha, o.d[0], lda, o.d[1], ldb);
                            } else {
                                sh = ozblas_dtrmm(h, sd, ul, op, dg, m, n, alpha, o.h[0], lda, o.h[1], ldb);
                                sv = ozblas_dtrmm(d, sd, ul, op, dg, m, n, alpha, o.d[0], lda, o.d[1], ldb);
                            }
                            /* DOUBLE on CRT_INT8: the elements its certificate leaves are
                             * completed correctly rounded, which some small shapes do through
                             * the host (reported in the info); the bits are checked all the same */
                            ops_check_staged(&o, 1, sh, sv, ctx, _i == 3);
                        }
                        free(A); free(B);
                    }
    ozblas_destroy(h);
    ozblas_destroy(d);
    dev_h = NULL;
}
END_TEST

/* DTRMM where B holds Inf and NaN (CONTRACT §6, Triangular operands): the elements they reach
 * only through op(T)'s absent zeros computed again on their triangle, on the device as on the
 * host (cuda's nonfinite: the vectors' first and last non-finite rows found on the device).
 * In each case one vector of B holds an Inf in its middle row, one an Inf in its second row and
 * a -Inf in its last (the rows between them Inf on their triangle, NaN on the whole: both ends
 * count), one a NaN in its first row, the last (from four vectors on) a NaN in its row before
 * last, the rest are finite; in every third case instead B's last element alone is -Inf.  The
 * vectors are B's columns (left) or rows (right). */
START_TEST(tri_specials)
{
    const ozblas_mode_t mode = MODES[_i];
    ozblas_handle_t h = tu_handle(mode), d = device(mode);
    ozref_rng r;
    tu_rng(&r, "blas3_device_tri_specials");
    const int64_t sizes[][2] = { { 5, 4 }, { 9, 6 }, { 33, 7 } };
    char ctx[200];
    int c = 0;
    for (size_t s = 0; s < 3; s++)
        for (int left = 0; left < 2; left++)
            for (int lower = 0; lower < 2; lower++)
                for (int tr = 0; tr < 2; tr++)
                    for (int unit = 0; unit < 2; unit++, c++) {
                        const int64_t m = left ? sizes[s][0] : sizes[s][1], n = left ? sizes[s][1] : sizes[s][0];
                        const int64_t ka = left ? m : n, nv = left ? n : m, lda = ka + 1, ldb = m + 2;
                        const double alpha = c % 3 == 0 ? 1.0 : -0.75;
                        double *A = mat(&r, ka, ka, lda, 1.0), *B = mat(&r, m, n, ldb, 1.0);
                        /* element k of vector v: B[k + v ldb] (left), B[v + k ldb] (right) */
                        const int64_t vs = left ? ldb : 1, ks = left ? 1 : ldb;
                        if (c % 3 == 2)   /* a lone -Inf, B's last element (the device's scan's last) */
                            B[(ka - 1) * ks + (nv - 1) * vs] = -INFINITY;
                        else {
                            B[(ka / 2) * ks + 0 * vs] = INFINITY;
                            B[1 * ks + 1 * vs] = INFINITY;
                            B[(ka - 1) * ks + 1 * vs] = -INFINITY;
                            B[0 * ks + 2 * vs] = NAN;
                            if (nv > 3) B[(ka - 2) * ks + (nv - 1) * vs] = NAN;
                        }
                        ops_t o = { 0 };
                        snprintf(ctx, sizeof ctx, "dtrmm specials %s %dx%d left=%d lower=%d trans=%d unit=%d alpha=%g",
                                 tu_mode_name(mode), (int)m, (int)n, left, lower, tr, unit, alpha);
                        ops_put(&o, 0, A, (size_t)(lda * ka));
                        ops_put(&o, 1, B, (size_t)(ldb * n));
                        const ozblas_side_t sd = left ? OZBLAS_LEFT : OZBLAS_RIGHT;
                        const ozblas_uplo_t ul = lower ? OZBLAS_LOWER : OZBLAS_UPPER;
                        const ozblas_operation_t op = tr ? OZBLAS_OP_T : OZBLAS_OP_N;
                        const ozblas_diag_t dg = unit ? OZBLAS_UNIT : OZBLAS_NON_UNIT;
                        const ozblas_status_t sh = ozblas_dtrmm(h, sd, ul, op, dg, m, n, alpha, o.h[0], lda, o.h[1], ldb);
                        const ozblas_status_t sv = ozblas_dtrmm(d, sd, ul, op, dg, m, n, alpha, o.d[0], lda, o.d[1], ldb);
                        ops_check_staged(&o, 1, sh, sv, ctx, 1);
                        free(A); free(B);
                    }
    ozblas_destroy(h);
    ozblas_destroy(d);
    dev_h = NULL;
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("blas3_device");
    TCase *t = tcase_create("device");
    tcase_set_timeout(t, tu_timeout(900));
    tcase_add_loop_test(t, sym, 0, 6);
    tcase_add_loop_test(t, tri, 0, 5);
    tcase_add_loop_test(t, tri_specials, 0, 3);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    const char *tw = getenv("OZBLAS_TEST_CUDA");
    if (!tw || !*tw) {
        printf("SKIP test_blas3_device: set OZBLAS_TEST_CUDA=emulate (the emulated device) or =1 (the GPU)\n");
        return 77;
    }
    /* tu_main sets the device up (OZBLAS_CUDA_EMULATE for =emulate) and reports a skip where
     * =1 finds no GPU */
    return tu_main("test_blas3_device", suite());
}
