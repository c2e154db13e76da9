/* Bitwise reproducibility: thread counts, workspace limits (blocking), call order, concurrent handles. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tu.h"

static const ozblas_mode_t MODES[3] = TU_MODES;
static const size_t WS_SMALL = 64 * 1024;

typedef struct {
    ozblas_mode_t mode;
    int threads;
    size_t ws;
    int split, fast;
    ozblas_summation_t sum;
} cfg_t;

static ozblas_handle_t cfg_handle(const cfg_t *c)
{
    ozblas_handle_t h = tu_handle(c->mode);
    ck_assert_int_eq(ozblas_set_num_threads(h, c->threads), OZBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(ozblas_set_workspace_limit(h, c->ws), OZBLAS_STATUS_SUCCESS);
    /* the parallel threshold too: 3 threads for every call, 4 threads for none */
    const int64_t pw = c->threads == 3 ? 1 : c->threads == 4 ? (int64_t)1 << 40 : 0;
    ck_assert_int_eq(ozblas_set_parallel_threshold(h, pw), OZBLAS_STATUS_SUCCESS);
    if (c->mode == OZBLAS_MODE_FIXED) {
        ck_assert_int_eq(ozblas_set_split_count(h, c->split), OZBLAS_STATUS_SUCCESS);
        ck_assert_int_eq(ozblas_set_fast_mode(h, c->fast), OZBLAS_STATUS_SUCCESS);
        ck_assert_int_eq(ozblas_set_summation(h, c->sum), OZBLAS_STATUS_SUCCESS);
    }
    return h;
}

static void cfg_str(const cfg_t *c, char *buf, size_t n)
{
    snprintf(buf, n, "mode=%s threads=%d%s ws=%zu split=%d fast=%d sum=%d", tu_mode_name(c->mode), c->threads,
             c->threads == 3 ? " (parallel from 1 multiply-add)" : c->threads == 4 ? " (parallel never)" : "",
             c->ws, c->split, c->fast, (int)c->sum);
}

/* runs the three routines under configuration c; outputs into C, y, dot */
typedef struct {
    int64_t m, n, k, lda, ldb, ldc;
    double *A, *B, *C0;
    int64_t gm, gn;
    double *GA, *gx, *gy0;
    int64_t dn;
    double *dx, *dy;
} prob_t;

static void prob_init(prob_t *p, ozref_rng *r, double phi)
{
    p->m = 150; p->n = 131; p->k = 170;
    p->lda = 153; p->ldb = 131; p->ldc = 152; /* A: N (m x k), B: T (n x k) */
    p->A = tu_alloc((size_t)(p->lda * p->k));
    p->B = tu_alloc((size_t)(p->ldb * p->k));
    p->C0 = tu_alloc((size_t)(p->ldc * p->n));
    tu_fill_mat(r, p->A, p->m, p->k, p->lda, phi);
    tu_fill_mat(r, p->B, p->n, p->k, p->ldb, phi);
    tu_fill_mat(r, p->C0, p->m, p->n, p->ldc, phi);
    p->gm = 1500; p->gn = 120;
    p->GA = tu_alloc((size_t)(p->gm * p->gn));
    p->gx = tu_alloc((size_t)p->gm);
    p->gy0 = tu_alloc((size_t)p->gn * 2);
    tu_fill_mat(r, p->GA, p->gm, p->gn, p->gm, phi);
    ozref_fill_phi(r, p->gx, p->gm, phi);
    tu_fill_vec(r, p->gy0, p->gn, -2, phi);
    p->dn = 200003;
    p->dx = tu_alloc((size_t)p->dn);
    p->dy = tu_alloc((size_t)p->dn);
    ozref_fill_phi(r, p->dx, p->dn, phi);
    ozref_fill_phi(r, p->dy, p->dn, phi);
}

static void prob_free(prob_t *p)
{
    free(p->A); free(p->B); free(p->C0); free(p->GA); free(p->gx); free(p->gy0); free(p->dx); free(p->dy);
}

typedef struct { double *C, *y, dot; int64_t blocks; } out_t;

static void prob_run(const prob_t *p, ozblas_handle_t h, out_t *o)
{
    size_t nc = (size_t)(p->ldc * p->n);
    o->C = tu_alloc(nc);
    memcpy(o->C, p->C0, nc * 8);
    ozblas_status_t st = ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_T, p->m, p->n, p->k, -0.75, p->A, p->lda,
                                      p->B, p->ldb, 1.25, o->C, p->ldc);
    ck_assert_msg(st == OZBLAS_STATUS_SUCCESS, "dgemm status %d", (int)st);
    ozblas_info_t info;
    ck_assert_int_eq(ozblas_get_info(h, &info), OZBLAS_STATUS_SUCCESS);
    o->blocks = info.blocks;
    o->y = tu_alloc((size_t)p->gn * 2);
    memcpy(o->y, p->gy0, (size_t)p->gn * 2 * 8);
    st = ozblas_dgemv(h, OZBLAS_OP_T, p->gm, p->gn, 2.0, p->GA, p->gm, p->gx, 1, -1.0, o->y, -2);
    ck_assert_msg(st == OZBLAS_STATUS_SUCCESS, "dgemv status %d", (int)st);
    st = ozblas_ddot(h, p->dn, p->dx, 1, p->dy, -1, &o->dot);
    ck_assert_msg(st == OZBLAS_STATUS_SUCCESS, "ddot status %d", (int)st);
}

