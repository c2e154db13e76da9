#define _POSIX_C_SOURCE 200809L
/* ozblas-blas3-cuda: the level-3 routines beyond GEMM (dsyrk, dsyr2k, dsymm, dtrmm, dtrsm) on a
 * CUDA handle with device operands, against cuBLAS's same routine and against ozblas_dgemm on
 * the same handle at the same flops, in one process, interleaved (ozblas, cuBLAS, ozblas_dgemm,
 * ...).  Each call is timed by the host clock from a synchronized device to the end of
 * cudaDeviceSynchronize after it (the output restored from a pristine copy before, untimed);
 * medians and ranges over the repetitions after one warm-up.  Every case with n <= the check
 * size is also run on a CPU handle of the same configuration and compared bit for bit, and
 * every case reports whether any of its problems went through the host (host_staged) and how
 * many times one call waited for the device (info.device_waits: copies between host and
 * device and stream synchronisations).
 *   ozblas-blas3-cuda [--reps R] [--check-max N] [--engine fp64,crt] [--mode double,cr] [N...]
 * (defaults: 5 repetitions, check up to 1024, engines crt and fp64, modes double and cr,
 * N = 256 1024 4096) */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"


enum { R_SYRK, R_SYR2K, R_SYMM, R_TRMM, R_TRSM, R_COUNT };
static const char *const NAMES[R_COUNT] = { "dsyrk", "dsyr2k", "dsymm", "dtrmm", "dtrsm" };
/* flops of each routine in units of N^3 (syrk N^2 K, syr2k 2 N^2 K, symm 2 N^3, trmm and trsm
 * N^3, K = N): ozblas_dgemm at the same flops has inner dimension FL * N / 2 */
static const double FL[R_COUNT] = { 1.0, 2.0, 2.0, 1.0, 1.0 };

/* one problem's operands: d* on the device, h* their host twins for the CPU handle */
typedef struct {
    int64_t n;
    double *dA, *dB, *dT, *dC, *dC0;   /* C0: the output's starting value, restored before each call */
    double *hA, *hB, *hT, *hC0;
} ops_t;

static ozblas_status_t oz_call(ozblas_handle_t h, int r, int64_t n, const double *A, const double *B, const double *T, double *C)
{
    const int64_t k = n;
    switch (r) {
    case R_SYRK:  return ozblas_dsyrk(h, OZBLAS_LOWER, OZBLAS_OP_N, n, k, 1.0, B, n, 0.5, C, n);
    case R_SYR2K: return ozblas_dsyr2k(h, OZBLAS_LOWER, OZBLAS_OP_N, n, k, 1.0, B, n, A, n, 0.5, C, n);
    case R_SYMM:  return ozblas_dsymm(h, OZBLAS_LEFT, OZBLAS_LOWER, n, n, 1.0, A, n, B, n, 0.5, C, n);
    case R_TRMM:  return ozblas_dtrmm(h, OZBLAS_LEFT, OZBLAS_LOWER, OZBLAS_OP_N, OZBLAS_NON_UNIT, n, n, 1.0, T, n, C, n);
    default:      return ozblas_dtrsm(h, OZBLAS_LEFT, OZBLAS_LOWER, OZBLAS_OP_N, OZBLAS_NON_UNIT, n, n, 1.0, T, n, C, n);
    }
}

static cublasStatus_t cb_call(cublasHandle_t cb, int r, const ops_t *o)
{
    const int n = (int)o->n;
    const double one = 1.0, half = 0.5;
    const cublasFillMode_t lo = CUBLAS_FILL_MODE_LOWER;
    switch (r) {
    case R_SYRK:  return cublasDsyrk(cb, lo, CUBLAS_OP_N, n, n, &one, o->dB, n, &half, o->dC, n);
    case R_SYR2K: return cublasDsyr2k(cb, lo, CUBLAS_OP_N, n, n, &one, o->dB, n, o->dA, n, &half, o->dC, n);
    case R_SYMM:  return cublasDsymm(cb, CUBLAS_SIDE_LEFT, lo, n, n, &one, o->dA, n, o->dB, n, &half, o->dC, n);
    case R_TRMM:  return cublasDtrmm(cb, CUBLAS_SIDE_LEFT, lo, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, n, n, &one, o->dT, n, o->dC, n,
                                     o->dC, n);
    default:      return cublasDtrsm(cb, CUBLAS_SIDE_LEFT, lo, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, n, n, &one, o->dT, n, o->dC, n);
    }
}

