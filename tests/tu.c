/* Shared helpers of the ozblas Check test suite (see tu.h). */
#define _POSIX_C_SOURCE 200809L
#include "tu.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef OZBLAS_TEST_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

uint64_t tu_seed = 0;

/* ---- the CUDA twin: OZBLAS_TEST_CUDA=1 (the GPU) or =emulate (the emulated device, host
 * memory) makes every runner below repeat its call on a CUDA handle configured like the
 * test's handle, with the operands in device memory, and assert the same bits as the CPU
 * handle's, padding and gaps included (CONTRACT §3: one result per configuration). */
static int twin_mode = 0;            /* 0 off, 1 GPU, 2 emulated */
static ozblas_handle_t twin_h = NULL;

static void *dev_alloc_copy(const double *host, size_t n)
{
    void *p = NULL;
    if (twin_mode == 2) { p = malloc(n * 8); ck_assert_ptr_nonnull(p); memcpy(p, host, n * 8); return p; }
#ifdef OZBLAS_TEST_HAVE_CUDA
    ck_assert_int_eq(cudaMalloc(&p, n * 8), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(p, host, n * 8, cudaMemcpyHostToDevice), cudaSuccess);
#endif
    return p;
}

static void dev_fetch_free(double *host, void *dev, size_t n)
{
    if (twin_mode == 2) { if (host) memcpy(host, dev, n * 8); free(dev); return; }
#ifdef OZBLAS_TEST_HAVE_CUDA
    if (host) ck_assert_int_eq(cudaMemcpy(host, dev, n * 8, cudaMemcpyDeviceToHost), cudaSuccess);
    ck_assert_int_eq(cudaFree(dev), cudaSuccess);
#else
    (void)host; (void)dev; (void)n;
#endif
}

void *tu_dev_copy(const double *host, size_t n) { return dev_alloc_copy(host, n); }
void  tu_dev_take(double *host, void *dev, size_t n) { dev_fetch_free(host, dev, n); }

int tu_twin_info(ozblas_info_t *info)
{
    if (!twin_h) return 0;
    ck_assert_int_eq(ozblas_get_info(twin_h, info), OZBLAS_STATUS_SUCCESS);
    return 1;
}

/* the twin of h (created once per test process), configured like h */
static ozblas_handle_t twin_of(ozblas_handle_t h)
{
    if (!twin_h) ck_assert_int_eq(ozblas_create_cuda(&twin_h, 0), OZBLAS_STATUS_SUCCESS);
    ozblas_mode_t mode; int sc, fast, thr; ozblas_summation_t sum; ozblas_engine_t eng; ozblas_crt_scaling_t crs; size_t ws;
    ck_assert_int_eq(ozblas_get_mode(h, &mode), 0);
    ck_assert_int_eq(ozblas_get_split_count(h, &sc), 0);
    ck_assert_int_eq(ozblas_get_fast_mode(h, &fast), 0);
    ck_assert_int_eq(ozblas_get_summation(h, &sum), 0);
    ck_assert_int_eq(ozblas_get_engine(h, &eng), 0);
    ck_assert_int_eq(ozblas_get_crt_scaling(h, &crs), 0);
    ck_assert_int_eq(ozblas_get_num_threads(h, &thr), 0);
    ck_assert_int_eq(ozblas_get_workspace_limit(h, &ws), 0);
    ozblas_set_mode(twin_h, mode);
    ozblas_set_split_count(twin_h, sc);
    ozblas_set_fast_mode(twin_h, fast);
    ozblas_set_summation(twin_h, sum);
    ck_assert_int_eq(ozblas_set_engine(twin_h, eng), OZBLAS_STATUS_SUCCESS);
    ozblas_set_crt_scaling(twin_h, crs);
    ozblas_set_num_threads(twin_h, thr);
    ozblas_set_workspace_limit(twin_h, ws);
    return twin_h;
}

double tu_timeout(double seconds)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_UNDEFINED__)
    return seconds * 6;
#else
    return seconds;
#endif
}

void tu_rng(ozref_rng *r, const char *tag)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (const char *c = tag; *c; c++) { h ^= (unsigned char)*c; h *= 0x100000001b3ULL; }
    ozref_rng_seed(r, tu_seed ^ h);
}

