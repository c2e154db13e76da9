/* test_preload: the interposer libozblas_preload.so, run with LD_PRELOAD (see CMakeLists.txt).
 *
 *   test_preload main        default configuration (CORRECTLY_ROUNDED): every layout and
 *                            transpose, strides and negative increments, the Fortran symbols,
 *                            many threads, one verbose line per call (no recursion)
 *   test_preload fixed       OZBLAS_PRELOAD_MODE=fixed SPLIT=2 FAST=1: same bits as ozblas_*
 *                            configured the same way
 *   test_preload threshold   OZBLAS_PRELOAD_MIN_SIZE=100: small calls go to the real BLAS
 *   test_preload fallback    OZBLAS_PRELOAD_TEST_FAIL=1: every call fails after ozblas wrote
 *                            its output; the output is restored and the real BLAS answers
 *   test_preload badenv      invalid values: one warning each, defaults used
 *   test_preload allocfail   OZBLAS_FAIL_ALLOC=1: the first call's workspace fails; C, never
 *                            copied, is as it was and the real BLAS answers
 *   test_preload partial     OZBLAS_FAIL_ALLOC=2: a DGEMM's workspace fails after part of C
 *                            was written: the process aborts with the reason
 *
 * References: ozblas_* from libozblas.so on explicit column-major copies (CORRECTLY_ROUNDED is
 * unique, so any layout must give the same bits) and the real OpenBLAS looked up directly.
 */
#define _GNU_SOURCE
#include "ozblas.h"
#include <cblas.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fortran_blas.h"

static int failures, checks;
#define CHECK(cond, ...) do { checks++; if (!(cond)) { failures++; fprintf(stdout, "FAIL %s:%d: ", __FILE__, __LINE__); \
                              fprintf(stdout, __VA_ARGS__); fputc('\n', stdout); } } while (0)

static ozblas_mode_t want_mode = OZBLAS_MODE_CORRECTLY_ROUNDED;
static int want_split = 3, want_fast = 0;

static ozblas_handle_t ref_handle(void)
{
    ozblas_handle_t h;
    if (ozblas_create(&h) != OZBLAS_STATUS_SUCCESS) { puts("FAIL ozblas_create"); exit(1); }
    ozblas_set_mode(h, want_mode);
    ozblas_set_split_count(h, want_split);
    ozblas_set_fast_mode(h, want_fast);
    return h;
}