/* one timed call: which 0 ozblas's routine, 1 cuBLAS's, 2 ozblas_dgemm with inner kk; nonzero on failure */
static int timed(int which, int r, const ops_t *o, ozblas_handle_t h, cublasHandle_t cb, int64_t kk, double *t)
{
    const size_t bytes = sizeof(double) * (size_t)(o->n * o->n);
    int bad = cudaMemcpy(o->dC, o->dC0, bytes, cudaMemcpyDeviceToDevice) != cudaSuccess;
    bad |= cudaDeviceSynchronize() != cudaSuccess;
    const double t0 = bench_now();
    if (which == 0) bad |= oz_call(h, r, o->n, o->dA, o->dB, o->dT, o->dC) != OZBLAS_STATUS_SUCCESS;
    else if (which == 1) bad |= cb_call(cb, r, o) != CUBLAS_STATUS_SUCCESS;
    else bad |= ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_T, o->n, o->n, kk, 1.0, o->dB, o->n, o->dA, o->n, 0.5, o->dC, o->n)
                != OZBLAS_STATUS_SUCCESS;
    bad |= cudaDeviceSynchronize() != cudaSuccess;
    *t = bench_now() - t0;
    return bad;
}

static double *dev_copy(const double *h, size_t n)
{
    double *d = NULL;
    if (cudaMalloc((void **)&d, n * sizeof(double)) != cudaSuccess) return NULL;
    if (h && cudaMemcpy(d, h, n * sizeof(double), cudaMemcpyHostToDevice) != cudaSuccess) { cudaFree(d); return NULL; }
    return d;
}

static int ops_make(ops_t *o, int64_t n)
{
    const size_t nn = (size_t)(n * n);
    o->n = n;
    o->hA = malloc(nn * sizeof(double)); o->hB = malloc(nn * sizeof(double));
    o->hT = malloc(nn * sizeof(double)); o->hC0 = malloc(nn * sizeof(double));
    if (!o->hA || !o->hB || !o->hT || !o->hC0) return 1;
    srand(7);
    for (size_t i = 0; i < nn; i++) {
        o->hA[i] = rand() / (double)RAND_MAX - 0.5; o->hB[i] = rand() / (double)RAND_MAX - 0.5;
        o->hC0[i] = rand() / (double)RAND_MAX - 0.5; o->hT[i] = 0.01 * (rand() / (double)RAND_MAX - 0.5);
    }
    /* T: unit-sized diagonal and small off-diagonal entries (||T - I||_2 < 1/2 at these sizes),
     * so the triangular solves stay well conditioned */
    for (int64_t i = 0; i < n; i++) o->hT[i + i * n] = 1.0;
    o->dA = dev_copy(o->hA, nn); o->dB = dev_copy(o->hB, nn); o->dT = dev_copy(o->hT, nn);
    o->dC0 = dev_copy(o->hC0, nn); o->dC = dev_copy(NULL, nn);
    return !o->dA || !o->dB || !o->dT || !o->dC0 || !o->dC;
}

static void ops_free(ops_t *o)
{
    cudaFree(o->dA); cudaFree(o->dB); cudaFree(o->dT); cudaFree(o->dC); cudaFree(o->dC0);
    free(o->hA); free(o->hB); free(o->hT); free(o->hC0);
}

/* the device result of routine r against a CPU handle's, from the same starting C: 1 equal,
 * 0 differ, -1 failed */
