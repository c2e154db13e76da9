/* The GPU (dev_ops.h): the CUDA runtime, cuBLAS loaded with dlopen (so that the library does
 * not depend on it where no GPU is used) and the kernels (kernels/ozb_kernels.cu). */
#include "cuda/dev_ops.h"
#ifdef OZBLAS_HAVE_CUDA
#include "../../kernels/ozb_kernels.h"
#include <cuda_runtime_api.h>
#include <cublas_v2.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    void           *lib;                 /* dlopen'ed cuBLAS */
    cublasHandle_t  blas;
    cublasStatus_t (*create)(cublasHandle_t *);
    cublasStatus_t (*destroy)(cublasHandle_t);
    cublasStatus_t (*set_stream)(cublasHandle_t, cudaStream_t);
    cublasStatus_t (*set_math)(cublasHandle_t, cublasMath_t);
    cublasStatus_t (*dgemm)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const double *,
                            const double *, int, const double *, int, const double *, double *, int);
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

static void set_stream(ozb_dev *d, void *stream) { G(d)->set_stream(G(d)->blas, (cudaStream_t)stream); }

static void *alloc(ozb_dev *d, size_t bytes)
{
    void *p = NULL;
    use(d);
    if (cudaMalloc(&p, bytes) != cudaSuccess) { cudaGetLastError(); return NULL; }
    return p;
}

static void release(ozb_dev *d, void *p) { use(d); cudaFree(p); }

static int copy2d(ozb_dev *d, int to_dev, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                  size_t height)
{
    use(d);
    int e = (int)cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height,
                                   to_dev ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, S(d));
    return e ? e : (int)cudaStreamSynchronize(S(d));
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

