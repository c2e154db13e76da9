#define _GNU_SOURCE   /* sysconf's _SC_LEVEL3_CACHE_SIZE */
/* ozblas-blas-rest: the rest of the double BLAS against OpenBLAS, and the level-3 routines
 * against ozblas_dgemm at the same flops, in one process, interleaved (ozblas, reference,
 * ozblas, ...), medians and ranges of the ratios over the repetitions.  Each routine at three
 * sizes that live in the caches, and levels 1 and 2 also at one whose operands are far larger
 * than the 32 MiB L3 of a Zen 4 CCD (128 MiB a vector or matrix; band matrices of 2^20
 * columns): the memory-bound size, where a BLAS's time is its bytes: there each call of
 * either side runs alone after the last-level cache is emptied (evict), cold, also on parts
 * whose L3 would hold them.
 *   ozblas-blas-rest [cr|double] [reps] [routine...]   prints a markdown table (all routines,
 *                                                       or those named) */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bench.h"


static ozblas_handle_t H;
static double *A, *B, *C, *X, *Y, *T, *W;
static int64_t N, K;   /* the case's size */

/* one routine call of each side; `which`: 0 ozblas, 1 the reference */
typedef void (*call_fn)(int which);

#define LOWER OZBLAS_LOWER
static void c_daxpy(int w) { if (w) cblas_daxpy((int)N, 0.5, X, 1, Y, 1); else ozblas_daxpy(H, N, 0.5, X, 1, Y, 1); }
static void c_dscal(int w) { if (w) cblas_dscal((int)N, 1.0000001, Y, 1); else ozblas_dscal(H, N, 1.0000001, Y, 1); }
static void c_dcopy(int w) { if (w) cblas_dcopy((int)N, X, 1, Y, 1); else ozblas_dcopy(H, N, X, 1, Y, 1); }
static void c_drot(int w) { if (w) cblas_drot((int)N, X, 1, Y, 1, 0.6, 0.8); else ozblas_drot(H, N, X, 1, Y, 1, 0.6, 0.8); }
static void c_dasum(int w) { double r; if (w) r = cblas_dasum((int)N, X, 1); else ozblas_dasum(H, N, X, 1, &r); (void)r; }
static void c_dnrm2(int w) { double r; if (w) r = cblas_dnrm2((int)N, X, 1); else ozblas_dnrm2(H, N, X, 1, &r); (void)r; }
static void c_idamax(int w) { int64_t r; if (w) r = (int64_t)cblas_idamax((int)N, X, 1); else ozblas_idamax(H, N, X, 1, &r); (void)r; }
static void c_dsymv(int w)
{
    if (w) cblas_dsymv(CblasColMajor, CblasLower, (int)N, 1.0, A, (int)N, X, 1, 0.5, Y, 1);
    else ozblas_dsymv(H, LOWER, N, 1.0, A, N, X, 1, 0.5, Y, 1);
}
static void c_dtrmv(int w)
{
    memcpy(W, X, sizeof(double) * (size_t)N);
    if (w) cblas_dtrmv(CblasColMajor, CblasLower, CblasNoTrans, CblasNonUnit, (int)N, T, (int)N, W, 1);
    else ozblas_dtrmv(H, LOWER, OZBLAS_OP_N, OZBLAS_NON_UNIT, N, T, N, W, 1);
}
static void c_dtrsv(int w)
{
    memcpy(W, X, sizeof(double) * (size_t)N);
    if (w) cblas_dtrsv(CblasColMajor, CblasLower, CblasNoTrans, CblasNonUnit, (int)N, T, (int)N, W, 1);
    else ozblas_dtrsv(H, LOWER, OZBLAS_OP_N, OZBLAS_NON_UNIT, N, T, N, W, 1);
}
static void c_dger(int w)
{
    if (w) cblas_dger(CblasColMajor, (int)N, (int)N, -0.3, X, 1, Y, 1, C, (int)N);
    else ozblas_dger(H, N, N, -0.3, X, 1, Y, 1, C, N);
}
static void c_dsyr2(int w)
{
    if (w) cblas_dsyr2(CblasColMajor, CblasLower, (int)N, -0.3, X, 1, Y, 1, C, (int)N);
    else ozblas_dsyr2(H, LOWER, N, -0.3, X, 1, Y, 1, C, N);
}
static void c_dgemv(int w)   /* the level-2 yardstick */
{
    if (w) cblas_dgemv(CblasColMajor, CblasNoTrans, (int)N, (int)N, 1.0, A, (int)N, X, 1, 0.5, Y, 1);
    else ozblas_dgemv(H, OZBLAS_OP_N, N, N, 1.0, A, N, X, 1, 0.5, Y, 1);
}
/* packed (P: T's lower triangle packed) and band (BD: 8 off-diagonals, the lower band's
 * diagonal 1 at BD[9 j]) storage */