static unsigned long long rng = 88172645463325252ull;
static double rnd(void)   /* wide exponent range, both signs: rounding matters */
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    double v = (double)(rng >> 11) / 9007199254740992.0 - 0.5;
    int e = (int)((rng >> 3) % 24) - 12;
    return v * (e >= 0 ? (double)(1 << e) : 1.0 / (double)(1 << -e));
}
static double *rnd_vec(size_t n) { double *v = malloc(n * sizeof *v); for (size_t i = 0; i < n; i++) v[i] = rnd(); return v; }
static int same(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* the interposer must be the cblas_dgemm this process sees */
static void check_active(void)
{
    Dl_info di;
    void *f = dlsym(RTLD_DEFAULT, "cblas_dgemm");
    int ok = f && dladdr(f, &di) && di.dli_fname && strstr(di.dli_fname, "libozblas_preload");
    CHECK(ok, "cblas_dgemm is not the interposer's (run under LD_PRELOAD=libozblas_preload.so)");
    if (!ok) { printf("%d checks, %d failures\n", checks, failures); exit(1); }
}

/* the real OpenBLAS (the library this program links), looked up in that library alone */
static void *real_sym(const char *name)
{
    Dl_info di;
    if (!dladdr((void *)&openblas_get_num_threads, &di)) return NULL;
    void *lib = dlopen(di.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    return lib ? dlsym(lib, name) : NULL;
}

/* the real BLAS's CBLAS DGEMM and DGEMV, the references of the fallback scenarios */
typedef void (*gemm_fn)(enum CBLAS_ORDER, enum CBLAS_TRANSPOSE, enum CBLAS_TRANSPOSE, blasint, blasint, blasint,
                        double, const double *, blasint, const double *, blasint, double, double *, blasint);
typedef void (*gemv_fn)(enum CBLAS_ORDER, enum CBLAS_TRANSPOSE, blasint, blasint, double, const double *, blasint,
                        const double *, blasint, double, double *, blasint);
static gemm_fn real_dgemm(void) { return (gemm_fn)real_sym("cblas_dgemm"); }
static gemv_fn real_dgemv(void) { return (gemv_fn)real_sym("cblas_dgemv"); }
typedef void (*rot_fn)(blasint, double *, blasint, double *, blasint, double, double);
typedef void (*rotm_fn)(blasint, double *, blasint, double *, blasint, const double *);

/* op(X) of a column-major matrix as an explicit column-major rows x cols copy */
static double *opcopy(const double *X, int64_t ld, int trans, int64_t rows, int64_t cols, int rowmajor)
{
    double *Y = malloc(sizeof(double) * (size_t)(rows * cols + 1));
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++) {
            int64_t r = trans ? j : i, c = trans ? i : j;          /* element (r, c) of X */
            Y[i + j * rows] = rowmajor ? X[r * ld + c] : X[r + c * ld];
        }
    return Y;
}

static const enum CBLAS_TRANSPOSE ctr[3] = { CblasNoTrans, CblasTrans, CblasConjTrans };

/* cblas_dgemm in both layouts and every transpose against ozblas_dgemm on explicit copies */
static int gemm_layouts(ozblas_handle_t ref)
{
    int calls = 0;
    const int64_t m = 23, n = 17, k = 29;
    for (int layout = 0; layout < 2; layout++)
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) {
                const int rm = layout == 1, ta = a > 0, tb = b > 0;
                /* stored shape of A: op(A) m x k; stored rows x cols in the layout's order */
                int64_t ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;
                int64_t lda = (rm ? ac : ar) + 3, ldb = (rm ? bc : br) + 2, ldc = (rm ? n : m) + 4;
                double *A = rnd_vec((size_t)(lda * (rm ? ar : ac))), *B = rnd_vec((size_t)(ldb * (rm ? br : bc)));
                size_t csz = (size_t)(ldc * (rm ? m : n));
                double *C = rnd_vec(csz), *C0 = malloc(csz * sizeof *C0);
                memcpy(C0, C, csz * sizeof *C);
                const double alpha = 0.75, beta = -1.25;
                cblas_dgemm(rm ? CblasRowMajor : CblasColMajor, ctr[a], ctr[b], (blasint)m, (blasint)n, (blasint)k,
                            alpha, A, (blasint)lda, B, (blasint)ldb, beta, C, (blasint)ldc);
                calls++;
                double *oA = opcopy(A, lda, ta, m, k, rm), *oB = opcopy(B, ldb, tb, k, n, rm);
                double *R = opcopy(C0, ldc, 0, m, n, rm);
                ozblas_status_t st = ozblas_dgemm(ref, OZBLAS_OP_N, OZBLAS_OP_N, m, n, k, alpha, oA, m, oB, k, beta, R, m);
                CHECK(st == OZBLAS_STATUS_SUCCESS, "ozblas_dgemm reference: %s", ozblas_status_string(st));
                int bad = 0, pad = 0;
                for (int64_t i = 0; i < m; i++)
                    for (int64_t j = 0; j < n; j++) {
                        size_t at = rm ? (size_t)(i * ldc + j) : (size_t)(i + j * ldc);
                        bad += !same(C[at], R[i + j * m]);
                    }
                for (size_t at = 0; at < csz; at++) {
                    int64_t i = rm ? (int64_t)at / ldc : (int64_t)at % ldc, j = rm ? (int64_t)at % ldc : (int64_t)at / ldc;
                    if (rm ? (j >= n) : (i >= m)) pad += !same(C[at], C0[at]);
                }
                CHECK(bad == 0 && pad == 0, "cblas_dgemm %s %d%d: %d elements differ from ozblas_dgemm, %d padding written",
                      rm ? "RowMajor" : "ColMajor", a, b, bad, pad);
                free(A); free(B); free(C); free(C0); free(oA); free(oB); free(R);
            }
    return calls;
}