static int skip_noted;

void tu_skip_note(const char *name, const char *why)
{
    printf("SKIP (part of) %s: %s\n", name, why);
    fflush(stdout);
    skip_noted = 1;
}

int tu_main(const char *name, Suite *s)
{
    const char *env = getenv("OZBLAS_TEST_SEED");
    if (env && *env) tu_seed = strtoull(env, NULL, 0);
    else {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        tu_seed = (uint64_t)ts.tv_sec * 1000003ULL ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
    }
    printf("%s: seed %" PRIu64 " (reproduce with OZBLAS_TEST_SEED=%" PRIu64 ")\n",
           name, tu_seed, tu_seed);
    const char *tw = getenv("OZBLAS_TEST_CUDA");
    if (tw && strcmp(tw, "emulate") == 0) {
        twin_mode = 2;
        setenv("OZBLAS_CUDA_EMULATE", "1", 1);
        printf("%s: every call is repeated on a CUDA handle (emulated device) and compared bit for bit\n", name);
    } else if (tw && strcmp(tw, "1") == 0) {
        const char *why = ozblas_cuda_unavailable_reason(0);
#ifndef OZBLAS_TEST_HAVE_CUDA
        if (!why) why = "the tests were built without the CUDA runtime";
#endif
        if (why) {
            printf("SKIP %s on the GPU: %s\n", name, why);
            srunner_free(srunner_create(s));   /* frees the suite (LeakSanitizer) */
            return 77;                    /* ctest: SKIP_RETURN_CODE */
        }
        twin_mode = 1;
        printf("%s: every call is repeated on a CUDA handle (GPU 0) and compared bit for bit\n", name);
    }
    fflush(stdout);
    SRunner *sr = srunner_create(s);
    /* CUDA does not survive fork(): ozblas_cuda_unavailable_reason() above has initialised it
     * in this process, so on the GPU the tests run in it (CK_FORK=yes is honoured) */
    if (twin_mode == 1 && !getenv("CK_FORK")) srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (failed) printf("FAILED; seed %" PRIu64 " (reproduce with OZBLAS_TEST_SEED=%" PRIu64 ")\n", tu_seed, tu_seed);
    if (failed == 0 && skip_noted) {
        printf("%s: the cases that could run passed; reported as skipped (see SKIP above)\n", name);
        return 77;
    }
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

uint64_t tu_bits(double v) { uint64_t b; memcpy(&b, &v, 8); return b; }
double tu_from_bits(uint64_t b) { double v; memcpy(&v, &b, 8); return v; }
int tu_is_sentinel(double v) { return tu_bits(v) == TU_SENTINEL_BITS; }

void tu_fill_sentinel(double *p, size_t n)
{
    double s = tu_from_bits(TU_SENTINEL_BITS);
    for (size_t i = 0; i < n; i++) memcpy(p + i, &s, 8);
}

double *tu_alloc(size_t n)
{
    if (n == 0) n = 1;
    double *p = malloc(n * sizeof(double));
    ck_assert_msg(p != NULL, "out of memory (%zu doubles)", n);
    tu_fill_sentinel(p, n);
    return p;
}

void tu_fill_mat(ozref_rng *r, double *A, int64_t rows, int64_t cols, int64_t ld, double phi)
{
    for (int64_t j = 0; j < cols; j++) ozref_fill_phi(r, A + j * ld, rows, phi);
}

size_t tu_vec_len(int64_t n, int64_t inc)
{
    if (n <= 0) return 1;
    int64_t a = inc < 0 ? -inc : inc;
    return (size_t)(1 + (n - 1) * a);
}

double *tu_vec_elem(double *x, int64_t n, int64_t inc, int64_t i)
{
    return inc < 0 ? x + (n - 1 - i) * (-inc) : x + i * inc;
}

void tu_fill_vec(ozref_rng *r, double *x, int64_t n, int64_t inc, double phi)
{
    for (int64_t i = 0; i < n; i++) ozref_fill_phi(r, tu_vec_elem(x, n, inc, i), 1, phi);
}

const char *tu_mode_name(ozblas_mode_t mode)
{
    switch (mode) {
    case OZBLAS_MODE_DOUBLE: return "DOUBLE";
    case OZBLAS_MODE_CORRECTLY_ROUNDED: return "CR";
    case OZBLAS_MODE_FIXED: return "FIXED";
    default: return "?";
    }
}

ozblas_handle_t tu_handle(ozblas_mode_t mode)
{
    ozblas_handle_t h = NULL;
    ozblas_status_t st = ozblas_create(&h);
    ck_assert_msg(st == OZBLAS_STATUS_SUCCESS && h != NULL, "ozblas_create failed: %d", (int)st);
    st = ozblas_set_mode(h, mode);
    ck_assert_msg(st == OZBLAS_STATUS_SUCCESS, "ozblas_set_mode(%d) failed: %d", (int)mode, (int)st);
    return h;
}

static long double ulp_of(double v)
{
    if (!(fabs(v) >= 0x1.0p-1022)) return 0x1.0p-1074L;
    return ldexpl(1.0L, ilogb(v) - 52);
}

static int same_or_both_nan(double a, double b)
{
    return tu_bits(a) == tu_bits(b) || (isnan(a) && isnan(b));
}

void tu_check_values(ozblas_mode_t mode, int64_t n, const double *got, const double *ref,
                     const long double *absb, int64_t k, int64_t group, const char *ctx)
{
    const long double u = 0x1.0p-53L;
    if (group < 1) group = 1;
    for (int64_t g0 = 0; g0 < n; g0 += group) {
        int64_t g1 = g0 + group < n ? g0 + group : n;
        long double errsum = 0, bsum = 0, ulpsum = 0, worst = -1;
        int64_t iworst = g0;
        for (int64_t i = g0; i < g1; i++) {
            double gv = got[i], rv = ref[i];
            if (isinf(rv) && mode != OZBLAS_MODE_CORRECTLY_ROUNDED && isfinite(absb[i]) && !isnan(gv) &&
                signbit(gv) == signbit(rv) &&
                fabsl((long double)gv) + 4 * (k + 1) * u * absb[i] >= (long double)DBL_MAX)
                continue; /* finite inputs, exact result at the overflow threshold: DOUBLE/FIXED may round to DBL_MAX */
            if (!isfinite(rv)) {
                ck_assert_msg(same_or_both_nan(gv, rv),
                              "%s [%s]: output %" PRId64 ": got %a (%.17g), expected non-finite %a [seed %" PRIu64 "]",
                              ctx, tu_mode_name(mode), i, gv, gv, rv, tu_seed);
                continue;
            }
            if (mode == OZBLAS_MODE_CORRECTLY_ROUNDED) {
                ck_assert_msg(tu_bits(gv) == tu_bits(rv),
                              "%s [%s]: output %" PRId64 ": got %a (%.17g), expected RN(exact) %a (%.17g), %.3g ulps [seed %" PRIu64 "]",
                              ctx, tu_mode_name(mode), i, gv, gv, rv, rv, ozref_ulps(gv, rv), tu_seed);
                continue;
            }
            ck_assert_msg(!isnan(gv), "%s [%s]: output %" PRId64 ": spurious NaN, expected %a [seed %" PRIu64 "]",
                          ctx, tu_mode_name(mode), i, rv, tu_seed);
            if (isinf(gv)) {
                ck_assert_msg(absb[i] * (1 + 4 * (k + 1) * u) >= (long double)DBL_MAX,
                              "%s [%s]: output %" PRId64 ": spurious Inf %a, expected %a (abs bound %Lg) [seed %" PRIu64 "]",
                              ctx, tu_mode_name(mode), i, gv, rv, absb[i], tu_seed);
                continue;
            }
            if (mode == OZBLAS_MODE_DOUBLE) {
                long double e = fabsl((long double)gv - (long double)rv);
                errsum += e;
                bsum += absb[i];
                ulpsum += ulp_of(rv);
                long double rel = e / (4 * k * u * absb[i] + 4 * ulp_of(rv));
                if (rel > worst) { worst = rel; iworst = i; }
            }
        }
        if (mode == OZBLAS_MODE_DOUBLE) {
            long double bound = 4 * (long double)k * u * bsum + 4 * ulpsum;
            ck_assert_msg(errsum <= bound,
                          "%s [DOUBLE]: outputs %" PRId64 "..%" PRId64 ": error sum %Lg exceeds 4ku*sum(|alpha||A||B|+|beta||C|)+4ulp = %Lg; "
                          "worst output %" PRId64 ": got %a, exact %a, abs bound %Lg [seed %" PRIu64 "]",
                          ctx, g0, g1 - 1, errsum, bound, iworst, got[iworst], ref[iworst], absb[iworst], tu_seed);
        }
    }
}

void tu_check_bits(const double *got, const double *exp, size_t n, int nan_any, const char *ctx)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t g = tu_bits(got[i]), e = tu_bits(exp[i]);
        if (g == e) continue;
        if (nan_any && e != TU_SENTINEL_BITS && g != TU_SENTINEL_BITS && isnan(got[i]) && isnan(exp[i])) continue;
        ck_abort_msg("%s: element %zu differs: got %a (0x%016" PRIx64 "), expected %a (0x%016" PRIx64 ")%s [seed %" PRIu64 "]",
                     ctx, i, got[i], g, exp[i], e, e == TU_SENTINEL_BITS ? " (padding/gap overwritten)" : "", tu_seed);
    }
}

