/* Fault injection on the CUDA backend (the emulated device, src/cuda/dev.c): the n-th device
 * allocation, copy, kernel launch or cuBLAS call of a handle fails (OZBLAS_CUDA_FAIL_*), for
 * every n up to past the last such call of the routine, in the resident and staged paths and
 * the formats that reach them.  Each call then either succeeds with the CPU handle's bits (a
 * fallback took over) or returns EXECUTION_FAILED or ALLOC_FAILED with its output untouched;
 * DTRMM (CONTRACT §6, B holding Inf and NaN so that its elements are computed again after the
 * product) may also return PARTIAL, or ALLOC_FAILED, with B partly written; so may DTRSM (B
 * scaled by alpha first, then solved block by block, each block's rows written as solved),
 * whose partly written B may also hold rows not yet divided.  Either way the
 * handle stays usable: the same call again (the injected failure is past) gives the CPU's
 * bits.  Leaks: the sanitizer build's LeakSanitizer checks every run.
 * OZBLAS_TEST_CUDA=1 runs it on GPU 0 (scripts/gpu_validate.sh), skipped without one. */
#define _POSIX_C_SOURCE 200112L   /* setenv */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tu.h"

typedef struct { const char *name; ozblas_mode_t mode; ozblas_engine_t eng; int split, staged; size_t ws; } cfg_t;

static const cfg_t CFGS[] = {
    {"CR FP64", OZBLAS_MODE_CORRECTLY_ROUNDED, OZBLAS_ENGINE_FP64, 0, 0, 0},
    {"DOUBLE CRT_INT8", OZBLAS_MODE_DOUBLE, OZBLAS_ENGINE_CRT_INT8, 0, 0, 0},
    {"FIXED 3 INT8", OZBLAS_MODE_FIXED, OZBLAS_ENGINE_INT8, 3, 0, 0},
    {"FIXED 4 CRT_INT8", OZBLAS_MODE_FIXED, OZBLAS_ENGINE_CRT_INT8, 4, 0, 0},
    {"CR FP64 staged", OZBLAS_MODE_CORRECTLY_ROUNDED, OZBLAS_ENGINE_FP64, 0, 1, 0},
    {"FIXED 3 CRT_INT8 staged", OZBLAS_MODE_FIXED, OZBLAS_ENGINE_CRT_INT8, 3, 1, 0},
    /* a workspace small enough for several output tiles */
    {"CR FP64 tiled", OZBLAS_MODE_CORRECTLY_ROUNDED, OZBLAS_ENGINE_FP64, 0, 0, 48 << 10},
    {"FIXED 4 CRT_INT8 tiled", OZBLAS_MODE_FIXED, OZBLAS_ENGINE_CRT_INT8, 4, 0, 12 << 10},
};
#define NCFG ((int)(sizeof CFGS / sizeof CFGS[0]))
static const char *KNOBS[4] = {"OZBLAS_CUDA_FAIL_ALLOC", "OZBLAS_CUDA_FAIL_COPY", "OZBLAS_CUDA_FAIL_LAUNCH",
                               "OZBLAS_CUDA_FAIL_BLAS"};
static int on_gpu;   /* OZBLAS_TEST_CUDA=1 */
/* The n-th call of each kind fails, for n = 1 up to NMAX (DOT, GEMV and GEMM: NMAX_BLAS) and on
 * until TAIL calls in a row succeed after the last failure: a routine's count of calls depends
 * on its data (DOUBLE CRT_INT8's GEMM completes more elements on some of the random inputs,
 * with some 80 launches), and no routine makes NCAP (asserted) */
#define NMAX 100
#define NMAX_BLAS 60
#define TAIL 25
#define NCAP 1000

enum { R_DOT, R_GEMV, R_GEMM, R_TRMM, R_TRSM, NR };
#define M 23
#define N 19
#define K 37

typedef struct { double A[M * K], B[K * N], x[K], y[M], C0[M * N], T0[M * N]; } inputs_t;

static size_t out_len(int r) { return r == R_DOT ? 1 : r == R_GEMV ? M : (size_t)M * N; }

/* the routine r on h into out (the output buffer, pre-filled with the initial C / y); on the
 * GPU a CUDA handle's operands and C / y are in device memory (DOT's result is a host scalar) */