/* cblas_dgemv / dgemv_ with strides and negative increments against ozblas_dgemv */
static int gemv_layouts(ozblas_handle_t ref)
{
    int calls = 0;
    const int64_t m = 31, n = 19;
    const int64_t incs[3][2] = { { 1, 1 }, { -2, 3 }, { 2, -1 } };
    for (int layout = 0; layout < 3; layout++)          /* 0 col, 1 row, 2 Fortran */
        for (int a = 0; a < 3; a++)
            for (int s = 0; s < 3; s++) {
                const int rm = layout == 1, ta = a > 0;
                const int64_t incx = incs[s][0], incy = incs[s][1];
                int64_t lda = (rm ? n : m) + 2;
                double *A = rnd_vec((size_t)(lda * (rm ? m : n)));
                int64_t xl = ta ? m : n, yl = ta ? n : m;
                size_t xs = (size_t)(xl * (incx < 0 ? -incx : incx)), ys = (size_t)(yl * (incy < 0 ? -incy : incy));
                double *x = rnd_vec(xs), *y = rnd_vec(ys), *y0 = malloc(ys * sizeof *y0);
                memcpy(y0, y, ys * sizeof *y);
                const double alpha = -0.5, beta = 3.0;
                if (layout < 2) {
                    cblas_dgemv(rm ? CblasRowMajor : CblasColMajor, ctr[a], (blasint)m, (blasint)n, alpha, A,
                                (blasint)lda, x, (blasint)incx, beta, y, (blasint)incy);
                } else {
                    const char tc[3] = { 'n', 't', 'C' };
                    int fm = (int)m, fn = (int)n, flda = (int)lda, fix = (int)incx, fiy = (int)incy;
                    dgemv_(&tc[a], &fm, &fn, &alpha, A, &flda, x, &fix, &beta, y, &fiy);
                }
                calls++;
                /* reference: explicit op(A) (yl x xl), x and y gathered in logical order */
                double *oA = opcopy(A, lda, ta, yl, xl, rm);
                double *xv = malloc((size_t)xl * sizeof *xv), *yv = malloc((size_t)yl * sizeof *yv);
                for (int64_t i = 0; i < xl; i++) xv[i] = x[incx > 0 ? i * incx : (xl - 1 - i) * -incx];
                for (int64_t i = 0; i < yl; i++) yv[i] = y0[incy > 0 ? i * incy : (yl - 1 - i) * -incy];
                ozblas_status_t st = ozblas_dgemv(ref, OZBLAS_OP_N, yl, xl, alpha, oA, yl, xv, 1, beta, yv, 1);
                CHECK(st == OZBLAS_STATUS_SUCCESS, "ozblas_dgemv reference: %s", ozblas_status_string(st));
                int bad = 0, other = 0;
                for (int64_t i = 0; i < yl; i++) bad += !same(y[incy > 0 ? i * incy : (yl - 1 - i) * -incy], yv[i]);
                int64_t aiy = incy < 0 ? -incy : incy;
                for (size_t i = 0; i < ys; i++) if (i % (size_t)aiy) other += !same(y[i], y0[i]);
                CHECK(bad == 0 && other == 0, "dgemv layout %d trans %d incs %d: %d elements differ, %d gaps written",
                      layout, a, s, bad, other);
                free(A); free(x); free(y); free(y0); free(oA); free(xv); free(yv);
            }
    return calls;
}

static int dots(ozblas_handle_t ref)
{
    int calls = 0;
    const int64_t n = 1000;
    const int64_t incs[4][2] = { { 1, 1 }, { -1, 2 }, { 3, -2 }, { 0, 1 } };
    for (int s = 0; s < 4; s++) {
        const int64_t ix = incs[s][0], iy = incs[s][1];
        size_t xs = (size_t)(n * (ix < 0 ? -ix : ix) + 1), ys = (size_t)(n * (iy < 0 ? -iy : iy) + 1);
        double *x = rnd_vec(xs), *y = rnd_vec(ys);
        double r1 = cblas_ddot((blasint)n, x, (blasint)ix, y, (blasint)iy);
        int fn = (int)n, fx = (int)ix, fy = (int)iy;
        double r2 = ddot_(&fn, x, &fx, y, &fy);
        calls += 2;
        double r = -1;
        ozblas_status_t st = ozblas_ddot(ref, n, x, ix, y, iy, &r);
        CHECK(st == OZBLAS_STATUS_SUCCESS && same(r1, r) && same(r2, r), "ddot incs %d: %.17g %.17g vs ozblas %.17g",
              s, r1, r2, r);
        free(x); free(y);
    }
    return calls;
}

/* An ill-conditioned case no summation order gets right in binary64: x = (1e16, 1, -1e16),
 * y = (1 + 2^-52, 1, 1); x.y = 1 + 1e16 2^-52 exactly (a double), while every naive order
 * gives 2, 3 or 4.  The second row (2, 1, -2) is exact either way. */
