/* test_preload_threads: several threads of one process calling cblas_ddot, cblas_dgemv and
 * cblas_dgemm through libozblas_preload.so at once, with mixed data classes
 * (ordinary, subnormal range, +-900 exponents, Inf/NaN, massive cancellation) and sizes from
 * 1 to a few hundred.  Every call is made alone first; then 8 threads repeat them in random
 * orders for OZBLAS_TORTURE_SECONDS (default 6) and every result must be the same bits.
 * Run under LD_PRELOAD with OZBLAS_PRELOAD_MODE and friends set by ctest.  Prints the seed;
 * OZBLAS_TEST_SEED reruns it. */
#define _GNU_SOURCE
#include <cblas.h>
#include <dlfcn.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct { uint64_t s; } rng_t;
static double uni(rng_t *r)   /* splitmix64 -> [0, 1) */
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (double)((z ^ (z >> 31)) >> 11) * 0x1p-53;
}
static int64_t irange(rng_t *r, int64_t lo, int64_t hi) { return lo + (int64_t)(uni(r) * (double)(hi - lo + 1)); }

enum { R_DOT, R_GEMV, R_GEMM };
enum { D_ORDINARY, D_SUBNORMAL, D_EXP900, D_NONFINITE, D_CANCEL, D_NCLASS };

static double value(rng_t *r, int cls, int side)
{
    const double u = uni(r) - 0.5, w = u * exp2((double)irange(r, -10, 10));
    switch (cls) {
    case D_SUBNORMAL: return side ? u : ldexp(u, -1060);
    case D_EXP900: return ldexp(w, side ? -900 : 900);
    case D_NONFINITE: { const double p = uni(r); return p < 0.01 ? INFINITY : p < 0.02 ? -INFINITY : p < 0.03 ? NAN : w; }
    default: return w;
    }
}

typedef struct {
    int routine, cls, layout, ta, tb;
    int m, n, k, lda, ldb, ldc, incx, incy;
    double alpha, beta, *a, *b, *c0, *ref;
    size_t na, nb, nc;
} job_t;

static double *fill(rng_t *r, size_t n, int cls, int side)
{
    double *p = malloc(sizeof(double) * (n ? n : 1));
    for (size_t i = 0; i < n; i++) p[i] = value(r, cls, side);
    return p;
}

static void make_job(job_t *j, rng_t *r)
{
    memset(j, 0, sizeof *j);
    j->routine = (int)irange(r, 0, 2);
    j->cls = (int)irange(r, 0, D_NCLASS - 1);
    j->layout = irange(r, 0, 1) ? CblasRowMajor : CblasColMajor;
    j->alpha = irange(r, 0, 3) ? uni(r) * 2 - 1 : 1.0;
    j->beta = irange(r, 0, 2) ? uni(r) * 2 - 1 : 0.0;
    const int big = irange(r, 0, 4) == 0;
    if (j->routine == R_DOT) {
        j->k = (int)(big ? irange(r, 30000, 120000) : irange(r, 1, 2000));
        j->incx = irange(r, 0, 3) ? 1 : -2; j->incy = irange(r, 0, 3) ? 1 : 3;
        j->na = (size_t)(1 + (j->k - 1) * abs(j->incx)); j->nb = (size_t)(1 + (j->k - 1) * abs(j->incy)); j->nc = 1;
    } else if (j->routine == R_GEMV) {
        j->ta = (int)irange(r, 0, 1);
        j->m = (int)(big ? irange(r, 150, 300) : irange(r, 1, 100));   /* rows of A (as stored in its layout) */
        j->n = (int)(big ? irange(r, 150, 300) : irange(r, 1, 100));
        const int inner = j->layout == CblasColMajor ? j->m : j->n, outer = j->layout == CblasColMajor ? j->n : j->m;
        j->lda = inner + (int)irange(r, 0, 2);
        j->incx = irange(r, 0, 3) ? 1 : -1; j->incy = irange(r, 0, 3) ? 1 : 2;
        const int lx = j->ta ? j->m : j->n, ly = j->ta ? j->n : j->m;
        j->na = (size_t)j->lda * (size_t)outer;
        j->nb = (size_t)(1 + (lx - 1) * abs(j->incx)); j->nc = (size_t)(1 + (ly - 1) * abs(j->incy));
    } else {
        j->ta = (int)irange(r, 0, 1); j->tb = (int)irange(r, 0, 1);
        const int shape = (int)irange(r, 0, 3);
        if (shape == 0) { j->m = (int)irange(r, 200, 1200); j->n = (int)irange(r, 1, 6); j->k = (int)irange(r, 1, 150); }
        else if (big) { j->m = (int)irange(r, 100, 200); j->n = (int)irange(r, 100, 200); j->k = (int)irange(r, 100, 200); }
        else { j->m = (int)irange(r, 1, 50); j->n = (int)irange(r, 1, 50); j->k = (int)irange(r, 1, 50); }
        const int col = j->layout == CblasColMajor;
        /* stored dimensions: op(A) is m x k */
        const int ar = j->ta ? j->k : j->m, ac = j->ta ? j->m : j->k, br = j->tb ? j->n : j->k, bc = j->tb ? j->k : j->n;
        j->lda = (col ? ar : ac) + (int)irange(r, 0, 2);
        j->ldb = (col ? br : bc) + (int)irange(r, 0, 2);
        j->ldc = (col ? j->m : j->n) + (int)irange(r, 0, 2);
        j->na = (size_t)j->lda * (size_t)(col ? ac : ar);
        j->nb = (size_t)j->ldb * (size_t)(col ? bc : br);
        j->nc = (size_t)j->ldc * (size_t)(col ? j->n : j->m);
    }
    j->a = fill(r, j->na, j->cls, 0);
    j->b = fill(r, j->nb, j->cls, 1);
    j->c0 = fill(r, j->nc, j->cls == D_NONFINITE ? D_NONFINITE : D_ORDINARY, 0);
    if (j->cls == D_CANCEL && j->routine == R_DOT && j->k >= 2) {   /* x . y ~ 2^-40 of its terms */
        const int h = j->k / 2;
        for (int l = 0; l < h; l++) {
            j->a[(size_t)(l + h) * (size_t)abs(j->incx)] = j->a[(size_t)l * (size_t)abs(j->incx)] * (1.0 + ldexp(uni(r) - 0.5, -40));
            j->b[(size_t)(l + h) * (size_t)abs(j->incy)] = -j->b[(size_t)l * (size_t)abs(j->incy)];
        }
    } else if (j->cls == D_CANCEL) {   /* rows of A repeated with opposite signs: sums cancel */
        for (size_t i = 1; i < j->na; i += 2) j->a[i] = -j->a[i - 1] * (1.0 + ldexp(uni(r) - 0.5, -40));
        for (size_t i = 1; i < j->nb; i += 2) j->b[i] = j->b[i - 1];
    }
    j->ref = malloc(sizeof(double) * j->nc);
}

