/* CUDA kernels of the device backend.  The element operations are ozb_kernel_ops.h, shared
 * with the host emulation; compiled with --fmad=false (CMakeLists.txt), though nothing here
 * rounds: integer conversions and one multiplication by beta, as on the CPU. */
#include "ozb_kernels.h"
#include "ozb_kernel_ops.h"
#include <cuda_runtime.h>

namespace {

constexpr int kThreads = 256;

inline unsigned blocks_for(int64_t n)
{
    int64_t b = (n + kThreads - 1) / kThreads;
    return (unsigned)(b < 65535 * 16 ? (b < 1 ? 1 : b) : 65535 * 16);   /* grid-stride loops cover the rest */
}

__global__ void k_u8_to_s8_mod(const uint8_t *src, int8_t *dst, int64_t n, int32_t m)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        dst[i] = ozb_op_u8_to_s8_mod(src[i], m);
}

__global__ void k_u8_nibbles(const uint8_t *src, int8_t *hi, int8_t *lo, int64_t n)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        hi[i] = ozb_op_u8_hi(src[i]);
        lo[i] = ozb_op_u8_lo(src[i]);
    }
}

__global__ void k_hi_lo(const int32_t *hi, const int32_t *lo, int32_t *dst, int64_t n)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        dst[i] = ozb_op_hi_lo(hi[i], lo[i]);
}

__global__ void k_scale(double *c, int64_t crs, int64_t ccs, int64_t m, int64_t n, double beta)
{
    const int64_t total = m * n;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < total; e += (int64_t)gridDim.x * blockDim.x) {
        double *p = c + (e % m) * crs + (e / m) * ccs;
        *p = ozb_op_scale(beta == 0.0 ? 0.0 : *p, beta);
    }
}

/* One block of 128 threads per row i of A: each thread walks l with stride 128 keeping N
 * sums in registers (N <= 16, unrolled), then a shared-memory tree adds the 128 partial sums.
 * Every sum is an exact integer (ozb_kernel_ops.h), so this order gives the CPU's bits. */
constexpr int kSkinnyThreads = 128;
constexpr int kSkinnyMaxN = 16;

__global__ void k_skinny_i32(const int32_t *A, const double *X, double *P, int64_t M, int N, int64_t kb, int64_t ldp)
{
    __shared__ double red[kSkinnyThreads];
    for (int64_t i = blockIdx.x; i < M; i += gridDim.x) {
        const int32_t *a = A + i * kb;
        double acc[kSkinnyMaxN];
#pragma unroll
        for (int j = 0; j < kSkinnyMaxN; j++) acc[j] = 0.0;
        for (int64_t l = threadIdx.x; l < kb; l += kSkinnyThreads) {
            const int32_t av = a[l];
#pragma unroll
            for (int j = 0; j < kSkinnyMaxN; j++)
                if (j < N) acc[j] = __dadd_rn(acc[j], ozb_op_i32_times(av, X[j * kb + l]));
        }
        for (int j = 0; j < N; j++) {
            double v = 0.0;
#pragma unroll
            for (int q = 0; q < kSkinnyMaxN; q++) v = q == j ? acc[q] : v;   /* constant indices only */
            red[threadIdx.x] = v;
            __syncthreads();
            for (int s = kSkinnyThreads / 2; s > 0; s >>= 1) {
                if (threadIdx.x < s) red[threadIdx.x] = __dadd_rn(red[threadIdx.x], red[threadIdx.x + s]);
                __syncthreads();
            }
            if (threadIdx.x == 0) P[i + j * ldp] = red[0];
            __syncthreads();
        }
    }
}

__global__ void k_crt_fold(int32_t *acc, const int32_t *src, int64_t ne, int32_t m)
{
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < ne; e += (int64_t)gridDim.x * blockDim.x)
        acc[e] = ozb_op_crt_fold(acc[e], src[e], m);
}

/* one thread per element; the constants (about 1.1 KB) travel as the kernel's parameter */
__global__ void k_crt_recon(const int32_t *C, int64_t ne, const ozb_op_crt_consts k, double *out)
{
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < ne; e += (int64_t)gridDim.x * blockDim.x)
        out[e] = ozb_op_crt_recon(C + e, ne, &k);
}

inline int launched() { return (int)cudaGetLastError(); }

}  // namespace

extern "C" int ozb_kl_u8_to_s8_mod(const uint8_t *src, int8_t *dst, int64_t n, int32_t m, void *stream)
{
    if (n <= 0) return 0;
    k_u8_to_s8_mod<<<blocks_for(n), kThreads, 0, (cudaStream_t)stream>>>(src, dst, n, m);
    return launched();
}

extern "C" int ozb_kl_u8_nibbles(const uint8_t *src, int8_t *hi, int8_t *lo, int64_t n, void *stream)
{
    if (n <= 0) return 0;
    k_u8_nibbles<<<blocks_for(n), kThreads, 0, (cudaStream_t)stream>>>(src, hi, lo, n);
    return launched();
}

extern "C" int ozb_kl_hi_lo(const int32_t *hi, const int32_t *lo, int32_t *dst, int64_t n, void *stream)
{
    if (n <= 0) return 0;
    k_hi_lo<<<blocks_for(n), kThreads, 0, (cudaStream_t)stream>>>(hi, lo, dst, n);
    return launched();
}

extern "C" int ozb_kl_skinny_i32(const int32_t *A, const double *X, double *P, int64_t M, int64_t N, int64_t kb, int64_t ldp,
                                 void *stream)
{
    if (M <= 0 || N <= 0) return 0;
    if (N > kSkinnyMaxN) return (int)cudaErrorInvalidValue;
    const int64_t g = M < 65535 * 8 ? M : 65535 * 8;
    k_skinny_i32<<<(unsigned)g, kSkinnyThreads, 0, (cudaStream_t)stream>>>(A, X, P, M, (int)N, kb, ldp);
    return launched();
}

extern "C" int ozb_kl_crt_fold(int32_t *acc, const int32_t *src, int64_t ne, int32_t m, void *stream)
{
    if (ne <= 0) return 0;
    k_crt_fold<<<blocks_for(ne), kThreads, 0, (cudaStream_t)stream>>>(acc, src, ne, m);
    return launched();
}

extern "C" int ozb_kl_crt_recon(const int32_t *C, int64_t ne, const void *k, double *out, void *stream)
{
    if (ne <= 0) return 0;
    k_crt_recon<<<blocks_for(ne), kThreads, 0, (cudaStream_t)stream>>>(C, ne, *(const ozb_op_crt_consts *)k, out);
    return launched();
}

extern "C" int ozb_kl_scale(double *c, int64_t crs, int64_t ccs, int64_t m, int64_t n, double beta, void *stream)
{
    if (m <= 0 || n <= 0 || beta == 1.0) return 0;
    k_scale<<<blocks_for(m * n), kThreads, 0, (cudaStream_t)stream>>>(c, crs, ccs, m, n, beta);
    return launched();
}