static int ill_conditioned(int expect_exact)
{
    const double u = 1.0 + 0x1p-52, exact = 1.0 + 1e16 * 0x1p-52;
    double x[3] = { 1e16, 1.0, -1e16 }, y[3] = { u, 1.0, 1.0 };
    double r = cblas_ddot(3, x, 1, y, 1);
    int three = 3, one = 1, two = 2;
    double rf = ddot_(&three, x, &one, y, &one);
    double A[2 * 3] = { 1e16, 2.0, 1.0, 1.0, -1e16, -2.0 };    /* 2 x 3 column-major */
    double C[2] = { 0, 0 }, yv[2] = { 0, 0 }, Cf[2] = { 0, 0 };
    const double al = 1.0, be = 0.0, row2 = 1.0 + 0x1p-51;
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 2, 1, 3, 1.0, A, 2, y, 3, 0.0, C, 2);
    dgemv_("N", &two, &three, &al, A, &two, y, &one, &be, yv, &one);
    dgemm_("n", "N", &two, &one, &three, &al, A, &two, y, &three, &be, Cf, &two);
    if (expect_exact) {
        CHECK(r == exact && rf == exact, "ill-conditioned ddot: %.17g %.17g, want %.17g", r, rf, exact);
        CHECK(C[0] == exact && yv[0] == exact && Cf[0] == exact, "ill-conditioned dgemm/dgemv_/dgemm_: %.17g %.17g %.17g",
              C[0], yv[0], Cf[0]);
    } else {
        CHECK(r != exact && rf != exact, "real BLAS ddot got the exact answer? %.17g %.17g", r, rf);
        CHECK(C[0] != exact && yv[0] != exact && Cf[0] != exact, "real BLAS gemm/gemv got the exact answer?");
    }
    CHECK(C[1] == row2 && yv[1] == row2 && Cf[1] == row2, "second row: %.17g %.17g %.17g", C[1], yv[1], Cf[1]);
    return 5;
}

/* Fortran dgemm_ with every transpose letter against cblas_dgemm (already checked) */
static int fortran_gemm(void)
{
    const char letters[6] = { 'N', 'n', 'T', 't', 'C', 'c' };
    const int m = 9, n = 7, k = 11, ld = 12;
    double *A = rnd_vec(ld * 12), *B = rnd_vec(ld * 12), *C = rnd_vec(ld * n), *D = malloc(sizeof(double) * ld * n);
    int calls = 0;
    for (int a = 0; a < 6; a++)
        for (int b = 0; b < 6; b += 3) {
            memcpy(D, C, sizeof(double) * ld * n);
            double *E = malloc(sizeof(double) * ld * n);
            memcpy(E, C, sizeof(double) * ld * n);
            const double al = 1.5, be = 0.5;
            dgemm_(&letters[a], &letters[b], &m, &n, &k, &al, A, &ld, B, &ld, &be, D, &ld);
            cblas_dgemm(CblasColMajor, a >= 2 ? CblasTrans : CblasNoTrans, b >= 2 ? CblasTrans : CblasNoTrans, m, n, k,
                        al, A, ld, B, ld, be, E, ld);
            calls += 2;
            CHECK(memcmp(D, E, sizeof(double) * ld * n) == 0, "dgemm_ %c%c differs from cblas_dgemm", letters[a], letters[b]);
            free(E);
        }
    free(A); free(B); free(C); free(D);
    return calls;
}

/* invalid arguments go to the real BLAS (its xerbla prints; OpenBLAS's returns) and the
 * output is not touched */
static int invalid_args(void)
{
    double A[4] = { 1, 2, 3, 4 }, C[4] = { 7, 7, 7, 7 };
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0, A, 1 /* lda < m */, A, 2, 0.0, C, 2);
    CHECK(C[0] == 7 && C[3] == 7, "invalid lda: C was written");
    double y[2] = { 7, 7 };
    cblas_dgemv(CblasColMajor, CblasNoTrans, 2, 2, 1.0, A, 2, A, 0 /* incx */, 0.0, y, 1);
    CHECK(y[0] == 7 && y[1] == 7, "invalid incx: y was written");
    return 2;
}

