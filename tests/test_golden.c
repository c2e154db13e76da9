/* Golden bits: the exact outputs of DOUBLE, FIXED and CORRECTLY_ROUNDED, pinned.
 *
 * Every routine (DOT with unit and negative increments and k over two DOT blocks; GEMV N and T
 * with padding and k over two GEMV blocks; GEMM in all four transposes with padding, and a
 * skinny GEMM whose k spans several FP16 and CRT blocks) x every format (FP64, FP16, INT8,
 * CRT_INT8 with FAST and with ACCURATE scaling) x DOUBLE, CORRECTLY_ROUNDED and four FIXED
 * configurations covering split counts 2, 3 and 5, fast mode on and off and both summations,
 * on phi = 0.5 and phi = 2 inputs with alpha/beta (1, 0) and (-1.5, 0.75); then the fallback
 * cases: rows with Inf/NaN, rows spanning 2^-1000 to 1 (beyond the moduli table and the
 * 40-slice device limit), and CORRECTLY_ROUNDED GEMMs that finish many elements lazily
 * (near-cancelling rows).
 *
 * The rest of the BLAS (blas/...: every level-1, 2, 3 routine of CONTRACT §6) in the same
 * configurations and formats, on a CPU handle.
 *
 * Inputs come from a generator in this file that uses integer and basic floating-point
 * operations only (no libm), so they are the same everywhere.  For each case the whole output
 * buffer (padding included) is compared with tests/golden/golden_bits.txt: a 64-bit hash per
 * case, and a 32-bit digest per element to name the first differing element on failure.
 *
 *   test_golden cpu | emulate      compare (a CPU handle, or a CUDA handle on the emulated
 *                                  device: CONTRACT §3, the same bits)
 *   test_golden write FILE         write the golden file from a CPU handle
 *
 * Changing the golden file is a deliberate change of results: it comes in its own commit with
 * a line in CHANGELOG.md saying which results changed and why. */
#define _POSIX_C_SOURCE 200809L
#include "ozblas.h"
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef OZBLAS_GOLDEN_FILE
#define OZBLAS_GOLDEN_FILE "golden_bits.txt"
#endif

