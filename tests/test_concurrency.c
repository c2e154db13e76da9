/* Concurrency torture test.
 *
 * CONTRACT §3: a handle may be used by one thread at a time and different handles work
 * concurrently, with the same bits as alone.  This program computes a list of calls one at a
 * time first (the references), then runs them again from several threads at once, each
 * thread with its own handle, in a random order with a random thread count and workspace
 * limit per call (neither may change a bit), and compares every result with memcmp.
 *
 *   test_concurrency repro  the reproducer: a 200^3 DGEMM repeated on one handle
 *                           while another handle runs DDOT on subnormal-range data
 *   test_concurrency cpu    2, 4 and 8 threads, CPU handles, every routine x mode x format x
 *                           data class (ordinary, subnormal range, +-900 exponents, Inf/NaN,
 *                           massive cancellation), sizes 1 to a few hundred
 *   test_concurrency cuda   two CUDA handles on the emulated device and a CPU handle at once
 *                           (exit 77, skipped, where CUDA handles cannot be created)
 *
 * Bounded: OZBLAS_TORTURE_SECONDS per scenario (default 6) and OZBLAS_TORTURE_ITERS for the
 * reproducer (default 100); the seed is printed, OZBLAS_TEST_SEED reruns it.  What is
 * asserted is guaranteed (identical bits), so the outcome does not depend on timing: a run
 * fails only when some call gave other bits than alone. */
#define _POSIX_C_SOURCE 200809L
#include "ozblas.h"
#include "ozref.h"
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { R_DOT, R_GEMV, R_GEMM };
enum { D_ORDINARY, D_SUBNORMAL, D_EXP900, D_NONFINITE, D_CANCEL, D_NCLASS };
static const char *class_name[D_NCLASS] = {"ordinary", "subnormal", "exp900", "inf/nan", "cancellation"};

typedef struct {
    int routine, cls;
    ozblas_mode_t mode;
    ozblas_engine_t engine;
    int split, fast;
    ozblas_summation_t sum;
    ozblas_crt_scaling_t scaling;
    int ta, tb;
    int64_t m, n, k, lda, ldb, ldc, incx, incy;
    double alpha, beta;
    double *a, *b, *c0;        /* inputs (c0: C or y before the call) */
    size_t na, nb, nc;
    double *ref;               /* output computed alone (nc values; DOT: 1) */
    ozblas_status_t ref_st;
} job_t;

static uint64_t seed;
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int64_t rnd(ozref_rng *r, int64_t lo, int64_t hi) { return lo + (int64_t)(ozref_uniform(r) * (double)(hi - lo + 1)); }

/* One value of data class cls; side 0 or 1 (the two operands get opposite exponents). */
static double value(ozref_rng *r, int cls, int side)
{
    const double u = ozref_uniform(r) - 0.5;
    switch (cls) {
    case D_SUBNORMAL: return side == 0 ? ldexp(u, -1060) : u;
    case D_EXP900: return ldexp(u * exp(ozref_normal(r)), side == 0 ? 900 : -900);
    case D_NONFINITE: {
        const double p = ozref_uniform(r);
        if (p < 0.01) return INFINITY;
        if (p < 0.02) return -INFINITY;
        if (p < 0.03) return NAN;
        return u * exp(ozref_normal(r));
    }
    default: return u * exp(ozref_normal(r));
    }
}

static double *alloc_fill(ozref_rng *r, size_t n, int cls, int side)
{
    double *p = malloc(sizeof(double) * (n ? n : 1));
    if (!p) { fprintf(stderr, "out of memory\n"); exit(1); }
    for (size_t i = 0; i < n; i++) p[i] = value(r, cls, side);
    return p;
}

/* Massive cancellation: the second half of the inner dimension repeats the first with op(B)
 * negated and op(A) perturbed by 2^-40 relative, so each result is ~2^-40 of its terms. */
