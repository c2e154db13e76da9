/* The device layer (dev.h): the GPU through the CUDA runtime and cuBLAS, or the emulated
 * device on the host. */
#include "cuda/dev.h"
#include "../../kernels/ozb_crt_ops.h"
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#ifdef OZBLAS_HAVE_CUDA
#include "../../kernels/ozb_kernels.h"
#include <cuda_runtime_api.h>
#include <cublas_v2.h>
#include <dlfcn.h>
#endif

struct ozb_dev {
    int             emulated;
    int             device;
    void           *stream;
    pthread_mutex_t mu;
    void           *buf[OZB_NDBUF];
    size_t          bytes[OZB_NDBUF];
#ifdef OZBLAS_HAVE_CUDA
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
#endif
};

int   ozb_dev_emulated(const ozb_dev *d) { return d->emulated; }
void *ozb_dev_get_stream(const ozb_dev *d) { return d->stream; }

int ozb_dev_enter(ozb_dev *d)
{
    int prev = -1;
#ifdef OZBLAS_HAVE_CUDA
    if (!d->emulated && cudaGetDevice(&prev) != cudaSuccess) { cudaGetLastError(); prev = -1; }
#else
    (void)d;
#endif
    return prev;
}

void ozb_dev_leave(ozb_dev *d, int token)
{
#ifdef OZBLAS_HAVE_CUDA
    if (!d->emulated && token >= 0 && token != d->device) cudaSetDevice(token);
#else
    (void)d; (void)token;
#endif
}

int  ozb_dev_lock(ozb_dev *d) { pthread_mutex_lock(&d->mu); return ozb_dev_enter(d); }
void ozb_dev_unlock(ozb_dev *d, int token) { ozb_dev_leave(d, token); pthread_mutex_unlock(&d->mu); }

/* ---------------------------------------------------------------- GPU */
#ifdef OZBLAS_HAVE_CUDA
static int use(ozb_dev *d) { return (int)cudaSetDevice(d->device); }

static ozblas_status_t open_gpu(ozb_dev *d, int device, const char **why)
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
    d->lib = dlopen("libcublas.so." OZB_CUBLAS_SOVERSION, RTLD_NOW | RTLD_LOCAL);
    if (!d->lib) d->lib = dlopen("libcublas.so", RTLD_NOW | RTLD_LOCAL);
    if (!d->lib) { *why = "libcublas.so could not be loaded"; return OZBLAS_STATUS_NOT_SUPPORTED; }
    /* dlsym returns void *; POSIX guarantees the round trip to a function pointer */
#define OZB_SYM(field, name) do { void *s_ = dlsym(d->lib, name); if (!s_) { *why = "cuBLAS lacks " name; return OZBLAS_STATUS_NOT_SUPPORTED; } \
                                  memcpy(&d->field, &s_, sizeof s_); } while (0)
    OZB_SYM(create, "cublasCreate_v2");
    OZB_SYM(destroy, "cublasDestroy_v2");
    OZB_SYM(set_stream, "cublasSetStream_v2");
    OZB_SYM(set_math, "cublasSetMathMode");
    OZB_SYM(dgemm, "cublasDgemm_v2");
    OZB_SYM(gemm_ex, "cublasGemmEx");
    OZB_SYM(gemm_sb_ex, "cublasGemmStridedBatchedEx");
#undef OZB_SYM
    if (d->create(&d->blas) != CUBLAS_STATUS_SUCCESS) { d->blas = NULL; *why = "cublasCreate failed"; return OZBLAS_STATUS_NOT_SUPPORTED; }
    /* the default math mode: FP16 inputs may use the tensor cores (FP32 accumulation, the
     * format's budget), FP64 is IEEE FP64 (no TF32, no fixed-point emulation of FP64) */
    d->set_math(d->blas, CUBLAS_DEFAULT_MATH);
    return OZBLAS_STATUS_SUCCESS;
}
#endif

