/*
 * ozblas-bench --backend cuda: ozblas on a CUDA handle against cuBLAS (cublasDdot,
 * cublasDgemv, cublasDgemm) on the same device inputs in the same run.  Both are timed with
 * CUDA events around each call, median of the timed runs (at least 10) after warm-up, the
 * inputs rotated between two device copies.  Every case also checks the GPU result against
 * a CPU handle with the same configuration, bit for bit, and correctly rounded results
 * against MPFR on the sampled elements.
 *
 * With OZBLAS_CUDA_EMULATE=1 the ozblas side runs on the emulated device (host memory, no
 * GPU): the table then has no cuBLAS column and the times are host times, not GPU times.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "ozref.h"
#ifdef OZBLAS_BENCH_HAVE_CUDA
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#endif

typedef struct { int emulated; void *dev_a[2], *dev_b[2], *dev_out; } dev_problem_t;

static void *dmalloc(int emulated, size_t bytes)
{
    void *p = NULL;
    if (emulated) return malloc(bytes ? bytes : 8);
#ifdef OZBLAS_BENCH_HAVE_CUDA
    if (cudaMalloc(&p, bytes ? bytes : 8) != cudaSuccess) p = NULL;
#endif
    return p;
}

static void dfree(int emulated, void *p)
{
    if (!p) return;
    if (emulated) { free(p); return; }
#ifdef OZBLAS_BENCH_HAVE_CUDA
    cudaFree(p);
#endif
}

static int dcopy(int emulated, void *dst, const void *src, size_t bytes, int to_device)
{
    if (emulated) { memcpy(dst, src, bytes); return 0; }
#ifdef OZBLAS_BENCH_HAVE_CUDA
    return cudaMemcpy(dst, src, bytes, to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost) != cudaSuccess;
#else
    (void)to_device;
    return -1;
#endif
}

/* seconds of one call of f, by CUDA events (host clock when emulated) */
typedef int (*call_fn)(void *ctx, int copy);

static double time_one(int emulated, call_fn f, void *ctx, int copy, int *err)
{
    if (emulated) {
        double t0 = bench_now();
        *err |= f(ctx, copy);
        return bench_now() - t0;
    }
#ifdef OZBLAS_BENCH_HAVE_CUDA
    cudaEvent_t a, b;
    float ms = 0.0f;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    cudaEventRecord(a, 0);
    *err |= f(ctx, copy);
    cudaEventRecord(b, 0);
    cudaEventSynchronize(b);
    cudaEventElapsedTime(&ms, a, b);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return ms * 1e-3;
#else
    *err = 1;
    return 0.0;
#endif
}

static double median_time(int emulated, const bench_config_t *cfg, call_fn f, void *ctx, int *err)
{
    const int reps = cfg->reps > 10 ? cfg->reps : 10;
    double t[1024];
    for (int w = 0; w < cfg->warmup; w++) *err |= f(ctx, w & 1);
    for (int r = 0; r < reps && r < 1024; r++) t[r] = time_one(emulated, f, ctx, r & 1, err);
    return bench_median(t, reps < 1024 ? reps : 1024, NULL);
}

typedef struct { const problem_t *p; dev_problem_t *d; ozblas_handle_t h; ozblas_status_t st; double dot; } oz_ctx;

static int call_ozblas(void *vc, int copy)
{
    oz_ctx *c = vc;
    const problem_t *p = c->p;
    const double *a = c->d->dev_a[copy], *b = c->d->dev_b[copy];
    double *out = c->d->dev_out;
    switch (p->routine) {
    case RT_DOT:  c->st = ozblas_ddot(c->h, p->n, a, 1, b, 1, &c->dot); break;
    case RT_GEMV: c->st = ozblas_dgemv(c->h, p->transa ? OZBLAS_OP_T : OZBLAS_OP_N, p->m, p->n, p->alpha, a, p->lda, b, 1,
                                       p->beta, out, 1); break;
    default:      c->st = ozblas_dgemm(c->h, p->transa ? OZBLAS_OP_T : OZBLAS_OP_N, p->transb ? OZBLAS_OP_T : OZBLAS_OP_N,
                                       p->m, p->n, p->k, p->alpha, a, p->lda, b, p->ldb, p->beta, out, p->ldc); break;
    }
    return c->st != OZBLAS_STATUS_SUCCESS;
}

#ifdef OZBLAS_BENCH_HAVE_CUDA
typedef struct { const problem_t *p; dev_problem_t *d; cublasHandle_t h; double dot; } cb_ctx;

