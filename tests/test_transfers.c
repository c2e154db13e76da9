/* test_transfers: a CUDA call on device operands stays on the device.  On the emulated device
 * (host memory standing in for the GPU's, the backend's code unchanged), every routine (GEMM,
 * GEMV N and T, DOT) in every mode (DOUBLE, CORRECTLY_ROUNDED, FIXED) and format (FP64, FP16,
 * INT8, CRT_INT8), on small, odd and larger shapes, with inputs of phi = 1 and phi = 4 (DOUBLE
 * with CRT_INT8 then leaves elements to its correctly rounded completion), must copy at most
 * 128 (M + N) + 32 KiB bytes between host and device (C is M x N: scalars, row scales, counts
 * and the CRT's constant tables), as ozblas_info_t's bytes_to_device and bytes_to_host report,
 * and must not be staged through the host (host_staged); and it must wait for the device no
 * more often than waits_budget says (device_waits: on a GPU each wait costs the launch
 * pipeline's drain, most of a small call's time).  The planted fault, the staged path
 * forced (OZBLAS_CUDA_STAGED=1: operands through the host), must fail it: ctest runs that as
 * test_transfers_staged, expected to fail. */
#define _POSIX_C_SOURCE 200809L
#include <ozblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int fails, checks, calls, completed;
static int64_t max_waits[3][4][4];
static double phi = 1.0;
#define CHECK(c, ...) do { checks++; if (!(c)) { fails++; printf("FAIL: "); printf(__VA_ARGS__); printf("\n"); } } while (0)

