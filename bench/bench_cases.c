/*
 * ozblas-bench: problem setup, calls into ozblas and OpenBLAS, exact references.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "bench.h"
#include "ozref.h"

/* Fixed seeds so that runs are comparable: a function of routine and phi only. */
static uint64_t problem_seed(int routine, double phi)
{
    uint64_t bits;
    memcpy(&bits, &phi, sizeof bits);
    return UINT64_C(0x6f7a626c61733031) ^ ((uint64_t)(routine + 1) * UINT64_C(0x9e3779b97f4a7c15)) ^
           (bits * UINT64_C(0xbf58476d1ce4e5b9));
}

static double *alloc_doubles(int64_t n)
{
    size_t bytes;
    void *p = NULL;
    if (n > 0 && (uint64_t)n > (SIZE_MAX - 64) / sizeof(double)) return NULL;
    bytes = (size_t)(n > 0 ? n : 1) * sizeof(double);
    /* 64-byte alignment, as a BLAS would like it; size rounded up for aligned_alloc */
    bytes = (bytes + 63) / 64 * 64;
    p = aligned_alloc(64, bytes);
    return p;
}

double *problem_alloc_out(const problem_t *p)
{
    double *o = alloc_doubles(p->out_len);
    if (o) memset(o, 0, (size_t)p->out_len * sizeof *o);
    return o;
}