static void make_cancel(job_t *j, ozref_rng *r)
{
    const int64_t h = j->k / 2;
    for (int64_t l = 0; l < h; l++) {
        for (int64_t i = 0; i < (j->routine == R_DOT ? 1 : j->m); i++) {
            double *a1, *a2;
            if (j->routine == R_DOT) { a1 = j->a + l * llabs(j->incx); a2 = j->a + (l + h) * llabs(j->incx); }
            else if (j->ta) { a1 = j->a + l + i * j->lda; a2 = j->a + (l + h) + i * j->lda; }
            else { a1 = j->a + i + l * j->lda; a2 = j->a + i + (l + h) * j->lda; }
            *a2 = *a1 * (1.0 + ldexp(ozref_uniform(r) - 0.5, -40));
        }
        for (int64_t q = 0; q < (j->routine == R_GEMM ? j->n : 1); q++) {
            double *b1, *b2;
            if (j->routine == R_DOT || j->routine == R_GEMV) {
                const int64_t inc = llabs(j->routine == R_DOT ? j->incy : j->incx);
                b1 = j->b + l * inc; b2 = j->b + (l + h) * inc;
            } else if (j->tb) { b1 = j->b + q + l * j->ldb; b2 = j->b + q + (l + h) * j->ldb; }
            else { b1 = j->b + l + q * j->ldb; b2 = j->b + (l + h) + q * j->ldb; }
            *b2 = -*b1;
        }
    }
}

static const ozblas_engine_t engines[] = {OZBLAS_ENGINE_FP64, OZBLAS_ENGINE_FP16, OZBLAS_ENGINE_INT8, OZBLAS_ENGINE_CRT_INT8};

static void make_job(job_t *j, ozref_rng *r)
{
    memset(j, 0, sizeof *j);
    j->routine = (int)rnd(r, 0, 2);
    j->cls = (int)rnd(r, 0, D_NCLASS - 1);
    j->mode = (ozblas_mode_t)rnd(r, 0, 2);
    j->engine = engines[rnd(r, 0, 3)];
    j->split = (int)rnd(r, 2, 5);
    j->fast = (int)rnd(r, 0, 1);
    j->sum = rnd(r, 0, 1) ? OZBLAS_SUM_NEARSUM : OZBLAS_SUM_DOUBLE;
    j->scaling = rnd(r, 0, 1) ? OZBLAS_CRT_SCALING_ACCURATE : OZBLAS_CRT_SCALING_FAST;
    j->alpha = rnd(r, 0, 4) ? ozref_uniform(r) * 2 - 1 : 1.0;
    j->beta = rnd(r, 0, 2) == 0 ? 0.0 : ozref_uniform(r) * 2 - 1;
    const int big = rnd(r, 0, 5) == 0;
    if (j->routine == R_DOT) {
        j->m = 1; j->n = 1;
        j->k = big ? rnd(r, 40000, 140000) : rnd(r, 1, 3000);
        j->incx = rnd(r, 0, 3) ? 1 : rnd(r, -3, 3); if (!j->incx) j->incx = 2;
        j->incy = rnd(r, 0, 3) ? 1 : rnd(r, -3, 3); if (!j->incy) j->incy = -1;
        j->na = (size_t)(1 + (j->k - 1) * llabs(j->incx));
        j->nb = (size_t)(1 + (j->k - 1) * llabs(j->incy));
        j->nc = 1;
    } else if (j->routine == R_GEMV) {
        j->ta = (int)rnd(r, 0, 1);
        const int64_t rows = big ? rnd(r, 200, 400) : rnd(r, 1, 120), cols = big ? rnd(r, 200, 400) : rnd(r, 1, 120);
        j->m = rows; j->n = 1; j->k = cols;       /* op(A) is m x k: A is rows x cols (N) or cols x rows (T) */
        const int64_t arows = j->ta ? cols : rows, acols = j->ta ? rows : cols;
        j->lda = arows + rnd(r, 0, 3);
        j->incx = rnd(r, 0, 3) ? 1 : -2;
        j->incy = rnd(r, 0, 3) ? 1 : 3;
        j->na = (size_t)(j->lda * acols);
        j->nb = (size_t)(1 + (cols - 1) * llabs(j->incx));
        j->nc = (size_t)(1 + (rows - 1) * llabs(j->incy));
    } else {
        j->ta = (int)rnd(r, 0, 1); j->tb = (int)rnd(r, 0, 1);
        const int shape = (int)rnd(r, 0, 4);
        if (shape == 0) { j->m = rnd(r, 300, 1500); j->n = rnd(r, 1, 8); j->k = rnd(r, 1, 200); }   /* tall-skinny */
        else if (shape == 1) { j->m = rnd(r, 1, 8); j->n = rnd(r, 1, 8); j->k = rnd(r, 1000, 40000); }
        else if (big) { j->m = rnd(r, 100, 220); j->n = rnd(r, 100, 220); j->k = rnd(r, 100, 220); }
        else { j->m = rnd(r, 1, 60); j->n = rnd(r, 1, 60); j->k = rnd(r, 1, 60); }
        const int64_t ar = j->ta ? j->k : j->m, ac = j->ta ? j->m : j->k;
        const int64_t br = j->tb ? j->n : j->k, bc = j->tb ? j->k : j->n;
        j->lda = ar + rnd(r, 0, 2); j->ldb = br + rnd(r, 0, 2); j->ldc = j->m + rnd(r, 0, 2);
        j->na = (size_t)(j->lda * ac); j->nb = (size_t)(j->ldb * bc); j->nc = (size_t)(j->ldc * j->n);
    }
    j->a = alloc_fill(r, j->na, j->cls, 0);
    j->b = alloc_fill(r, j->nb, j->cls, 1);
    j->c0 = alloc_fill(r, j->nc, j->cls == D_NONFINITE ? D_NONFINITE : D_ORDINARY, 0);
    if (j->cls == D_CANCEL && j->k >= 2) make_cancel(j, r);
    j->ref = malloc(sizeof(double) * j->nc);
}

