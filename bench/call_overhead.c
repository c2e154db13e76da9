#define _POSIX_C_SOURCE 200809L
/* Per-call cost at tiny sizes (the target: the fixed cost of a call at most 1 us above
 * OpenBLAS's): ns per call of ozblas and of OpenBLAS on the same inputs, interleaved batches,
 * the median of 15 batches of 20000 calls (DOT n = 1 and 16, GEMV 4x4, GEMM 2x2x2 and 8x8x8,
 * and the rest of the BLAS at LAPACK's small sizes: level 1 n = 16, level 2 and 3 order 8),
 * in DOUBLE, CORRECTLY_ROUNDED and FIXED, with the handle's default thread count.
 *   build/bench/ozblas-overhead [routine...]     (the calls whose names start so; all) */
#include <cblas.h>
#include <ozblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { BATCH = 20000, NBATCH = 15 };

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }

static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }

typedef struct { int routine; int n; } shape_t;   /* 0 dot, 1 gemv, 2 gemm, then the rest (rname) */

static volatile double sink;

#define L OZBLAS_LOWER
#define CL CblasColMajor, CblasLower
static void call_oz(ozblas_handle_t h, const shape_t *s, const double *A, const double *B, double *C)
{
    double r;
    int64_t ir;
    const int64_t n = s->n;
    double *W = C + 32;   /* a second output vector */
    switch (s->routine) {
    case 0: ozblas_ddot(h, n, A, 1, B, 1, &r); sink = r; break;
    case 1: ozblas_dgemv(h, OZBLAS_OP_N, n, n, 1.0, A, n, B, 1, 0.0, C, 1); break;
    case 2: ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, n, n, n, 1.0, A, n, B, n, 0.0, C, n); break;
    case 3: ozblas_daxpy(h, n, 0.5, A, 1, C, 1); break;
    case 4: ozblas_dscal(h, n, 0.75, C, 1); break;
    case 5: ozblas_dcopy(h, n, A, 1, C, 1); break;
    case 6: ozblas_drot(h, n, C, 1, W, 1, 0.6, 0.8); break;
    case 7: ozblas_dnrm2(h, n, A, 1, &r); sink = r; break;
    case 8: ozblas_dasum(h, n, A, 1, &r); sink = r; break;
    case 9: ozblas_idamax(h, n, A, 1, &ir); sink = (double)ir; break;
    case 10: ozblas_dsymv(h, L, n, 1.0, A, n, B, 1, 0.0, C, 1); break;
    case 11: ozblas_dtrmv(h, L, OZBLAS_OP_N, OZBLAS_NON_UNIT, n, A, n, C, 1); break;
    case 12: ozblas_dtrsv(h, L, OZBLAS_OP_N, OZBLAS_NON_UNIT, n, A, n, C, 1); break;
    case 13: ozblas_dger(h, n, n, -0.5, B, 1, B + 8, 1, C, n); break;
    case 14: ozblas_dsyr2(h, L, n, -0.5, B, 1, B + 8, 1, C, n); break;
    case 15: ozblas_dsymm(h, OZBLAS_LEFT, L, n, n, 1.0, A, n, B, n, 0.0, C, n); break;
    case 16: ozblas_dsyrk(h, L, OZBLAS_OP_N, n, n, 1.0, A, n, 0.0, C, n); break;
    case 17: ozblas_dtrmm(h, OZBLAS_LEFT, L, OZBLAS_OP_N, OZBLAS_NON_UNIT, n, n, 1.0, A, n, C, n); break;
    default: ozblas_dtrsm(h, OZBLAS_LEFT, L, OZBLAS_OP_N, OZBLAS_NON_UNIT, n, n, 1.0, A, n, C, n); break;
    }
}

static void call_blas(const shape_t *s, const double *A, const double *B, double *C)
{
    const int n = s->n;
    double *W = C + 32;
    switch (s->routine) {
    case 0: sink = cblas_ddot(n, A, 1, B, 1); break;
    case 1: cblas_dgemv(CblasColMajor, CblasNoTrans, n, n, 1.0, A, n, B, 1, 0.0, C, 1); break;
    case 2: cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, A, n, B, n, 0.0, C, n); break;
    case 3: cblas_daxpy(n, 0.5, A, 1, C, 1); break;
    case 4: cblas_dscal(n, 0.75, C, 1); break;
    case 5: cblas_dcopy(n, A, 1, C, 1); break;
    case 6: cblas_drot(n, C, 1, W, 1, 0.6, 0.8); break;
    case 7: sink = cblas_dnrm2(n, A, 1); break;
    case 8: sink = cblas_dasum(n, A, 1); break;
    case 9: sink = (double)cblas_idamax(n, A, 1); break;
    case 10: cblas_dsymv(CL, n, 1.0, A, n, B, 1, 0.0, C, 1); break;
    case 11: cblas_dtrmv(CL, CblasNoTrans, CblasNonUnit, n, A, n, C, 1); break;
    case 12: cblas_dtrsv(CL, CblasNoTrans, CblasNonUnit, n, A, n, C, 1); break;
    case 13: cblas_dger(CblasColMajor, n, n, -0.5, B, 1, B + 8, 1, C, n); break;
    case 14: cblas_dsyr2(CL, n, -0.5, B, 1, B + 8, 1, C, n); break;
    case 15: cblas_dsymm(CblasColMajor, CblasLeft, CblasLower, n, n, 1.0, A, n, B, n, 0.0, C, n); break;
    case 16: cblas_dsyrk(CL, CblasNoTrans, n, n, 1.0, A, n, 0.0, C, n); break;
    case 17: cblas_dtrmm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, n, n, 1.0, A, n, C, n); break;
    default: cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, n, n, 1.0, A, n, C, n); break;
    }
}

