#define _POSIX_C_SOURCE 200809L
/* The time of one small call over time, ozblas and OpenBLAS in alternating batches of one
 * process: how a VM's slow phases move a ratio (bench/results/phases-avx512-2026-11-26.md).
 *   build/bench/ozblas-phases dot|gemv-n|gemv-t|gemm N BATCHES CALLS [double|cr] [--trace]
 * prints the quartiles of ozblas's and OpenBLAS's time per call and of their per-batch ratio
 * (with --trace: every batch, in order).  One thread (OMP_NUM_THREADS=1 for OpenBLAS).
 * Why: on the KVM guests this project is measured on, a 16^3 DGEMM's time moves between
 * ~1.15 us and 2-3 us for seconds at a time within one process, with the same addresses,
 * while OpenBLAS's moves by ~20 %: per-process spreads of small calls are such phases, not
 * memory layout. */
#include <cblas.h>
#include <ozblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ozref.h"

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
static volatile double sink;

static void call(int oz, ozblas_handle_t h, int r, int n, const double *A, const double *B, double *C)
{
    double s;
    switch (r) {
    case 0: if (oz) { ozblas_ddot(h, n, A, 1, B, 1, &s); sink = s; } else sink = cblas_ddot(n, A, 1, B, 1); break;
    case 1:
    case 2:
        if (oz) ozblas_dgemv(h, r == 1 ? OZBLAS_OP_N : OZBLAS_OP_T, n, n, 1.0, A, n, B, 1, 0.0, C, 1);
        else cblas_dgemv(CblasColMajor, r == 1 ? CblasNoTrans : CblasTrans, n, n, 1.0, A, n, B, 1, 0.0, C, 1);
        break;
    default:
        if (oz) ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, n, n, n, 1.0, A, n, B, n, 0.0, C, n);
        else cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, A, n, B, n, 0.0, C, n);
    }
}

int main(int argc, char **argv)
{
    if (argc < 5) { fprintf(stderr, "usage: ozblas-phases dot|gemv-n|gemv-t|gemm N BATCHES CALLS [double|cr] [--trace]\n"); return 2; }
    const char *rn[] = {"dot", "gemv-n", "gemv-t", "gemm"};
    int r = -1;
    for (int i = 0; i < 4; i++) if (!strcmp(argv[1], rn[i])) r = i;
    const int n = atoi(argv[2]), nb = atoi(argv[3]), calls = atoi(argv[4]);
    const int dbl = argc > 5 && !strcmp(argv[5], "double"), trace = argc > 6 && !strcmp(argv[6], "--trace");
    if (r < 0 || n < 1 || nb < 4 || calls < 1) { fprintf(stderr, "ozblas-phases: bad arguments\n"); return 2; }
    const size_t len = r == 0 ? (size_t)n : (size_t)n * (size_t)n;
    double *A = malloc(len * sizeof(double)), *B = malloc(len * sizeof(double)), *C = calloc(len, sizeof(double));
    double *to = malloc((size_t)nb * sizeof(double)), *tb = malloc((size_t)nb * sizeof(double)), *q = malloc((size_t)nb * sizeof(double));
    if (!A || !B || !C || !to || !tb || !q) return 3;
    ozref_rng rng;                        /* the papers' generator, phi = 1 (tests/ref/ozref.h) */
    ozref_rng_seed(&rng, 1);
    ozref_fill_phi(&rng, A, (int64_t)len, 1.0);
    ozref_fill_phi(&rng, B, (int64_t)len, 1.0);
    ozblas_handle_t h;
    if (ozblas_create(&h) != OZBLAS_STATUS_SUCCESS ||
        ozblas_set_mode(h, dbl ? OZBLAS_MODE_DOUBLE : OZBLAS_MODE_CORRECTLY_ROUNDED) != OZBLAS_STATUS_SUCCESS ||
        ozblas_set_num_threads(h, 1) != OZBLAS_STATUS_SUCCESS) return 1;
    for (int w = 0; w < calls; w++) { call(1, h, r, n, A, B, C); call(0, h, r, n, A, B, C); }
    for (int b = 0; b < nb; b++) {
        const double t0 = now();
        for (int i = 0; i < calls; i++) call(1, h, r, n, A, B, C);
        const double t1 = now();
        for (int i = 0; i < calls; i++) call(0, h, r, n, A, B, C);
        const double t2 = now();
        to[b] = (t1 - t0) / calls * 1e6;
        tb[b] = (t2 - t1) / calls * 1e6;
        q[b] = to[b] / tb[b];
        if (trace) printf("%d %.4f %.4f %.3f\n", b, to[b], tb[b], q[b]);
    }
    qsort(to, (size_t)nb, sizeof(double), cmp);
    qsort(tb, (size_t)nb, sizeof(double), cmp);
    qsort(q, (size_t)nb, sizeof(double), cmp);
    printf("%s n=%d %s: ozblas us/call min %.4g q1 %.4g med %.4g q3 %.4g max %.4g | OpenBLAS min %.4g med %.4g max %.4g | ratio min %.2f q1 %.2f med %.2f q3 %.2f max %.2f\n",
           rn[r], n, dbl ? "double" : "cr", to[0], to[nb / 4], to[nb / 2], to[3 * nb / 4], to[nb - 1], tb[0], tb[nb / 2], tb[nb - 1],
           q[0], q[nb / 4], q[nb / 2], q[3 * nb / 4], q[nb - 1]);
    ozblas_destroy(h);
    return 0;
}