static void free_job(job_t *j) { free(j->a); free(j->b); free(j->c0); free(j->ref); }

static void describe(const job_t *j, char *s, size_t n)
{
    static const char *rn[] = {"ddot", "dgemv", "dgemm"}, *mn[] = {"DOUBLE", "CR", "FIXED"};
    snprintf(s, n, "%s %s engine %d split %d fast %d sum %d scaling %d ta %d tb %d m %" PRId64 " n %" PRId64
             " k %" PRId64 " inc %" PRId64 "/%" PRId64 " alpha %g beta %g data %s",
             rn[j->routine], mn[j->mode], (int)j->engine, j->split, j->fast, (int)j->sum, (int)j->scaling, j->ta, j->tb,
             j->m, j->n, j->k, j->incx, j->incy, j->alpha, j->beta, class_name[j->cls]);
}

/* Runs job j on h into out (nc values); the handle is configured for it first. */
static ozblas_status_t run_job(ozblas_handle_t h, const job_t *j, double *out, int threads, size_t ws)
{
    if (ozblas_set_mode(h, j->mode) || ozblas_set_split_count(h, j->split) || ozblas_set_fast_mode(h, j->fast) ||
        ozblas_set_summation(h, j->sum) || ozblas_set_crt_scaling(h, j->scaling) ||
        ozblas_set_num_threads(h, threads) || ozblas_set_workspace_limit(h, ws))
        return OZBLAS_STATUS_INVALID_VALUE;
    ozblas_status_t st = ozblas_set_engine(h, j->engine);
    if (st) return st;
    memcpy(out, j->c0, sizeof(double) * j->nc);
    switch (j->routine) {
    case R_DOT: return ozblas_ddot(h, j->k, j->a, j->incx, j->b, j->incy, out);
    case R_GEMV:
        return ozblas_dgemv(h, j->ta ? OZBLAS_OP_T : OZBLAS_OP_N, j->ta ? j->k : j->m, j->ta ? j->m : j->k, j->alpha, j->a,
                            j->lda, j->b, j->incx, j->beta, out, j->incy);
    default:
        return ozblas_dgemm(h, j->ta ? OZBLAS_OP_T : OZBLAS_OP_N, j->tb ? OZBLAS_OP_T : OZBLAS_OP_N, j->m, j->n, j->k,
                            j->alpha, j->a, j->lda, j->b, j->ldb, j->beta, out, j->ldc);
    }
}

typedef struct {
    job_t *jobs;
    int njobs, tid, cuda;
    double deadline;
    long calls, failures;
} worker_t;

static atomic_int go;
static const char *emulate_env = "OZBLAS_CUDA_EMULATE";

static int make_handle(ozblas_handle_t *h, int cuda)
{
    if (!cuda) return ozblas_create(h);
    return ozblas_create_cuda(h, 0);
}

static void *worker(void *arg)
{
    worker_t *w = arg;
    ozblas_handle_t h;
    if (make_handle(&h, w->cuda)) { w->failures++; return NULL; }
    ozref_rng r;
    ozref_rng_seed(&r, seed * 1000003u + (uint64_t)w->tid * 7919u + 17u);
    size_t cap = 1;
    for (int i = 0; i < w->njobs; i++) cap = w->jobs[i].nc > cap ? w->jobs[i].nc : cap;
    double *out = malloc(sizeof(double) * cap);
    while (!atomic_load(&go)) { }
    static const size_t ws_choice[] = {0, 64 << 10, 1 << 20, 16 << 20};
    while (now() < w->deadline) {
        const job_t *j = &w->jobs[rnd(&r, 0, w->njobs - 1)];
        const int threads = (int)rnd(&r, 0, 2);
        const size_t ws = ws_choice[rnd(&r, 0, 3)];
        const ozblas_status_t st = run_job(h, j, out, threads, ws);
        w->calls++;
        if (st != j->ref_st || (st == OZBLAS_STATUS_SUCCESS && memcmp(out, j->ref, sizeof(double) * j->nc))) {
            char d[400];
            describe(j, d, sizeof d);
            size_t e = 0;
            while (e < j->nc && !memcmp(out + e, j->ref + e, sizeof(double))) e++;
            if (w->failures++ < 5)
                fprintf(stderr, "FAIL thread %d (%s, threads %d, workspace %zu): status %d/%d, element %zu: %a, alone %a\n",
                        w->tid, d, threads, ws, (int)st, (int)j->ref_st, e, e < j->nc ? out[e] : 0.0,
                        e < j->nc ? j->ref[e] : 0.0);
        }
    }
    free(out);
    ozblas_destroy(h);
    return NULL;
}