static int call_cublas(void *vc, int copy)
{
    cb_ctx *c = vc;
    const problem_t *p = c->p;
    const double *a = c->d->dev_a[copy], *b = c->d->dev_b[copy];
    double *out = c->d->dev_out;
    cublasStatus_t s;
    switch (p->routine) {
    case RT_DOT:  s = cublasDdot(c->h, (int)p->n, a, 1, b, 1, &c->dot); break;
    case RT_GEMV: s = cublasDgemv(c->h, p->transa ? CUBLAS_OP_T : CUBLAS_OP_N, (int)p->m, (int)p->n, &p->alpha, a, (int)p->lda,
                                  b, 1, &p->beta, out, 1); break;
    default:      s = cublasDgemm(c->h, p->transa ? CUBLAS_OP_T : CUBLAS_OP_N, p->transb ? CUBLAS_OP_T : CUBLAS_OP_N, (int)p->m,
                                  (int)p->n, (int)p->k, &p->alpha, a, (int)p->lda, b, (int)p->ldb, &p->beta, out, (int)p->ldc); break;
    }
    return s != CUBLAS_STATUS_SUCCESS;
}
#endif

static const char *engine_label(int e)
{
    static const char *n[4] = {"fp64", "fp16", "int8", "crt"};
    return e >= 0 && e < 4 ? n[e] : "?";
}

static void configure(ozblas_handle_t h, const bench_config_t *cfg, int mode, int engine)
{
    ozblas_set_mode(h, (ozblas_mode_t)mode);
    ozblas_set_engine(h, (ozblas_engine_t)engine);
    ozblas_set_split_count(h, cfg->split);
    ozblas_set_fast_mode(h, cfg->fast);
    ozblas_set_summation(h, cfg->sum);
    ozblas_set_crt_scaling(h, cfg->crt_accurate ? OZBLAS_CRT_SCALING_ACCURATE : OZBLAS_CRT_SCALING_FAST);
    ozblas_set_num_threads(h, cfg->threads);
}

