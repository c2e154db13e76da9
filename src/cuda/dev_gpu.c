/* The GPU (dev_ops.h): the CUDA runtime, cuBLAS loaded with dlopen (so that the library does
 * not depend on it where no GPU is used) and the kernels (kernels/ozb_kernels.cu). */
#include "cuda/dev_ops.h"
#ifdef OZBLAS_HAVE_CUDA
#include <cuda_runtime_api.h>
#include <cublas_v2.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int             pools;               /* the device has memory pools: stream-ordered allocation */
    void           *lib;                 /* dlopen'ed cuBLAS */
    cublasHandle_t  blas;
    cublasStatus_t (*create)(cublasHandle_t *);
    cublasStatus_t (*destroy)(cublasHandle_t);
    cublasStatus_t (*set_stream)(cublasHandle_t, cudaStream_t);
    cublasStatus_t (*set_math)(cublasHandle_t, cublasMath_t);
    cublasStatus_t (*gemm_ex)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void *,
                              const void *, cudaDataType, int, const void *, cudaDataType, int, const void *, void *,
                              cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);
    cublasStatus_t (*gemm_sb_ex)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void *,
                                 const void *, cudaDataType, int, long long, const void *, cudaDataType, int, long long,
                                 const void *, void *, cudaDataType, int, long long, int, cublasComputeType_t,
                                 cublasGemmAlgo_t);
} gpu_t;

static gpu_t *G(ozb_dev *d) { return d->impl; }
static int use(ozb_dev *d) { return (int)cudaSetDevice(d->device); }
static cudaStream_t S(ozb_dev *d) { return (cudaStream_t)d->stream; }

static int enter(ozb_dev *d)
{
    (void)d;
    int prev = -1;
    if (cudaGetDevice(&prev) != cudaSuccess) { cudaGetLastError(); prev = -1; }
    return prev;
}

static void leave(ozb_dev *d, int token) { if (token >= 0 && token != d->device) cudaSetDevice(token); }

static void close_gpu(ozb_dev *d)
{
    gpu_t *g = G(d);
    if (!g) return;
    if (g->blas) g->destroy(g->blas);
    if (g->lib) dlclose(g->lib);
    free(g);
    d->impl = NULL;
}

static void set_stream(ozb_dev *d, void *stream)
{
    use(d);
    cudaStreamSynchronize(S(d));        /* the old stream's work on our buffers is done */
    G(d)->set_stream(G(d)->blas, (cudaStream_t)stream);
    d->kstream = stream;
}

/* Stream-ordered allocation (cudaMallocAsync, the device's memory pool) where the device has
 * memory pools (every GPU of sm_80 and sm_90 does): growing a buffer in the middle of a call
 * then neither synchronizes the device nor stalls other streams, as cudaMalloc/cudaFree do.
 * A buffer is used and released on the handle's stream only (set_stream drains the old one). */
static void *alloc(ozb_dev *d, size_t bytes)
{
    void *p = NULL;
    use(d);
    const cudaError_t e = G(d)->pools ? cudaMallocAsync(&p, bytes, S(d)) : cudaMalloc(&p, bytes);
    if (e != cudaSuccess) { cudaGetLastError(); return NULL; }
    return p;
}

static void release(ozb_dev *d, void *p)
{
    use(d);
    if (G(d)->pools) cudaFreeAsync(p, S(d));
    else cudaFree(p);
}

static int copy2d(ozb_dev *d, int to_dev, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                  size_t height)
{
    use(d);
    static const enum cudaMemcpyKind kind[] = { cudaMemcpyDeviceToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToDevice };
    /* between host and device: complete on return (the host reads what came back, or may
     * change what went); device to device: ordered on the stream like a kernel, no wait */
    int e = (int)cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind[to_dev], S(d));
    return e || to_dev == 2 ? e : (int)cudaStreamSynchronize(S(d));
}

static int sync_gpu(ozb_dev *d) { use(d); return (int)cudaStreamSynchronize(S(d)); }

static int mem_free(ozb_dev *d, size_t *free_bytes)
{
    use(d);
    size_t total = 0;
    if (cudaMemGetInfo(free_bytes, &total) != cudaSuccess) { cudaGetLastError(); return -1; }
    return 0;
}

static int zero(ozb_dev *d, void *p, size_t bytes) { use(d); return (int)cudaMemsetAsync(p, 0, bytes, S(d)); }