/* ---------------------------------------------------------------- common */
ozblas_status_t ozb_dev_open(int device, int emulate, ozb_dev **out, const char **why)
{
    static const char *none = "";
    *why = none;
    if (device < 0) { *why = "negative device number"; return OZBLAS_STATUS_INVALID_VALUE; }
    ozb_dev *d = calloc(1, sizeof *d);
    if (!d) return OZBLAS_STATUS_ALLOC_FAILED;
    pthread_mutex_init(&d->mu, NULL);
    ozblas_status_t st;
    if (emulate) {                            /* OZBLAS_CUDA_EMULATE=1 (core/knobs.c) */
        d->emulated = 1;
        d->device = device;
        st = OZBLAS_STATUS_SUCCESS;
    } else {
#ifdef OZBLAS_HAVE_CUDA
        int prev = -1;
        if (cudaGetDevice(&prev) != cudaSuccess) { cudaGetLastError(); prev = -1; }
        st = open_gpu(d, device, why);
        if (prev >= 0) cudaSetDevice(prev);                /* the caller's current device stays */
#else
        *why = "this build of ozblas has no CUDA backend (nvcc was not found at configure time)";
        st = OZBLAS_STATUS_NOT_SUPPORTED;
#endif
    }
    if (st != OZBLAS_STATUS_SUCCESS) { ozb_dev_close(d); return st; }
    *out = d;
    return OZBLAS_STATUS_SUCCESS;
}

void ozb_dev_close(ozb_dev *d)
{
    if (!d) return;
    const int tok = ozb_dev_enter(d);
    for (int i = 0; i < OZB_NDBUF; i++) {
        if (!d->buf[i]) continue;
        if (d->emulated) free(d->buf[i]);
#ifdef OZBLAS_HAVE_CUDA
        else { use(d); cudaFree(d->buf[i]); }
#endif
    }
#ifdef OZBLAS_HAVE_CUDA
    if (d->blas) d->destroy(d->blas);
    if (d->lib) dlclose(d->lib);
#endif
    ozb_dev_leave(d, tok);
    pthread_mutex_destroy(&d->mu);
    free(d);
}

void ozb_dev_set_stream(ozb_dev *d, void *stream)
{
    d->stream = stream;
#ifdef OZBLAS_HAVE_CUDA
    if (!d->emulated) d->set_stream(d->blas, (cudaStream_t)stream);
#endif
}

void *ozb_dev_buf(ozb_dev *d, int slot, size_t bytes)
{
    if (bytes == 0) bytes = 256;
    if (d->bytes[slot] >= bytes) return d->buf[slot];
    const size_t want = (bytes + 255) & ~(size_t)255;   /* cuBLAS likes 256-byte alignment */
    void *p = NULL;
    if (d->emulated) {
        p = aligned_alloc(256, want);
        if (!p) return NULL;
        free(d->buf[slot]);
    } else {
#ifdef OZBLAS_HAVE_CUDA
        use(d);
        if (d->buf[slot]) { cudaStreamSynchronize((cudaStream_t)d->stream); cudaFree(d->buf[slot]); d->buf[slot] = NULL; d->bytes[slot] = 0; }
        if (cudaMalloc(&p, want) != cudaSuccess) { cudaGetLastError(); return NULL; }
#endif
    }
    d->buf[slot] = p;
    d->bytes[slot] = want;
    return p;
}

/* One 2-D copy, to the device (to_dev) or from it, completed on return. */
static int copy2d(ozb_dev *d, int to_dev, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                  size_t height)
{
    if (width == 0 || height == 0) return 0;
    if (d->emulated) {
        for (size_t r = 0; r < height; r++) memcpy((char *)dst + r * dpitch, (const char *)src + r * spitch, width);
        return 0;
    }
#ifdef OZBLAS_HAVE_CUDA
    use(d);
    int e = (int)cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height,
                                   to_dev ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, (cudaStream_t)d->stream);
    return e ? e : (int)cudaStreamSynchronize((cudaStream_t)d->stream);
#else
    (void)to_dev;
    return -1;
#endif
}

int ozb_dev_put(ozb_dev *d, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height)
{
    return copy2d(d, 1, dst, dpitch, src, spitch, width, height);
}

int ozb_dev_get(ozb_dev *d, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height)
{
    return copy2d(d, 0, dst, dpitch, src, spitch, width, height);
}