/* threads: each has its own handle; results equal the main thread's */
typedef struct { const double *A, *B; double *C; } job;
static void *worker(void *p)
{
    job *j = p;
    for (int r = 0; r < 3; r++)
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, 40, 30, 50, 1.0, j->A, 40, j->B, 30, 0.0, j->C, 40);
    return NULL;
}
static int threads(void)
{
    double *A = rnd_vec(40 * 50), *B = rnd_vec(30 * 50), *R = malloc(sizeof(double) * 40 * 30);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, 40, 30, 50, 1.0, A, 40, B, 30, 0.0, R, 40);
    enum { NT = 4 };
    pthread_t th[NT];
    job jobs[NT];
    for (int t = 0; t < NT; t++) {
        jobs[t] = (job){ A, B, malloc(sizeof(double) * 40 * 30) };
        pthread_create(&th[t], NULL, worker, &jobs[t]);
    }
    for (int t = 0; t < NT; t++) {
        pthread_join(th[t], NULL);
        CHECK(memcmp(jobs[t].C, R, sizeof(double) * 40 * 30) == 0, "thread %d differs", t);
        free(jobs[t].C);
    }
    free(A); free(B); free(R);
    return 1 + NT * 3;
}

/* ---- stderr capture (the verbose lines) ---- */
static int saved_fd = -1;
static FILE *cap;
static void capture_begin(void)
{
    fflush(stderr);
    cap = tmpfile();
    saved_fd = dup(2);
    dup2(fileno(cap), 2);
}
static char *capture_end(void)
{
    fflush(stderr);
    dup2(saved_fd, 2);
    close(saved_fd);
    long len = ftell(cap);
    char *s = calloc((size_t)len + 1, 1);
    rewind(cap);
    if (len > 0 && fread(s, 1, (size_t)len, cap) != (size_t)len) s[0] = 0;
    fclose(cap);
    return s;
}
static int count(const char *s, const char *needle)
{
    int c = 0;
    for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle)) c++;
    return c;
}

/* a large call: ozblas's own GEMMs on OpenMP workers (FP64 slices with OZBLAS_NO_CRT=1) */
static int large(ozblas_handle_t ref)
{
    const int n = 300;
    double *A = rnd_vec((size_t)n * n), *B = rnd_vec((size_t)n * n), *C = calloc((size_t)n * n, sizeof(double));
    double *R = calloc((size_t)n * n, sizeof(double));
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, A, n, B, n, 0.0, C, n);
    ozblas_dgemm(ref, OZBLAS_OP_N, OZBLAS_OP_N, n, n, n, 1.0, A, n, B, n, 0.0, R, n);
    CHECK(memcmp(C, R, sizeof(double) * n * n) == 0, "large dgemm differs from ozblas_dgemm");
    free(A); free(B); free(C); free(R);
    return 1;
}

static void scenario_main(void)
{
    ozblas_handle_t ref = ref_handle();
    ozblas_set_num_threads(ref, 2);
    capture_begin();
    int calls = 0;
    calls += ill_conditioned(1);
    calls += dots(ref);
    calls += gemm_layouts(ref);
    calls += gemv_layouts(ref);
    calls += fortran_gemm();
    calls += large(ref);
    calls += threads();
    int inval = invalid_args();
    calls += inval;
    char *log = capture_end();
    int lines = count(log, "ozblas_preload: ");
    int via_oz = count(log, "-> ozblas\n"), via_real = count(log, "-> real BLAS");
    CHECK(lines == calls, "%d verbose lines for %d calls (a recursion or a missing line)", lines, calls);
    CHECK(via_oz == calls - inval && via_real == inval, "%d calls through ozblas, %d to the real BLAS (want %d, %d)",
          via_oz, via_real, calls - inval, inval);
    CHECK(count(log, "re-entered") == 0, "re-entry seen");
    CHECK(strstr(log, "cblas_dgemm RowMajor TN m=23 n=17 k=29 mode=correctly_rounded format=fp64 -> ozblas") != NULL,
          "verbose line format");
    printf("main: %d intercepted calls, %d verbose lines\n", calls, lines);
    free(log);
    ozblas_destroy(ref);
}

static void scenario_fixed(void)
{
    want_mode = OZBLAS_MODE_FIXED; want_split = 2; want_fast = 1;
    ozblas_handle_t ref = ref_handle();
    dots(ref);
    gemm_layouts(ref);
    gemv_layouts(ref);
    large(ref);
    ozblas_destroy(ref);
}

