/* Element (i, j) of a GEMM is a function of row i of op(A), column j of op(B), C_ij, alpha,
 * beta, k and the configuration alone (LAPACK relies on it: DGGEV3's test 5).
 * Corroborated as ReproBLAS does: the same GEMM computed whole, by column blocks, by row
 * blocks and as one GEMV per column must give the same bits, in every mode and slice format.
 * The inputs give the data-dependent choices something to depend on: the phi generator, one
 * column of op(B) 2^-60 smaller than the rest, one row of op(A) spanning 2^80, and a column
 * whose entries cancel.  Not here: FIXED mode with the CRT's ACCURATE scaling, whose row scale
 * comes from the whole of op(B) by design (README, CRT_INT8); DOUBLE mode ignores that scaling. */
#include "tu.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    ozblas_mode_t mode;
    ozblas_engine_t engine;
    int split, fast;
    ozblas_summation_t sum;
    const char *name;
    int accurate;               /* the CRT's ACCURATE scaling */
} config_t;

static const config_t CONFIGS[] = {
    {OZBLAS_MODE_DOUBLE, OZBLAS_ENGINE_FP64, 3, 0, OZBLAS_SUM_NEARSUM, "DOUBLE FP64", 0},
    {OZBLAS_MODE_DOUBLE, OZBLAS_ENGINE_FP16, 3, 0, OZBLAS_SUM_NEARSUM, "DOUBLE FP16", 0},
    {OZBLAS_MODE_DOUBLE, OZBLAS_ENGINE_INT8, 3, 0, OZBLAS_SUM_NEARSUM, "DOUBLE INT8", 0},
    {OZBLAS_MODE_DOUBLE, OZBLAS_ENGINE_CRT_INT8, 3, 0, OZBLAS_SUM_NEARSUM, "DOUBLE CRT_INT8", 0},
    {OZBLAS_MODE_DOUBLE, OZBLAS_ENGINE_FP16, 3, 1, OZBLAS_SUM_NEARSUM, "DOUBLE FP16 fast", 0},
    {OZBLAS_MODE_FIXED, OZBLAS_ENGINE_FP64, 3, 1, OZBLAS_SUM_NEARSUM, "FIXED FP64 3 fast nearsum", 0},
    {OZBLAS_MODE_FIXED, OZBLAS_ENGINE_FP64, 2, 0, OZBLAS_SUM_DOUBLE, "FIXED FP64 2 double", 0},
    {OZBLAS_MODE_FIXED, OZBLAS_ENGINE_FP16, 4, 1, OZBLAS_SUM_DOUBLE, "FIXED FP16 4 fast double", 0},
    {OZBLAS_MODE_FIXED, OZBLAS_ENGINE_INT8, 5, 0, OZBLAS_SUM_NEARSUM, "FIXED INT8 5 nearsum", 0},
    {OZBLAS_MODE_FIXED, OZBLAS_ENGINE_CRT_INT8, 9, 0, OZBLAS_SUM_NEARSUM, "FIXED CRT_INT8 9", 0},
    {OZBLAS_MODE_FIXED, OZBLAS_ENGINE_CRT_INT8, 14, 0, OZBLAS_SUM_NEARSUM, "FIXED CRT_INT8 14", 0},
    {OZBLAS_MODE_DOUBLE, OZBLAS_ENGINE_CRT_INT8, 3, 0, OZBLAS_SUM_NEARSUM, "DOUBLE CRT_INT8 ACCURATE", 1},
    {OZBLAS_MODE_CORRECTLY_ROUNDED, OZBLAS_ENGINE_FP64, 3, 0, OZBLAS_SUM_NEARSUM, "CR FP64", 0},
    {OZBLAS_MODE_CORRECTLY_ROUNDED, OZBLAS_ENGINE_CRT_INT8, 3, 0, OZBLAS_SUM_NEARSUM, "CR CRT_INT8", 0},
};
enum { NCONFIGS = sizeof CONFIGS / sizeof *CONFIGS };