int ozb_dev_sync(ozb_dev *d)
{
    if (d->emulated) return 0;
#ifdef OZBLAS_HAVE_CUDA
    use(d);
    return (int)cudaStreamSynchronize((cudaStream_t)d->stream);
#else
    return -1;
#endif
}

/* ---------------------------------------------------------------- GEMM */

/* binary16 bits -> float, for the emulation (normal and zero values only: the FP16 digits
 * are integers of at most 11 bits) */
static float f16_value(uint16_t h)
{
    const int e = (h >> 10) & 31;
    const float mag = e == 0 ? 0.0f : (float)(1024 + (h & 0x3ff)) * (float)ldexp(1.0, e - 25);
    return (h & 0x8000) ? -mag : mag;
}

static void emu_gemm(ozb_dt type, int ta, int tb, int64_t m, int64_t n, int64_t k, const void *A, int64_t lda,
                     const void *B, int64_t ldb, void *C, int64_t ldc)
{
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            double sd = 0.0; float sf = 0.0f; int64_t si = 0;
            for (int64_t l = 0; l < k; l++) {
                const int64_t ia = ta ? l + i * lda : i + l * lda, ib = tb ? j + l * ldb : l + j * ldb;
                switch (type) {
                case OZB_DT_F64: sd += ((const double *)A)[ia] * ((const double *)B)[ib]; break;
                case OZB_DT_F16: sf += f16_value(((const uint16_t *)A)[ia]) * f16_value(((const uint16_t *)B)[ib]); break;
                case OZB_DT_S8:  si += (int64_t)((const int8_t *)A)[ia] * ((const int8_t *)B)[ib]; break;
                }
            }
            switch (type) {
            case OZB_DT_F64: ((double *)C)[i + j * ldc] = sd; break;
            case OZB_DT_F16: ((float *)C)[i + j * ldc] = sf; break;
            case OZB_DT_S8:  ((int32_t *)C)[i + j * ldc] = (int32_t)si; break;
            }
        }
}

int ozb_dev_gemm(ozb_dev *d, ozb_dt type, int ta, int tb, int64_t m, int64_t n, int64_t k,
                 const void *A, int64_t lda, const void *B, int64_t ldb, void *C, int64_t ldc)
{
    if (m <= 0 || n <= 0) return 0;
    if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX || lda > INT32_MAX || ldb > INT32_MAX || ldc > INT32_MAX)
        return -1;                               /* cuBLAS's 32-bit sizes; the tiles stay far below */
    if (d->emulated) { emu_gemm(type, ta, tb, m, n, k, A, lda, B, ldb, C, ldc); return 0; }
#ifdef OZBLAS_HAVE_CUDA
    use(d);
    const cublasOperation_t oa = ta ? CUBLAS_OP_T : CUBLAS_OP_N, ob = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasStatus_t s;
    if (type == OZB_DT_F64) {
        const double one = 1.0, zero = 0.0;
        s = d->dgemm(d->blas, oa, ob, (int)m, (int)n, (int)k, &one, A, (int)lda, B, (int)ldb, &zero, C, (int)ldc);
    } else if (type == OZB_DT_F16) {
        const float one = 1.0f, zero = 0.0f;      /* FP32 accumulation: never 16F or TF32 compute */
        s = d->gemm_ex(d->blas, oa, ob, (int)m, (int)n, (int)k, &one, A, CUDA_R_16F, (int)lda, B, CUDA_R_16F, (int)ldb,
                       &zero, C, CUDA_R_32F, (int)ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    } else {
        const int32_t one = 1, zero = 0;
        s = d->gemm_ex(d->blas, oa, ob, (int)m, (int)n, (int)k, &one, A, CUDA_R_8I, (int)lda, B, CUDA_R_8I, (int)ldb,
                       &zero, C, CUDA_R_32I, (int)ldc, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT);
    }
    return s == CUBLAS_STATUS_SUCCESS ? 0 : 1000 + (int)s;
#else
    return -1;
#endif
}

