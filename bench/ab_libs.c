#define _GNU_SOURCE
/* Two builds of libozblas compared in one process (a code change measured against its base):
 * both libraries dlopened side by side (RTLD_LOCAL), the same inputs (the bench's phi
 * generator and seed), one call shape timed in alternating batches (21 pairs, the order
 * swapped every pair), the median time of each and the median of the per-pair ratios.
 *   build/bench/ozblas-ab BASE.so NEW.so dot|gemv-n|gemv-t|gemm|gemm-tn|gemm-nt|gemm-tt|gemm-upd|syrk|syr2k|trsm|gemm-cancel N CALLS [double|cr|fixed|double-crt|fixed-crt] [threads]
 * (gemm-upd: C := C - A B with A N x 64, B 64 x N, LAPACK's blocked trailing update; syrk:
 * C's lower triangle := A A^T + C / 2, syr2k: := A B^T + B A^T + C / 2, k = N; trsm: X :=
 * L^-1 B, L lower triangular N x N with a unit diagonal, B N x N copied into X in each timed
 * call; both libraries must export ozblas_dsyrk, ozblas_dsyr2k and ozblas_dtrsm; gemm-cancel:
 * a GEMM whose first N/20 rows cancel to 2^-40 of their products, the deep sums' case: A's
 * second half of columns its first times 1 + 2^-40 there, B's second half of rows minus its
 * first; N even and at least 20; gemm-resid: C := C0 - A B with C0 = A B in floating point, the
 * residual B - A X of LAPACK's test programs, every element cancelling; syrk-resid: C's lower
 * triangle := I - Q^T Q, Q's columns orthonormal in floating point, LAPACK's orthogonality
 * check; both restore C before each call)
 * (fixed: FIXED with FP64, 3 slices, fast mode, as ozblas-bench's default; double-crt, fixed-crt:
 * DOUBLE or FIXED with the CRT_INT8 format)
 * Why: on the VMs this project is measured on, the time of a small or medium call varies up to
 * 2x from one process to the next (address layout and physical pages: a 16^3 CR DGEMM takes
 * 0.9-2.0 us with the same code), so two separate ozblas-bench runs cannot resolve a 10 %
 * change there; interleaved in one process, both builds see the same machine state.
 * Both outputs are compared too: a change of bits is reported (CR and DOUBLE with FP64 slices
 * are unique, so any difference is a bug). */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ozref.h"

typedef void *handle_t;
typedef int (*create_t)(handle_t *);
typedef int (*set_t)(handle_t, int);
typedef int (*gemm_t)(handle_t, int, int, int64_t, int64_t, int64_t, double, const double *, int64_t, const double *,
                      int64_t, double, double *, int64_t);
typedef int (*gemv_t)(handle_t, int, int64_t, int64_t, double, const double *, int64_t, const double *, int64_t, double,
                      double *, int64_t);
typedef int (*dot_t)(handle_t, int64_t, const double *, int64_t, const double *, int64_t, double *);
typedef int (*syrk_t)(handle_t, int, int, int64_t, int64_t, double, const double *, int64_t, double, double *, int64_t);
typedef int (*syr2k_t)(handle_t, int, int, int64_t, int64_t, double, const double *, int64_t, const double *, int64_t,
                       double, double *, int64_t);
typedef int (*trsm_t)(handle_t, int, int, int, int, int64_t, int64_t, double, const double *, int64_t, double *, int64_t);

typedef struct { handle_t h; gemm_t gemm; gemv_t gemv; dot_t dot; syrk_t syrk; syr2k_t syr2k; trsm_t trsm; } lib_t;

enum { PAIRS = 21 };

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int open_lib(const char *path, int mode, int engine, int fast, int threads, lib_t *l)
{
    void *so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!so) { fprintf(stderr, "ozblas-ab: %s\n", dlerror()); return 0; }
    create_t create = (create_t)dlsym(so, "ozblas_create");
    set_t set_mode = (set_t)dlsym(so, "ozblas_set_mode"), set_threads = (set_t)dlsym(so, "ozblas_set_num_threads");
    set_t set_engine = (set_t)dlsym(so, "ozblas_set_engine"), set_fast = (set_t)dlsym(so, "ozblas_set_fast_mode");
    l->gemm = (gemm_t)dlsym(so, "ozblas_dgemm");
    l->gemv = (gemv_t)dlsym(so, "ozblas_dgemv");
    l->dot = (dot_t)dlsym(so, "ozblas_ddot");
    l->syrk = (syrk_t)dlsym(so, "ozblas_dsyrk");
    l->syr2k = (syr2k_t)dlsym(so, "ozblas_dsyr2k");
    l->trsm = (trsm_t)dlsym(so, "ozblas_dtrsm");
    if (!create || !set_mode || !set_threads || !set_engine || !set_fast || !l->gemm || !l->gemv || !l->dot || !l->syrk ||
        !l->syr2k || !l->trsm)
        return 0;
    return create(&l->h) == 0 && set_mode(l->h, mode) == 0 && set_threads(l->h, threads) == 0 &&
           (engine < 0 || set_engine(l->h, engine) == 0) && set_fast(l->h, fast) == 0;
}