static void out_free(out_t *o) { free(o->C); free(o->y); }

static void out_compare(const prob_t *p, const out_t *a, const out_t *b, const char *what)
{
    char msg[300];
    snprintf(msg, sizeof msg, "dgemm %s", what);
    tu_check_bits(b->C, a->C, (size_t)(p->ldc * p->n), 0, msg);
    snprintf(msg, sizeof msg, "dgemv %s", what);
    tu_check_bits(b->y, a->y, (size_t)p->gn * 2, 0, msg);
    ck_assert_msg(tu_bits(a->dot) == tu_bits(b->dot), "ddot %s: %a vs %a [seed %llu]", what, a->dot, b->dot,
                  (unsigned long long)tu_seed);
}

static void sweep(ozblas_mode_t mode, int split, int fast, ozblas_summation_t sum, double phi, const char *tag)
{
    ozref_rng r;
    tu_rng(&r, tag);
    prob_t p;
    prob_init(&p, &r, phi);
    out_t base;
    int have = 0;
    const size_t wss[3] = {WS_SMALL, 0, (size_t)1 << 30};
    for (int w = 0; w < 3; w++)
        for (int t = 1; t <= 4; t++) {
            cfg_t c = {mode, t, wss[w], split, fast, sum};
            ozblas_handle_t h = cfg_handle(&c);
            out_t o;
            prob_run(&p, h, &o);
            char what[200];
            cfg_str(&c, what, sizeof what);
            if (wss[w] == WS_SMALL)
                ck_assert_msg(o.blocks > 1, "%s: a 64 KiB workspace limit should force blocking, info.blocks = %lld",
                              what, (long long)o.blocks);
            if (!have) { base = o; have = 1; }
            else { out_compare(&p, &base, &o, what); out_free(&o); }
            ozblas_destroy(h);
        }
    out_free(&base);
    prob_free(&p);
}

START_TEST(repro_threads_workspace)
{
    ozblas_mode_t mode = MODES[_i];
    sweep(mode, 3, 0, OZBLAS_SUM_NEARSUM, 4.0, "repro_threads_workspace");
}
END_TEST

START_TEST(repro_fixed_variants)
{
    /* FIXED mode: fast on/off and both summations are each reproducible */
    int fast = _i % 2;
    ozblas_summation_t sum = (_i / 2) % 2 ? OZBLAS_SUM_DOUBLE : OZBLAS_SUM_NEARSUM;
    int split = _i < 4 ? 2 : 5;
    sweep(OZBLAS_MODE_FIXED, split, fast, sum, _i % 3 ? 1.0 : 8.0, "repro_fixed_variants");
}
END_TEST

START_TEST(repro_call_order)
{
    ozref_rng r;
    tu_rng(&r, "repro_call_order");
    prob_t p, q;
    prob_init(&p, &r, 2.0);
    prob_init(&q, &r, 6.0);
    for (int md = 0; md < 3; md++) {
        cfg_t c = {MODES[md], 2, 0, 4, 1, OZBLAS_SUM_DOUBLE};
        ozblas_handle_t h = cfg_handle(&c);
        out_t a1, b1, a2, b2;
        prob_run(&p, h, &a1);
        prob_run(&q, h, &b1);
        prob_run(&p, h, &a2);
        /* a fresh handle computing q first */
        ozblas_handle_t h2 = cfg_handle(&c);
        prob_run(&q, h2, &b2);
        out_compare(&p, &a1, &a2, "p before and after q");
        out_compare(&q, &b1, &b2, "q on a used and a fresh handle");
        out_free(&a1); out_free(&b1); out_free(&a2); out_free(&b2);
        ozblas_destroy(h);
        ozblas_destroy(h2);
    }
    prob_free(&p);
    prob_free(&q);
}
END_TEST

typedef struct {
    const prob_t *p;
    cfg_t c;
    out_t out[3];
    int reps;
} thr_arg;

static void *thr_main(void *v)
{
    thr_arg *a = v;
    ozblas_handle_t h = cfg_handle(&a->c);
    for (int i = 0; i < a->reps; i++) prob_run(a->p, h, &a->out[i]);
    ozblas_destroy(h);
    return NULL;
}

/* Tall-skinny GEMM (n <= 8: the DOT/GEMV-shaped units) under a workspace limit that holds a
 * few hundred rows of products: computed in waves of rows, with the bits of one pass (guards
 * a 10^7 x 2 x 2 DGEMM, which ends in ALLOC_FAILED if every row's products are kept at once). */