static double *P, *BD;
static void c_dspmv(int w)
{
    if (w) cblas_dspmv(CblasColMajor, CblasLower, (int)N, 1.0, P, X, 1, 0.5, Y, 1);
    else ozblas_dspmv(H, LOWER, N, 1.0, P, X, 1, 0.5, Y, 1);
}
static void c_dtpmv(int w)
{
    memcpy(W, X, sizeof(double) * (size_t)N);
    if (w) cblas_dtpmv(CblasColMajor, CblasLower, CblasNoTrans, CblasNonUnit, (int)N, P, W, 1);
    else ozblas_dtpmv(H, LOWER, OZBLAS_OP_N, OZBLAS_NON_UNIT, N, P, W, 1);
}
static void c_dtpsv(int w)
{
    memcpy(W, X, sizeof(double) * (size_t)N);
    if (w) cblas_dtpsv(CblasColMajor, CblasLower, CblasNoTrans, CblasNonUnit, (int)N, P, W, 1);
    else ozblas_dtpsv(H, LOWER, OZBLAS_OP_N, OZBLAS_NON_UNIT, N, P, W, 1);
}
static void c_dgbmv(int w)
{
    if (w) cblas_dgbmv(CblasColMajor, CblasNoTrans, (int)N, (int)N, 8, 8, 1.0, BD, 17, X, 1, 0.5, Y, 1);
    else ozblas_dgbmv(H, OZBLAS_OP_N, N, N, 8, 8, 1.0, BD, 17, X, 1, 0.5, Y, 1);
}
static void c_dsbmv(int w)
{
    if (w) cblas_dsbmv(CblasColMajor, CblasLower, (int)N, 8, 1.0, BD, 9, X, 1, 0.5, Y, 1);
    else ozblas_dsbmv(H, LOWER, N, 8, 1.0, BD, 9, X, 1, 0.5, Y, 1);
}
static void c_dtbmv(int w)
{
    memcpy(W, X, sizeof(double) * (size_t)N);
    if (w) cblas_dtbmv(CblasColMajor, CblasLower, CblasNoTrans, CblasNonUnit, (int)N, 8, BD, 9, W, 1);
    else ozblas_dtbmv(H, LOWER, OZBLAS_OP_N, OZBLAS_NON_UNIT, N, 8, BD, 9, W, 1);
}
static void c_dtbsv(int w)
{
    memcpy(W, X, sizeof(double) * (size_t)N);
    if (w) cblas_dtbsv(CblasColMajor, CblasLower, CblasNoTrans, CblasNonUnit, (int)N, 8, BD, 9, W, 1);
    else ozblas_dtbsv(H, LOWER, OZBLAS_OP_N, OZBLAS_NON_UNIT, N, 8, BD, 9, W, 1);
}
/* level 3, N x N outputs, inner K */
static void c_dsyrk(int w)
{
    if (w) cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, (int)N, (int)K, 1.0, B, (int)N, 0.5, C, (int)N);
    else ozblas_dsyrk(H, LOWER, OZBLAS_OP_N, N, K, 1.0, B, N, 0.5, C, N);
}
static void c_dsyr2k(int w)
{
    if (w) cblas_dsyr2k(CblasColMajor, CblasLower, CblasNoTrans, (int)N, (int)K, 1.0, B, (int)N, A, (int)N, 0.5, C, (int)N);
    else ozblas_dsyr2k(H, LOWER, OZBLAS_OP_N, N, K, 1.0, B, N, A, N, 0.5, C, N);
}
static void c_dsymm(int w)
{
    if (w) cblas_dsymm(CblasColMajor, CblasLeft, CblasLower, (int)N, (int)N, 1.0, A, (int)N, B, (int)N, 0.5, C, (int)N);
    else ozblas_dsymm(H, OZBLAS_LEFT, LOWER, N, N, 1.0, A, N, B, N, 0.5, C, N);
}
static void c_dtrmm(int w)
{
    memcpy(W, B, sizeof(double) * (size_t)(N * N));
    if (w) cblas_dtrmm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, (int)N, (int)N, 1.0, T, (int)N, W, (int)N);
    else ozblas_dtrmm(H, OZBLAS_LEFT, LOWER, OZBLAS_OP_N, OZBLAS_NON_UNIT, N, N, 1.0, T, N, W, N);
}
static void c_dtrsm(int w)
{
    memcpy(W, B, sizeof(double) * (size_t)(N * N));
    if (w) cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, (int)N, (int)N, 1.0, T, (int)N, W, (int)N);
    else ozblas_dtrsm(H, OZBLAS_LEFT, LOWER, OZBLAS_OP_N, OZBLAS_NON_UNIT, N, N, 1.0, T, N, W, N);
}
/* ozblas_dgemm with the flops of a level-3 routine: m = n = N, inner kk (w = 0 only) */
static int64_t KK;
static void c_gemm_eq(int w)
{
    (void)w;
    ozblas_dgemm(H, OZBLAS_OP_N, OZBLAS_OP_T, N, N, KK, 1.0, B, N, A, N, 0.5, C, N);
}