/* ------------------------------------------------------------------ GEMM */

void tu_gemm_sizes(const tu_gemm_params *p, int64_t *lda, int64_t *ldb, int64_t *ldc,
                   size_t *na, size_t *nb, size_t *nc)
{
    int64_t ra = p->ta ? p->k : p->m, ca = p->ta ? p->m : p->k;
    int64_t rb = p->tb ? p->n : p->k, cb = p->tb ? p->k : p->n;
    *lda = p->lda ? p->lda : (ra > 1 ? ra : 1);
    *ldb = p->ldb ? p->ldb : (rb > 1 ? rb : 1);
    *ldc = p->ldc ? p->ldc : (p->m > 1 ? p->m : 1);
    *na = (size_t)(*lda * (ca > 0 ? ca : 1));
    *nb = (size_t)(*ldb * (cb > 0 ? cb : 1));
    *nc = (size_t)(*ldc * (p->n > 0 ? p->n : 1));
}

void tu_gemm_run(ozblas_handle_t h, ozblas_mode_t mode, const tu_gemm_params *p,
                 const double *A, const double *B, double *C, const char *ctx)
{
    int64_t lda, ldb, ldc;
    size_t na, nb, nc;
    tu_gemm_sizes(p, &lda, &ldb, &ldc, &na, &nb, &nc);
    double *A0 = tu_alloc(na), *B0 = tu_alloc(nb), *C0 = tu_alloc(nc), *C1 = tu_alloc(nc);
    memcpy(A0, A, na * 8);
    memcpy(B0, B, nb * 8);
    memcpy(C0, C, nc * 8);
    char msg[512];
    snprintf(msg, sizeof msg, "%s: dgemm %c%c m=%" PRId64 " n=%" PRId64 " k=%" PRId64 " lda=%" PRId64 " ldb=%" PRId64
             " ldc=%" PRId64 " alpha=%a beta=%a", ctx, p->ta ? 'T' : 'N', p->tb ? 'T' : 'N', p->m, p->n, p->k,
             lda, ldb, ldc, p->alpha, p->beta);

    ozblas_status_t st = ozblas_dgemm(h, p->ta ? OZBLAS_OP_T : OZBLAS_OP_N, p->tb ? OZBLAS_OP_T : OZBLAS_OP_N,
                                      p->m, p->n, p->k, p->alpha, A, lda, B, ldb, p->beta, C, ldc);
    ck_assert_msg(st == OZBLAS_STATUS_SUCCESS, "%s [%s]: status %d (%s) [seed %" PRIu64 "]", msg,
                  tu_mode_name(mode), (int)st, ozblas_status_string(st), tu_seed);
    tu_check_bits(A, A0, na, 0, "A modified");
    tu_check_bits(B, B0, nb, 0, "B modified");
    /* padding of C untouched */
    for (int64_t j = 0; j < p->n; j++)
        for (int64_t i = p->m; i < ldc; i++)
            ck_assert_msg(tu_bits(C[i + j * ldc]) == tu_bits(C0[i + j * ldc]),
                          "%s [%s]: C padding (%" PRId64 ",%" PRId64 ") overwritten with %a [seed %" PRIu64 "]",
                          msg, tu_mode_name(mode), i, j, C[i + j * ldc], tu_seed);

    if (p->m > 0 && p->n > 0) {
        int64_t nrows = p->m;
        if (p->sample_rows > 0 && p->sample_rows + 2 < p->m) nrows = p->sample_rows + 2;
        int64_t cnt = nrows * p->n;
        double *got = malloc((size_t)cnt * 8), *ref = malloc((size_t)cnt * 8);
        long double *absb = malloc((size_t)cnt * sizeof(long double));
        ck_assert(got && ref && absb);
        for (int64_t s = 0; s < nrows; s++) {
            int64_t i = nrows == p->m ? s : (s == 0 ? 0 : s == nrows - 1 ? p->m - 1 : (s * 7919) % p->m);
            for (int64_t j = 0; j < p->n; j++) {
                double cin = C0[i + j * ldc];
                got[s * p->n + j] = C[i + j * ldc];
                ref[s * p->n + j] = ozref_dgemm_elem(p->ta, p->tb, i, j, p->k, p->alpha, A, lda, B, ldb, p->beta, cin);
                long double b = 0;
                if (p->alpha != 0) {
                    for (int64_t l = 0; l < p->k; l++) {
                        double a = p->ta ? A[l + i * lda] : A[i + l * lda];
                        double bb = p->tb ? B[j + l * ldb] : B[l + j * ldb];
                        b += fabsl((long double)a) * fabsl((long double)bb);
                    }
                    b *= fabsl((long double)p->alpha);
                }
                if (p->beta != 0) b += fabsl((long double)p->beta) * fabsl((long double)cin);
                absb[s * p->n + j] = b;
            }
        }
        ozblas_mode_t cm = (p->alpha == 0 || p->k == 0) ? OZBLAS_MODE_CORRECTLY_ROUNDED : mode;
        tu_check_values(cm, cnt, got, ref, absb, p->k, p->n, msg);
        free(got); free(ref); free(absb);
    }

    /* a repeated call gives the same bits */
    memcpy(C1, C0, nc * 8);
    st = ozblas_dgemm(h, p->ta ? OZBLAS_OP_T : OZBLAS_OP_N, p->tb ? OZBLAS_OP_T : OZBLAS_OP_N,
                      p->m, p->n, p->k, p->alpha, A, lda, B, ldb, p->beta, C1, ldc);
    ck_assert_int_eq(st, OZBLAS_STATUS_SUCCESS);
    char msg2[600];
    snprintf(msg2, sizeof msg2, "%s [%s] repeated call", msg, tu_mode_name(mode));
    tu_check_bits(C1, C, nc, 0, msg2);
    if (twin_mode) {                      /* the same call on the CUDA twin: the same bits */
        void *dA = dev_alloc_copy(A, na), *dB = dev_alloc_copy(B, nb), *dC = dev_alloc_copy(C0, nc);
        st = ozblas_dgemm(twin_of(h), p->ta ? OZBLAS_OP_T : OZBLAS_OP_N, p->tb ? OZBLAS_OP_T : OZBLAS_OP_N,
                          p->m, p->n, p->k, p->alpha, dA, lda, dB, ldb, p->beta, dC, ldc);
        ck_assert_msg(st == OZBLAS_STATUS_SUCCESS, "%s [%s] CUDA: status %d", msg, tu_mode_name(mode), (int)st);
        dev_fetch_free(C1, dC, nc);
        dev_fetch_free(NULL, dA, na);
        dev_fetch_free(NULL, dB, nb);
        snprintf(msg2, sizeof msg2, "%s [%s] CUDA handle against CPU handle", msg, tu_mode_name(mode));
        tu_check_bits(C1, C, nc, 0, msg2);
    }
    free(A0); free(B0); free(C0); free(C1);
}