/* routine: 0 dot, 1 gemv-n, 2 gemv-t, 3..6 gemm NN, TN, NT, TT (the enum values of ozblas.h:
 * OP_N 0, OP_T 1, UPPER 0, LOWER 1, LEFT 0, NON_UNIT 0), 7 gemm-upd, 8 syrk, 9 syr2k, 10 trsm,
 * 11 gemm-cancel (NN), 12 gemm-resid, 13 syrk-resid (C0: C's value before each call) */
static int call(const lib_t *l, int routine, int64_t n, const double *A, const double *B, const double *C0, double *C)
{
    if (routine >= 12) memcpy(C, C0, sizeof(double) * (size_t)(n * n));
    switch (routine) {
    case 12: return l->gemm(l->h, 0, 0, n, n, n, -1.0, A, n, B, n, 1.0, C, n);
    case 13: return l->syrk(l->h, 1, 1, n, n, -1.0, A, n, 1.0, C, n);
    case 0: return l->dot(l->h, n, A, 1, B, 1, C);
    case 1: return l->gemv(l->h, 0, n, n, 1.0, A, n, B, 1, 0.0, C, 1);
    case 2: return l->gemv(l->h, 1, n, n, 1.0, A, n, B, 1, 0.0, C, 1);
    case 7: return l->gemm(l->h, 0, 0, n, n, n < 64 ? n : 64, -1.0, A, n, B, n < 64 ? n : 64, 1.0, C, n);
    case 8: return l->syrk(l->h, 1, 0, n, n, 1.0, A, n, 0.5, C, n);
    case 9: return l->syr2k(l->h, 1, 0, n, n, 1.0, A, n, B, n, 0.5, C, n);
    case 10: memcpy(C, B, sizeof(double) * (size_t)(n * n)); return l->trsm(l->h, 0, 1, 0, 0, n, n, 1.0, A, n, C, n);
    case 11: return l->gemm(l->h, 0, 0, n, n, n, 1.0, A, n, B, n, 0.0, C, n);
    default: return l->gemm(l->h, (routine - 3) & 1, (routine - 3) >> 1, n, n, n, 1.0, A, n, B, n, 0.0, C, n);
    }
}

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: ozblas-ab BASE.so NEW.so dot|gemv-n|gemv-t|gemm|gemm-tn|gemm-nt|gemm-tt|gemm-upd|syrk|syr2k|trsm|gemm-cancel|"
                        "gemm-resid|syrk-resid N CALLS "
                        "[double|cr|fixed|double-crt|fixed-crt] [threads]\n");
        return 2;
    }
    const char *rn = argv[3];
    const int routine = !strcmp(rn, "dot") ? 0 : !strcmp(rn, "gemv-n") ? 1 : !strcmp(rn, "gemv-t") ? 2 : !strcmp(rn, "gemm") ? 3 : !strcmp(rn, "gemm-tn") ? 4 :
                        !strcmp(rn, "gemm-nt") ? 5 : !strcmp(rn, "gemm-tt") ? 6 : !strcmp(rn, "gemm-upd") ? 7 :
                        !strcmp(rn, "syrk") ? 8 : !strcmp(rn, "syr2k") ? 9 : !strcmp(rn, "trsm") ? 10 :
                        !strcmp(rn, "gemm-cancel") ? 11 : !strcmp(rn, "gemm-resid") ? 12 : !strcmp(rn, "syrk-resid") ? 13 : -1;
    const int64_t n = atoll(argv[4]);
    const long calls = atol(argv[5]);
    const char *mn = argc > 6 ? argv[6] : "cr";
    /* OZBLAS_MODE_DOUBLE 0, CORRECTLY_ROUNDED 1, FIXED 2; OZBLAS_ENGINE_CRT_INT8 3 */
    const int mode = !strcmp(mn, "double") || !strcmp(mn, "double-crt") ? 0 : !strcmp(mn, "fixed-crt") || !strcmp(mn, "fixed") ? 2 : 1;
    const int fast = !strcmp(mn, "fixed");
    const int engine = strstr(mn, "-crt") ? 3 : -1;
    const int threads = argc > 7 ? atoi(argv[7]) : 1;
    if (routine < 0 || n < 1 || calls < 1) { fprintf(stderr, "ozblas-ab: bad arguments\n"); return 2; }
    lib_t lib[2];
    for (int v = 0; v < 2; v++)
        if (!open_lib(argv[1 + v], mode, engine, fast, threads, &lib[v])) { fprintf(stderr, "ozblas-ab: cannot use %s\n", argv[1 + v]); return 2; }
    const size_t len = routine == 0 ? (size_t)n : (size_t)(n * n), outlen = routine >= 3 ? (size_t)(n * n) : (size_t)n;
    double *A = malloc(len * sizeof(double)), *B = malloc(len * sizeof(double));
    double *C[2] = { calloc(outlen, sizeof(double)), calloc(outlen, sizeof(double)) }, *C0 = calloc(outlen, sizeof(double));
    if (!A || !B || !C[0] || !C[1] || !C0) return 3;
    ozref_rng rng;
    ozref_rng_seed(&rng, UINT64_C(0x6f7a626c61733031) + (uint64_t)routine);
    ozref_fill_phi(&rng, A, (int64_t)len, 1.0);
    ozref_fill_phi(&rng, B, (int64_t)len, 1.0);
    if (routine == 11)            /* rows i < n/20 of A B cancel to 2^-40 of their products */
        for (int64_t l = 0; l < n / 2; l++)
            for (int64_t q = 0; q < n; q++) {
                B[n / 2 + l + q * n] = -B[l + q * n];
                if (q < n / 20) A[q + (n / 2 + l) * n] = A[q + l * n] * (1.0 + 0x1p-40);
            }
    if (routine == 12)            /* C0 = A B, a naive floating-point product */
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < n; i++) {
                double sum = 0.0;
                for (int64_t l = 0; l < n; l++) sum += A[i + l * n] * B[l + j * n];
                C0[i + j * n] = sum;
            }
    if (routine == 13) {          /* A's columns orthonormalized (modified Gram-Schmidt), C0 = I */
        for (int64_t j = 0; j < n; j++) {
            double *q = A + j * n;
            for (int64_t p = 0; p < j; p++) {
                double d = 0.0;
                for (int64_t i = 0; i < n; i++) d += A[i + p * n] * q[i];
                for (int64_t i = 0; i < n; i++) q[i] -= d * A[i + p * n];
            }
            double s2 = 0.0;
            for (int64_t i = 0; i < n; i++) s2 += q[i] * q[i];
            for (int64_t i = 0; i < n; i++) q[i] /= sqrt(s2);
            C0[j + j * n] = 1.0;
        }
    }
    if (routine == 10)            /* L: its diagonal 1, the rest of its lower triangle / n */
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = j; i < n; i++) A[i + j * n] = i == j ? 1.0 : A[i + j * n] / (double)n;
    double t[2][PAIRS], ratio[PAIRS];
    for (int p = 0; p < PAIRS; p++)
        for (int s = 0; s < 2; s++) {
            const int v = p % 2 ? 1 - s : s;
            const double t0 = now();
            for (long i = 0; i < calls; i++)
                if (call(&lib[v], routine, n, A, B, C0, C[v]) != 0) { fprintf(stderr, "ozblas-ab: call failed\n"); return 1; }
            t[v][p] = (now() - t0) / (double)calls;
        }
    for (int p = 0; p < PAIRS; p++) ratio[p] = t[1][p] / t[0][p];
    const int same = memcmp(C[0], C[1], outlen * sizeof(double)) == 0;
    qsort(t[0], PAIRS, sizeof(double), cmp);
    qsort(t[1], PAIRS, sizeof(double), cmp);
    qsort(ratio, PAIRS, sizeof(double), cmp);
    printf("%s n=%lld %s %d thread(s): base %.4g s, new %.4g s, new/base %.3f (quartiles %.3f-%.3f)%s\n", rn, (long long)n,
           mn, threads, t[0][PAIRS / 2], t[1][PAIRS / 2], ratio[PAIRS / 2], ratio[PAIRS / 4],
           ratio[3 * PAIRS / 4], same ? "" : "  OUTPUTS DIFFER");
    return same ? 0 : 1;
}