/* NULL where the format has no exact products on this machine (the test reports a skip) */
static ozblas_handle_t config_handle(const config_t *c)
{
    ozblas_handle_t h = tu_handle(c->mode);
    if (ozblas_set_engine(h, c->engine) != OZBLAS_STATUS_SUCCESS) {
        ozblas_destroy(h);
        return NULL;
    }
    ck_assert_int_eq(ozblas_set_split_count(h, c->split), OZBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(ozblas_set_fast_mode(h, c->fast), OZBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(ozblas_set_summation(h, c->sum), OZBLAS_STATUS_SUCCESS);
    if (c->accurate) ck_assert_int_eq(ozblas_set_crt_scaling(h, OZBLAS_CRT_SCALING_ACCURATE), OZBLAS_STATUS_SUCCESS);
    return h;
}

/* op(A) is m x k, op(B) is k x n, both column-major with the given transposes */
typedef struct {
    int64_t m, n, k;
    int ta, tb;
    double *A, *B, *C;
    int64_t lda, ldb;
} gemm_t;

static double *opa(const gemm_t *g, int64_t i, int64_t l) { return g->ta ? g->A + l + i * g->lda : g->A + i + l * g->lda; }
static double *opb(const gemm_t *g, int64_t l, int64_t j) { return g->tb ? g->B + j + l * g->ldb : g->B + l + j * g->ldb; }

static void make(ozref_rng *r, gemm_t *g, int64_t m, int64_t n, int64_t k, int ta, int tb, double phi)
{
    g->m = m; g->n = n; g->k = k; g->ta = ta; g->tb = tb;
    g->lda = ta ? k : m;
    g->ldb = tb ? n : k;
    g->A = tu_alloc((size_t)(m * k));
    g->B = tu_alloc((size_t)(k * n));
    g->C = tu_alloc((size_t)(m * n));
    tu_fill_mat(r, g->A, g->lda, ta ? m : k, g->lda, phi);
    tu_fill_mat(r, g->B, g->ldb, tb ? k : n, g->ldb, phi);
    tu_fill_mat(r, g->C, m, n, m, phi);
    /* column n-1 of op(B) tiny; row 0 of op(A) over 2^80; column 1 of C cancels in row 1 */
    for (int64_t l = 0; l < k; l++) {
        *opb(g, l, n - 1) *= 0x1p-60;
        *opa(g, 0, l) *= ldexp(1.0, (int)(l % 9) * 10 - 40);
    }
    if (n > 2 && m > 2)
        for (int64_t l = 0; l < k; l++) *opb(g, l, 1) = (l % 2 ? -1.0 : 1.0) * *opa(g, 1, l) * (l < 2 ? 1.0 : 0x1p-30);
}

static ozblas_status_t sub_gemm(ozblas_handle_t h, const gemm_t *g, int64_t i0, int64_t mi, int64_t j0, int64_t nj,
                                double alpha, double beta, double *C)
{
    return ozblas_dgemm(h, g->ta ? OZBLAS_OP_T : OZBLAS_OP_N, g->tb ? OZBLAS_OP_T : OZBLAS_OP_N, mi, nj, g->k, alpha,
                        opa(g, i0, 0), g->lda, opb(g, 0, j0), g->ldb, beta, C + i0 + j0 * g->m, g->m);
}

static void check_config(const config_t *c, const gemm_t *g, const char *tag)
{
    ozblas_handle_t h = config_handle(c);
    if (!h) return;
    const int64_t m = g->m, n = g->n, k = g->k, mn = m * n;
    const double alpha = 1.5, beta = -0.75;
    double *whole = tu_alloc((size_t)mn), *part = tu_alloc((size_t)mn);
    char ctx[200];
    memcpy(whole, g->C, sizeof(double) * (size_t)mn);
    ck_assert_int_eq(sub_gemm(h, g, 0, m, 0, n, alpha, beta, whole), OZBLAS_STATUS_SUCCESS);

    /* column blocks 1, 2, the rest */
    memcpy(part, g->C, sizeof(double) * (size_t)mn);
    const int64_t cb[] = {0, 1, 3, n};
    for (int b = 0; b < 3; b++)
        if (cb[b + 1] > cb[b]) ck_assert_int_eq(sub_gemm(h, g, 0, m, cb[b], cb[b + 1] - cb[b], alpha, beta, part), OZBLAS_STATUS_SUCCESS);
    snprintf(ctx, sizeof ctx, "%s, %s, %lldx%lldx%lld: column blocks", c->name, tag, (long long)m, (long long)n, (long long)k);
    tu_check_bits(part, whole, (size_t)mn, 1, ctx);

    /* row blocks 2, 1, the rest */
    memcpy(part, g->C, sizeof(double) * (size_t)mn);
    const int64_t rb[] = {0, 2, 3, m};
    for (int b = 0; b < 3; b++)
        if (rb[b + 1] > rb[b]) ck_assert_int_eq(sub_gemm(h, g, rb[b], rb[b + 1] - rb[b], 0, n, alpha, beta, part), OZBLAS_STATUS_SUCCESS);
    snprintf(ctx, sizeof ctx, "%s, %s, %lldx%lldx%lld: row blocks", c->name, tag, (long long)m, (long long)n, (long long)k);
    tu_check_bits(part, whole, (size_t)mn, 1, ctx);

    /* one GEMV per column: y = alpha op(A) b_j + beta c_j */
    memcpy(part, g->C, sizeof(double) * (size_t)mn);
    for (int64_t j = 0; j < n; j++) {
        const double *x = opb(g, 0, j);
        const int64_t incx = g->tb ? g->ldb : 1;
        ozblas_status_t st = g->ta ? ozblas_dgemv(h, OZBLAS_OP_T, k, m, alpha, g->A, g->lda, x, incx, beta, part + j * m, 1)
                                   : ozblas_dgemv(h, OZBLAS_OP_N, m, k, alpha, g->A, g->lda, x, incx, beta, part + j * m, 1);
        ck_assert_int_eq(st, OZBLAS_STATUS_SUCCESS);
    }
    snprintf(ctx, sizeof ctx, "%s, %s, %lldx%lldx%lld: GEMVs", c->name, tag, (long long)m, (long long)n, (long long)k);
    tu_check_bits(part, whole, (size_t)mn, 1, ctx);
    free(whole);
    free(part);
    ozblas_destroy(h);
}

START_TEST(element_local)
{
    const config_t *c = &CONFIGS[_i];
    ozblas_handle_t probe = config_handle(c);
    if (!probe) {
        tu_skip_note(c->name, "the format's exact products are not available on this machine");
        return;
    }
    ozblas_destroy(probe);
    ozref_rng r;
    char tag[64];
    snprintf(tag, sizeof tag, "element_local %d", _i);
    tu_rng(&r, tag);
    const int64_t shapes[][5] = {{9, 7, 3, 0, 0}, {23, 17, 45, 1, 0}, {40, 33, 300, 0, 1}, {12, 10, 5000, 1, 1}};
    const double phis[] = {0.5, 2.0};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
        for (size_t f = 0; f < sizeof phis / sizeof *phis; f++) {
            gemm_t g;
            make(&r, &g, shapes[s][0], shapes[s][1], shapes[s][2], (int)shapes[s][3], (int)shapes[s][4], phis[f]);
            char t[64];
            snprintf(t, sizeof t, "phi %g, %s%s", phis[f], g.ta ? "T" : "N", g.tb ? "T" : "N");
            check_config(c, &g, t);
            free(g.A); free(g.B); free(g.C);
        }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("element_local");
    TCase *tc = tcase_create("element_local");
    tcase_set_timeout(tc, tu_timeout(600));
    tcase_add_loop_test(tc, element_local, 0, NCONFIGS);
    suite_add_tcase(s, tc);
    return tu_main("test_element_local", s);
}