void tu_gemm_random(ozblas_handle_t h, ozblas_mode_t mode, tu_gemm_params p, double phi,
                    ozref_rng *r, const char *tag)
{
    int64_t lda, ldb, ldc;
    size_t na, nb, nc;
    tu_gemm_sizes(&p, &lda, &ldb, &ldc, &na, &nb, &nc);
    double *A = tu_alloc(na), *B = tu_alloc(nb), *C = tu_alloc(nc);
    tu_fill_mat(r, A, p.ta ? p.k : p.m, p.ta ? p.m : p.k, lda, phi);
    tu_fill_mat(r, B, p.tb ? p.n : p.k, p.tb ? p.k : p.n, ldb, phi);
    if (p.beta != 0) tu_fill_mat(r, C, p.m, p.n, ldc, phi);
    else for (int64_t j = 0; j < p.n; j++) for (int64_t i = 0; i < p.m; i++) C[i + j * ldc] = NAN; /* never read */
    char ctx[256];
    snprintf(ctx, sizeof ctx, "%s phi=%g", tag, phi);
    tu_gemm_run(h, mode, &p, A, B, C, ctx);
    free(A); free(B); free(C);
}

/* ------------------------------------------------------------------ GEMV */

void tu_gemv_sizes(const tu_gemv_params *p, int64_t *lda, size_t *na, size_t *nx, size_t *ny)
{
    *lda = p->lda ? p->lda : (p->m > 1 ? p->m : 1);
    *na = (size_t)(*lda * (p->n > 0 ? p->n : 1));
    int64_t lenx = p->trans ? p->m : p->n, leny = p->trans ? p->n : p->m;
    *nx = tu_vec_len(lenx, p->incx);
    *ny = tu_vec_len(leny, p->incy);
}