/* The last-level cache emptied of the operands: a read of EV_BYTES clean lines, twice the
 * L3 the system reports (at least 64 MiB).  Before each call at the memory-bound sizes, where
 * otherwise a call would find the matrix the other library's call has just read in the L3
 * (all of DSYMV's 64 MiB triangle at order 4096 on a part with a 480 MiB L3), and the
 * library reading in the other order would gain from it. */
static size_t EV_BYTES;
static double *EV;
static double evict(void)
{
    double s = 0.0;
    for (size_t i = 0; i < EV_BYTES / sizeof(double); i += 8) s += EV[i];
    return s;
}

/* median (and range) of t(ozblas call)/t(other) over reps interleaved pairs; cold: one call
 * at a time, each after evict() */
static void ratio(call_fn oz, call_fn other, int other_which, int reps, int cold, double *med, double *lo, double *hi,
                  double *t_oz)
{
    double *r = malloc(sizeof(double) * (size_t)reps), *to = malloc(sizeof(double) * (size_t)reps);
    volatile double sink = 0.0;
    oz(0); other(other_which);
    for (int i = 0; i < reps; i++) {
        if (cold) {
            sink += evict();
            double t0 = bench_now();
            oz(0);
            const double a = bench_now() - t0;
            sink += evict();
            t0 = bench_now();
            other(other_which);
            r[i] = a / (bench_now() - t0);
            to[i] = a;
            continue;
        }
        int inner = 1;
        double t0 = bench_now(), t1;
        oz(0);
        t1 = bench_now() - t0;
        while (t1 * inner < 2e-3 && inner < 1 << 16) inner *= 2;   /* batches of >= 2 ms */
        t0 = bench_now();
        for (int j = 0; j < inner; j++) oz(0);
        const double a = (bench_now() - t0) / inner;
        t0 = bench_now();
        for (int j = 0; j < inner; j++) other(other_which);
        const double b = (bench_now() - t0) / inner;
        r[i] = a / b;
        to[i] = a;
    }
    bench_sort(r, reps);
    bench_sort(to, reps);
    *med = r[reps / 2];
    *lo = r[0];
    *hi = r[reps - 1];
    *t_oz = to[reps / 2];
    free(r);
    free(to);
}