/* ozblas's GEMM call (dev_ops.h) in cuBLAS's terms; alpha = 1 and beta = 0 in the scale type */
static const cudaDataType cu_type[] = {
    [OZB_CU_R_64F] = CUDA_R_64F, [OZB_CU_R_32F] = CUDA_R_32F, [OZB_CU_R_16F] = CUDA_R_16F,
    [OZB_CU_R_32I] = CUDA_R_32I, [OZB_CU_R_8I] = CUDA_R_8I,
};
static const cublasComputeType_t cu_compute[] = {
    [OZB_CU_COMPUTE_64F_PEDANTIC] = CUBLAS_COMPUTE_64F_PEDANTIC, [OZB_CU_COMPUTE_32F] = CUBLAS_COMPUTE_32F,
    [OZB_CU_COMPUTE_32I] = CUBLAS_COMPUTE_32I,
};

static int gemm(ozb_dev *d, const ozb_gemm_call *c)
{
    gpu_t *g = G(d);
    use(d);
    const cublasOperation_t oa = c->ta ? CUBLAS_OP_T : CUBLAS_OP_N, ob = c->tb ? CUBLAS_OP_T : CUBLAS_OP_N;
    const double one64 = 1.0, zero64 = 0.0;
    const float one32 = 1.0f, zero32 = 0.0f;
    const int32_t onei = 1, zeroi = 0;
    const void *one = c->compute == OZB_CU_COMPUTE_64F_PEDANTIC ? (const void *)&one64
                    : c->compute == OZB_CU_COMPUTE_32F ? (const void *)&one32 : (const void *)&onei;
    const void *zero_ = c->compute == OZB_CU_COMPUTE_64F_PEDANTIC ? (const void *)&zero64
                      : c->compute == OZB_CU_COMPUTE_32F ? (const void *)&zero32 : (const void *)&zeroi;
    const cudaDataType ab = cu_type[c->ab], ct = cu_type[c->c];
    const cublasStatus_t s =
        c->batch == 0
            ? g->gemm_ex(g->blas, oa, ob, (int)c->m, (int)c->n, (int)c->k, one, c->A, ab, (int)c->lda, c->B, ab,
                         (int)c->ldb, zero_, c->C, ct, (int)c->ldc, cu_compute[c->compute], CUBLAS_GEMM_DEFAULT)
            : g->gemm_sb_ex(g->blas, oa, ob, (int)c->m, (int)c->n, (int)c->k, one, c->A, ab, (int)c->lda, c->sa, c->B,
                            ab, (int)c->ldb, c->sb, zero_, c->C, ct, (int)c->ldc, c->sc, (int)c->batch,
                            cu_compute[c->compute], CUBLAS_GEMM_DEFAULT);
    return s == CUBLAS_STATUS_SUCCESS ? 0 : 1000 + (int)s;
}

static void current(ozb_dev *d) { use(d); }

static const ozb_dev_ops gpu_ops = {
    .name = "gpu", .enter = enter, .leave = leave, .close = close_gpu, .set_stream = set_stream,
    .alloc = alloc, .release = release, .copy2d = copy2d, .sync = sync_gpu, .mem_free = mem_free,
    .zero = zero, .current = current, .gemm = gemm,
};

/* Why no device can be used, from cudaGetDeviceCount's error (static text) */
static const char *runtime_error(cudaError_t e)
{
    /* the runtime says "insufficient driver" also where there is no driver at all: it loads
     * libcuda.so.1 itself, so the library is loaded here if a driver is installed */
    void *drv = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (e == cudaErrorInsufficientDriver && !drv) return "no NVIDIA driver is installed (libcuda.so.1 not found)";
    if (drv) dlclose(drv);
    switch (e) {
    case cudaErrorInsufficientDriver:
        return "the NVIDIA driver is older than this build's CUDA runtime needs (ozblas links the CUDA " OZB_CUDA_VERSION
               " runtime statically: CUDA 13 needs driver 580 or newer, CUDA 12 driver 525 or newer; update the "
               "driver or build ozblas with the toolkit that matches it)";
    case cudaErrorNoDevice: return "no CUDA device is present";
    case cudaErrorInitializationError: return "the CUDA driver could not be initialized (is the NVIDIA kernel module loaded?)";
    default: return "the CUDA runtime reports no usable device";
    }
}