static void scenario_threshold(void)
{
    capture_begin();
    ill_conditioned(0);   /* n = 3, 2*1*3, 2*3 are below 100: the real BLAS, naive answers */
    double x[120] = { 1e16, 1.0, -1e16 }, y[120];
    for (int i = 0; i < 120; i++) y[i] = 1.0;
    y[0] = 1.0 + 0x1p-52;
    double r = cblas_ddot(120, x, 1, y, 1);   /* 120 >= 100: ozblas */
    CHECK(r == 1.0 + 1e16 * 0x1p-52, "ddot n=120 above the threshold: %.17g", r);
    double A[25], B[25], C[25];
    for (int i = 0; i < 25; i++) A[i] = B[i] = 1.0 + i;
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 4, 4, 4, 1.0, A, 4, B, 4, 0.0, C, 4);   /* 64 */
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 5, 5, 4, 1.0, A, 5, B, 4, 0.0, C, 5);   /* 100 */
    char *log = capture_end();
    CHECK(count(log, "below OZBLAS_PRELOAD_MIN_SIZE") == 6, "6 calls below the threshold:\n%s", log);
    CHECK(count(log, "-> ozblas\n") == 2, "2 calls above it:\n%s", log);
    free(log);
}

static void scenario_fallback(void)
{
    gemm_fn real = real_dgemm();
    CHECK(real != NULL, "real cblas_dgemm not found");
    if (!real) return;
    capture_begin();
    ill_conditioned(0);   /* every call ends in the real BLAS */
    double *A = rnd_vec(30 * 20), *B = rnd_vec(20 * 25), *C = rnd_vec(30 * 25), *R = malloc(sizeof(double) * 30 * 25);
    memcpy(R, C, sizeof(double) * 30 * 25);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 30, 25, 20, 1.0, A, 30, B, 20, 2.0, C, 30);
    real(CblasColMajor, CblasNoTrans, CblasNoTrans, 30, 25, 20, 1.0, A, 30, B, 20, 2.0, R, 30);
    double y[30], yr[30];
    for (int i = 0; i < 30; i++) y[i] = yr[i] = rnd();
    cblas_dgemv(CblasColMajor, CblasNoTrans, 30, 20, 1.0, A, 30, B, 1, -1.0, y, 1);
    char *log = capture_end();
    CHECK(memcmp(C, R, sizeof(double) * 30 * 25) == 0, "fallback dgemm (beta = 2) differs from the real BLAS: C not restored?");
    /* again, smaller and then larger: the thread's kept save buffer reused, then grown */
    for (int pass = 0; pass < 2; pass++) {
        const int m = pass ? 30 : 12, n = pass ? 25 : 7;
        double *C2 = rnd_vec(30 * 25), *R2 = malloc(sizeof(double) * 30 * 25);
        memcpy(R2, C2, sizeof(double) * 30 * 25);
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, 20, 1.0, A, 30, B, 20, -1.0, C2, 30);
        real(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, 20, 1.0, A, 30, B, 20, -1.0, R2, 30);
        CHECK(memcmp(C2, R2, sizeof(double) * 30 * 25) == 0, "fallback dgemm %dx%d (beta = -1) differs from the real BLAS", m, n);
        free(C2); free(R2);
    }
    /* y = A x - y by the real dgemv */
    gemv_fn rv = real_dgemv();
    if (rv) rv(CblasColMajor, CblasNoTrans, 30, 20, 1.0, A, 30, B, 1, -1.0, yr, 1);
    CHECK(rv && memcmp(y, yr, sizeof y) == 0, "fallback dgemv (beta = -1) differs from the real BLAS");
    /* DROT and DROTM update x and y in place, uncopied except for this knob: both put back
     * before the real BLAS redoes the call (strided, so both saves are walked) */
    rot_fn rr = (rot_fn)real_sym("cblas_drot");
    rotm_fn rm = (rotm_fn)real_sym("cblas_drotm");
    double xs[40], ys[60], xr[40], yr2[60];
    const double param[5] = { -1.0, 0.7, -0.2, 1.3, 0.9 };
    for (int q = 0; q < 2; q++) {
        for (int i = 0; i < 40; i++) xs[i] = xr[i] = rnd();
        for (int i = 0; i < 60; i++) ys[i] = yr2[i] = rnd();
        capture_begin();
        if (q) cblas_drotm(20, xs, 2, ys, -3, param);
        else cblas_drot(20, xs, 2, ys, -3, 0.6, -0.8);
        char *lg = capture_end();
        if (q && rm) rm(20, xr, 2, yr2, -3, param);
        if (!q && rr) rr(20, xr, 2, yr2, -3, 0.6, -0.8);
        CHECK((q ? rm != NULL : rr != NULL) && memcmp(xs, xr, sizeof xs) == 0 && memcmp(ys, yr2, sizeof ys) == 0,
              "fallback %s differs from the real BLAS: x or y not put back?", q ? "drotm" : "drot");
        CHECK(count(lg, "(EXECUTION_FAILED)") == 1, "%s's fallback reported:\n%s", q ? "drotm" : "drot", lg);
        free(lg);
    }
    /* DROTG and DROTMG: their in-out scalars put back before the real BLAS redoes the call */
    typedef void (*rotg_fn)(double *, double *, double *, double *);
    typedef void (*rotmg_fn)(double *, double *, double *, double, double *);
    rotg_fn rg = (rotg_fn)real_sym("cblas_drotg");
    rotmg_fn rmg = (rotmg_fn)real_sym("cblas_drotmg");
    double ga = 0.3, gb = -0.7, gc, gs, ra = ga, rb = gb, rc, rs;
    capture_begin();
    cblas_drotg(&ga, &gb, &gc, &gs);
    char *lg = capture_end();
    if (rg) rg(&ra, &rb, &rc, &rs);
    CHECK(rg && ga == ra && gb == rb && gc == rc && gs == rs, "fallback drotg differs from the real BLAS: a or b not put back?");
    CHECK(count(lg, "(EXECUTION_FAILED)") == 1, "drotg's fallback reported:\n%s", lg);
    free(lg);
    double d1 = 2.0, d2 = 0.5, x1 = 3.0, p[5] = { 0 }, e1 = d1, e2 = d2, f1 = x1, q[5] = { 0 };
    capture_begin();
    cblas_drotmg(&d1, &d2, &x1, -4.0, p);
    lg = capture_end();
    if (rmg) rmg(&e1, &e2, &f1, -4.0, q);
    CHECK(rmg && d1 == e1 && d2 == e2 && x1 == f1 && memcmp(p, q, sizeof p) == 0,
          "fallback drotmg differs from the real BLAS: d1, d2 or x1 not put back?");
    CHECK(count(lg, "(EXECUTION_FAILED)") == 1, "drotmg's fallback reported:\n%s", lg);
    free(lg);
    CHECK(count(log, "(EXECUTION_FAILED)") == 7, "7 fallbacks reported:\n%s", log);
    free(log); free(A); free(B); free(C); free(R);
}