static int gemm(ozb_dev *d, ozb_dt type, int ta, int tb, int64_t m, int64_t n, int64_t k, const void *A, int64_t lda,
                const void *B, int64_t ldb, void *C, int64_t ldc)
{
    gpu_t *g = G(d);
    use(d);
    const cublasOperation_t oa = ta ? CUBLAS_OP_T : CUBLAS_OP_N, ob = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasStatus_t s;
    if (type == OZB_DT_F64) {
        const double one = 1.0, zero_ = 0.0;
        s = g->dgemm(g->blas, oa, ob, (int)m, (int)n, (int)k, &one, A, (int)lda, B, (int)ldb, &zero_, C, (int)ldc);
    } else if (type == OZB_DT_F16) {
        const float one = 1.0f, zero_ = 0.0f;      /* FP32 accumulation: never 16F or TF32 compute */
        s = g->gemm_ex(g->blas, oa, ob, (int)m, (int)n, (int)k, &one, A, CUDA_R_16F, (int)lda, B, CUDA_R_16F, (int)ldb,
                       &zero_, C, CUDA_R_32F, (int)ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    } else {
        const int32_t one = 1, zero_ = 0;
        s = g->gemm_ex(g->blas, oa, ob, (int)m, (int)n, (int)k, &one, A, CUDA_R_8I, (int)lda, B, CUDA_R_8I, (int)ldb,
                       &zero_, C, CUDA_R_32I, (int)ldc, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT);
    }
    return s == CUBLAS_STATUS_SUCCESS ? 0 : 1000 + (int)s;
}

static int gemm_batched(ozb_dev *d, ozb_dt type, int ta, int tb, int64_t m, int64_t n, int64_t k, const void *A,
                        int64_t lda, int64_t sa, const void *B, int64_t ldb, int64_t sb, void *C, int64_t ldc,
                        int64_t sc, int64_t batch)
{
    gpu_t *g = G(d);
    use(d);
    const cublasOperation_t oa = ta ? CUBLAS_OP_T : CUBLAS_OP_N, obp = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasStatus_t s;
    if (type == OZB_DT_F64) {                    /* IEEE FP64 (DMMA on Hopper: exact products, our budget) */
        const double one = 1.0, zero_ = 0.0;
        s = g->gemm_sb_ex(g->blas, oa, obp, (int)m, (int)n, (int)k, &one, A, CUDA_R_64F, (int)lda, sa, B, CUDA_R_64F,
                          (int)ldb, sb, &zero_, C, CUDA_R_64F, (int)ldc, sc, (int)batch, CUBLAS_COMPUTE_64F,
                          CUBLAS_GEMM_DEFAULT);
    } else if (type == OZB_DT_F16) {             /* FP32 accumulation on the tensor cores */
        const float one = 1.0f, zero_ = 0.0f;
        s = g->gemm_sb_ex(g->blas, oa, obp, (int)m, (int)n, (int)k, &one, A, CUDA_R_16F, (int)lda, sa, B, CUDA_R_16F,
                          (int)ldb, sb, &zero_, C, CUDA_R_32F, (int)ldc, sc, (int)batch, CUBLAS_COMPUTE_32F,
                          CUBLAS_GEMM_DEFAULT);
    } else {
        const int32_t one = 1, zero_ = 0;
        s = g->gemm_sb_ex(g->blas, oa, obp, (int)m, (int)n, (int)k, &one, A, CUDA_R_8I, (int)lda, sa, B, CUDA_R_8I,
                          (int)ldb, sb, &zero_, C, CUDA_R_32I, (int)ldc, sc, (int)batch, CUBLAS_COMPUTE_32I,
                          CUBLAS_GEMM_DEFAULT);
    }
    return s == CUBLAS_STATUS_SUCCESS ? 0 : 1000 + (int)s;
}

/* ---- the kernels: the device made current, the launch on the handle's stream ---- */
static int u8_to_s8_mod(ozb_dev *d, const uint8_t *src, int8_t *dst, int64_t n, int32_t m)
{ use(d); return ozb_kl_u8_to_s8_mod(src, dst, n, m, d->stream); }
static int u8_nibbles(ozb_dev *d, const uint8_t *src, int8_t *hi, int8_t *lo, int64_t n)
{ use(d); return ozb_kl_u8_nibbles(src, hi, lo, n, d->stream); }
static int hi_lo(ozb_dev *d, const int32_t *hi, const int32_t *lo, int32_t *dst, int64_t n)
{ use(d); return ozb_kl_hi_lo(hi, lo, dst, n, d->stream); }
static int skinny_i32(ozb_dev *d, const int32_t *A, const double *X, double *P, int64_t M, int64_t N, int64_t kb, int64_t ldp)
{ use(d); return ozb_kl_skinny_i32(A, X, P, M, N, kb, ldp, d->stream); }
static int crt_fold(ozb_dev *d, int32_t *acc, const int32_t *src, int64_t ne, int32_t m)
{ use(d); return ozb_kl_crt_fold(acc, src, ne, m, d->stream); }
static int crt_recon(ozb_dev *d, const int32_t *C, int64_t ne, const void *consts, double *out)
{ use(d); return ozb_kl_crt_recon(C, ne, consts, out, d->stream); }
static int scale(ozb_dev *d, double *c, int64_t crs, int64_t ccs, int64_t m, int64_t n, double beta)
{
    use(d);
    int e = ozb_kl_scale(c, crs, ccs, m, n, beta, d->stream);
    return e ? e : (int)cudaStreamSynchronize(S(d));
}
static int meta(ozb_dev *d, const ozb_op_side *sd, int beta, int limit, uint64_t *mx, int32_t *low, int32_t *e, int32_t *ns)
{ use(d); return ozb_kl_meta(sd, beta, limit, mx, low, e, ns, d->stream); }
static int split(ozb_dev *d, const ozb_op_side *sd, int type, int beta, const int32_t *e, const int32_t *ns, int s,
                 int64_t kbp, int rowfast, void *S_, int64_t items)
{ use(d); return ozb_kl_split(sd, type, beta, e, ns, s, kbp, rowfast, S_, items, d->stream); }
static int fused(ozb_dev *d, const ozb_op_side *sd, int beta, const int32_t *eA, const int32_t *nsA, int sa,
                 const double *SX, int sb, int64_t kbp, double *P)
{ use(d); return ozb_kl_fused(sd, beta, eA, nsA, sa, SX, sb, kbp, P, d->stream); }
static int colsums(ozb_dev *d, const ozb_op_side *sd, const double *g, double sc, double sc2, double *w)
{ use(d); return ozb_kl_colsums(sd, g, sc, sc2, w, d->stream); }
static int local_weights(ozb_dev *d, const ozb_op_side *sd, const double *sg, double *v, double *u)
{ use(d); return ozb_kl_local_weights(sd, sg, v, u, d->stream); }
static int vmax(ozb_dev *d, const double *w, int64_t k, uint64_t *slot, double *host_max)
{
    use(d);
    int rc = ozb_kl_vmax(w, k, slot, d->stream);
    uint64_t b = 0;
    if (!rc) rc = copy2d(d, 0, &b, 8, slot, 8, 8, 1);
    memcpy(host_max, &b, 8);                     /* non-negative doubles order as their bits */
    return rc;
}
static int crit(ozb_dev *d, const ozb_op_side *sd, const double *v, const double *u, const int32_t *e, int32_t *ns,
                int32_t *dA, int beta, double sfac, int dhyp, int64_t items)
{ use(d); return ozb_kl_crit(sd, v, u, e, ns, dA, beta, sfac, dhyp, items, d->stream); }
static int sum(ozb_dev *d, const ozb_op_sum_args *g) { use(d); return ozb_kl_sum(g, d->stream); }
static int crt_rows(ozb_dev *d, const ozb_op_side *sd, ozb_op_crt_row *out)
{ use(d); return ozb_kl_crt_rows(sd, out, d->stream); }
static int crt_dots(ozb_dev *d, const ozb_op_side *sd, const int32_t *e, const double *v, double *dot)
{ use(d); return ozb_kl_crt_dots(sd, e, v, dot, d->stream); }
static int crt_residues(ozb_dev *d, const ozb_op_side *sd, const double *f1, const double *f2, const ozb_op_crt_res *rc,
                        int64_t kbp, int8_t *out, int64_t items)
{ use(d); return ozb_kl_crt_residues(sd, f1, f2, rc, kbp, out, items, d->stream); }
static int crt_out(ozb_dev *d, const ozb_op_crt_out_args *g) { use(d); return ozb_kl_crt_out(g, d->stream); }
static int crt_quant(ozb_dev *d, const ozb_op_side *sd, const int32_t *e, int bits, int64_t kbp, int8_t *lo, int8_t *hi,
                     int64_t items)
{ use(d); return ozb_kl_crt_quant(sd, e, bits, kbp, lo, hi, items, d->stream); }
static int crt_bound_acc(ozb_dev *d, const int32_t *Ulo, const int32_t *Uhi, double *Ud, int first, int64_t ne)
{ use(d); return ozb_kl_crt_bound_acc(Ulo, Uhi, Ud, first, ne, d->stream); }
static int crt_zmax(ozb_dev *d, const double *Ud, int64_t mbb, int64_t nbb, int64_t i0, int64_t j0, const int32_t *eB,
                    const int32_t *cB, uint64_t *Z)
{ use(d); return ozb_kl_crt_zmax(Ud, mbb, nbb, i0, j0, eB, cB, Z, d->stream); }

static const ozb_dev_ops gpu_ops = {
    .name = "gpu", .enter = enter, .leave = leave, .close = close_gpu, .set_stream = set_stream,
    .alloc = alloc, .release = release, .copy2d = copy2d, .sync = sync_gpu, .mem_free = mem_free, .zero = zero,
    .gemm = gemm, .gemm_batched = gemm_batched, .u8_to_s8_mod = u8_to_s8_mod, .u8_nibbles = u8_nibbles,
    .hi_lo = hi_lo, .skinny_i32 = skinny_i32, .crt_fold = crt_fold, .crt_recon = crt_recon, .scale = scale,
    .meta = meta, .split = split, .fused = fused, .colsums = colsums, .local_weights = local_weights, .vmax = vmax,
    .crit = crit, .sum = sum, .crt_rows = crt_rows, .crt_dots = crt_dots, .crt_residues = crt_residues,
    .crt_out = crt_out, .crt_quant = crt_quant, .crt_bound_acc = crt_bound_acc, .crt_zmax = crt_zmax,
};

static ozblas_status_t open_gpu(ozb_dev *d, gpu_t *g, int device, const char **why)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        cudaGetLastError();
        *why = "no CUDA device is present (or no driver)";
        return OZBLAS_STATUS_NOT_SUPPORTED;
    }
    if (device >= count) { *why = "the device number is beyond the devices present"; return OZBLAS_STATUS_NOT_SUPPORTED; }
    d->device = device;
    if (use(d) != cudaSuccess) { *why = "cudaSetDevice failed"; return OZBLAS_STATUS_NOT_SUPPORTED; }
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
    OZB_SYM(dgemm, "cublasDgemm_v2");
    OZB_SYM(gemm_ex, "cublasGemmEx");
    OZB_SYM(gemm_sb_ex, "cublasGemmStridedBatchedEx");