/* Returns 0 on success, -1 if memory could not be allocated. */
int problem_init(problem_t *p, const bench_config_t *cfg, int routine, double phi)
{
    ozref_rng rng;
    int c;
    double bytes;

    memset(p, 0, sizeof *p);
    p->routine = routine;
    p->phi = phi;
    p->alpha = 1.0;
    p->beta = 0.0;
    p->transa = cfg->transa;
    p->transb = cfg->transb;

    switch (routine) {
    case RT_DOT:
        p->n = cfg->n > 0 ? cfg->n : (INT64_C(1) << 20);
        p->m = 1;
        p->k = p->n;
        p->a_len = p->n;
        p->b_len = p->n;
        p->out_len = 1;
        p->out_rows = 1;
        p->inner = p->n;
        p->lda = p->ldb = p->ldc = 1;
        break;
    case RT_GEMV:
        p->n = cfg->n > 0 ? cfg->n : 2048;
        p->m = cfg->m > 0 ? cfg->m : p->n;
        p->k = 0;
        p->lda = p->m;
        p->a_len = p->m * p->n;
        if (p->transa) { /* y = A^T x: x has m elements, y has n */
            p->b_len = p->m;
            p->out_len = p->n;
            p->inner = p->m;
        } else {
            p->b_len = p->n;
            p->out_len = p->m;
            p->inner = p->n;
        }
        p->out_rows = p->out_len;
        p->ldb = p->inner; /* x seen as an inner x 1 matrix by the reference */
        p->ldc = p->out_len;
        break;
    default: /* RT_GEMM */
        p->n = cfg->n > 0 ? cfg->n : 512;
        p->m = cfg->m > 0 ? cfg->m : p->n;
        p->k = cfg->k > 0 ? cfg->k : p->n;
        p->lda = p->transa ? p->k : p->m;
        p->ldb = p->transb ? p->n : p->k;
        p->ldc = p->m;
        p->a_len = p->m * p->k;
        p->b_len = p->k * p->n;
        p->out_len = p->m * p->n;
        p->out_rows = p->m;
        p->inner = p->k;
        break;
    }

    /* Memory-bound routines: rotate between two copies of the inputs when one copy
     * does not fit the last-level cache, so that no timed call finds its inputs in
     * cache left there by the previous call.  GEMM is compute-bound: one copy. */
    bytes = 8.0 * (double)(p->a_len + p->b_len);
    p->ncopies = 1;
    if (routine != RT_GEMM && bytes > cfg->llc_bytes && 2.0 * bytes <= 8.0 * 1024 * 1024 * 1024)
        p->ncopies = 2;

    for (c = 0; c < p->ncopies; c++) {
        p->a[c] = alloc_doubles(p->a_len);
        p->b[c] = alloc_doubles(p->b_len);
        if (!p->a[c] || !p->b[c]) {
            problem_free(p);
            return -1;
        }
    }
    ozref_rng_seed(&rng, problem_seed(routine, phi));
    ozref_fill_phi(&rng, p->a[0], p->a_len, phi);
    ozref_fill_phi(&rng, p->b[0], p->b_len, phi);
    if (cfg->upper && routine != RT_DOT) {
        /* the stored matrices' strictly lower triangles zero (LAPACK's triangular factors and
         * inverses): structured zeros in the products */
        const int64_t ra = routine == RT_GEMV ? p->m : p->transa ? p->k : p->m;
        const int64_t ca = routine == RT_GEMV ? p->n : p->transa ? p->m : p->k;
        for (int64_t j = 0; j < ca; j++)
            for (int64_t i = j + 1; i < ra; i++) p->a[0][i + j * p->lda] = 0.0;
        if (routine == RT_GEMM) {
            const int64_t rb = p->transb ? p->n : p->k, cb = p->transb ? p->k : p->n;
            for (int64_t j = 0; j < cb; j++)
                for (int64_t i = j + 1; i < rb; i++) p->b[0][i + j * p->ldb] = 0.0;
        }
    }
    for (c = 1; c < p->ncopies; c++) {
        memcpy(p->a[c], p->a[0], (size_t)p->a_len * sizeof(double));
        memcpy(p->b[c], p->b[0], (size_t)p->b_len * sizeof(double));
    }

    /* A fixed sample of at most BENCH_MAX_SAMPLES output elements: all of them when
     * there are few, otherwise the first, the last and pseudo-random ones. */
    if (p->out_len <= BENCH_MAX_SAMPLES) {
        int64_t i;
        p->nsamples = (int)p->out_len;
        for (i = 0; i < p->out_len; i++) p->sample_idx[i] = i;
    } else {
        ozref_rng srng;
        int s;
        ozref_rng_seed(&srng, UINT64_C(20240229));
        p->nsamples = BENCH_MAX_SAMPLES;
        p->sample_idx[0] = 0;
        p->sample_idx[1] = p->out_len - 1;
        for (s = 2; s < BENCH_MAX_SAMPLES; s++) {
            int64_t idx = (int64_t)(ozref_uniform(&srng) * (double)p->out_len);
            if (idx < 0) idx = 0;
            if (idx >= p->out_len) idx = p->out_len - 1;
            p->sample_idx[s] = idx;
        }
    }
    return 0;
}

void problem_free(problem_t *p)
{
    int c;
    for (c = 0; c < BENCH_MAX_COPIES; c++) {
        free(p->a[c]);
        free(p->b[c]);
        p->a[c] = p->b[c] = NULL;
    }
}

/* |alpha| sum_l |op(A)_il| |op(B)_lj| of output element (i, j) (DOT: i = j = 0), long double */
static double elem_abs(const problem_t *p, int64_t i, int64_t j)
{
    long double s = 0;
    const int64_t k = p->routine == RT_DOT ? p->n : p->routine == RT_GEMV ? p->inner : p->k;
    for (int64_t l = 0; l < k; l++) {
        const double a = p->routine == RT_DOT ? p->a[0][l] : p->transa ? p->a[0][l + i * p->lda] : p->a[0][i + l * p->lda];
        const double b = p->routine == RT_GEMM ? (p->transb ? p->b[0][j + l * p->ldb] : p->b[0][l + j * p->ldb]) : p->b[0][l];
        s += fabsl((long double)a) * fabsl((long double)b);
    }
    return (double)(s * fabsl((long double)(p->routine == RT_DOT ? 1.0 : p->alpha)));
}