/* ---------------------------------------------------------------- kernels */
int ozb_dev_u8_to_s8_mod(ozb_dev *d, const uint8_t *src, int8_t *dst, int64_t n, int32_t m)
{
    if (d->emulated) { for (int64_t i = 0; i < n; i++) dst[i] = ozb_op_u8_to_s8_mod(src[i], m); return 0; }
#ifdef OZBLAS_HAVE_CUDA
    use(d);
    return ozb_kl_u8_to_s8_mod(src, dst, n, m, d->stream);
#else
    return -1;
#endif
}

int ozb_dev_u8_nibbles(ozb_dev *d, const uint8_t *src, int8_t *hi, int8_t *lo, int64_t n)
{
    if (d->emulated) { for (int64_t i = 0; i < n; i++) { hi[i] = ozb_op_u8_hi(src[i]); lo[i] = ozb_op_u8_lo(src[i]); } return 0; }
#ifdef OZBLAS_HAVE_CUDA
    use(d);
    return ozb_kl_u8_nibbles(src, hi, lo, n, d->stream);
#else
    return -1;
#endif
}

int ozb_dev_hi_lo(ozb_dev *d, const int32_t *hi, const int32_t *lo, int32_t *dst, int64_t n)
{
    if (d->emulated) { for (int64_t i = 0; i < n; i++) dst[i] = ozb_op_hi_lo(hi[i], lo[i]); return 0; }
#ifdef OZBLAS_HAVE_CUDA
    use(d);
    return ozb_kl_hi_lo(hi, lo, dst, n, d->stream);
#else
    return -1;
#endif
}

int ozb_dev_skinny_i32(ozb_dev *d, const int32_t *A, const double *X, double *P, int64_t M, int64_t N, int64_t kb, int64_t ldp)
{
    if (N > OZB_SKINNY_MAX_N) return -1;
    if (d->emulated) {
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) {
                double s = 0.0;
                for (int64_t l = 0; l < kb; l++) s += ozb_op_i32_times(A[i * kb + l], X[j * kb + l]);
                P[i + j * ldp] = s;
            }
        return 0;
    }
#ifdef OZBLAS_HAVE_CUDA
    use(d);
    return ozb_kl_skinny_i32(A, X, P, M, N, kb, ldp, d->stream);
#else
    return -1;
#endif
}

int ozb_dev_crt_fold(ozb_dev *d, int32_t *acc, const int32_t *src, int64_t ne, int32_t m)
{
    if (d->emulated) { for (int64_t e = 0; e < ne; e++) acc[e] = ozb_op_crt_fold(acc[e], src[e], m); return 0; }
#ifdef OZBLAS_HAVE_CUDA
    use(d);
    return ozb_kl_crt_fold(acc, src, ne, m, d->stream);
#else
    return -1;
#endif
}

int ozb_dev_crt_recon(ozb_dev *d, const int32_t *C, int64_t ne, const void *consts, double *out)
{
    if (d->emulated) {
        for (int64_t e = 0; e < ne; e++) out[e] = ozb_op_crt_recon(C + e, ne, (const ozb_op_crt_consts *)consts);
        return 0;
    }
#ifdef OZBLAS_HAVE_CUDA
    use(d);
    return ozb_kl_crt_recon(C, ne, consts, out, d->stream);
#else
    return -1;
#endif
}

int ozb_dev_scale(ozb_dev *d, double *c, int64_t crs, int64_t ccs, int64_t m, int64_t n, double beta)
{
    if (d->emulated) {
        if (beta == 1.0) return 0;
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++) { double *p = c + i * crs + j * ccs; *p = ozb_op_scale(beta == 0.0 ? 0.0 : *p, beta); }
        return 0;
    }
#ifdef OZBLAS_HAVE_CUDA
    use(d);
    int e = ozb_kl_scale(c, crs, ccs, m, n, beta, d->stream);
    return e ? e : (int)cudaStreamSynchronize((cudaStream_t)d->stream);
#else
    return -1;
#endif
}