static uint64_t rng = 88172645463325252ull;
static double uni(void)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (double)(rng >> 11) * 0x1p-53;
}
/* the papers' generator (rand - 0.5) exp(phi randn) (randn by Box-Muller) */
static double gen(void)
{
    const double u1 = uni() + 0x1p-60, u2 = uni();
    return (uni() - 0.5) * exp(phi * sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
}
static double *vec(int64_t n)
{
    double *p = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    for (int64_t i = 0; i < n; i++) p[i] = gen();
    return p;
}

/* The waits for the device a call may make (ozblas_info_t's device_waits: each copy between host
 * and device and each synchronisation), routine r (0 gemm, 1 and 2 gemv, 3 dot), N output
 * columns; what each wait is for:
 *   DOUBLE, CRT_INT8  the rows' scales back, the certificate's operands there, its count back,
 *                     the scales' factors there, the end (and a DOT's result back);
 *   FIXED, CRT_INT8   the rows' scales back, their factors there, the end (a DOT's result);
 *   FIXED (slices)    the slice counts back, the end (or the DOT's result);
 *   CR and DOUBLE     GEMM: the rows' maxima back, the constants there (only where the
 *                     handle's device does not hold them for that many moduli yet), the
 *                     certificate back (the exact CRT), or the slice counts back and the end; GEMV: the
 *                     error-free sums' failure flag back (their results already put over y
 *                     where none failed); DOT: its result back.
 * Elements DOUBLE's certificate leaves add the completion: the window of their rows and columns
 * (found on the device, read back) and its correctly rounded call (three), or, a few of several
 * columns, each element alone (up to three waits each). */
static int64_t waits_budget(int mo, int fo, int r, int64_t N, int64_t fallbacks)
{
    int64_t w;
    if (fo == OZBLAS_ENGINE_CRT_INT8 && mo == OZBLAS_MODE_DOUBLE) w = r == 3 ? 6 : 5;
    else if (fo == OZBLAS_ENGINE_CRT_INT8 && mo == OZBLAS_MODE_FIXED) w = r == 3 ? 4 : 3;
    else if (mo == OZBLAS_MODE_FIXED) w = 2;
    else w = r == 0 ? 3 : 1;
    if (fallbacks > 0) w += 4 + (N > 1 && fallbacks <= 64 ? 3 * fallbacks : 0);
    return w;
}

int main(void)
{
    setenv("OZBLAS_CUDA_EMULATE", "1", 1);
    ozblas_handle_t h;
    if (ozblas_create_cuda(&h, 0) != OZBLAS_STATUS_SUCCESS) {
        printf("test_transfers: no emulated CUDA device in this build: %s\n", ozblas_cuda_unavailable_reason(0));
        return 77;
    }
    ozblas_destroy(h);
    static const char *mname[] = { "DOUBLE", "CR", "FIXED" }, *fname[] = { "FP64", "FP16", "INT8", "CRT_INT8" };
    static const char *rname[] = { "gemm", "gemv-n", "gemv-t", "dot" };
    const int64_t shapes[3][3] = { { 3, 5, 7 }, { 33, 17, 65 }, { 257, 129, 300 } };
    for (int ph = 0; ph < 2; ph++)
    for (int mo = 0; mo < 3; mo++)
        for (int fo = 0; fo < 4; fo++)
            for (int sh = 0; sh < 3; sh++)
                for (int r = 0; r < 4; r++) {
                    const int64_t m = shapes[sh][0], n = shapes[sh][1], k = shapes[sh][2];
                    phi = ph ? 4.0 : 1.0;
                    if (ozblas_create_cuda(&h, 0) != OZBLAS_STATUS_SUCCESS) { fails++; continue; }
                    ozblas_set_mode(h, (ozblas_mode_t)mo);
                    if (ozblas_set_engine(h, (ozblas_engine_t)fo) != OZBLAS_STATUS_SUCCESS) { ozblas_destroy(h); continue; }
                    double *A = vec(m * k), *B = vec(k * n), *C = vec(m * n), *x = vec(k), *y = vec(m), res = 0.0;
                    ozblas_status_t st;
                    int64_t M = m, N = n;
                    if (r == 0) st = ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, m, n, k, 1.0, A, m, B, k, 0.5, C, m);
                    else if (r == 1) { st = ozblas_dgemv(h, OZBLAS_OP_N, m, k, 1.0, A, m, x, 1, 0.5, y, 1); N = 1; }
                    else if (r == 2) { st = ozblas_dgemv(h, OZBLAS_OP_T, k, m, 1.0, A, k, x, 1, 0.5, y, 1); N = 1; }
                    else { st = ozblas_ddot(h, k, A, 1, x, 1, &res); M = N = 1; }
                    ozblas_info_t in;
                    ozblas_get_info(h, &in);
                    calls++;
                    const int64_t moved = in.bytes_to_device + in.bytes_to_host, bound = 128 * (M + N) + 32768;
                    char tag[96];
                    snprintf(tag, sizeof tag, "%s %s %s %lldx%lldx%lld phi %g", mname[mo], fname[fo], rname[r],
                             (long long)m, (long long)n, (long long)k, phi);
                    CHECK(st == OZBLAS_STATUS_SUCCESS, "%s: status %d", tag, (int)st);
                    CHECK(!in.host_staged && moved <= bound,
                          "%s: %lld bytes to the device and %lld back (at most %lld: O(m + n)), host_staged %d", tag,
                          (long long)in.bytes_to_device, (long long)in.bytes_to_host, (long long)bound, in.host_staged);
                    const int64_t wb = waits_budget(mo, fo, r, N, in.exact_fallbacks);
                    CHECK(in.device_waits <= wb, "%s: waited for the device %lld times (at most %lld)", tag,
                          (long long)in.device_waits, (long long)wb);
                    if (in.device_waits > max_waits[mo][fo][r]) max_waits[mo][fo][r] = in.device_waits;
                    if (mo == OZBLAS_MODE_DOUBLE && fo == OZBLAS_ENGINE_CRT_INT8) completed += in.exact_fallbacks > 0;
                    free(A); free(B); free(C); free(x); free(y);
                    ozblas_destroy(h);
                }
    /* DTRSM (left, lower, 16-row blocks): alpha b scaled first where alpha != 1 (one
     * synchronisation), each block's in-block rows one launch and the declined flag back (one
     * wait), each later block's update one GEMM problem (gemm's budget).  The count covers the
     * whole routine: alpha = 0.5 reports exactly one wait more than alpha = 1 (the scaling). */
    phi = 0.0;
    int64_t unscaled = 0;
    for (int mo = 0; mo < 3; mo++)
        for (int fo = 0; fo < 4; fo += 3)
            for (int sc = 0; sc < 2; sc++) {
                const int64_t m = 64, n = 33, blocks = 4;
                if (ozblas_create_cuda(&h, 0) != OZBLAS_STATUS_SUCCESS) { fails++; continue; }
                ozblas_set_mode(h, (ozblas_mode_t)mo);
                if (ozblas_set_engine(h, (ozblas_engine_t)fo) != OZBLAS_STATUS_SUCCESS) { ozblas_destroy(h); continue; }
                double *T = vec(m * m), *X = vec(m * n);
                /* uniform entries, well conditioned (off the diagonal below 1/32, the diagonal near
                 * 4): no element is left to DOUBLE's completion, whose waits gemm's budget leaves out */
                for (int64_t i = 0; i < m * m; i++) T[i] /= 16.0;
                for (int64_t i = 0; i < m; i++) T[i * (m + 1)] += 4.0;
                const double alpha = sc ? 0.5 : 1.0;
                const ozblas_status_t st = ozblas_dtrsm(h, OZBLAS_LEFT, OZBLAS_LOWER, OZBLAS_OP_N, OZBLAS_NON_UNIT, m, n, alpha,
                                                        T, m, X, m);
                ozblas_info_t in;
                ozblas_get_info(h, &in);
                calls++;
                const int64_t wb = sc + blocks + (blocks - 1) * waits_budget(mo, fo, 0, n, 0);
                CHECK(st == OZBLAS_STATUS_SUCCESS && !in.host_staged, "%s %s dtrsm %lldx%lld: status %d, host_staged %d",
                      mname[mo], fname[fo], (long long)m, (long long)n, (int)st, in.host_staged);
                CHECK(in.device_waits <= wb && (!sc || in.device_waits == unscaled + 1),
                      "%s %s dtrsm %lldx%lld alpha %g: waited for the device %lld times (at most %lld; alpha 1: %lld)",
                      mname[mo], fname[fo], (long long)m, (long long)n, alpha, (long long)in.device_waits, (long long)wb,
                      (long long)unscaled);
                unscaled = in.device_waits;
                printf("  dtrsm %-6s %-8s %lldx%lld alpha %g: %lld waits\n", mname[mo], fname[fo], (long long)m, (long long)n,
                       alpha, (long long)in.device_waits);
                free(T); free(X);
                ozblas_destroy(h);
            }
    /* the exact CRT's constants stay on the device between calls: a second CR GEMM of the same
     * moduli on the same handle waits twice (the rows' maxima back, the certificate back) */
    phi = 1.0;
    if (ozblas_create_cuda(&h, 0) == OZBLAS_STATUS_SUCCESS) {
        ozblas_set_mode(h, OZBLAS_MODE_CORRECTLY_ROUNDED);
        const int64_t m = 33, n = 17, k = 65;
        double *A = vec(m * k), *B = vec(k * n), *C = vec(m * n);
        int64_t w[2] = { 0, 0 };
        for (int r = 0; r < 2; r++) {
            const ozblas_status_t st = ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, m, n, k, 1.0, A, m, B, k, 0.5, C, m);
            ozblas_info_t in;
            ozblas_get_info(h, &in);
            CHECK(st == OZBLAS_STATUS_SUCCESS, "CR gemm again %d: status %d", r, (int)st);
            w[r] = in.device_waits;
            calls++;
        }
        CHECK(w[0] <= 3 && w[1] == 2, "CR gemm 33x17x65 twice on one handle: %lld then %lld waits (at most 3, then 2)",
              (long long)w[0], (long long)w[1]);
        free(A); free(B); free(C);
        ozblas_destroy(h);
    } else fails++;
    printf("test_transfers: %d calls checked; DOUBLE CRT_INT8 calls with elements completed correctly rounded: %d\n",
           calls, completed);
    printf("most waits for the device in one call (gemm, gemv-n, gemv-t, dot):\n");
    for (int mo = 0; mo < 3; mo++)
        for (int fo = 0; fo < 4; fo++)
            printf("  %-6s %-8s %lld %lld %lld %lld\n", mname[mo], fname[fo], (long long)max_waits[mo][fo][0],
                   (long long)max_waits[mo][fo][1], (long long)max_waits[mo][fo][2], (long long)max_waits[mo][fo][3]);
    CHECK(completed > 0, "no DOUBLE CRT_INT8 call left an element to the completion: the inputs do not reach it");
    printf("%d passed, %d failed\n", checks - fails, fails);
    return fails ? 1 : 0;
}