int main(int argc, char **argv)
{
    const shape_t shapes[] = {{0, 1}, {0, 16}, {1, 4}, {2, 2}, {2, 8}, {3, 16}, {4, 16}, {5, 16}, {6, 16}, {7, 16},
                              {8, 16}, {9, 16}, {10, 8}, {11, 8}, {12, 8}, {13, 8}, {14, 8}, {15, 8}, {16, 8},
                              {17, 8}, {18, 8}};
    const char *rname[] = {"ddot", "dgemv", "dgemm", "daxpy", "dscal", "dcopy", "drot", "dnrm2", "dasum", "idamax",
                           "dsymv", "dtrmv", "dtrsv", "dger", "dsyr2", "dsymm", "dsyrk", "dtrmm", "dtrsm"};
    const ozblas_mode_t modes[] = {OZBLAS_MODE_DOUBLE, OZBLAS_MODE_CORRECTLY_ROUNDED, OZBLAS_MODE_FIXED};
    const char *mname[] = {"double", "cr", "fixed"};
    /* the triangle well conditioned (a dominant diagonal): the solves stay finite call after call */
    double A[64], B[64], C[64], C0[64];
    srand(7);
    for (int i = 0; i < 64; i++) { A[i] = rand() / (double)RAND_MAX - 0.5; B[i] = rand() / (double)RAND_MAX - 0.5; C0[i] = B[i]; }
    for (int i = 0; i < 8; i++) A[i + 8 * i] = 4.0 + A[i + 8 * i];
    printf("| call | mode | ozblas ns/call | OpenBLAS ns/call | difference ns |\n|---|---|---|---|---|\n");
    for (size_t q = 0; q < sizeof shapes / sizeof shapes[0]; q++)
        for (int md = 0; md < 3; md++) {
            int want = argc < 2;
            for (int a = 1; a < argc; a++) want |= strncmp(rname[shapes[q].routine], argv[a], strlen(argv[a])) == 0;
            if (!want) continue;
            ozblas_handle_t h;
            if (ozblas_create(&h) != OZBLAS_STATUS_SUCCESS || ozblas_set_mode(h, modes[md]) != OZBLAS_STATUS_SUCCESS) return 1;
            double to[NBATCH], tb[NBATCH];
            for (int w = 0; w < 1000; w++) { call_oz(h, &shapes[q], A, B, C); call_blas(&shapes[q], A, B, C); }
            for (int b = 0; b < NBATCH; b++) {
                /* the updates and solves in place start each batch from the same values (a
                 * batch of scalings, rotations or solves drifts toward over- or underflow) */
                memcpy(C, C0, sizeof C);
                double t0 = now();
                for (int i = 0; i < BATCH; i++) {
                    if (i % 64 == 0) memcpy(C, C0, sizeof C);
                    call_oz(h, &shapes[q], A, B, C);
                }
                double t1 = now();
                for (int i = 0; i < BATCH; i++) {
                    if (i % 64 == 0) memcpy(C, C0, sizeof C);
                    call_blas(&shapes[q], A, B, C);
                }
                double t2 = now();
                to[b] = (t1 - t0) / BATCH * 1e9;
                tb[b] = (t2 - t1) / BATCH * 1e9;
            }
            qsort(to, NBATCH, sizeof(double), cmp);
            qsort(tb, NBATCH, sizeof(double), cmp);
            char call[32];
            const int rt = shapes[q].routine;
            if (rt == 0 || (rt >= 3 && rt <= 9)) snprintf(call, sizeof call, "%s n=%d", rname[rt], shapes[q].n);
            else snprintf(call, sizeof call, "%s %dx%d%s", rname[rt], shapes[q].n, shapes[q].n,
                          rt == 2 ? (shapes[q].n == 2 ? "x2" : "x8") : "");
            printf("| %s | %s | %.0f | %.0f | %.0f |\n", call, mname[md], to[NBATCH / 2], tb[NBATCH / 2], to[NBATCH / 2] - tb[NBATCH / 2]);
            ozblas_destroy(h);
        }
    return 0;
}