/* ---------------------------------------------------------------- the device-resident engine */
size_t ozb_dev_limit(ozb_dev *d, size_t ws_limit)
{
    if (d->emulated) return ws_limit;
#ifdef OZBLAS_HAVE_CUDA
    use(d);
    size_t free_b = 0, total = 0, held = 0;
    if (cudaMemGetInfo(&free_b, &total) != cudaSuccess) { cudaGetLastError(); return ws_limit; }
    for (int i = 0; i < OZB_NDBUF; i++) held += d->bytes[i];
    const size_t cap = free_b / 2 + held;
    return ws_limit < cap ? ws_limit : cap;
#else
    return ws_limit;
#endif
}

int ozb_dev_zero(ozb_dev *d, void *p, size_t bytes)
{
    if (bytes == 0) return 0;
    if (d->emulated) { memset(p, 0, bytes); return 0; }
#ifdef OZBLAS_HAVE_CUDA
    use(d);
    return (int)cudaMemsetAsync(p, 0, bytes, (cudaStream_t)d->stream);
#else
    return -1;
#endif
}

int ozb_dev_gemm_batched(ozb_dev *d, ozb_dt type, int ta, int tb, int64_t m, int64_t n, int64_t k, const void *A,
                         int64_t lda, int64_t sa, const void *B, int64_t ldb, int64_t sb, void *C, int64_t ldc,
                         int64_t sc, int64_t batch)
{
    if (m <= 0 || n <= 0 || batch <= 0) return 0;
    if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX || lda > INT32_MAX || ldb > INT32_MAX || ldc > INT32_MAX ||
        batch > INT32_MAX)
        return -1;
    const size_t eb = type == OZB_DT_F64 ? 8 : type == OZB_DT_F16 ? 2 : 1, ob = type == OZB_DT_F64 ? 8 : 4;
    if (d->emulated) {
        for (int64_t b = 0; b < batch; b++)
            emu_gemm(type, ta, tb, m, n, k, (const char *)A + eb * (size_t)(b * sa), lda,
                     (const char *)B + eb * (size_t)(b * sb), ldb, (char *)C + ob * (size_t)(b * sc), ldc);
        return 0;
    }
#ifdef OZBLAS_HAVE_CUDA
    use(d);
    const cublasOperation_t oa = ta ? CUBLAS_OP_T : CUBLAS_OP_N, obp = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasStatus_t s;
    if (type == OZB_DT_F64) {                    /* IEEE FP64 (DMMA on Hopper: exact products, our budget) */
        const double one = 1.0, zero = 0.0;
        s = d->gemm_sb_ex(d->blas, oa, obp, (int)m, (int)n, (int)k, &one, A, CUDA_R_64F, (int)lda, sa, B, CUDA_R_64F,
                          (int)ldb, sb, &zero, C, CUDA_R_64F, (int)ldc, sc, (int)batch, CUBLAS_COMPUTE_64F,
                          CUBLAS_GEMM_DEFAULT);
    } else if (type == OZB_DT_F16) {             /* FP32 accumulation on the tensor cores */
        const float one = 1.0f, zero = 0.0f;
        s = d->gemm_sb_ex(d->blas, oa, obp, (int)m, (int)n, (int)k, &one, A, CUDA_R_16F, (int)lda, sa, B, CUDA_R_16F,
                          (int)ldb, sb, &zero, C, CUDA_R_32F, (int)ldc, sc, (int)batch, CUBLAS_COMPUTE_32F,
                          CUBLAS_GEMM_DEFAULT);
    } else {
        const int32_t one = 1, zero = 0;
        s = d->gemm_sb_ex(d->blas, oa, obp, (int)m, (int)n, (int)k, &one, A, CUDA_R_8I, (int)lda, sa, B, CUDA_R_8I,
                          (int)ldb, sb, &zero, C, CUDA_R_32I, (int)ldc, sc, (int)batch, CUBLAS_COMPUTE_32I,
                          CUBLAS_GEMM_DEFAULT);
    }
    return s == CUBLAS_STATUS_SUCCESS ? 0 : 1000 + (int)s;
#else
    return -1;
#endif
}