static void run(const job_t *j, double *out)
{
    memcpy(out, j->c0, sizeof(double) * j->nc);
    if (j->routine == R_DOT) out[0] = cblas_ddot(j->k, j->a, j->incx, j->b, j->incy);
    else if (j->routine == R_GEMV)
        cblas_dgemv((CBLAS_ORDER)j->layout, j->ta ? CblasTrans : CblasNoTrans, j->m, j->n, j->alpha, j->a, j->lda, j->b,
                    j->incx, j->beta, out, j->incy);
    else
        cblas_dgemm((CBLAS_ORDER)j->layout, j->ta ? CblasTrans : CblasNoTrans, j->tb ? CblasTrans : CblasNoTrans, j->m,
                    j->n, j->k, j->alpha, j->a, j->lda, j->b, j->ldb, j->beta, out, j->ldc);
}

enum { NJOBS = 40, NTHREADS = 8 };
static job_t jobs[NJOBS];
static uint64_t seed;
static double deadline;
static atomic_long calls, fails;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void *worker(void *arg)
{
    rng_t r = {seed * 31u + (uint64_t)(intptr_t)arg};
    size_t cap = 1;
    for (int i = 0; i < NJOBS; i++) cap = jobs[i].nc > cap ? jobs[i].nc : cap;
    double *out = malloc(sizeof(double) * cap);
    while (now() < deadline) {
        const int i = (int)irange(&r, 0, NJOBS - 1);
        run(&jobs[i], out);
        atomic_fetch_add(&calls, 1);
        if (memcmp(out, jobs[i].ref, sizeof(double) * jobs[i].nc)) {
            if (atomic_fetch_add(&fails, 1) < 5)
                printf("FAIL: thread %d, job %d (routine %d, data class %d, layout %d, m %d n %d k %d): other bits than alone\n",
                       (int)(intptr_t)arg, i, jobs[i].routine, jobs[i].cls, jobs[i].layout, jobs[i].m, jobs[i].n, jobs[i].k);
        }
    }
    free(out);
    return NULL;
}

int main(void)
{
    Dl_info di;
    void *f = dlsym(RTLD_DEFAULT, "cblas_dgemm");
    if (!(f && dladdr(f, &di) && di.dli_fname && strstr(di.dli_fname, "libozblas_preload"))) {
        printf("FAIL: cblas_dgemm is not the interposer's (run under LD_PRELOAD=libozblas_preload.so)\n0 passed, 1 failed\n");
        return 1;
    }
    const char *s = getenv("OZBLAS_TEST_SEED"), *t = getenv("OZBLAS_TORTURE_SECONDS");
    seed = s && *s ? strtoull(s, NULL, 10) : (uint64_t)time(NULL);
    const double secs = t && *t ? atof(t) : 6.0;
    printf("test_preload_threads: seed %" PRIu64 " (OZBLAS_TEST_SEED reruns it), mode %s\n", seed,
           getenv("OZBLAS_PRELOAD_MODE") ? getenv("OZBLAS_PRELOAD_MODE") : "(default)");
    rng_t r = {seed};
    for (int i = 0; i < NJOBS; i++) { make_job(&jobs[i], &r); run(&jobs[i], jobs[i].ref); }
    deadline = now() + secs;
    pthread_t th[NTHREADS];
    for (intptr_t i = 0; i < NTHREADS; i++) pthread_create(&th[i], NULL, worker, (void *)i);
    for (int i = 0; i < NTHREADS; i++) pthread_join(th[i], NULL);
    printf("%d threads, %ld calls through the interposer, %ld with other bits than the call alone\n", NTHREADS,
           atomic_load(&calls), atomic_load(&fails));
    for (int i = 0; i < NJOBS; i++) { free(jobs[i].a); free(jobs[i].b); free(jobs[i].c0); free(jobs[i].ref); }
    const int bad = atomic_load(&fails) != 0;
    printf(bad ? "0 passed, 1 failed\n" : "1 passed, 0 failed\n");
    return bad;
}