/* ---------------------------------------------------------------- generator (no libm) */
typedef struct { uint64_t s; } gen_t;
static uint64_t next(gen_t *g)
{
    uint64_t z = (g->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static double uni(gen_t *g) { return (double)(next(g) >> 11) * 0x1p-53; }
/* 2^e for |e| <= 1000, by repeated exact multiplication */
static double pow2(int e)
{
    double r = 1.0;
    for (; e >= 64; e -= 64) r *= 0x1p64;
    for (; e <= -64; e += 64) r *= 0x1p-64;
    for (; e > 0; e--) r *= 2.0;
    for (; e < 0; e++) r *= 0.5;
    return r;
}
/* (rand - 0.5) * 2^round(phi * N / ln 2), N ~ Irwin-Hall(12) - 6: the papers' generator
 * (rand - 0.5) exp(phi randn) with the exponent rounded to an integer */
static double phi_value(gen_t *g, double phi)
{
    double nrm = -6.0;
    for (int i = 0; i < 12; i++) nrm += uni(g);
    const double t = phi * nrm * 1.4426950408889634;
    const int e = (int)(t < 0 ? t - 0.5 : t + 0.5);
    return (uni(g) - 0.5) * pow2(e);
}

/* ---------------------------------------------------------------- cases */
typedef struct {
    const char *name;
    ozblas_mode_t mode;
    int split, fast;
    ozblas_summation_t sum;
} config_t;

static const config_t configs[] = {
    {"double", OZBLAS_MODE_DOUBLE, 3, 0, OZBLAS_SUM_NEARSUM},
    {"cr", OZBLAS_MODE_CORRECTLY_ROUNDED, 3, 0, OZBLAS_SUM_NEARSUM},
    {"fixed2-near", OZBLAS_MODE_FIXED, 2, 0, OZBLAS_SUM_NEARSUM},
    {"fixed3-fast-dsum", OZBLAS_MODE_FIXED, 3, 1, OZBLAS_SUM_DOUBLE},
    {"fixed3-dsum", OZBLAS_MODE_FIXED, 3, 0, OZBLAS_SUM_DOUBLE},
    {"fixed5-fast-near", OZBLAS_MODE_FIXED, 5, 1, OZBLAS_SUM_NEARSUM},
};
enum { NCONFIG = sizeof configs / sizeof configs[0] };

typedef struct { const char *name; ozblas_engine_t engine; ozblas_crt_scaling_t scaling; } format_t;
static const format_t formats[] = {
    {"fp64", OZBLAS_ENGINE_FP64, OZBLAS_CRT_SCALING_FAST},
    {"fp16", OZBLAS_ENGINE_FP16, OZBLAS_CRT_SCALING_FAST},
    {"int8", OZBLAS_ENGINE_INT8, OZBLAS_CRT_SCALING_FAST},
    {"crt", OZBLAS_ENGINE_CRT_INT8, OZBLAS_CRT_SCALING_FAST},
    {"crt-accurate", OZBLAS_ENGINE_CRT_INT8, OZBLAS_CRT_SCALING_ACCURATE},
};
enum { NFORMAT = sizeof formats / sizeof formats[0] };

enum { R_DOT, R_GEMV, R_GEMM };
enum { D_PHI, D_NONFINITE, D_SPAN, D_NEARCANCEL };
typedef struct {
    const char *name;
    int routine, ta, tb, data;
    int64_t m, n, k, lda, ldb, ldc, incx, incy;
} shape_t;

static const shape_t shapes[] = {
    {"dot", R_DOT, 0, 0, D_PHI, 1, 1, 1000, 0, 0, 0, 1, 1},
    {"dot-2blocks-neginc", R_DOT, 0, 0, D_PHI, 1, 1, 40000, 0, 0, 0, -1, 2},
    {"gemv-n", R_GEMV, 0, 0, D_PHI, 29, 1, 35, 31, 0, 0, 1, 2},
    {"gemv-t", R_GEMV, 1, 0, D_PHI, 29, 1, 35, 37, 0, 0, -2, 1},
    {"gemv-n-2blocks", R_GEMV, 0, 0, D_PHI, 5, 1, 5000, 6, 0, 0, 1, 1},
    {"gemm-nn", R_GEMM, 0, 0, D_PHI, 13, 9, 37, 15, 39, 14, 0, 0},
    {"gemm-nt", R_GEMM, 0, 1, D_PHI, 13, 9, 37, 13, 10, 13, 0, 0},
    {"gemm-tn", R_GEMM, 1, 0, D_PHI, 13, 9, 37, 38, 37, 16, 0, 0},
    {"gemm-tt", R_GEMM, 1, 1, D_PHI, 13, 9, 37, 37, 9, 13, 0, 0},
    {"gemm-skinny-longk", R_GEMM, 0, 0, D_PHI, 3, 2, 70000, 3, 70000, 3, 0, 0},
};
enum { NSHAPE = sizeof shapes / sizeof shapes[0] };

/* fallback cases: run in every config and format on phi = 1 data with alpha/beta (1, 0.5) */
static const shape_t fallbacks[] = {
    {"gemm-infnan-rows", R_GEMM, 0, 0, D_NONFINITE, 11, 7, 23, 11, 23, 11, 0, 0},
    {"gemv-infnan", R_GEMV, 1, 0, D_NONFINITE, 17, 1, 19, 19, 0, 0, 1, 1},
    {"dot-infnan", R_DOT, 0, 0, D_NONFINITE, 1, 1, 300, 0, 0, 0, 1, 1},
    {"gemm-wide-span", R_GEMM, 0, 1, D_SPAN, 9, 8, 21, 9, 8, 9, 0, 0},
    {"dot-wide-span", R_DOT, 0, 0, D_SPAN, 1, 1, 500, 0, 0, 0, 1, 1},
    {"gemm-near-cancel", R_GEMM, 0, 0, D_NEARCANCEL, 12, 10, 64, 12, 64, 12, 0, 0},
};
enum { NFALLBACK = sizeof fallbacks / sizeof fallbacks[0] };

static int64_t iabs64(int64_t x) { return x < 0 ? -x : x; }

typedef struct { double *a, *b, *c; size_t na, nb, nc; } bufs_t;

static double datum(gen_t *g, int data, double phi, int64_t idx, int side)
{
    switch (data) {
    case D_NONFINITE: {
        const uint64_t r = next(g) % 97;
        if (r == 0) return 1.0 / 0.0;
        if (r == 1) return -1.0 / 0.0;
        if (r == 2) return 0.0 / 0.0;
        return phi_value(g, 1.0);
    }
    case D_SPAN:   /* every 7th entry of op(A)'s side at 2^-1000 relative: > 40 slices, beyond the moduli */
        return (side == 0 && idx % 7 == 3) ? (uni(g) - 0.5) * 0x1p-1000 : phi_value(g, 1.0);
    default: return phi_value(g, phi);
    }
}

static void make(const shape_t *s, double phi, uint64_t seed, bufs_t *b)
{
    gen_t g = {seed};
    if (s->routine == R_DOT) {
        b->na = (size_t)(1 + (s->k - 1) * iabs64(s->incx));
        b->nb = (size_t)(1 + (s->k - 1) * iabs64(s->incy));
        b->nc = 1;
    } else if (s->routine == R_GEMV) {
        const int64_t cols = s->ta ? s->m : s->k;   /* columns of A as stored */
        b->na = (size_t)(s->lda * cols);
        b->nb = (size_t)(1 + (s->k - 1) * iabs64(s->incx));
        b->nc = (size_t)(1 + (s->m - 1) * iabs64(s->incy));
    } else {
        const int64_t ac = s->ta ? s->m : s->k, bc = s->tb ? s->k : s->n;
        b->na = (size_t)(s->lda * ac);
        b->nb = (size_t)(s->ldb * bc);
        b->nc = (size_t)(s->ldc * s->n);
    }
    b->a = malloc(sizeof(double) * b->na);
    b->b = malloc(sizeof(double) * b->nb);
    b->c = malloc(sizeof(double) * b->nc);
    for (size_t i = 0; i < b->na; i++) b->a[i] = datum(&g, s->data, phi, (int64_t)i, 0);
    for (size_t i = 0; i < b->nb; i++) b->b[i] = datum(&g, s->data, phi, (int64_t)i, 1);
    for (size_t i = 0; i < b->nc; i++) b->c[i] = phi_value(&g, 1.0);
    if (s->data == D_NEARCANCEL) {
        /* column l + k/2 of A repeats column l to 2^-45 relative and row l + k/2 of B is -row l:
         * every element is ~2^-45 of its terms, so CR finishes most of them lazily */
        const int64_t h = s->k / 2;
        for (int64_t l = 0; l < h; l++) {
            for (int64_t i = 0; i < s->m; i++)
                b->a[i + (l + h) * s->lda] = b->a[i + l * s->lda] * (1.0 + (uni(&g) - 0.5) * 0x1p-45);
            for (int64_t j = 0; j < s->n; j++) b->b[(l + h) + j * s->ldb] = -b->b[l + j * s->ldb];
        }
    }
}

static void unmake(bufs_t *b) { free(b->a); free(b->b); free(b->c); }

static int on_gpu;   /* `test_golden cuda`: operands and result in GPU 0's memory */

#ifdef OZBLAS_TEST_HAVE_CUDA
#include <cuda_runtime_api.h>
static double *to_dev(const double *h, size_t n)
{
    void *d = NULL;
    if (cudaMalloc(&d, n * 8 + 8) != cudaSuccess || cudaMemcpy(d, h, n * 8, cudaMemcpyHostToDevice) != cudaSuccess) {
        printf("FAIL: cudaMalloc/cudaMemcpy of %zu doubles\n", n);
        exit(1);
    }
    return d;
}
#endif

static ozblas_status_t run_on(ozblas_handle_t h, const shape_t *s, const double *a, const double *b, double alpha,
                              double beta, double *out)
{
    switch (s->routine) {
    case R_DOT: return ozblas_ddot(h, s->k, a, s->incx, b, s->incy, out);
    case R_GEMV:
        return ozblas_dgemv(h, s->ta ? OZBLAS_OP_T : OZBLAS_OP_N, s->ta ? s->k : s->m, s->ta ? s->m : s->k, alpha, a,
                            s->lda, b, s->incx, beta, out, s->incy);
    default:
        return ozblas_dgemm(h, s->ta ? OZBLAS_OP_T : OZBLAS_OP_N, s->tb ? OZBLAS_OP_T : OZBLAS_OP_N, s->m, s->n, s->k,
                            alpha, a, s->lda, b, s->ldb, beta, out, s->ldc);
    }
}

static ozblas_status_t run(ozblas_handle_t h, const shape_t *s, const bufs_t *b, double alpha, double beta, double *out)
{
    memcpy(out, b->c, sizeof(double) * b->nc);
#ifdef OZBLAS_TEST_HAVE_CUDA
    if (on_gpu) {   /* DOT's result is a host scalar (ozblas.h); GEMV's and GEMM's C lives on the device */
        double *da = to_dev(b->a, b->na), *db = to_dev(b->b, b->nb), *dc = to_dev(out, b->nc);
        const ozblas_status_t st = run_on(h, s, da, db, alpha, beta, s->routine == R_DOT ? out : dc);
        if (s->routine != R_DOT && cudaMemcpy(out, dc, b->nc * 8, cudaMemcpyDeviceToHost) != cudaSuccess) {
            printf("FAIL: cudaMemcpy back\n");
            exit(1);
        }
        cudaFree(da); cudaFree(db); cudaFree(dc);
        return st;
    }
#endif
    return run_on(h, s, b->a, b->b, alpha, beta, out);
}

static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static uint64_t bits(double v) { uint64_t u; memcpy(&u, &v, 8); return u; }
static uint32_t digest(double v) { return (uint32_t)mix(bits(v) ^ 0x5851f42d4c957f2dull); }
static uint64_t hash(const double *x, size_t n, ozblas_status_t st)
{
    uint64_t h = mix((uint64_t)n * 31u + (uint64_t)st);
    for (size_t i = 0; i < n; i++) h = mix(h ^ bits(x[i]) ^ ((uint64_t)i << 52));
    return h;
}

/* ---------------------------------------------------------------- golden file */
typedef struct { char name[160]; int st; size_t n; uint64_t h; uint32_t *d; } golden_t;
static golden_t *gold;
static size_t ngold, capgold;

static int load(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    golden_t g;
    while (fscanf(f, "%159s %d %zu %" SCNx64, g.name, &g.st, &g.n, &g.h) == 4) {
        g.d = malloc(sizeof(uint32_t) * (g.n ? g.n : 1));
        for (size_t i = 0; i < g.n; i++)
            if (fscanf(f, "%" SCNx32, &g.d[i]) != 1) { fclose(f); return -2; }
        if (ngold == capgold) { capgold = capgold ? 2 * capgold : 1024; gold = realloc(gold, sizeof *gold * capgold); }
        gold[ngold++] = g;
    }
    fclose(f);
    return 0;
}

static const golden_t *find(const char *name)
{
    static size_t hint;
    for (size_t t = 0; t < ngold; t++) {
        const size_t i = (hint + t) % ngold;
        if (!strcmp(gold[i].name, name)) { hint = i + 1; return &gold[i]; }
    }
    return NULL;
}

static FILE *wf;
static long ncases, nfail;

static void record(const char *name, ozblas_status_t st, const double *out, size_t n)
{
    ncases++;
    const uint64_t h = hash(out, n, st);
    if (wf) {
        fprintf(wf, "%s %d %zu %016" PRIx64 "\n", name, (int)st, n, h);
        for (size_t i = 0; i < n; i++) fprintf(wf, "%08" PRIx32 "%c", digest(out[i]), (i % 8 == 7 || i + 1 == n) ? '\n' : ' ');
        return;
    }
    const golden_t *g = find(name);
    if (!g) { if (nfail++ < 20) printf("FAIL %s: not in the golden file\n", name); return; }
    if (g->h == h && g->st == (int)st && g->n == n) return;
    if (nfail++ >= 20) return;
    size_t e = 0;
    while (e < n && e < g->n && digest(out[e]) == g->d[e]) e++;
    if (g->st != (int)st) printf("FAIL %s: status %d, golden %d\n", name, (int)st, g->st);
    else if (e < n)
        printf("FAIL %s: hash %016" PRIx64 ", golden %016" PRIx64 "; first differing element %zu of %zu: %a (digest %08" PRIx32
               ", golden %08" PRIx32 ")\n", name, h, g->h, e, n, out[e], digest(out[e]), g->d[e]);
    else printf("FAIL %s: hash %016" PRIx64 ", golden %016" PRIx64 " (same element digests)\n", name, h, g->h);
}


/* ---------------------------------------------------------------- the rest of the BLAS
 * (CONTRACT §6): each routine on generated operands (triangles with a dominant diagonal), its
 * whole output pinned.  CUDA handles compute level 3 alone (level 1 and 2 return
 * NOT_SUPPORTED there): the same golden cases, on device copies on the GPU. */
enum { BN = 37, BK = 19, BLD = 39 };

static void gen_fill(gen_t *g, double *x, size_t n, double phi)
{
    for (size_t i = 0; i < n; i++) x[i] = phi_value(g, phi);
}

/* o := src (n doubles), and into its device copy od on the GPU */
static void put(double *od, double *o, const double *src, size_t n)
{
    memcpy(o, src, sizeof(double) * n);
#ifdef OZBLAS_TEST_HAVE_CUDA
    if (on_gpu && cudaMemcpy(od, o, n * 8, cudaMemcpyHostToDevice) != cudaSuccess) { printf("FAIL: cudaMemcpy\n"); exit(1); }
#else
    (void)od;
#endif
}

/* o := its device copy od on the GPU */
static void fetch(double *o, const double *od, size_t n)
{
#ifdef OZBLAS_TEST_HAVE_CUDA
    if (on_gpu && cudaMemcpy(o, od, n * 8, cudaMemcpyDeviceToHost) != cudaSuccess) { printf("FAIL: cudaMemcpy back\n"); exit(1); }
#else
    (void)o; (void)od; (void)n;
#endif
}

static void blas_case(ozblas_handle_t h, const char *tag, double phi, uint64_t seed, int level3_only)
{
    gen_t g = { seed };
    const size_t nm = (size_t)BLD * BN;
    double *A = malloc(sizeof(double) * nm), *B = malloc(sizeof(double) * nm), *C = malloc(sizeof(double) * nm);
    double *x = malloc(sizeof(double) * 2 * BN), *y = malloc(sizeof(double) * 2 * BN), *o = malloc(sizeof(double) * nm);
    gen_fill(&g, A, nm, phi);
    gen_fill(&g, B, nm, phi);
    gen_fill(&g, C, nm, phi);
    gen_fill(&g, x, 2 * BN, phi);
    gen_fill(&g, y, 2 * BN, phi);
    for (int i = 0; i < BN; i++) A[i + i * BLD] = (A[i + i * BLD] < 0 ? -4.0 : 4.0) + A[i + i * BLD];
    double *a = A, *bm = B, *od = o;   /* level 3's operands where the handle reads them */
#ifdef OZBLAS_TEST_HAVE_CUDA
    if (on_gpu) { a = to_dev(A, nm); bm = to_dev(B, nm); od = to_dev(o, nm); }
#endif
    char name[200];
    ozblas_status_t st;
    /* pinned in blocks of 16 elements (a 64-bit hash each, stored as a double's bits): the
     * golden file names the first differing block */
    double sq[(BLD * BN + 15) / 16];
#define PIN(what, n)                                                                               \
    do {                                                                                           \
        const size_t nb_ = ((size_t)(n) + 15) / 16;                                                \
        fetch(o, od, (size_t)(n));                                                                 \
        for (size_t b_ = 0; b_ < nb_; b_++) {                                                      \
            const size_t e_ = (b_ + 1) * 16 < (size_t)(n) ? (b_ + 1) * 16 : (size_t)(n);            \
            const uint64_t hb_ = hash(o + b_ * 16, e_ - b_ * 16, OZBLAS_STATUS_SUCCESS);            \
            memcpy(&sq[b_], &hb_, sizeof hb_);                                                     \
        }                                                                                          \
        snprintf(name, sizeof name, "blas/%s/phi%g/%s", what, phi, tag);                          \
        record(name, st, sq, nb_);                                                                 \
    } while (0)
#define WITH(src, n) put(od, o, src, (size_t)(n))
    WITH(B, nm); st = ozblas_dtrsm(h, OZBLAS_LEFT, OZBLAS_UPPER, OZBLAS_OP_N, OZBLAS_NON_UNIT, BN, 5, -1.5, a, BLD, od, BLD); PIN("dtrsm-lunn", nm);
    WITH(B, nm); st = ozblas_dtrsm(h, OZBLAS_RIGHT, OZBLAS_LOWER, OZBLAS_OP_T, OZBLAS_UNIT, 5, BN, 1.0, a, BLD, od, BLD); PIN("dtrsm-rltu", nm);
    WITH(B, nm); st = ozblas_dtrmm(h, OZBLAS_LEFT, OZBLAS_LOWER, OZBLAS_OP_T, OZBLAS_NON_UNIT, BN, 5, 0.75, a, BLD, od, BLD); PIN("dtrmm-lltn", nm);
    WITH(C, nm); st = ozblas_dsyrk(h, OZBLAS_UPPER, OZBLAS_OP_N, BN, BK, 1.0, bm, BLD, 0.75, od, BLD); PIN("dsyrk-un", nm);
    WITH(C, nm); st = ozblas_dsyr2k(h, OZBLAS_LOWER, OZBLAS_OP_T, BN, BK, -1.5, bm, BLD, a, BLD, 1.0, od, BLD); PIN("dsyr2k-lt", nm);
    WITH(C, nm); st = ozblas_dsymm(h, OZBLAS_RIGHT, OZBLAS_UPPER, 5, BN, 1.0, a, BLD, bm, BLD, 0.5, od, BLD); PIN("dsymm-ru", nm);
#ifdef OZBLAS_TEST_HAVE_CUDA
    if (on_gpu) { cudaFree(a); cudaFree(bm); cudaFree(od); }
#endif
    od = o;   /* level 1 and 2: host memory, CPU handles */
    if (level3_only) goto done;
    WITH(y, 2 * BN); st = ozblas_dsymv(h, OZBLAS_LOWER, BN, -1.5, A, BLD, x, 1, 0.75, o, -2); PIN("dsymv-l", 2 * BN);
    WITH(x, 2 * BN); st = ozblas_dtrmv(h, OZBLAS_UPPER, OZBLAS_OP_T, OZBLAS_NON_UNIT, BN, A, BLD, o, 1); PIN("dtrmv-utn", 2 * BN);
    WITH(x, 2 * BN); st = ozblas_dtrsv(h, OZBLAS_LOWER, OZBLAS_OP_N, OZBLAS_UNIT, BN, A, BLD, o, 2); PIN("dtrsv-lnu", 2 * BN);
    WITH(C, nm); st = ozblas_dger(h, BN, BK, -0.3, x, 1, y, -1, o, BLD); PIN("dger", nm);
    WITH(C, nm); st = ozblas_dsyr(h, OZBLAS_UPPER, BN, 0.7, x, 2, o, BLD); PIN("dsyr-u", nm);
    WITH(C, nm); st = ozblas_dsyr2(h, OZBLAS_LOWER, BN, -1.25, x, 1, y, 1, o, BLD); PIN("dsyr2-l", nm);
    WITH(y, 2 * BN); st = ozblas_daxpy(h, BN, -0.3, x, 2, o, -1); PIN("daxpy", 2 * BN);
    WITH(y, 2 * BN); memcpy(o + 2 * BN, x, sizeof(double) * 2 * BN);
    st = ozblas_drot(h, 2 * BN, o + 2 * BN, 1, o, 1, 0.6, -0.8); PIN("drot", 4 * BN);
    int64_t im = 0;
    st = ozblas_dasum(h, 2 * BN, x, 1, &o[0]);
    if (st == OZBLAS_STATUS_SUCCESS) st = ozblas_dnrm2(h, 2 * BN, x, 1, &o[1]);
    if (st == OZBLAS_STATUS_SUCCESS) st = ozblas_idamax(h, 2 * BN, x, 1, &im);
    o[2] = (double)im;
    PIN("dasum-dnrm2-idamax", 3);
    /* the scalar constructions on the first 16 pairs (x_i, y_i): drotg's r, z, c, s, then
     * drotmg's d1, d2, x1 and param from (|x_i| 2^(4i - 32), y_i, x_i, y_i 2^(3i - 24)) */
    st = OZBLAS_STATUS_SUCCESS;
    for (int i = 0; i < 16 && st == OZBLAS_STATUS_SUCCESS; i++) {
        double *q = o + 4 * i;
        q[0] = x[i]; q[1] = y[i];
        st = ozblas_drotg(h, &q[0], &q[1], &q[2], &q[3]);
    }
    PIN("drotg", 64);
    st = OZBLAS_STATUS_SUCCESS;
    for (int i = 0; i < 16 && st == OZBLAS_STATUS_SUCCESS; i++) {
        double *q = o + 8 * i;
        q[0] = ldexp(fabs(x[i]), 4 * i - 32); q[1] = y[i]; q[2] = x[i];
        for (int k = 3; k < 8; k++) q[k] = 0.0;
        st = ozblas_drotmg(h, &q[0], &q[1], &q[2], ldexp(y[i], 3 * i - 24), q + 3);
    }
    PIN("drotmg", 128);
done:
#undef PIN
#undef WITH
    free(A); free(B); free(C); free(x); free(y); free(o);
}

static int configure(ozblas_handle_t h, const config_t *c, const format_t *f)
{
    if (ozblas_set_mode(h, c->mode) || ozblas_set_split_count(h, c->split) || ozblas_set_fast_mode(h, c->fast) ||
        ozblas_set_summation(h, c->sum) || ozblas_set_crt_scaling(h, f->scaling))
        return -1;
    return ozblas_set_engine(h, f->engine) == OZBLAS_STATUS_SUCCESS ? 0 : -1;
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "cpu";
    const int writing = !strcmp(what, "write");
    ozblas_handle_t h;
    if (!strcmp(what, "emulate")) {
        setenv("OZBLAS_CUDA_EMULATE", "1", 1);   /* read when the CUDA handle is created */
        if (ozblas_create_cuda(&h, 0) != OZBLAS_STATUS_SUCCESS) {
            printf("SKIP: no CUDA handle on the emulated device in this build\n");
            return 77;
        }
    } else if (!strcmp(what, "cuda")) {   /* GPU 0 (scripts/gpu_validate.sh): the same bits */
        if (ozblas_create_cuda(&h, 0) != OZBLAS_STATUS_SUCCESS) {
            printf("SKIP: no CUDA device: %s\n", ozblas_cuda_unavailable_reason(0));
            return 77;
        }
#ifndef OZBLAS_TEST_HAVE_CUDA
        printf("SKIP: test_golden was built without the CUDA runtime\n");
        return 77;
#endif
        on_gpu = 1;
    } else if (ozblas_create(&h) != OZBLAS_STATUS_SUCCESS) { printf("FAIL: ozblas_create\n"); return 1; }
    if (writing) {
        if (argc < 3 || !(wf = fopen(argv[2], "w"))) { fprintf(stderr, "usage: test_golden write FILE\n"); return 2; }
    } else {
        const char *path = getenv("OZBLAS_GOLDEN") ? getenv("OZBLAS_GOLDEN") : OZBLAS_GOLDEN_FILE;
        if (load(path)) { printf("FAIL: cannot read the golden file %s\n0 passed, 1 failed\n", path); return 1; }
    }
    char name[160];
    static const double phis[] = {0.5, 2.0};
    for (int s = 0; s < NSHAPE + NFALLBACK; s++) {
        const shape_t *sh = s < NSHAPE ? &shapes[s] : &fallbacks[s - NSHAPE];
        const int np = s < NSHAPE ? 2 : 1;
        for (int p = 0; p < np; p++) {
            const double phi = s < NSHAPE ? phis[p] : 1.0;
            const double alpha = s < NSHAPE ? (s % 2 ? -1.5 : 1.0) : 1.0, beta = s < NSHAPE ? (s % 2 ? 0.75 : 0.0) : 0.5;
            bufs_t b;
            make(sh, phi, 1000u + (uint64_t)s * 10u + (uint64_t)p, &b);
            double *out = malloc(sizeof(double) * b.nc);
            uint64_t cr_hash = 0;
            for (int f = 0; f < NFORMAT; f++)
                for (int c = 0; c < NCONFIG; c++) {
                    if (configure(h, &configs[c], &formats[f])) { printf("FAIL: cannot configure %s/%s\n", configs[c].name, formats[f].name); nfail++; continue; }
                    const ozblas_status_t st = run(h, sh, &b, alpha, beta, out);
                    snprintf(name, sizeof name, "%s/phi%g/%s/%s", sh->name, phi, formats[f].name, configs[c].name);
                    record(name, st, out, b.nc);
                    /* CORRECTLY_ROUNDED is unique: every format gives the same bits */
                    if (configs[c].mode == OZBLAS_MODE_CORRECTLY_ROUNDED && !writing) {
                        const uint64_t hc = hash(out, b.nc, st);
                        if (f == 0) cr_hash = hc;
                        else if (hc != cr_hash && nfail++ < 20) printf("FAIL %s: other bits than fp64's CORRECTLY_ROUNDED\n", name);
                    }
                }
            free(out);
            unmake(&b);
        }
    }
    /* the rest of the BLAS: the FP64 slices (whose DOUBLE is correctly rounded) and CRT_INT8
     * (whose DOUBLE is not), every mode; level 3 alone on CUDA handles */
    const int cpu = !strcmp(what, "cpu") || writing;
    for (int f = 0; f < NFORMAT; f += 3)
        for (int c = 0; c < NCONFIG; c++) {
            if (configure(h, &configs[c], &formats[f])) continue;
            snprintf(name, sizeof name, "%s/%s", formats[f].name, configs[c].name);
            for (int p = 0; p < 2; p++) blas_case(h, name, phis[p], 5000u + (uint64_t)p, !cpu);
        }
    ozblas_destroy(h);
    if (writing) { fclose(wf); printf("wrote %ld cases\n", ncases); return 0; }
    printf("test_golden %s: %ld cases, %ld differ from %s\n", what, ncases, nfail, OZBLAS_GOLDEN_FILE);
    printf(nfail ? "0 passed, 1 failed\n" : "1 passed, 0 failed\n");
    return nfail ? 1 : 0;
}