/* a DGEMV on a thread of its own (a fresh handle: its first buffer growth fails) */
typedef struct { const double *A, *x; double *y, *yr; } gemv_job;
static void *gemv_thread(void *p)
{
    gemv_job *g = p;
    gemv_fn rv = real_dgemv();
    cblas_dgemv(CblasColMajor, CblasNoTrans, 30, 20, 1.5, g->A, 30, g->x, 1, -1.0, g->y, 1);
    if (rv) rv(CblasColMajor, CblasNoTrans, 30, 20, 1.5, g->A, 30, g->x, 1, -1.0, g->yr, 1);
    CHECK(rv && memcmp(g->y, g->yr, sizeof(double) * 30) == 0, "dgemv after ALLOC_FAILED differs from the real BLAS: y written?");
    return NULL;
}

/* OZBLAS_FAIL_ALLOC=1: the first call's workspace cannot be allocated.  The interposer copies
 * no C before a DGEMM (nor y before a DGEMV): ozblas_dgemm leaves C as it was on such a
 * failure, so the real BLAS still answers with the caller's C (beta = 2), bit for bit; later
 * calls (the handle's later growths succeed) are ozblas's again.  The same for a DGEMV on a
 * thread of its own. */
static void scenario_allocfail(void)
{
    gemm_fn real = real_dgemm();
    CHECK(real != NULL, "real cblas_dgemm not found");
    if (!real) return;
    capture_begin();
    double *A = rnd_vec(30 * 20), *B = rnd_vec(20 * 25), *C = rnd_vec(30 * 25), *R = malloc(sizeof(double) * 30 * 25);
    memcpy(R, C, sizeof(double) * 30 * 25);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 30, 25, 20, 1.0, A, 30, B, 20, 2.0, C, 30);
    real(CblasColMajor, CblasNoTrans, CblasNoTrans, 30, 25, 20, 1.0, A, 30, B, 20, 2.0, R, 30);
    CHECK(memcmp(C, R, sizeof(double) * 30 * 25) == 0, "dgemm after ALLOC_FAILED differs from the real BLAS: C written?");
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 30, 25, 20, 1.0, A, 30, B, 20, 2.0, C, 30);
    double y[30], yr[30];
    for (int i = 0; i < 30; i++) y[i] = yr[i] = rnd();
    gemv_job g = { A, B, y, yr };
    pthread_t th;
    CHECK(pthread_create(&th, NULL, gemv_thread, &g) == 0, "pthread_create");
    pthread_join(th, NULL);
    char *log = capture_end();
    CHECK(count(log, "(ALLOC_FAILED)") == 2, "two fallbacks reported:\n%s", log);
    CHECK(count(log, "-> ozblas") == 1, "the second DGEMM served:\n%s", log);
    free(log); free(A); free(B); free(C); free(R);
}