static ozb_op_side side_of(const ozb_view *v, int64_t r0, int64_t rows, int64_t R, int64_t k, int64_t kb)
{
    const int64_t nkb = (k + kb - 1) / kb;
    ozb_op_side sd = { v->p, v->rs, v->cs, r0, rows, R, k, kb, nkb, ozb_op_nch(v->rs, kb) };
    return sd;
}

int ozb_dev_meta(ozb_dev *d, const ozb_view *v, int64_t rows, int64_t k, int64_t kb, int beta, int limit, uint64_t *mx,
                 int32_t *low, int32_t *e, int32_t *ns)
{
    const ozb_op_side sd = side_of(v, 0, rows, rows, k, kb);
    const int64_t nslot = sd.nkb * rows;
    if (d->emulated) {
        for (int64_t q = 0; q < nslot; q++) { mx[q] = 0; low[q] = OZB_OP_LOW_NONE; }
        for (int64_t w = 0; w < ozb_op_items(&sd); w++) {
            int64_t q;
            const ozb_op_rowmeta m = ozb_op_meta_item(&sd, w, &q);
            if (m.mx > mx[q]) mx[q] = m.mx;
            if (m.low < low[q]) low[q] = m.low;
        }
        for (int64_t q = 0; q < nslot; q++) {
            const ozb_op_rowmeta m = { mx[q], low[q] };
            ozb_op_meta_finish(m, beta, limit, &e[q], &ns[q]);
        }
        return 0;
    }
#ifdef OZBLAS_HAVE_CUDA
    use(d);
    return ozb_kl_meta(&sd, beta, limit, mx, low, e, ns, d->stream);
#else
    (void)beta; (void)limit; (void)mx; (void)low; (void)e; (void)ns; (void)nslot;
    return -1;
#endif
}

int ozb_dev_split(ozb_dev *d, ozb_dt type, const ozb_view *v, int64_t r0, int64_t rows, int64_t R, int64_t k,
                  int64_t kb, int beta, const int32_t *e, const int32_t *ns, int s, int64_t kbp, int rowfast, void *S)
{
    const ozb_op_side sd = side_of(v, r0, rows, R, k, kb);
    const int64_t items = sd.nkb * rows * kbp;
    if (d->emulated) {
        for (int64_t w = 0; w < items; w++) ozb_op_split_item(&sd, (int)type, beta, e, ns, s, kbp, rowfast, S, w);
        return 0;
    }
#ifdef OZBLAS_HAVE_CUDA
    use(d);
    return ozb_kl_split(&sd, (int)type, beta, e, ns, s, kbp, rowfast, S, items, d->stream);
#else
    return -1;
#endif
}

int ozb_dev_fused(ozb_dev *d, const ozb_view *a, int64_t r0, int64_t rows, int64_t R, int64_t k, int64_t kb, int beta,
                  const int32_t *eA, const int32_t *nsA, int sa, const double *SX, int sb, int64_t kbp, double *P)
{
    if (sa > OZB_OP_FUSED_MAXS || sb > OZB_OP_FUSED_MAXS) return -1;
    const ozb_op_side sd = side_of(a, r0, rows, R, k, kb);
    if (d->emulated) {
        double acc[OZB_OP_FUSED_MAXS][OZB_OP_FUSED_MAXS];
        const int64_t M = (int64_t)sa * rows;
        for (int64_t w = 0; w < ozb_op_items(&sd); w++) {
            int nsa;
            int64_t kk, r;
            ozb_op_fused_item(&sd, beta, eA, nsA, SX, sb, kbp, w, acc, &nsa, &kk, &r);
            for (int t = 0; t < nsa; t++)
                for (int u = 0; u < sb; u++) P[kk * M * sb + t * rows + r + u * M] += acc[t][u];   /* exact integers */
        }
        return 0;
    }
#ifdef OZBLAS_HAVE_CUDA
    use(d);
    return ozb_kl_fused(&sd, beta, eA, nsA, sa, SX, sb, kbp, P, d->stream);
#else
    return -1;
#endif
}