static ozblas_status_t run_on(ozblas_handle_t h, int r, const double *A, const double *B, const double *x, double *out)
{
    switch (r) {
    case R_DOT: return ozblas_ddot(h, K, A, 1, x, 1, out);
    case R_GEMV: return ozblas_dgemv(h, OZBLAS_OP_N, M, K, 0.75, A, M, x, 1, -0.5, out, 1);
    case R_TRMM: return ozblas_dtrmm(h, OZBLAS_LEFT, OZBLAS_LOWER, OZBLAS_OP_N, OZBLAS_NON_UNIT, M, N, -0.75, A, M, out, M);
    case R_TRSM: return ozblas_dtrsm(h, OZBLAS_LEFT, OZBLAS_LOWER, OZBLAS_OP_N, OZBLAS_NON_UNIT, M, N, -0.75, A, M, out, M);
    default: return ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, M, N, K, 1.25, A, M, B, K, 0.5, out, M);
    }
}
static ozblas_status_t run(ozblas_handle_t h, int cuda, int r, const inputs_t *in, double *out)
{
    if (!cuda || !on_gpu) return run_on(h, r, in->A, in->B, in->x, out);   /* host memory: CPU or emulated */
    double *A = tu_dev_copy(in->A, M * K), *B = tu_dev_copy(in->B, K * N), *x = tu_dev_copy(in->x, K);
    double *o = r == R_DOT ? NULL : tu_dev_copy(out, out_len(r));
    const ozblas_status_t st = run_on(h, r, A, B, x, r == R_DOT ? out : o);
    tu_dev_take(NULL, A, M * K); tu_dev_take(NULL, B, K * N); tu_dev_take(NULL, x, K);
    if (o) tu_dev_take(out, o, out_len(r));
    return st;
}
static void out_init(int r, const inputs_t *in, double *out)
{
    if (r == R_DOT) out[0] = 0.0;
    else memcpy(out, r == R_GEMV ? in->y : r == R_TRMM ? in->T0 : in->C0, sizeof(double) * out_len(r));
}