/* References: every job alone, on a fresh handle of the kind the workers use. */
static void references(job_t *jobs, int njobs, int cuda)
{
    ozblas_handle_t h;
    if (make_handle(&h, cuda)) { fprintf(stderr, "cannot create a handle\n"); exit(1); }
    for (int i = 0; i < njobs; i++) jobs[i].ref_st = run_job(h, &jobs[i], jobs[i].ref, 0, 0);
    ozblas_destroy(h);
}

/* nthreads workers on the jobs for `seconds`; cuda_mask bit t: worker t has a CUDA handle.
 * Returns the number of differing results. */
static long torture(job_t *jobs, int njobs, int nthreads, unsigned cuda_mask, double seconds, const char *what)
{
    pthread_t th[16];
    worker_t w[16];
    atomic_store(&go, 0);
    const double deadline = now() + seconds;
    for (int t = 0; t < nthreads; t++) {
        w[t] = (worker_t){jobs, njobs, t, (int)((cuda_mask >> t) & 1u), deadline, 0, 0};
        pthread_create(&th[t], NULL, worker, &w[t]);
    }
    atomic_store(&go, 1);
    long calls = 0, fails = 0;
    for (int t = 0; t < nthreads; t++) {
        pthread_join(th[t], NULL);
        calls += w[t].calls;
        fails += w[t].failures;
    }
    printf("%s: %d threads, %ld calls, %ld differing from the call alone\n", what, nthreads, calls, fails);
    return fails;
}

static double env_num(const char *name, double dflt)
{
    const char *s = getenv(name);
    return s && *s ? atof(s) : dflt;
}

/* ---------------------------------------------------------------- the reproducer */
typedef struct { const double *x, *y; int64_t n; ozblas_mode_t mode; atomic_int *stop; long calls; } dot_loop_t;

static void *dot_loop(void *arg)
{
    dot_loop_t *d = arg;
    ozblas_handle_t h;
    if (ozblas_create(&h)) return NULL;
    ozblas_set_mode(h, d->mode);
    double r;
    while (!atomic_load(d->stop)) { ozblas_ddot(h, d->n, d->x, 1, d->y, 1, &r); d->calls++; }
    ozblas_destroy(h);
    return NULL;
}

static int scenario_repro(void)
{
    const int iters = (int)env_num("OZBLAS_TORTURE_ITERS", 100);
    const int64_t n = 200, nd = 100000;
    ozref_rng r;
    ozref_rng_seed(&r, seed);
    double *A = malloc(8 * n * n), *B = malloc(8 * n * n), *C0 = malloc(8 * n * n), *C = malloc(8 * n * n);
    double *x = malloc(8 * nd), *y = malloc(8 * nd);
    for (int64_t i = 0; i < n * n; i++) { A[i] = ozref_uniform(&r) - 0.5; B[i] = ozref_uniform(&r) - 0.5; }
    for (int64_t i = 0; i < nd; i++) { x[i] = ldexp(ozref_uniform(&r) - 0.5, -1060); y[i] = ozref_uniform(&r) - 0.5; }
    long bad_total = 0;
    static const ozblas_mode_t modes[][2] = {{OZBLAS_MODE_DOUBLE, OZBLAS_MODE_DOUBLE},
                                             {OZBLAS_MODE_CORRECTLY_ROUNDED, OZBLAS_MODE_CORRECTLY_ROUNDED},
                                             {OZBLAS_MODE_DOUBLE, OZBLAS_MODE_CORRECTLY_ROUNDED},
                                             {OZBLAS_MODE_FIXED, OZBLAS_MODE_DOUBLE}};
    for (int mc = 0; mc < 4; mc++) {
        ozblas_handle_t h;
        ozblas_create(&h);
        ozblas_set_mode(h, modes[mc][0]);
        ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, n, n, n, 1.0, A, n, B, n, 0.0, C0, n);
        atomic_int stop = 0;
        dot_loop_t d = {x, y, nd, modes[mc][1], &stop, 0};
        pthread_t th;
        pthread_create(&th, NULL, dot_loop, &d);
        int bad = 0;
        double maxrel = 0.0;
        for (int it = 0; it < iters; it++) {
            ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, n, n, n, 1.0, A, n, B, n, 0.0, C, n);
            if (memcmp(C, C0, 8 * n * n)) {
                bad++;
                for (int64_t i = 0; i < n * n; i++) {
                    const double rel = fabs(C[i] - C0[i]) / fabs(C0[i]);
                    maxrel = rel > maxrel ? rel : maxrel;
                }
            }
        }
        atomic_store(&stop, 1);
        pthread_join(th, NULL);
        ozblas_destroy(h);
        printf("repro: DGEMM 200^3 mode %d next to subnormal DDOT mode %d: %d of %d results differ (max rel %.3g), "
               "%ld DDOT calls\n", (int)modes[mc][0], (int)modes[mc][1], bad, iters, maxrel, d.calls);
        bad_total += bad;
    }
    free(A); free(B); free(C0); free(C); free(x); free(y);
    return bad_total != 0;
}