void tu_gemv_run(ozblas_handle_t h, ozblas_mode_t mode, const tu_gemv_params *p,
                 const double *A, const double *x, double *y, const char *ctx)
{
    int64_t lda;
    size_t na, nx, ny;
    tu_gemv_sizes(p, &lda, &na, &nx, &ny);
    int64_t lenx = p->trans ? p->m : p->n, leny = p->trans ? p->n : p->m;
    double *A0 = tu_alloc(na), *x0 = tu_alloc(nx), *y0 = tu_alloc(ny), *yr = tu_alloc(ny), *y1 = tu_alloc(ny);
    memcpy(A0, A, na * 8);
    memcpy(x0, x, nx * 8);
    memcpy(y0, y, ny * 8);
    char msg[512];
    snprintf(msg, sizeof msg, "%s: dgemv %c m=%" PRId64 " n=%" PRId64 " lda=%" PRId64 " incx=%" PRId64
             " incy=%" PRId64 " alpha=%a beta=%a", ctx, p->trans ? 'T' : 'N', p->m, p->n, lda, p->incx, p->incy,
             p->alpha, p->beta);
    ozblas_status_t st = ozblas_dgemv(h, p->trans ? OZBLAS_OP_T : OZBLAS_OP_N, p->m, p->n, p->alpha, A, lda,
                                      x, p->incx, p->beta, y, p->incy);
    ck_assert_msg(st == OZBLAS_STATUS_SUCCESS, "%s [%s]: status %d (%s) [seed %" PRIu64 "]", msg,
                  tu_mode_name(mode), (int)st, ozblas_status_string(st), tu_seed);
    tu_check_bits(A, A0, na, 0, "A modified");
    tu_check_bits(x, x0, nx, 0, "x modified");

    /* reference; gaps of y (sentinel in y0) must be untouched: compare the full buffer positions
     * that are not output elements */
    memcpy(yr, y0, ny * 8);
    ozref_dgemv(p->trans, p->m, p->n, p->alpha, A, lda, x, p->incx, p->beta, yr, p->incy);
    if (p->m > 0 && p->n > 0) {
        unsigned char *isout = calloc(ny, 1);
        ck_assert(isout);
        for (int64_t i = 0; i < leny; i++) isout[tu_vec_elem(y0, leny, p->incy, i) - y0] = 1;
        for (size_t q = 0; q < ny; q++)
            if (!isout[q])
                ck_assert_msg(tu_bits(y[q]) == tu_bits(y0[q]), "%s [%s]: y gap %zu overwritten with %a [seed %" PRIu64 "]",
                              msg, tu_mode_name(mode), q, y[q], tu_seed);
        free(isout);
        double *got = malloc((size_t)leny * 8), *ref = malloc((size_t)leny * 8);
        long double *absb = malloc((size_t)leny * sizeof(long double));
        ck_assert(got && ref && absb);
        for (int64_t i = 0; i < leny; i++) {
            got[i] = *tu_vec_elem(y, leny, p->incy, i);
            ref[i] = *tu_vec_elem(yr, leny, p->incy, i);
            double cin = *tu_vec_elem(y0, leny, p->incy, i);
            long double b = 0;
            if (p->alpha != 0) {
                for (int64_t l = 0; l < lenx; l++) {
                    double a = p->trans ? A[l + i * lda] : A[i + l * lda];
                    double xv = *tu_vec_elem((double *)x, lenx, p->incx, l);
                    b += fabsl((long double)a) * fabsl((long double)xv);
                }
                b *= fabsl((long double)p->alpha);
            }
            if (p->beta != 0) b += fabsl((long double)p->beta) * fabsl((long double)cin);
            absb[i] = b;
        }
        ozblas_mode_t cm = (p->alpha == 0 || lenx == 0) ? OZBLAS_MODE_CORRECTLY_ROUNDED : mode;
        tu_check_values(cm, leny, got, ref, absb, lenx, 1, msg);
        free(got); free(ref); free(absb);
    } else {
        tu_check_bits(y, y0, ny, 0, msg); /* no-op */
    }

    memcpy(y1, y0, ny * 8);
    st = ozblas_dgemv(h, p->trans ? OZBLAS_OP_T : OZBLAS_OP_N, p->m, p->n, p->alpha, A, lda,
                      x, p->incx, p->beta, y1, p->incy);
    ck_assert_int_eq(st, OZBLAS_STATUS_SUCCESS);
    char msg2[600];
    snprintf(msg2, sizeof msg2, "%s [%s] repeated call", msg, tu_mode_name(mode));
    tu_check_bits(y1, y, ny, 0, msg2);
    if (twin_mode) {
        void *dA = dev_alloc_copy(A, na), *dx = dev_alloc_copy(x, nx), *dy = dev_alloc_copy(y0, ny);
        st = ozblas_dgemv(twin_of(h), p->trans ? OZBLAS_OP_T : OZBLAS_OP_N, p->m, p->n, p->alpha, dA, lda,
                          dx, p->incx, p->beta, dy, p->incy);
        ck_assert_msg(st == OZBLAS_STATUS_SUCCESS, "%s [%s] CUDA: status %d", msg, tu_mode_name(mode), (int)st);
        dev_fetch_free(y1, dy, ny);
        dev_fetch_free(NULL, dA, na);
        dev_fetch_free(NULL, dx, nx);
        snprintf(msg2, sizeof msg2, "%s [%s] CUDA handle against CPU handle", msg, tu_mode_name(mode));
        tu_check_bits(y1, y, ny, 0, msg2);
    }
    free(A0); free(x0); free(y0); free(yr); free(y1);
}