int ozb_dev_colsums(ozb_dev *d, const ozb_view *b, int64_t n, int64_t k, const double *g, double sc, double sc2, double *w)
{
    const ozb_op_side sd = side_of(b, 0, n, n, k, k);
    if (d->emulated) {
        for (int64_t l = 0; l < k; l++) w[l] = ozb_op_colsum_item(&sd, g, sc, sc2, l);
        return 0;
    }
#ifdef OZBLAS_HAVE_CUDA
    use(d);
    return ozb_kl_colsums(&sd, g, sc, sc2, w, d->stream);
#else
    return -1;
#endif
}

int ozb_dev_local_weights(ozb_dev *d, const ozb_view *b, int64_t k, int64_t kb, const double *sg, double *v, double *u)
{
    const ozb_op_side sd = side_of(b, 0, 1, 1, k, kb);
    if (d->emulated) {
        for (int64_t l = 0; l < k; l++) ozb_op_local_weights_item(&sd, sg, l, v, u);
        return 0;
    }
#ifdef OZBLAS_HAVE_CUDA
    use(d);
    return ozb_kl_local_weights(&sd, sg, v, u, d->stream);
#else
    return -1;
#endif
}

int ozb_dev_vmax(ozb_dev *d, const double *w, int64_t k, uint64_t *slot, double *host_max)
{
    if (d->emulated) {
        double mx = 0.0;
        for (int64_t l = 0; l < k; l++) mx = w[l] > mx ? w[l] : mx;
        *host_max = mx;
        return 0;
    }
#ifdef OZBLAS_HAVE_CUDA
    use(d);
    int rc = ozb_kl_vmax(w, k, slot, d->stream);
    uint64_t b = 0;
    if (!rc) rc = copy2d(d, 0, &b, 8, slot, 8, 8, 1);
    memcpy(host_max, &b, 8);                     /* non-negative doubles order as their bits */
    return rc;
#else
    (void)slot;
    return -1;
#endif
}

int ozb_dev_crit(ozb_dev *d, const ozb_view *a, int64_t m, int64_t k, int64_t kb, const double *v, const double *u,
                 const int32_t *e, int32_t *ns, int32_t *dA, int beta, double sfac, int dhyp)
{
    const ozb_op_side sd = side_of(a, 0, m, m, k, kb);
    const int64_t items = sd.nkb * m;
    if (d->emulated) {
        for (int64_t w = 0; w < items; w++) ozb_op_crit_item(&sd, v, u, e, ns, dA, beta, sfac, dhyp, w);
        return 0;
    }
#ifdef OZBLAS_HAVE_CUDA
    use(d);
    return ozb_kl_crit(&sd, v, u, e, ns, dA, beta, sfac, dhyp, items, d->stream);
#else
    return -1;
#endif
}

int ozb_dev_sum(ozb_dev *d, const ozb_op_sum_args *g)
{
    if (d->emulated) {
        ozb_longacc *acc = malloc(sizeof *acc);
        if (!acc) return -2;
        ozb_op_la_init(acc);
        for (int64_t j = 0; j < g->nb; j++)
            for (int64_t i = 0; i < g->mb; i++)
                g->c[(g->i0 + i) * g->crs + (g->j0 + j) * g->ccs] = ozb_op_sum_elem(g, i, j, acc);
        free(acc);
        return 0;
    }
#ifdef OZBLAS_HAVE_CUDA
    use(d);
    return ozb_kl_sum(g, d->stream);
#else
    return -1;
#endif
}

/* ---------------------------------------------------------------- the CRT format */
int ozb_dev_crt_rows(ozb_dev *d, const ozb_view *v, int64_t rows, int64_t k, ozb_op_crt_row *out)
{
    const ozb_op_side sd = side_of(v, 0, rows, rows, k, k);
    if (d->emulated) {
        for (int64_t r = 0; r < rows; r++) out[r] = ozb_op_crt_rowscale(v->p + r * v->rs, v->cs, k);
        return 0;
    }
#ifdef OZBLAS_HAVE_CUDA
    use(d);
    return ozb_kl_crt_rows(&sd, out, d->stream);
#else
    (void)sd;
    return -1;
#endif
}