/* OZBLAS_FAIL_ALLOC=2 on C - A B where the even columns of C are A B exactly (small integers:
 * their results cancel to zero, which the first stage leaves to a later one) and the odd ones
 * are not: the later stage's buffer fails after the odd columns were written.  The call can be
 * neither completed nor handed back (C's old values are gone): the interposer aborts with the
 * reason (CMakeLists.txt matches it). */
static void scenario_partial(void)
{
    enum { M = 24, N = 16, K = 12 };
    double A[M * K], B[K * N], C[M * N];
    for (int i = 0; i < M * K; i++) A[i] = (double)((i * 7) % 17) - 8.0;
    for (int i = 0; i < K * N; i++) B[i] = (double)((i * 5) % 13) - 6.0;
    for (int j = 0; j < N; j++)
        for (int i = 0; i < M; i++) {
            double s = 0.0;
            for (int l = 0; l < K; l++) s += A[i + l * M] * B[l + j * K];   /* exact: small integers */
            C[i + j * M] = j % 2 ? rnd() : s;
        }
    fflush(stdout);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, M, N, K, -1.0, A, M, B, K, 1.0, C, M);
    CHECK(0, "dgemm returned after its workspace failed midway (no abort)");
}

/* OZBLAS_FAIL_ALLOC=1 on a DROT whose pair 10 needs the pipeline (products near 2^1020 and
 * 2^-1000, beyond the exact short sums' span): its first buffer fails after the pair loop wrote
 * the other pairs in place.  x and y were not copied, so the interposer aborts with the reason
 * (CMakeLists.txt matches it). */
static void scenario_partial_rot(void)
{
    enum { N = 20 };
    double x[N], y[N];
    for (int i = 0; i < N; i++) { x[i] = rnd(); y[i] = rnd(); }
    x[10] = 0x1.8p1020;
    y[10] = -0x1.4p-1000;
    fflush(stdout);
    cblas_drot(N, x, 1, y, 1, 0.6, -0.8);
    CHECK(0, "drot returned after its workspace failed midway (no abort)");
}

static void scenario_badenv(void)
{
    capture_begin();
    ill_conditioned(1);   /* the defaults: CORRECTLY_ROUNDED, intercept everything */
    char *log = capture_end();
    CHECK(count(log, "warning: OZBLAS_PRELOAD_MODE='sloppy' is invalid") == 1, "mode warning:\n%s", log);
    CHECK(count(log, "warning: OZBLAS_PRELOAD_MIN_SIZE='-5' is invalid") == 1, "min size warning:\n%s", log);
    CHECK(count(log, "warning: OZBLAS_PRELOAD_THREADS='two' is invalid") == 1, "threads warning:\n%s", log);
    CHECK(count(log, "warning:") == 3, "exactly three warnings:\n%s", log);
    free(log);
}

int main(int argc, char **argv)
{
    const char *sc = argc > 1 ? argv[1] : "main";
    check_active();
    if (!strcmp(sc, "main")) scenario_main();
    else if (!strcmp(sc, "fixed")) scenario_fixed();
    else if (!strcmp(sc, "threshold")) scenario_threshold();
    else if (!strcmp(sc, "fallback")) scenario_fallback();
    else if (!strcmp(sc, "badenv")) scenario_badenv();
    else if (!strcmp(sc, "allocfail")) scenario_allocfail();
    else if (!strcmp(sc, "partial")) scenario_partial();
    else if (!strcmp(sc, "partial_rot")) scenario_partial_rot();
    else { printf("unknown scenario %s\n", sc); return 2; }
    printf("%s: %d checks, %d failures\n", sc, checks, failures);
    return failures ? 1 : 0;
}