void tu_gemv_random(ozblas_handle_t h, ozblas_mode_t mode, tu_gemv_params p, double phi,
                    ozref_rng *r, const char *tag)
{
    int64_t lda;
    size_t na, nx, ny;
    tu_gemv_sizes(&p, &lda, &na, &nx, &ny);
    int64_t lenx = p.trans ? p.m : p.n, leny = p.trans ? p.n : p.m;
    double *A = tu_alloc(na), *x = tu_alloc(nx), *y = tu_alloc(ny);
    tu_fill_mat(r, A, p.m, p.n, lda, phi);
    tu_fill_vec(r, x, lenx, p.incx, phi);
    if (p.beta != 0) tu_fill_vec(r, y, leny, p.incy, phi);
    else for (int64_t i = 0; i < leny; i++) *tu_vec_elem(y, leny, p.incy, i) = NAN;
    char ctx[256];
    snprintf(ctx, sizeof ctx, "%s phi=%g", tag, phi);
    tu_gemv_run(h, mode, &p, A, x, y, ctx);
    free(A); free(x); free(y);
}

/* ------------------------------------------------------------------ DOT */

double tu_dot_run(ozblas_handle_t h, ozblas_mode_t mode, int64_t n, const double *x, int64_t incx,
                  const double *y, int64_t incy, const char *ctx)
{
    char msg[512];
    snprintf(msg, sizeof msg, "%s: ddot n=%" PRId64 " incx=%" PRId64 " incy=%" PRId64, ctx, n, incx, incy);
    size_t nx = tu_vec_len(n, incx), ny = tu_vec_len(n, incy);
    double *x0 = tu_alloc(nx), *y0 = tu_alloc(ny);
    memcpy(x0, x, nx * 8);
    memcpy(y0, y, ny * 8);
    double res = tu_from_bits(TU_SENTINEL_BITS);
    ozblas_status_t st = ozblas_ddot(h, n, x, incx, y, incy, &res);
    ck_assert_msg(st == OZBLAS_STATUS_SUCCESS, "%s [%s]: status %d (%s) [seed %" PRIu64 "]", msg,
                  tu_mode_name(mode), (int)st, ozblas_status_string(st), tu_seed);
    tu_check_bits(x, x0, nx, 0, "x modified");
    tu_check_bits(y, y0, ny, 0, "y modified");
    double ref = ozref_ddot(n, x, incx, y, incy);
    long double b = 0;
    for (int64_t i = 0; i < n; i++)
        b += fabsl((long double)*tu_vec_elem((double *)x, n, incx, i)) * fabsl((long double)*tu_vec_elem((double *)y, n, incy, i));
    tu_check_values(n <= 0 ? OZBLAS_MODE_CORRECTLY_ROUNDED : mode, 1, &res, &ref, &b, n > 0 ? n : 1, 1, msg);
    double res2 = 0;
    st = ozblas_ddot(h, n, x, incx, y, incy, &res2);
    ck_assert_int_eq(st, OZBLAS_STATUS_SUCCESS);
    ck_assert_msg(tu_bits(res2) == tu_bits(res), "%s [%s]: repeated call gave %a, first %a [seed %" PRIu64 "]",
                  msg, tu_mode_name(mode), res2, res, tu_seed);
    if (twin_mode) {
        void *dx = dev_alloc_copy(x, nx), *dy = dev_alloc_copy(y, ny);
        double res3 = 0;
        st = ozblas_ddot(twin_of(h), n, dx, incx, dy, incy, &res3);
        ck_assert_msg(st == OZBLAS_STATUS_SUCCESS, "%s [%s] CUDA: status %d", msg, tu_mode_name(mode), (int)st);
        dev_fetch_free(NULL, dx, nx);
        dev_fetch_free(NULL, dy, ny);
        ck_assert_msg(tu_bits(res3) == tu_bits(res), "%s [%s]: CUDA handle gave %a, CPU handle %a [seed %" PRIu64 "]",
                      msg, tu_mode_name(mode), res3, res, tu_seed);
    }
    free(x0); free(y0);
    return res;
}

void tu_dot_random(ozblas_handle_t h, ozblas_mode_t mode, int64_t n, int64_t incx, int64_t incy,
                   double phi, ozref_rng *r, const char *tag)
{
    size_t nx = tu_vec_len(n, incx), ny = tu_vec_len(n, incy);
    double *x = tu_alloc(nx), *y = tu_alloc(ny);
    if (incx == 0) ozref_fill_phi(r, x, 1, phi); else tu_fill_vec(r, x, n, incx, phi);
    if (incy == 0) ozref_fill_phi(r, y, 1, phi); else tu_fill_vec(r, y, n, incy, phi);
    char ctx[256];
    snprintf(ctx, sizeof ctx, "%s phi=%g", tag, phi);
    tu_dot_run(h, mode, n, x, incx, y, incy, ctx);
    free(x); free(y);
}