double problem_max_comp(const problem_t *p, const double *out)
{
    double mx = 0.0;
    for (int s = 0; s < p->nsamples; s++) {
        const double got = out[p->sample_idx[s]], ref = p->sample_ref[s], ab = p->sample_abs[s];
        if (!(ab > 0.0) || !isfinite(ref)) continue;
        double e = (double)(fabsl((long double)got - (long double)ref) / (long double)ab);
        if (isnan(e)) e = INFINITY;
        if (e > mx) mx = e;
    }
    return mx;
}

/* Exact (MPFR) value, rounded to nearest, of every sampled output element. */
void problem_compute_refs(problem_t *p)
{
    int s;
    for (s = 0; s < p->nsamples; s++) {
        int64_t idx = p->sample_idx[s];
        double r;
        switch (p->routine) {
        case RT_DOT:
            r = ozref_ddot(p->n, p->a[0], 1, p->b[0], 1);
            break;
        case RT_GEMV:
            r = ozref_dgemm_elem(p->transa, 0, idx, 0, p->inner, p->alpha, p->a[0], p->lda, p->b[0], p->ldb,
                                 p->beta, 0.0);
            break;
        default:
            r = ozref_dgemm_elem(p->transa, p->transb, idx % p->m, idx / p->m, p->k, p->alpha, p->a[0], p->lda,
                                 p->b[0], p->ldb, p->beta, 0.0);
            break;
        }
        p->sample_ref[s] = r;
        p->sample_abs[s] = p->routine == RT_GEMM ? elem_abs(p, idx % p->m, idx / p->m) : elem_abs(p, idx, 0);
    }
    p->have_ref = 1;
}

/* Max error in ulps of the exact result over the sampled elements of out. */
double problem_max_ulps(const problem_t *p, const double *out)
{
    double mx = 0.0;
    int s;
    for (s = 0; s < p->nsamples; s++) {
        double e = ozref_ulps(out[p->sample_idx[s]], p->sample_ref[s]);
        if (isnan(e)) e = INFINITY;
        if (e > mx) mx = e;
    }
    return mx;
}

ozblas_status_t problem_run_ozblas(ozblas_handle_t h, const problem_t *p, int copy, double *out)
{
    const double *a = p->a[copy], *b = p->b[copy];
    switch (p->routine) {
    case RT_DOT:
        return ozblas_ddot(h, p->n, a, 1, b, 1, out);
    case RT_GEMV:
        return ozblas_dgemv(h, p->transa ? OZBLAS_OP_T : OZBLAS_OP_N, p->m, p->n, p->alpha, a, p->lda, b, 1,
                            p->beta, out, 1);
    default:
        return ozblas_dgemm(h, p->transa ? OZBLAS_OP_T : OZBLAS_OP_N, p->transb ? OZBLAS_OP_T : OZBLAS_OP_N, p->m,
                            p->n, p->k, p->alpha, a, p->lda, b, p->ldb, p->beta, out, p->ldc);
    }
}

void problem_run_openblas(const problem_t *p, int copy, double *out)
{
    const double *a = p->a[copy], *b = p->b[copy];
    switch (p->routine) {
    case RT_DOT:
        out[0] = cblas_ddot((blasint)p->n, a, 1, b, 1);
        break;
    case RT_GEMV:
        cblas_dgemv(CblasColMajor, p->transa ? CblasTrans : CblasNoTrans, (blasint)p->m, (blasint)p->n, p->alpha,
                    a, (blasint)p->lda, b, 1, p->beta, out, 1);
        break;
    default:
        cblas_dgemm(CblasColMajor, p->transa ? CblasTrans : CblasNoTrans, p->transb ? CblasTrans : CblasNoTrans,
                    (blasint)p->m, (blasint)p->n, (blasint)p->k, p->alpha, a, (blasint)p->lda, b,
                    (blasint)p->ldb, p->beta, out, (blasint)p->ldc);
        break;
    }
}
