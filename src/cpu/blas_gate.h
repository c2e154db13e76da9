/* The one owner of every call into OpenBLAS and oneDNN, and of their process-wide state
 * (OpenBLAS's thread count, the calling thread's OpenMP thread count, the oneDNN exactness
 * probe).  Nothing else in the library includes <cblas.h> or <dnnl.h> or calls them.
 *
 * Threading model (README, "Threads and concurrency"):
 *  - a call made from inside an active OpenMP region runs on the calling thread alone and
 *    touches no process-wide state, so such calls from any number of threads run at once;
 *  - every other call holds one process-wide lock from before its thread count is set
 *    until the product is done, so no ozblas call into OpenBLAS ever sees the thread count
 *    change, or shares OpenBLAS's threading buffers with another, while it runs;
 *  - the calling thread's OpenMP thread count is restored before the call returns.
 * Every product through here is exact, so none of this changes a bit. */
#ifndef OZB_BLAS_GATE_H
#define OZB_BLAS_GATE_H
#include <stdint.h>

/* C = op(A) op(B), column-major, ta/tb: 1 = transposed, alpha = 1, beta = 0, on at most
 * `threads` threads (1 inside an OpenMP region). */
void ozb_gate_dgemm(int threads, int ta, int tb, int64_t m, int64_t n, int64_t k, const double *A, int64_t lda,
                    const double *B, int64_t ldb, double *C, int64_t ldc);

#ifdef OZBLAS_HAVE_DNNL
/* oneDNN's row-major int32 = int8 x int8 (s8s8) and uint8 x int8 (u8s8) GEMMs, alpha = 1,
 * beta = 0, no offsets; 0 on success.  Exact only where ozb_gate_dnnl_exact() says so. */
int ozb_gate_gemm_s8s8s32(int threads, char ta, char tb, int64_t m, int64_t n, int64_t k, const int8_t *A,
                          int64_t lda, const int8_t *B, int64_t ldb, int32_t *C, int64_t ldc);
int ozb_gate_gemm_u8s8s32(int threads, char ta, char tb, int64_t m, int64_t n, int64_t k, const uint8_t *A,
                          int64_t lda, const int8_t *B, int64_t ldb, int32_t *C, int64_t ldc);
/* 1 when oneDNN's int8 GEMMs are exact on this CPU (probed once per process). */
int ozb_gate_dnnl_exact(void);
#endif
#endif