/* ---------------------------------------------------------------- scenarios */
static int scenario_cpu(void)
{
    const double secs = env_num("OZBLAS_TORTURE_SECONDS", 6);
    ozref_rng r;
    ozref_rng_seed(&r, seed);
    enum { NJOBS = 48 };
    job_t jobs[NJOBS];
    for (int i = 0; i < NJOBS; i++) make_job(&jobs[i], &r);
    references(jobs, NJOBS, 0);
    long fails = 0;
    static const int counts[] = {2, 4, 8};
    for (int c = 0; c < 3; c++) fails += torture(jobs, NJOBS, counts[c], 0u, secs / 3.0, "cpu");
    for (int i = 0; i < NJOBS; i++) free_job(&jobs[i]);
    return fails != 0;
}

static int scenario_cuda(void)
{
    setenv(emulate_env, "1", 1);   /* read when a CUDA handle is created: the emulated device */
    ozblas_handle_t probe;
    if (ozblas_create_cuda(&probe, 0) != OZBLAS_STATUS_SUCCESS) {
        printf("SKIP: CUDA handles on the emulated device cannot be created in this build\n");
        return 77;
    }
    ozblas_destroy(probe);
    const double secs = env_num("OZBLAS_TORTURE_SECONDS", 6);
    ozref_rng r;
    ozref_rng_seed(&r, seed ^ 0x9e3779b97f4a7c15ull);
    enum { NJOBS = 32 };
    job_t jobs[NJOBS];
    for (int i = 0; i < NJOBS; i++) {
        make_job(&jobs[i], &r);
        if (jobs[i].routine == R_DOT && jobs[i].k > 20000) jobs[i].k = 20000;   /* the emulated device is slow */
    }
    /* references on a CPU handle: a CUDA handle gives the CPU handle's bits (CONTRACT §3) */
    references(jobs, NJOBS, 0);
    long fails = torture(jobs, NJOBS, 2, 3u, secs / 2.0, "two emulated CUDA handles");
    fails += torture(jobs, NJOBS, 2, 1u, secs / 2.0, "an emulated CUDA handle and a CPU handle");
    for (int i = 0; i < NJOBS; i++) free_job(&jobs[i]);
    return fails != 0;
}

int main(int argc, char **argv)
{
    const char *sc = argc > 1 ? argv[1] : "cpu";
    const char *s = getenv("OZBLAS_TEST_SEED");
    seed = s && *s ? strtoull(s, NULL, 10) : (uint64_t)time(NULL) * 2654435761u;
    printf("test_concurrency %s: seed %" PRIu64 " (OZBLAS_TEST_SEED=%" PRIu64 " reruns it)\n", sc, seed, seed);
    int rc;
    if (!strcmp(sc, "repro")) rc = scenario_repro();
    else if (!strcmp(sc, "cpu")) rc = scenario_cpu();
    else if (!strcmp(sc, "cuda")) rc = scenario_cuda();
    else { fprintf(stderr, "usage: test_concurrency repro|cpu|cuda\n"); return 2; }
    if (rc == 77) return 77;
    printf(rc ? "0 passed, 1 failed\n" : "1 passed, 0 failed\n");
    return rc ? 1 : 0;
}