#undef OZB_SYM
    if (g->create(&g->blas) != CUBLAS_STATUS_SUCCESS) { g->blas = NULL; *why = "cublasCreate failed"; return OZBLAS_STATUS_NOT_SUPPORTED; }
    /* the default math mode: FP16 inputs may use the tensor cores (FP32 accumulation, the
     * format's budget), FP64 is IEEE FP64 (no TF32, no fixed-point emulation of FP64) */
    g->set_math(g->blas, CUBLAS_DEFAULT_MATH);
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozb_dev_gpu_open(ozb_dev *d, int device, const char **why)
{
    gpu_t *g = calloc(1, sizeof *g);
    if (!g) return OZBLAS_STATUS_ALLOC_FAILED;
    d->impl = g;
    d->ops = &gpu_ops;
    int prev = -1;
    if (cudaGetDevice(&prev) != cudaSuccess) { cudaGetLastError(); prev = -1; }
    const ozblas_status_t st = open_gpu(d, g, device, why);
    if (prev >= 0) cudaSetDevice(prev);                /* the caller's current device stays */
    return st;
}
#else
ozblas_status_t ozb_dev_gpu_open(ozb_dev *d, int device, const char **why)
{
    (void)d; (void)device;
    *why = "this build of ozblas has no CUDA backend (nvcc was not found at configure time)";
    return OZBLAS_STATUS_NOT_SUPPORTED;
}
#endif