int main(int argc, char **argv)
{
    const int cr = argc < 2 || strcmp(argv[1], "double") != 0;
    const int reps = argc > 2 ? atoi(argv[2]) : 7;
    ozblas_create(&H);
    ozblas_set_mode(H, cr ? OZBLAS_MODE_CORRECTLY_ROUNDED : OZBLAS_MODE_DOUBLE);
    /* sizes by class: level 1, level 2 dense and packed, level 3, level 2 band; 0: none */
    enum { L1, L2, L3, BAND };
    static const int64_t sizes[4][4] = { {100, 10000, 1 << 20, 1 << 24}, {64, 256, 1024, 4096}, {64, 256, 1024, 0},
                                         {64, 256, 1024, 1 << 20} };
    const int64_t nmax = 1 << 24, mmax = 4096, bmax = 1 << 20;
    X = malloc(sizeof(double) * nmax); Y = malloc(sizeof(double) * nmax); W = malloc(sizeof(double) * mmax * mmax);
    A = malloc(sizeof(double) * mmax * mmax); B = malloc(sizeof(double) * mmax * mmax);
    C = malloc(sizeof(double) * mmax * mmax); T = malloc(sizeof(double) * mmax * mmax);
    srand(7);
    for (int64_t i = 0; i < nmax; i++) { X[i] = rand() / (double)RAND_MAX - 0.5; Y[i] = rand() / (double)RAND_MAX - 0.5; }
    for (int64_t i = 0; i < mmax * mmax; i++) {
        A[i] = rand() / (double)RAND_MAX - 0.5; B[i] = rand() / (double)RAND_MAX - 0.5;
        C[i] = rand() / (double)RAND_MAX - 0.5; T[i] = 0.01 * (rand() / (double)RAND_MAX - 0.5);
    }
    for (int64_t i = 0; i < mmax; i++) T[i + i * mmax] = 1.0;   /* leading dimension N: diagonal at i(N+1) below */
    const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    EV_BYTES = l3 > ((long)32 << 20) ? 2 * (size_t)l3 : (size_t)64 << 20;
    EV = malloc(EV_BYTES);
    for (size_t i = 0; i < EV_BYTES / sizeof(double); i++) EV[i] = 1.0;
    P = malloc(sizeof(double) * (size_t)(mmax * (mmax + 1) / 2));
    BD = malloc(sizeof(double) * 17 * (size_t)bmax);
    for (int64_t i = 0; i < 17 * bmax; i++) BD[i] = 0.01 * (rand() / (double)RAND_MAX - 0.5);
    for (int64_t j = 0; j < bmax; j++) BD[9 * j] = 1.0;
    char cpu[512];
    bench_cpu_features(cpu, sizeof cpu);
    printf("cpu: %s\n", cpu);
    printf("mode %s, %d interleaved repetitions; ratio = ozblas time / the other's (median, range)\n\n", cr ? "CR" : "DOUBLE", reps);
    printf("| routine | n | ozblas us | vs OpenBLAS | vs ozblas_dgemm, same flops |\n|---|---|---|---|---|\n");
    struct { const char *name; call_fn f; int cls; } rs[] = {
        {"daxpy", c_daxpy, L1}, {"dscal", c_dscal, L1}, {"dcopy", c_dcopy, L1}, {"drot", c_drot, L1}, {"dasum", c_dasum, L1},
        {"dnrm2", c_dnrm2, L1}, {"idamax", c_idamax, L1}, {"dgemv", c_dgemv, L2}, {"dsymv", c_dsymv, L2}, {"dtrmv", c_dtrmv, L2},
        {"dtrsv", c_dtrsv, L2}, {"dger", c_dger, L2}, {"dsyr2", c_dsyr2, L2}, {"dsyrk", c_dsyrk, L3}, {"dsyr2k", c_dsyr2k, L3},
        {"dsymm", c_dsymm, L3}, {"dtrmm", c_dtrmm, L3}, {"dtrsm", c_dtrsm, L3}, {"dspmv", c_dspmv, L2},
        {"dtpmv", c_dtpmv, L2}, {"dtpsv", c_dtpsv, L2}, {"dgbmv", c_dgbmv, BAND}, {"dsbmv", c_dsbmv, BAND},
        {"dtbmv", c_dtbmv, BAND}, {"dtbsv", c_dtbsv, BAND},
    };
    for (size_t r = 0; r < sizeof rs / sizeof rs[0]; r++)
        for (int s = 0; s < 4; s++) {
            int want = argc <= 3;
            for (int a = 3; a < argc; a++) want |= !strcmp(argv[a], rs[r].name);
            N = sizes[rs[r].cls][s];
            if (!want || N == 0) continue;
            K = N;
            for (int64_t i = 0; i < N && (rs[r].cls == L2 || rs[r].cls == L3); i++) T[i + i * N] = 1.0;
            for (int64_t j = 0, q = 0; j < N && rs[r].cls == L2; j++)   /* T's lower triangle, packed */
                for (int64_t i = j; i < N; i++) P[q++] = T[i + j * N];
            double med, lo, hi, t;
            ratio(rs[r].f, rs[r].f, 1, reps, s == 3, &med, &lo, &hi, &t);
            printf("| %s | %lld | %.1f | %.2f (%.2f-%.2f) |", rs[r].name, (long long)N, 1e6 * t, med, lo, hi);
            if (rs[r].cls == L3) {
                /* flops of the routine: syrk N^2 K, syr2k 2 N^2 K, symm 2 N^3, trmm/trsm N^3 */
                const double fl = !strcmp(rs[r].name, "dsyrk") ? 1.0 : !strcmp(rs[r].name, "dsyr2k") ? 2.0
                                : !strcmp(rs[r].name, "dsymm") ? 2.0 : 1.0;
                KK = (int64_t)(fl * (double)K / 2.0 + 0.5);
                ratio(rs[r].f, c_gemm_eq, 0, reps, 0, &med, &lo, &hi, &t);
                printf(" %.2f (%.2f-%.2f) |\n", med, lo, hi);
            } else printf(" |\n");
            fflush(stdout);
        }
    ozblas_destroy(H);
    return 0;
}