int bench_cuda(const bench_config_t *cfg)
{
    const char *em = getenv("OZBLAS_CUDA_EMULATE");
    const int emulated = em && em[0] == '1';
    const char *why = ozblas_cuda_unavailable_reason(0);
    if (why) {
        printf("ozblas-bench --backend cuda: no CUDA device to run on: %s\n", why);
        return 4;
    }
#ifndef OZBLAS_BENCH_HAVE_CUDA
    if (!emulated) {
        printf("ozblas-bench --backend cuda: this build has no CUDA runtime for the baseline\n");
        return 4;
    }
#endif
    char devname[256] = "emulated device (host memory; times are host times, no cuBLAS baseline)";
#ifdef OZBLAS_BENCH_HAVE_CUDA
    cublasHandle_t cb = NULL;
    if (!emulated) {
        struct cudaDeviceProp prop;
        cudaGetDeviceProperties(&prop, 0);
        snprintf(devname, sizeof devname, "%.200s (%d SMs, compute capability %d.%d)", prop.name, prop.multiProcessorCount,
                 prop.major, prop.minor);
        if (cublasCreate(&cb) != CUBLAS_STATUS_SUCCESS) { printf("cublasCreate failed\n"); return 1; }
    }
#endif
    printf("ozblas-bench %d.%d.%d --backend cuda: ozblas CUDA handle vs cuBLAS on %s\n", OZBLAS_VERSION_MAJOR,
           OZBLAS_VERSION_MINOR, OZBLAS_VERSION_PATCH, devname);
    printf("CUDA-event times, median of %d runs after %d warm-up runs, inputs rotated between two device copies; "
           "alpha = 1, beta = 0\n\n", cfg->reps > 10 ? cfg->reps : 10, cfg->warmup);
    printf("%-5s %-16s %-6s %-7s %-5s %10s %10s %8s %11s %11s %8s\n", "rtn", "size", "phi", "mode", "fmt", "err_oz",
           "err_cublas", "cpu==gpu", "oz ms", "cublas ms", "ratio");
    int failures = 0;
    for (int routine = 0; routine < RT_COUNT; routine++) {
        if (!cfg->routines[routine]) continue;
        for (int ip = 0; ip < cfg->nphi; ip++) {
            problem_t p;
            if (problem_init(&p, cfg, routine, cfg->phis[ip])) { fprintf(stderr, "out of memory\n"); return 3; }
            if (cfg->check) problem_compute_refs(&p);
            dev_problem_t d = { emulated, {NULL, NULL}, {NULL, NULL}, NULL };
            int bad = 0;
            for (int c = 0; c < 2; c++) {
                d.dev_a[c] = dmalloc(emulated, 8 * (size_t)p.a_len);
                d.dev_b[c] = dmalloc(emulated, 8 * (size_t)p.b_len);
                bad |= !d.dev_a[c] || !d.dev_b[c];
                if (!bad) {
                    bad |= dcopy(emulated, d.dev_a[c], p.a[c < p.ncopies ? c : 0], 8 * (size_t)p.a_len, 1);
                    bad |= dcopy(emulated, d.dev_b[c], p.b[c < p.ncopies ? c : 0], 8 * (size_t)p.b_len, 1);
                }
            }
            d.dev_out = dmalloc(emulated, 8 * (size_t)p.out_len);
            double *got = problem_alloc_out(&p), *cpu = problem_alloc_out(&p);
            if (bad || !d.dev_out || !got || !cpu) { fprintf(stderr, "ozblas-bench: device allocation failed\n"); return 3; }
            double t_cb = NAN, err_cb = NAN;
            char size[64];
            if (routine == RT_DOT) snprintf(size, sizeof size, "n=%lld", (long long)p.n);
            else if (routine == RT_GEMV) snprintf(size, sizeof size, "%lldx%lld %c", (long long)p.m, (long long)p.n, p.transa ? 'T' : 'N');
            else snprintf(size, sizeof size, "%lldx%lldx%lld", (long long)p.m, (long long)p.n, (long long)p.k);
#ifdef OZBLAS_BENCH_HAVE_CUDA
            if (cb) {
                cb_ctx c = { &p, &d, cb, 0.0 };
                int err = call_cublas(&c, 0);
                if (routine == RT_DOT) got[0] = c.dot;
                else err |= dcopy(0, got, d.dev_out, 8 * (size_t)p.out_len, 0);
                if (cfg->check) err_cb = problem_max_ulps(&p, got);
                t_cb = median_time(0, cfg, call_cublas, &c, &err);
                if (err) { fprintf(stderr, "ozblas-bench: cuBLAS failed\n"); failures++; }
            }
#endif
            for (int combo = 0; combo < 12; combo++) {
                const int engine = combo / 3, mode = combo % 3;
                if (!cfg->modes[mode] || !cfg->engines[engine]) continue;
                ozblas_handle_t h = NULL, hc = NULL;
                if (ozblas_create_cuda(&h, 0) || ozblas_create(&hc)) { fprintf(stderr, "ozblas-bench: handle creation failed\n"); return 1; }
                configure(h, cfg, mode, engine);
                configure(hc, cfg, mode, engine);
                oz_ctx c = { &p, &d, h, OZBLAS_STATUS_SUCCESS, 0.0 };
                int err = call_ozblas(&c, 0);
                if (routine == RT_DOT) got[0] = c.dot;
                else err |= dcopy(emulated, got, d.dev_out, 8 * (size_t)p.out_len, 0);
                /* --no-check: no CPU handle either (a 16384^3 product on the host takes minutes) */
                ozblas_status_t sc = cfg->check ? problem_run_ozblas(hc, &p, 0, cpu) : OZBLAS_STATUS_SUCCESS;
                int same = !err && sc == OZBLAS_STATUS_SUCCESS && (!cfg->check || memcmp(got, cpu, 8 * (size_t)p.out_len) == 0);
                double err_oz = cfg->check ? problem_max_ulps(&p, got) : NAN;
                int cr_bad = 0;
                if (cfg->check && mode == OZBLAS_MODE_CORRECTLY_ROUNDED)
                    for (int s = 0; s < p.nsamples; s++) cr_bad += memcmp(&got[p.sample_idx[s]], &p.sample_ref[s], 8) != 0;
                double t_oz = err ? NAN : median_time(emulated, cfg, call_ozblas, &c, &err);
                if (err || !same || cr_bad) {
                    failures++;
                    fprintf(stderr, "ozblas-bench --backend cuda: %s %s phi=%g mode=%s fmt=%s: %s\n", bench_routine_name(routine),
                            size, p.phi, bench_mode_name(mode), engine_label(engine),
                            err ? ozblas_status_string(c.st) : !same ? "GPU result differs from the CPU handle's"
                                                                     : "cr result not RN(exact)");
                }
                printf("%-5s %-16s %-6g %-7s %-5s %10.3g %10.3g %8s %11.3f %11.3f %8.2f\n", bench_routine_name(routine), size,
                       p.phi, bench_mode_name(mode), engine_label(engine), err_oz, err_cb, !cfg->check ? "-" : same ? "yes" : "NO", t_oz * 1e3,
                       t_cb * 1e3, t_oz / t_cb);
                fflush(stdout);
                ozblas_destroy(h);
                ozblas_destroy(hc);
            }
            for (int c = 0; c < 2; c++) { dfree(emulated, d.dev_a[c]); dfree(emulated, d.dev_b[c]); }
            dfree(emulated, d.dev_out);
            free(got);
            free(cpu);
            problem_free(&p);
        }
    }
#ifdef OZBLAS_BENCH_HAVE_CUDA
    if (cb) cublasDestroy(cb);
#endif
    printf("\n%s\n", failures ? "FAILED: see stderr" : !cfg->check ? "--no-check: results neither compared with a CPU handle nor with MPFR." : "All cases: GPU results bitwise equal to the CPU handle's; cr results RN(exact) on every sampled element.");
    return failures ? 1 : 0;
}