static int same_as_cpu(ozblas_handle_t h, ozblas_handle_t hc, int r, const ops_t *o)
{
    const size_t nn = (size_t)(o->n * o->n);
    double *c = malloc(nn * sizeof(double)), *g = malloc(nn * sizeof(double));
    int res = -1;
    if (c && g && cudaMemcpy(o->dC, o->dC0, nn * sizeof(double), cudaMemcpyDeviceToDevice) == cudaSuccess &&
        oz_call(h, r, o->n, o->dA, o->dB, o->dT, o->dC) == OZBLAS_STATUS_SUCCESS &&
        cudaMemcpy(g, o->dC, nn * sizeof(double), cudaMemcpyDeviceToHost) == cudaSuccess) {
        memcpy(c, o->hC0, nn * sizeof(double));
        if (oz_call(hc, r, o->n, o->hA, o->hB, o->hT, c) == OZBLAS_STATUS_SUCCESS) res = memcmp(c, g, nn * sizeof(double)) == 0;
    }
    free(c); free(g);
    return res;
}

static void summary(double *v, int n, double *med, double *lo, double *hi)
{
    bench_sort(v, n);
    *med = v[n / 2]; *lo = v[0]; *hi = v[n - 1];
}

int main(int argc, char **argv)
{
    int reps = 5, engines[2] = { OZBLAS_ENGINE_CRT_INT8, OZBLAS_ENGINE_FP64 }, ne = 2, nm = 2, nn = 0;
    int64_t check_max = 1024, sizes[16];
    ozblas_mode_t modes[2] = { OZBLAS_MODE_DOUBLE, OZBLAS_MODE_CORRECTLY_ROUNDED };
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--reps") && a + 1 < argc) reps = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--check-max") && a + 1 < argc) check_max = atoll(argv[++a]);
        else if (!strcmp(argv[a], "--engine") && a + 1 < argc) {
            const char *s = argv[++a];
            ne = 0;
            if (strstr(s, "crt")) engines[ne++] = OZBLAS_ENGINE_CRT_INT8;
            if (strstr(s, "fp64")) engines[ne++] = OZBLAS_ENGINE_FP64;
        } else if (!strcmp(argv[a], "--mode") && a + 1 < argc) {
            const char *s = argv[++a];
            nm = 0;
            if (strstr(s, "double")) modes[nm++] = OZBLAS_MODE_DOUBLE;
            if (strstr(s, "cr")) modes[nm++] = OZBLAS_MODE_CORRECTLY_ROUNDED;
        } else if (atoll(argv[a]) > 0 && nn < 16) sizes[nn++] = atoll(argv[a]);
        else { fprintf(stderr, "usage: ozblas-blas3-cuda [--reps R] [--check-max N] [--engine fp64,crt] [--mode double,cr] [N...]\n"); return 2; }
    }
    if (reps < 1 || reps > 1000 || ne == 0 || nm == 0) { fprintf(stderr, "ozblas-blas3-cuda: bad --reps, --engine or --mode\n"); return 2; }
    if (nn == 0) { sizes[0] = 256; sizes[1] = 1024; sizes[2] = 4096; nn = 3; }
    const char *why = ozblas_cuda_unavailable_reason(0);
    if (why) { printf("ozblas-blas3-cuda: no CUDA device to run on: %s\n", why); return 77; }
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) { fprintf(stderr, "ozblas-blas3-cuda: cudaGetDeviceProperties failed\n"); return 1; }
    cublasHandle_t cb;
    ozblas_handle_t h, hc;
    if (cublasCreate(&cb) != CUBLAS_STATUS_SUCCESS || ozblas_create_cuda(&h, 0) || ozblas_create(&hc)) {
        fprintf(stderr, "ozblas-blas3-cuda: handle creation failed\n");
        return 1;
    }
    printf("ozblas-blas3-cuda on %s (%d SMs): host-clock medians (range) of %d interleaved runs after one warm-up; "
           "lower triangles, left sides, no transposes, alpha = 1, beta = 0.5\n\n", prop.name, prop.multiProcessorCount, reps);
    printf("| routine | n | mode | engine | ozblas ms | cuBLAS ms | vs cuBLAS | vs ozblas_dgemm, same flops | CPU bits | staged "
           "| waits |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
    int failures = 0;
    double *t[3];
    for (int w = 0; w < 3; w++) t[w] = malloc(sizeof(double) * (size_t)reps);
    if (!t[0] || !t[1] || !t[2]) return 3;
    for (int s = 0; s < nn; s++) {
        ops_t o;
        memset(&o, 0, sizeof o);
        if (ops_make(&o, sizes[s])) { fprintf(stderr, "ozblas-blas3-cuda: out of memory at n = %lld\n", (long long)sizes[s]); return 3; }
        for (int e = 0; e < ne; e++)
            for (int m = 0; m < nm; m++) {
                ozblas_set_mode(h, modes[m]); ozblas_set_engine(h, (ozblas_engine_t)engines[e]);
                ozblas_set_mode(hc, modes[m]); ozblas_set_engine(hc, (ozblas_engine_t)engines[e]);
                for (int r = 0; r < R_COUNT; r++) {
                    const int64_t kk = (int64_t)(FL[r] * (double)o.n / 2.0 + 0.5);
                    double tt, ro[1000], rg[1000];
                    int bad = 0, staged = 0;
                    int64_t waits = 0;
                    for (int w = 0; w < 3; w++) bad |= timed(w, r, &o, h, cb, kk, &tt);   /* warm-up */
                    for (int i = 0; i < reps && !bad; i++) {
                        for (int w = 0; w < 3; w++) {
                            bad |= timed(w, r, &o, h, cb, kk, &t[w][i]);
                            ozblas_info_t info;
                            if (w == 0 && ozblas_get_info(h, &info) == OZBLAS_STATUS_SUCCESS) {
                                staged |= info.host_staged;
                                waits = info.device_waits;
                            }
                        }
                        ro[i] = t[0][i] / t[1][i];
                        rg[i] = t[0][i] / t[2][i];
                    }
                    const int same = bad ? -1 : o.n <= check_max ? same_as_cpu(h, hc, r, &o) : 2;
                    if (bad || same == 0 || same == -1 || staged) failures++;
                    const char *mname = modes[m] == OZBLAS_MODE_DOUBLE ? "DOUBLE" : "CR";
                    const char *ename = engines[e] == OZBLAS_ENGINE_FP64 ? "FP64" : "CRT_INT8";
                    if (bad) {
                        printf("| %s | %lld | %s | %s | failed | | | | | | |\n", NAMES[r], (long long)o.n, mname, ename);
                        continue;
                    }
                    double mo, mc, x, y, q0, q1, q2, g0, g1, g2;
                    summary(t[0], reps, &mo, &x, &y);
                    summary(t[1], reps, &mc, &x, &y);
                    summary(ro, reps, &q0, &q1, &q2);
                    summary(rg, reps, &g0, &g1, &g2);
                    printf("| %s | %lld | %s | %s | %.3f | %.3f | %.2f (%.2f-%.2f) | %.2f (%.2f-%.2f) | %s | %s | %lld |\n",
                           NAMES[r], (long long)o.n, mname, ename, 1e3 * mo, 1e3 * mc, q0, q1, q2, g0, g1, g2,
                           same == 1 ? "equal" : same == 2 ? "-" : same == 0 ? "DIFFER" : "failed", staged ? "YES" : "no",
                           (long long)waits);
                    fflush(stdout);
                }
            }
        ops_free(&o);
    }
    printf("\n%s\n", failures ? "FAILED: a call failed, differed from the CPU handle or went through the host"
                              : "Every case ran on the device; every checked case bitwise equal to the CPU handle.");
    for (int w = 0; w < 3; w++) free(t[w]);
    cublasDestroy(cb);
    ozblas_destroy(h);
    ozblas_destroy(hc);
    return failures ? 1 : 0;
}