START_TEST(repro_tall_skinny_waves)
{
    const ozblas_mode_t mode = MODES[_i % 3];
    const ozblas_engine_t engines[3] = {OZBLAS_ENGINE_FP64, OZBLAS_ENGINE_FP16, OZBLAS_ENGINE_INT8};
    /* k = 2 (the SciPy shape), and k over several FP16/INT8 blocks with 5 columns */
    const int64_t shapes[2][3] = {{30000, 2, 2}, {2500, 5, 1200}};
    const size_t limits[2] = {(size_t)256 << 10, (size_t)2 << 20};      /* tens of waves each */
    ozref_rng r;
    tu_rng(&r, "repro_tall_skinny_waves");
    for (int q = 0; q < 2; q++) {
        const int64_t m = shapes[q][0], n = shapes[q][1], k = shapes[q][2];
        double *A = tu_alloc((size_t)(m * k)), *B = tu_alloc((size_t)(k * n));
        double *C0 = tu_alloc((size_t)(m * n)), *C1 = tu_alloc((size_t)(m * n)), *C2 = tu_alloc((size_t)(m * n));
        tu_fill_mat(&r, A, m, k, m, 1.0);
        tu_fill_mat(&r, B, k, n, k, 1.0);
        tu_fill_mat(&r, C0, m, n, m, 1.0);
        for (int e = 0; e < 3; e++) {
            cfg_t big = {mode, 2, 0, 3, 1, OZBLAS_SUM_NEARSUM}, small = big;
            small.ws = limits[q];
            ozblas_handle_t h0 = cfg_handle(&big), h1 = cfg_handle(&small);
            if (ozblas_set_engine(h0, engines[e]) != OZBLAS_STATUS_SUCCESS) { ozblas_destroy(h0); ozblas_destroy(h1); continue; }
            ck_assert_int_eq(ozblas_set_engine(h1, engines[e]), OZBLAS_STATUS_SUCCESS);
            memcpy(C1, C0, sizeof(double) * (size_t)(m * n));
            memcpy(C2, C0, sizeof(double) * (size_t)(m * n));
            ck_assert_int_eq(ozblas_dgemm(h0, OZBLAS_OP_N, OZBLAS_OP_N, m, n, k, 1.5, A, m, B, k, -0.5, C1, m), OZBLAS_STATUS_SUCCESS);
            ck_assert_int_eq(ozblas_dgemm(h1, OZBLAS_OP_N, OZBLAS_OP_N, m, n, k, 1.5, A, m, B, k, -0.5, C2, m), OZBLAS_STATUS_SUCCESS);
            ozblas_info_t i0, i1;
            ozblas_get_info(h0, &i0);
            ozblas_get_info(h1, &i1);
            char ctx[128];
            snprintf(ctx, sizeof ctx, "tall-skinny %lldx%lldx%lld %s engine %d: %zu KiB (%lld units) vs default (%lld units)",
                     (long long)m, (long long)n, (long long)k, tu_mode_name(mode), (int)engines[e], limits[q] >> 10, (long long)i1.blocks,
                     (long long)i0.blocks);
            tu_check_bits(C2, C1, (size_t)(m * n), 0, ctx);
            ozblas_destroy(h0);
            ozblas_destroy(h1);
        }
        free(A); free(B); free(C0); free(C1); free(C2);
    }
}
END_TEST

START_TEST(repro_concurrent_handles)
{
    ozref_rng r;
    tu_rng(&r, "repro_concurrent_handles");
    prob_t p, q;
    prob_init(&p, &r, 3.0);
    prob_init(&q, &r, 1.0);
    for (int md = 0; md < 3; md++) {
        thr_arg a = {&p, {MODES[md], 2, 0, 3, 0, OZBLAS_SUM_NEARSUM}, {{0}}, 2};
        thr_arg b = {&q, {MODES[(md + 1) % 3], 1, WS_SMALL, 4, 1, OZBLAS_SUM_DOUBLE}, {{0}}, 2};
        /* sequential */
        thr_arg as = a, bs = b;
        as.reps = bs.reps = 1;
        thr_main(&as);
        thr_main(&bs);
        /* concurrent */
        pthread_t ta, tb;
        ck_assert_int_eq(pthread_create(&ta, NULL, thr_main, &a), 0);
        ck_assert_int_eq(pthread_create(&tb, NULL, thr_main, &b), 0);
        pthread_join(ta, NULL);
        pthread_join(tb, NULL);
        for (int i = 0; i < 2; i++) {
            out_compare(&p, &as.out[0], &a.out[i], "thread A concurrent vs sequential");
            out_compare(&q, &bs.out[0], &b.out[i], "thread B concurrent vs sequential");
            out_free(&a.out[i]);
            out_free(&b.out[i]);
        }
        out_free(&as.out[0]);
        out_free(&bs.out[0]);
    }
    prob_free(&p);
    prob_free(&q);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("repro");
    TCase *tc = tcase_create("repro");
    tcase_set_timeout(tc, tu_timeout(150));
    tcase_add_loop_test(tc, repro_threads_workspace, 0, 3);
    tcase_add_loop_test(tc, repro_fixed_variants, 0, 6);
    tcase_add_test(tc, repro_call_order);
    tcase_add_test(tc, repro_concurrent_handles);
    tcase_add_loop_test(tc, repro_tall_skinny_waves, 0, 3);
    suite_add_tcase(s, tc);
    return s;
}

TU_MAIN("test_repro", suite)