int ozb_dev_crt_dots(ozb_dev *d, const ozb_view *a, int64_t m, int64_t k, const int32_t *e, const double *v, double *dot)
{
    const ozb_op_side sd = side_of(a, 0, m, m, k, k);
    if (d->emulated) {
        for (int64_t i = 0; i < m; i++) dot[i] = ozb_op_crt_dot_item(&sd, e, v, i);
        return 0;
    }
#ifdef OZBLAS_HAVE_CUDA
    use(d);
    return ozb_kl_crt_dots(&sd, e, v, dot, d->stream);
#else
    return -1;
#endif
}

int ozb_dev_crt_residues(ozb_dev *d, const ozb_view *v, int64_t r0, int64_t rows, int64_t l0, int64_t kbb,
                         const double *f1, const double *f2, const ozb_op_crt_res *rc, int64_t kbp, int8_t *out)
{
    const ozb_view vb = { v->p + l0 * v->cs, v->rs, v->cs };
    const ozb_op_side sd = side_of(&vb, r0, rows, r0 + rows, kbb, kbb);
    const int64_t items = rows * kbp;
    if (d->emulated) {
        for (int64_t w = 0; w < items; w++) ozb_op_crt_res_item(&sd, f1, f2, rc, kbp, out, w);
        return 0;
    }
#ifdef OZBLAS_HAVE_CUDA
    use(d);
    return ozb_kl_crt_residues(&sd, f1, f2, rc, kbp, out, items, d->stream);
#else
    return -1;
#endif
}

int ozb_dev_crt_out(ozb_dev *d, const ozb_op_crt_out_args *g)
{
    const int64_t ne = g->mbb * g->nbb;
    if (d->emulated) {
        for (int64_t e = 0; e < ne; e++) ozb_op_crt_out_item(g, e);
        return 0;
    }
#ifdef OZBLAS_HAVE_CUDA
    use(d);
    return ozb_kl_crt_out(g, d->stream);
#else
    return -1;
#endif
}

int ozb_dev_crt_quant(ozb_dev *d, const ozb_view *v, int64_t r0, int64_t rows, int64_t l0, int64_t kbb, const int32_t *e,
                      int bits, int64_t kbp, int8_t *lo, int8_t *hi)
{
    const ozb_view vb = { v->p + l0 * v->cs, v->rs, v->cs };
    const ozb_op_side sd = side_of(&vb, r0, rows, r0 + rows, kbb, kbb);
    const int64_t items = rows * kbp;
    if (d->emulated) {
        for (int64_t w = 0; w < items; w++) ozb_op_crt_quant_item(&sd, e, bits, kbp, lo, hi, w);
        return 0;
    }
#ifdef OZBLAS_HAVE_CUDA
    use(d);
    return ozb_kl_crt_quant(&sd, e, bits, kbp, lo, hi, items, d->stream);
#else
    return -1;
#endif
}

int ozb_dev_crt_bound_acc(ozb_dev *d, const int32_t *Ulo, const int32_t *Uhi, double *Ud, int first, int64_t ne)
{
    if (d->emulated) {
        for (int64_t e = 0; e < ne; e++) ozb_op_crt_bound_acc(Ulo, Uhi, Ud, first, e);
        return 0;
    }
#ifdef OZBLAS_HAVE_CUDA
    use(d);
    return ozb_kl_crt_bound_acc(Ulo, Uhi, Ud, first, ne, d->stream);
#else
    return -1;
#endif
}

int ozb_dev_crt_zmax(ozb_dev *d, const double *Ud, int64_t mbb, int64_t nbb, int64_t i0, int64_t j0, const int32_t *eB,
                     const int32_t *cB, uint64_t *Z)
{
    if (d->emulated) {
        for (int64_t e = 0; e < mbb * nbb; e++) {
            const uint64_t b = ozb_op_crt_z_item(Ud, mbb, j0, eB, cB, e);
            if (b > Z[i0 + e % mbb]) Z[i0 + e % mbb] = b;
        }
        return 0;
    }
#ifdef OZBLAS_HAVE_CUDA
    use(d);
    return ozb_kl_crt_zmax(Ud, mbb, nbb, i0, j0, eB, cB, Z, d->stream);
#else
    return -1;
#endif
}
