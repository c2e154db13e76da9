/* The one owner of every call into OpenBLAS and oneDNN (blas_gate.h).
 *
 * Why a gate (measured): Debian's OpenMP build of OpenBLAS keeps its thread count
 * (blas_cpu_number) and its threading buffers process-wide.  openblas_set_num_threads frees
 * the buffers of the threads it drops, so lowering the count while another thread's
 * multi-threaded DGEMM runs corrupts that DGEMM (a 200^3 DGEMM on one handle next to a
 * DDOT on another, with the count changed around each call: 95 of 100 products wrong,
 * relative errors up to 2.4e3); two multi-threaded DGEMMs at once share the buffers too
 * (2^-26 relative errors).  Inside an active OpenMP region OpenBLAS runs a call on
 * the calling thread alone (num_cpu_avail returns 1 when omp_in_parallel()) and uses no
 * shared buffer; every other call is serialized here, and the thread count is only ever
 * changed while holding the lock. */
#include "cpu/blas_gate.h"
#include <cblas.h>
#include <omp.h>
#include <pthread.h>
#ifdef OZBLAS_HAVE_DNNL
#include <oneapi/dnnl/dnnl.h>
#endif

static pthread_mutex_t gate_mu = PTHREAD_MUTEX_INITIALIZER;

/* OpenBLAS threads a DGEMM only above m n k = 65536 * GEMM_MULTITHREAD_THRESHOLD (4) (its
 * interface/gemm.c): below that a request for one thread needs no change of the count. */
#define OZB_BLAS_SMALL_MNK 262144.0

typedef struct { int locked, icv; } gate_t;

/* Enter for a call on at most `threads` threads; `mnk` sizes the product. */
static gate_t enter(int threads, double mnk, int blas)
{
    gate_t g = {0, 0};
    if (omp_in_parallel()) return g;            /* on this thread alone; nothing shared */
    if (threads < 1) threads = 1;
    pthread_mutex_lock(&gate_mu);
    g.locked = 1;
    g.icv = omp_get_max_threads();
    if (g.icv != threads) omp_set_num_threads(threads);   /* this thread's; oneDNN and newer OpenBLAS read it */
    if (blas && openblas_get_num_threads() != threads && !(threads == 1 && mnk <= OZB_BLAS_SMALL_MNK))
        openblas_set_num_threads(threads);
    return g;
}

static void leave(gate_t g)
{
    if (!g.locked) return;
    if (omp_get_max_threads() != g.icv) omp_set_num_threads(g.icv);
    pthread_mutex_unlock(&gate_mu);
}

void ozb_gate_dgemm(int threads, int ta, int tb, int64_t m, int64_t n, int64_t k, const double *A, int64_t lda,
                    const double *B, int64_t ldb, double *C, int64_t ldc)
{
    const gate_t g = enter(threads, (double)m * (double)n * (double)k, 1);
    cblas_dgemm(CblasColMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, (blasint)m, (blasint)n,
                (blasint)k, 1.0, A, (blasint)lda, B, (blasint)ldb, 0.0, C, (blasint)ldc);
    leave(g);
}

#ifdef OZBLAS_HAVE_DNNL
int ozb_gate_gemm_s8s8s32(int threads, char ta, char tb, int64_t m, int64_t n, int64_t k, const int8_t *A,
                          int64_t lda, const int8_t *B, int64_t ldb, int32_t *C, int64_t ldc)
{
    const int32_t co = 0;
    const gate_t g = enter(threads, 0.0, 0);
    const dnnl_status_t s = dnnl_gemm_s8s8s32(ta, tb, 'F', m, n, k, 1.0f, A, lda, 0, B, ldb, 0, 0.0f, C, ldc, &co);
    leave(g);
    return s == dnnl_success ? 0 : -1;
}

int ozb_gate_gemm_u8s8s32(int threads, char ta, char tb, int64_t m, int64_t n, int64_t k, const uint8_t *A,
                          int64_t lda, const int8_t *B, int64_t ldb, int32_t *C, int64_t ldc)
{
    const int32_t co = 0;
    const gate_t g = enter(threads, 0.0, 0);
    const dnnl_status_t s = dnnl_gemm_u8s8s32(ta, tb, 'F', m, n, k, 1.0f, A, lda, 0, B, ldb, 0, 0.0f, C, ldc, &co);
    leave(g);
    return s == dnnl_success ? 0 : -1;
}

/* oneDNN's int8 GEMM is exact only where the CPU has a dot-product instruction that
 * accumulates in int32 (AVX512-VNNI, AVX-VNNI, AMX).  On plain AVX2/AVX-512 it uses
 * vpmaddubsw, which adds two u8 x s8 products in int16 with saturation: 255 * 127 * 2 >
 * 2^15, so results are silently wrong (measured on an AVX2 EPYC: -29417 for -52218).
 * The probe: 2 x 2 products over k = 64 of operands at the extremes (+-127, -128, 255) and
 * mixed signs, through both calls the library makes, against int64 sums. */
static int dnnl_exact;
static pthread_once_t dnnl_once = PTHREAD_ONCE_INIT;

static void dnnl_probe(void)
{
    enum { K = 64 };
    int8_t a[2 * K], b[2 * K];
    uint8_t u[2 * K];
    int32_t c[4];
    int ok = 1;
    for (int pat = 0; pat < 3 && ok; pat++) {
        for (int l = 0; l < 2 * K; l++) {
            const int r = (l * 37 + pat * 11) % 7;
            a[l] = pat == 0 ? 127 : pat == 1 ? -128 : (int8_t)(r < 3 ? 127 : r < 5 ? -128 : r - 3);
            b[l] = pat == 1 ? -128 : (int8_t)(r < 4 ? 127 : -128);
            u[l] = (uint8_t)(pat == 2 ? (r < 5 ? 255 : r) : 255);
        }
        /* row-major 2 x K times (2 x K)^T */
        if (ozb_gate_gemm_s8s8s32(1, 'N', 'T', 2, 2, K, a, K, b, K, c, 2)) ok = 0;
        for (int i = 0; i < 2 && ok; i++)
            for (int j = 0; j < 2; j++) {
                int64_t s = 0;
                for (int l = 0; l < K; l++) s += (int64_t)a[i * K + l] * b[j * K + l];
                if (c[i * 2 + j] != s) ok = 0;
            }
        if (ok && ozb_gate_gemm_u8s8s32(1, 'N', 'T', 2, 2, K, u, K, b, K, c, 2)) ok = 0;
        for (int i = 0; i < 2 && ok; i++)
            for (int j = 0; j < 2; j++) {
                int64_t s = 0;
                for (int l = 0; l < K; l++) s += (int64_t)u[i * K + l] * b[j * K + l];
                if (c[i * 2 + j] != s) ok = 0;
            }
    }
    dnnl_exact = ok;
}

int ozb_gate_dnnl_exact(void)
{
    pthread_once(&dnnl_once, dnnl_probe);
    return dnnl_exact;
}
#endif
