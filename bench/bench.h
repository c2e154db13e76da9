/*
 * ozblas-bench: shared declarations of the benchmark/demo program.
 */
#ifndef OZBLAS_BENCH_H
#define OZBLAS_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "ozblas.h"

enum { RT_DOT = 0, RT_GEMV = 1, RT_GEMM = 2, RT_COUNT = 3 };

#define BENCH_MAX_COPIES 2
#define BENCH_MAX_SAMPLES 256
#define BENCH_REPRO_THREADS 3 /* 1, 2 and 4 threads */

/* Configuration from the command line. */
typedef struct {
    int routines[RT_COUNT];     /* which routines to run                          */
    int modes[3];               /* indexed by ozblas_mode_t                        */
    int engines[4];             /* indexed by ozblas_engine_t                      */
    double phis[32];
    int nphi;
    int64_t n, m, k;            /* 0 = routine default (m, k default to n)         */
    int split;                  /* FIXED mode split count                          */
    int crt_accurate;           /* CRT_INT8 scaling: 1 = ACCURATE                  */
    int fast;                   /* FIXED mode fast mode                            */
    ozblas_summation_t sum;     /* FIXED mode summation                            */
    int threads;                /* thread count for the timed runs                 */
    int reps;                   /* timed repetitions (median)                      */
    int warmup;                 /* untimed warm-up runs                            */
    int transa, transb;         /* 0 = N, 1 = T                                    */
    int check;                  /* MPFR errors and thread reproducibility          */
    int csv;
    double llc_bytes;           /* last-level cache size for the rotation decision */
    double min_sample_s;        /* a timed sample repeats the call until this long */
    int backend;                /* 0 CPU (vs OpenBLAS), 1 CUDA (vs cuBLAS)          */
    int upper;                  /* --structure upper: A (and GEMM's B) upper triangular */
} bench_config_t;

/* One problem instance: inputs (possibly several copies), shapes, references. */
typedef struct {
    int routine;
    int64_t m, n, k;            /* DOT: n only; GEMV: A is m x n; GEMM: op(A) m x k */
    int transa, transb;         /* GEMV uses transa                                 */
    double alpha, beta;
    double phi;
    int ncopies;
    double *a[BENCH_MAX_COPIES];/* DOT: x, GEMV: A, GEMM: A                         */
    double *b[BENCH_MAX_COPIES];/* DOT: y, GEMV: x, GEMM: B                         */
    int64_t lda, ldb, ldc;
    int64_t a_len, b_len;       /* elements per copy                                */
    int64_t out_len;            /* DOT: 1, GEMV: length of y, GEMM: m*n (ldc = m)   */
    int64_t out_rows;           /* GEMV: length of y, GEMM: m                       */
    int64_t inner;              /* the reduction length                             */
    /* Sampled output elements and their exact (MPFR, RN) values. */
    int nsamples;
    int64_t sample_idx[BENCH_MAX_SAMPLES];
    double sample_ref[BENCH_MAX_SAMPLES];
    double sample_abs[BENCH_MAX_SAMPLES];  /* |alpha| (|op(A)||op(B)|) of each, DGEMM's error scale */
    int have_ref;
} problem_t;

/* Results of one row of the table. */
typedef struct {
    const char *routine;
    int mode;
    int engine;                 /* ozblas_engine_t                                 */
    ozblas_info_t info;         /* from the first (checked) call                 */
    ozblas_info_t info_median;  /* from the median timed sample                   */
    ozblas_status_t status;     /* first failing status, SUCCESS otherwise        */
    const char *failed_call;    /* which ozblas call failed                       */
    double err_oz, err_blas;    /* max ulps over the samples, < 0 if not checked  */
    double cerr_oz, cerr_blas;  /* max |result - RN(exact)| / (|alpha| |A||B|): componentwise */
    const char *products;       /* what computed the exact products (ozblas_products_name), or
                                 * "error-free sums" where no GEMM ran                          */
    int nsamples;
    int cr_mismatch;            /* number of sampled elements not bitwise RN(exact) */
    int64_t cr_first_idx;       /* first mismatching output index                 */
    double cr_first_got, cr_first_ref;
    int repro[BENCH_REPRO_THREADS]; /* 1 identical, 0 differs, -1 not checked     */
    double t_oz, t_blas;        /* median seconds per call                        */
    int iters_oz, iters_blas;   /* calls per timed sample                         */
} row_t;

/* bench_util.c */
double bench_now(void);
/* "model; feature feature ..." of the CPU (bench_util.c) */
void bench_cpu_features(char *buf, size_t len);
double bench_median(double *v, int n, int *argmed);
/* v[0..n-1] in ascending order */
void bench_sort(double *v, int n);
const char *bench_routine_name(int routine);
const char *bench_mode_name(int mode);
const char *bench_sum_name(ozblas_summation_t s);

/* bench_cuda.c: --backend cuda; returns the exit status (4: no CUDA device) */
int bench_cuda(const bench_config_t *cfg);

/* bench_cases.c */
int problem_init(problem_t *p, const bench_config_t *cfg, int routine, double phi);
void problem_free(problem_t *p);
void problem_compute_refs(problem_t *p);
ozblas_status_t problem_run_ozblas(ozblas_handle_t h, const problem_t *p, int copy, double *out);
void problem_run_openblas(const problem_t *p, int copy, double *out);
double problem_max_ulps(const problem_t *p, const double *out);
/* max over the samples of |out - RN(exact)| / (|alpha| (|op(A)||op(B)|)): DGEMM's componentwise
 * error measure (elements with a zero scale skipped) */
double problem_max_comp(const problem_t *p, const double *out);
double *problem_alloc_out(const problem_t *p);

/* --mpi (bench_mpi.c, built with libozblas_mpi): run with mpirun */
int bench_mpi(int argc, char **argv);
#endif
