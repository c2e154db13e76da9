/* The CUDA kernels (ozb_kernels.cu) compiled a second time, as host C++, for the emulated
 * device: this shim stands in for the CUDA runtime the kernels see.  blockIdx, threadIdx,
 * blockDim and gridDim are per-thread variables set by the emulated launch
 * (src/cuda/emu_grid.cc), which runs the real grid and block sizes of every launch, blocks and
 * threads in a shuffled order.  A kernel launched with OZB_LAUNCH_SYNC runs its threads as
 * fibers: __syncthreads() suspends the thread until every live thread of its block has
 * reached it, and the waiting threads resume in a new shuffled order; __shared__ memory is
 * one copy per block (blocks run one at a time; launches from several host threads are
 * serialized).  Atomics are the plain read-modify-write (one thread runs at a time).  The launch checks the hardware's limits (threads per block,
 * grid size, kernel parameter bytes) and reports a violation through cudaGetLastError, as
 * the runtime does.  Nothing here is compiled by nvcc. */
#ifndef OZB_CUDA_HOST_H
#define OZB_CUDA_HOST_H
#ifndef __cplusplus
#error "ozb_cuda_host.h is the kernels' host shim: C++ only"
#endif
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define __global__ static
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static   /* one block at a time (launches are serialized): the block's shared memory */

struct ozb_emu_stream;                              /* src/cuda/emu_grid.h */
typedef struct ozb_emu_stream *cudaStream_t;
typedef int cudaError_t;
enum { cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorInvalidConfiguration = 9, cudaErrorLaunchFailure = 719 };

namespace ozb_host {
struct dim3v { unsigned x, y, z; };
/* plain globals, not thread_local: launches are serialized (one lock), and a thread-local
 * access in a shared library is a __tls_get_addr call, which the sanitizers intercept */
extern __attribute__((visibility("hidden"))) dim3v tidx, bidx, bdim, gdim;
/* runs fn(closure) once for every thread of a grid x block launch; barriers: as fibers */
void run_grid(cudaStream_t st, unsigned grid, unsigned block, size_t param_bytes, bool barriers,
              void (*fn)(void *), void *closure);
void syncthreads();
int  last_error(bool clear);
void set_error(int e);

template <typename... P> struct launcher {
    void (*k)(P...);
    unsigned grid, block;
    cudaStream_t st;
    bool barriers;
    template <typename... A> void operator()(A... a) const
    {
        void (*kern)(P...) = k;
        auto body = [=]() { kern(a...); };
        run_grid(st, grid, block, (sizeof(P) + ... + (size_t)0), barriers,
                 [](void *c) { (*static_cast<decltype(body) *>(c))(); }, (void *)&body);
    }
};
template <typename... P> launcher<P...> launch(void (*k)(P...), unsigned grid, unsigned block, cudaStream_t st, bool bar)
{
    return launcher<P...>{k, grid, block, st, bar};
}
}  // namespace ozb_host

#define threadIdx (ozb_host::tidx)
#define blockIdx  (ozb_host::bidx)
#define blockDim  (ozb_host::bdim)
#define gridDim   (ozb_host::gdim)
#define OZB_LAUNCH(k, g, b, st)      ozb_host::launch(k, (unsigned)(g), (unsigned)(b), st, false)
#define OZB_LAUNCH_SYNC(k, g, b, st) ozb_host::launch(k, (unsigned)(g), (unsigned)(b), st, true)
#define OZB_BOUNDS(threads, blocks)   /* __launch_bounds__: registers, nothing to do on the host */

inline void __syncthreads() { ozb_host::syncthreads(); }
inline cudaError_t cudaGetLastError() { return ozb_host::last_error(true); }
inline cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t) { memset(p, v, n); return cudaSuccess; }
inline double __dadd_rn(double a, double b) { return a + b; }                /* -ffp-contract=off */
inline long long __double_as_longlong(double x) { long long b; memcpy(&b, &x, sizeof b); return b; }
inline unsigned long long atomicMax(unsigned long long *p, unsigned long long v) { const unsigned long long o = *p; if (v > o) *p = v; return o; }
inline int atomicMin(int *p, int v) { const int o = *p; if (v < o) *p = v; return o; }
inline double atomicAdd(double *p, double v) { const double o = *p; *p = o + v; return o; }
#endif