static ozblas_handle_t make(const cfg_t *c, int cuda)
{
    ozblas_handle_t h = NULL;
    if (cuda) ck_assert_int_eq(ozblas_create_cuda(&h, 0), OZBLAS_STATUS_SUCCESS);
    else ck_assert_int_eq(ozblas_create(&h), OZBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(ozblas_set_mode(h, c->mode), OZBLAS_STATUS_SUCCESS);
    if (ozblas_set_engine(h, c->eng) != OZBLAS_STATUS_SUCCESS) { ozblas_destroy(h); return NULL; }
    if (c->split) ck_assert_int_eq(ozblas_set_split_count(h, c->split), OZBLAS_STATUS_SUCCESS);
    if (c->ws) ck_assert_int_eq(ozblas_set_workspace_limit(h, c->ws), OZBLAS_STATUS_SUCCESS);
    return h;
}

static int same_bits(const double *a, const double *b, size_t n) { return memcmp(a, b, sizeof(double) * n) == 0; }

START_TEST(faults)
{
    const cfg_t *c = &CFGS[_i];
    static inputs_t in;
    ozref_rng rng;
    tu_rng(&rng, c->name);
    tu_fill_mat(&rng, in.A, M, K, M, 1.0);
    tu_fill_mat(&rng, in.B, K, N, K, 1.0);
    tu_fill_vec(&rng, in.x, K, 1, 1.0);
    tu_fill_vec(&rng, in.y, M, 1, 1.0);
    tu_fill_mat(&rng, in.C0, M, N, M, 1.0);
    /* DTRMM's B: an Inf and a -Inf in column 4 (rows 1 and 4: rows 1 to 3 computed again one
     * problem each, through the host), an Inf in column 2, a NaN */
    memcpy(in.T0, in.C0, sizeof in.T0);
    in.T0[5 + 2 * M] = INFINITY;
    in.T0[1 + 4 * M] = INFINITY;
    in.T0[4 + 4 * M] = -INFINITY;
    in.T0[0 + 7 * M] = NAN;
    if (!on_gpu) setenv("OZBLAS_CUDA_EMULATE", "1", 1);
    if (c->staged) setenv("OZBLAS_CUDA_STAGED", "1", 1);
    else unsetenv("OZBLAS_CUDA_STAGED");
    double ref[M * N], out[M * N], before[M * N];
    int failed_runs = 0;
    for (int r = 0; r < NR; r++) {
        ozblas_handle_t cpu = make(c, 0);
        if (!cpu) return;                                  /* an engine this build lacks */
        out_init(r, &in, ref);
        ck_assert_int_eq(run(cpu, 0, r, &in, ref), OZBLAS_STATUS_SUCCESS);
        ozblas_destroy(cpu);
        for (int kind = 0; kind < 4; kind++) {
            int last_hit = 0;
            const int nmax = r >= R_TRMM ? NMAX : NMAX_BLAS;
            for (int n = 1; n <= nmax || n <= last_hit + TAIL; n++) {
                ck_assert_msg(n < NCAP, "%s routine %d %s: failures up to n = %d", c->name, r, KNOBS[kind], last_hit);
                char v[16];
                snprintf(v, sizeof v, "%d", n);
                setenv(KNOBS[kind], v, 1);
                ozblas_handle_t h = make(c, 1);
                unsetenv(KNOBS[kind]);
                out_init(r, &in, out);
                memcpy(before, out, sizeof(double) * out_len(r));
                const ozblas_status_t st = run(h, 1, r, &in, out);
                if (st == OZBLAS_STATUS_SUCCESS) {
                    ck_assert_msg(same_bits(out, ref, out_len(r)), "%s routine %d %s=%d: success with other bits than the CPU's",
                                  c->name, r, KNOBS[kind], n);
                } else {
                    ck_assert_msg(st == OZBLAS_STATUS_EXECUTION_FAILED || st == OZBLAS_STATUS_ALLOC_FAILED ||
                                      (r >= R_TRMM && st == OZBLAS_STATUS_PARTIAL),
                                  "%s routine %d %s=%d: status %d", c->name, r, KNOBS[kind], n, (int)st);
                    /* (CONTRACT §4: the routines of §6 may leave B partly written on ALLOC_FAILED):
                     * then each element the old one, the CPU's, or the product's NaN not yet
                     * computed again */
                    const int partial_ok = st == OZBLAS_STATUS_PARTIAL || (r >= R_TRMM && st == OZBLAS_STATUS_ALLOC_FAILED);
                    ck_assert_msg(same_bits(out, before, out_len(r)) || partial_ok,
                                  "%s routine %d %s=%d: failed with status %d and wrote its output", c->name, r, KNOBS[kind],
                                  n, (int)st);
                    for (size_t e = 0; partial_ok && r == R_TRMM && e < out_len(r); e++)
                        ck_assert_msg(same_bits(&out[e], &before[e], 1) || same_bits(&out[e], &ref[e], 1) || isnan(out[e]),
                                      "%s routine %d %s=%d: status %d, element %zu neither old, nor the CPU's, nor NaN",
                                      c->name, r, KNOBS[kind], n, (int)st, e);
                    last_hit = n;
                    failed_runs++;
                    out_init(r, &in, out);                 /* the handle still works */
                    ck_assert_int_eq(run(h, 1, r, &in, out), OZBLAS_STATUS_SUCCESS);
                    ck_assert_msg(same_bits(out, ref, out_len(r)), "%s routine %d %s=%d: the call after the failure differs",
                                  c->name, r, KNOBS[kind], n);
                }
                if (c->ws && r == R_GEMM && kind == 0 && n == 1) {
                    ozblas_info_t info;
                    ck_assert_int_eq(ozblas_get_info(h, &info), OZBLAS_STATUS_SUCCESS);
                    ck_assert_msg(info.blocks > 1, "%s: %lld tiles, not several", c->name, (long long)info.blocks);
                }
                ozblas_destroy(h);
            }
        }
    }
    ck_assert_msg(failed_runs > 0, "%s: no injected failure reached the caller", c->name);
    printf("%s: %d injected failures reported to the caller\n", c->name, failed_runs);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("device_faults");
    TCase *tc = tcase_create("faults");
    tcase_set_timeout(tc, tu_timeout(300));
    tcase_add_loop_test(tc, faults, 0, NCFG);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    /* the emulated device (in every build); OZBLAS_TEST_CUDA=1: GPU 0, skipped without one */
    const char *t = getenv("OZBLAS_TEST_CUDA");
    on_gpu = t && strcmp(t, "1") == 0;
    if (on_gpu && ozblas_cuda_unavailable_reason(0)) {
        tu_skip_note("test_device_faults", ozblas_cuda_unavailable_reason(0));
        return 77;
    }
    return tu_main("test_device_faults", suite());
}
