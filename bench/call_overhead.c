#define _POSIX_C_SOURCE 200809L
/* Per-call cost at tiny sizes (the target: the fixed cost of a call at most 1 us above
 * OpenBLAS's): ns per call of ozblas and of OpenBLAS on the same inputs, interleaved batches,
 * the median of 15 batches of 20000 calls (DOT n = 1 and 16, GEMV 4x4, GEMM 2x2x2 and 8x8x8),
 * in DOUBLE, CORRECTLY_ROUNDED and FIXED, with the handle's default thread count.
 *   build/bench/ozblas-overhead */
#include <cblas.h>
#include <ozblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { BATCH = 20000, NBATCH = 15 };

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }

static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }

typedef struct { int routine; int n; } shape_t;   /* 0 dot, 1 gemv, 2 gemm */

static volatile double sink;

static void call_oz(ozblas_handle_t h, const shape_t *s, const double *A, const double *B, double *C)
{
    double r;
    switch (s->routine) {
    case 0: ozblas_ddot(h, s->n, A, 1, B, 1, &r); sink = r; break;
    case 1: ozblas_dgemv(h, OZBLAS_OP_N, s->n, s->n, 1.0, A, s->n, B, 1, 0.0, C, 1); break;
    default: ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, s->n, s->n, s->n, 1.0, A, s->n, B, s->n, 0.0, C, s->n); break;
    }
}

static void call_blas(const shape_t *s, const double *A, const double *B, double *C)
{
    switch (s->routine) {
    case 0: sink = cblas_ddot(s->n, A, 1, B, 1); break;
    case 1: cblas_dgemv(CblasColMajor, CblasNoTrans, s->n, s->n, 1.0, A, s->n, B, 1, 0.0, C, 1); break;
    default: cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, s->n, s->n, s->n, 1.0, A, s->n, B, s->n, 0.0, C, s->n); break;
    }
}

int main(void)
{
    const shape_t shapes[] = {{0, 1}, {0, 16}, {1, 4}, {2, 2}, {2, 8}};
    const char *rname[] = {"ddot", "dgemv", "dgemm"};
    const ozblas_mode_t modes[] = {OZBLAS_MODE_DOUBLE, OZBLAS_MODE_CORRECTLY_ROUNDED, OZBLAS_MODE_FIXED};
    const char *mname[] = {"double", "cr", "fixed"};
    double A[64], B[64], C[64];
    srand(7);
    for (int i = 0; i < 64; i++) { A[i] = rand() / (double)RAND_MAX - 0.5; B[i] = rand() / (double)RAND_MAX - 0.5; C[i] = 0; }
    printf("| call | mode | ozblas ns/call | OpenBLAS ns/call | difference ns |\n|---|---|---|---|---|\n");
    for (size_t q = 0; q < sizeof shapes / sizeof shapes[0]; q++)
        for (int md = 0; md < 3; md++) {
            ozblas_handle_t h;
            if (ozblas_create(&h) != OZBLAS_STATUS_SUCCESS || ozblas_set_mode(h, modes[md]) != OZBLAS_STATUS_SUCCESS) return 1;
            double to[NBATCH], tb[NBATCH];
            for (int w = 0; w < 1000; w++) { call_oz(h, &shapes[q], A, B, C); call_blas(&shapes[q], A, B, C); }
            for (int b = 0; b < NBATCH; b++) {
                double t0 = now();
                for (int i = 0; i < BATCH; i++) call_oz(h, &shapes[q], A, B, C);
                double t1 = now();
                for (int i = 0; i < BATCH; i++) call_blas(&shapes[q], A, B, C);
                double t2 = now();
                to[b] = (t1 - t0) / BATCH * 1e9;
                tb[b] = (t2 - t1) / BATCH * 1e9;
            }
            qsort(to, NBATCH, sizeof(double), cmp);
            qsort(tb, NBATCH, sizeof(double), cmp);
            char call[32];
            if (shapes[q].routine == 0) snprintf(call, sizeof call, "%s n=%d", rname[0], shapes[q].n);
            else snprintf(call, sizeof call, "%s %dx%d%s", rname[shapes[q].routine], shapes[q].n, shapes[q].n,
                          shapes[q].routine == 2 ? (shapes[q].n == 2 ? "x2" : "x8") : "");
            printf("| %s | %s | %.0f | %.0f | %.0f |\n", call, mname[md], to[NBATCH / 2], tb[NBATCH / 2], to[NBATCH / 2] - tb[NBATCH / 2]);
            ozblas_destroy(h);
        }
    return 0;
}