/* The device and cuBLAS, without creating a cuBLAS handle (probe) or with one (d). */
static ozblas_status_t open_gpu(ozb_dev *d, gpu_t *g, int device, const char **why)
{
    int count = 0;
    const cudaError_t ce = cudaGetDeviceCount(&count);
    if (ce != cudaSuccess || count == 0) {
        cudaGetLastError();
        *why = ce != cudaSuccess ? runtime_error(ce) : "no CUDA device is present";
        return OZBLAS_STATUS_NOT_SUPPORTED;
    }
    if (device >= count) { *why = "the device number is beyond the devices present"; return OZBLAS_STATUS_NOT_SUPPORTED; }
    if (cudaSetDevice(device) != cudaSuccess) { cudaGetLastError(); *why = "cudaSetDevice failed"; return OZBLAS_STATUS_NOT_SUPPORTED; }
    g->lib = dlopen("libcublas.so." OZB_CUBLAS_SOVERSION, RTLD_NOW | RTLD_LOCAL);
    if (!g->lib) g->lib = dlopen("libcublas.so", RTLD_NOW | RTLD_LOCAL);
    if (!g->lib) { *why = "libcublas.so could not be loaded"; return OZBLAS_STATUS_NOT_SUPPORTED; }
    /* dlsym returns void *; POSIX guarantees the round trip to a function pointer */
#define OZB_SYM(field, name) do { void *s_ = dlsym(g->lib, name); if (!s_) { *why = "cuBLAS lacks " name; return OZBLAS_STATUS_NOT_SUPPORTED; } \
                                  memcpy(&g->field, &s_, sizeof s_); } while (0)
    OZB_SYM(create, "cublasCreate_v2");
    OZB_SYM(destroy, "cublasDestroy_v2");
    OZB_SYM(set_stream, "cublasSetStream_v2");
    OZB_SYM(set_math, "cublasSetMathMode");
    OZB_SYM(gemm_ex, "cublasGemmEx");
    OZB_SYM(gemm_sb_ex, "cublasGemmStridedBatchedEx");
#undef OZB_SYM
    if (!d) return OZBLAS_STATUS_SUCCESS;             /* a probe: no handle, no context work */
    d->device = device;
    int pools = 0;
    if (cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, device) != cudaSuccess) { cudaGetLastError(); pools = 0; }
    g->pools = pools;
    if (g->create(&g->blas) != CUBLAS_STATUS_SUCCESS) { g->blas = NULL; *why = "cublasCreate failed"; return OZBLAS_STATUS_NOT_SUPPORTED; }
    /* the default math mode: FP16 inputs may use the tensor cores (FP32 accumulation, the
     * format's budget); FP64 products ask for CUBLAS_COMPUTE_64F_PEDANTIC (dev.c), which no
     * FP64 emulation setting of cuBLAS's (math mode or environment) applies to */
    g->set_math(g->blas, CUBLAS_DEFAULT_MATH);
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozb_dev_gpu_probe(int device, const char **why)
{
    gpu_t g;
    memset(&g, 0, sizeof g);
    int prev = -1;
    if (cudaGetDevice(&prev) != cudaSuccess) { cudaGetLastError(); prev = -1; }
    const ozblas_status_t st = open_gpu(NULL, &g, device, why);
    if (prev >= 0) cudaSetDevice(prev);
    if (g.lib) dlclose(g.lib);
    return st;
}

ozblas_status_t ozb_dev_gpu_open(ozb_dev *d, int device, const char **why)
{
    gpu_t *g = calloc(1, sizeof *g);
    if (!g) return OZBLAS_STATUS_ALLOC_FAILED;
    d->impl = g;
    d->ops = &gpu_ops;
    d->kl = ozb_kl_gpu();
    d->kstream = NULL;
    int prev = -1;
    if (cudaGetDevice(&prev) != cudaSuccess) { cudaGetLastError(); prev = -1; }
    const ozblas_status_t st = open_gpu(d, g, device, why);
    if (prev >= 0) cudaSetDevice(prev);                /* the caller's current device stays */
    return st;
}
#else
ozblas_status_t ozb_dev_gpu_probe(int device, const char **why)
{
    (void)device;
    *why = "this build of ozblas has no CUDA backend (nvcc was not found at configure time)";
    return OZBLAS_STATUS_NOT_SUPPORTED;
}

ozblas_status_t ozb_dev_gpu_open(ozb_dev *d, int device, const char **why)
{
    (void)d; (void)device;
    *why = "this build of ozblas has no CUDA backend (nvcc was not found at configure time)";
    return OZBLAS_STATUS_NOT_SUPPORTED;
}
#endif
