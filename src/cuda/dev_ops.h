/* The device layer's implementations (private to src/cuda): one table of operations per
 * kind of device, the GPU (dev_gpu.c: CUDA runtime, cuBLAS, kernels/ozb_kernels.cu) and
 * the emulated device (dev_emu.c: host memory, cuBLAS's calls by host loops that enforce its
 * documented argument rules).
 * dev.c holds what both share (buffers, locking, argument checks, the kernels' side
 * descriptors, the kernel launches through d->kl) and calls through d->ops; nothing else asks
 * which device a handle has.  Both run the same kernels (kernels/ozb_kernels.cu): the GPU
 * build, or its host build on the emulated device. */
#ifndef OZB_DEV_OPS_H
#define OZB_DEV_OPS_H
#include "cuda/dev.h"
#include "../../kernels/ozb_engine_ops.h"
#include "../../kernels/ozb_kernels.h"
#include <pthread.h>

/* One cuBLAS GEMM exactly as ozblas makes it: cublasGemmEx (batch == 0) or
 * cublasGemmStridedBatchedEx (batch >= 1), alpha = 1, beta = 0, column-major.  dev.c builds
 * it from the operand type; the GPU maps it onto cuBLAS's enums, the emulated device checks
 * it against cuBLAS's documented rules (emu_blas.c) before computing it. */
typedef enum { OZB_CU_R_64F, OZB_CU_R_32F, OZB_CU_R_16F, OZB_CU_R_32I, OZB_CU_R_8I } ozb_cu_type;
typedef enum { OZB_CU_COMPUTE_64F_PEDANTIC, OZB_CU_COMPUTE_32F, OZB_CU_COMPUTE_32I } ozb_cu_compute;
typedef struct {
    int            ta, tb;                 /* 0: CUBLAS_OP_N, 1: CUBLAS_OP_T */
    int64_t        m, n, k;
    const void    *A;
    int64_t        lda, sa;                /* sa, sb, sc: strides between batch entries, in elements */
    const void    *B;
    int64_t        ldb, sb;
    void          *C;
    int64_t        ldc, sc;
    int64_t        batch;
    ozb_cu_type    ab, c;                  /* Atype = Btype, Ctype */
    ozb_cu_compute compute;                /* the scale type follows: 64F, 32F, 32I */
} ozb_gemm_call;

/* The emulated cuBLAS (emu_blas.c): the documented rule g breaks (its text), or NULL; and the
 * GEMM itself by host loops. */
const char *ozb_emu_gemm_rule(const ozb_gemm_call *g);
int         ozb_emu_gemm(const ozb_gemm_call *g);

/* the kinds of device call that fault injection counts (dev.c) */
enum { OZB_FAULT_ALLOC, OZB_FAULT_COPY, OZB_FAULT_LAUNCH, OZB_FAULT_BLAS, OZB_FAULTS };

typedef struct ozb_dev_ops {
    const char *name;
    int    (*enter)(ozb_dev *d);                  /* the handle's GPU current; returns the previous */
    void   (*leave)(ozb_dev *d, int token);
    void   (*close)(ozb_dev *d);                  /* the implementation's own state (buffers are dev.c's) */
    void   (*set_stream)(ozb_dev *d, void *stream);
    void  *(*alloc)(ozb_dev *d, size_t bytes);    /* 256-byte aligned, NULL on failure */
    void   (*release)(ozb_dev *d, void *p);
    /* to_dev: 0 device to host, 1 host to device, 2 device to device */
    int    (*copy2d)(ozb_dev *d, int to_dev, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                     size_t height);
    int    (*sync)(ozb_dev *d);
    int    (*mem_free)(ozb_dev *d, size_t *free_bytes);   /* 0 and the free device memory, or nonzero */
    int    (*zero)(ozb_dev *d, void *p, size_t bytes);
    void   (*current)(ozb_dev *d);               /* the handle's GPU current before a kernel launch */
    int    (*gemm)(ozb_dev *d, const ozb_gemm_call *g);   /* 0, or a cuBLAS status + 1000 */
} ozb_dev_ops;

struct ozb_dev {
    const ozb_dev_ops *ops;
    int                device;
    void              *stream;
    pthread_mutex_t    mu;
    void              *buf[OZB_NDBUF];
    size_t             bytes[OZB_NDBUF];
    int                tag[OZB_NDBUF];   /* ozb_dev_buf_tag */
    void              *impl;             /* the implementation's own state */
    const ozb_kl_table *kl;              /* the kernels' launchers: the GPU's or their host build */
    int                fail_at[OZB_FAULTS];   /* fault injection (OZBLAS_CUDA_FAIL_*): the n-th call fails */
    int64_t            calls[OZB_FAULTS];
    void              *kstream;          /* the launchers' stream argument */
    uint64_t           moved[2];         /* bytes copied to the host [0] and to the device [1] */
    uint64_t           waits;            /* copies and synchronisations (ozb_dev_moved) */
};

/* The emulated device's table (dev_emu.c).  A function, not exported data: a program that
 * links the static library beside the shared one (white-box tests) would otherwise hold two
 * definitions of one global (ASan's ODR check). */
const ozb_dev_ops *ozb_dev_emu_ops(void);
/* Opens the GPU `device` into d (sets d->ops and d->impl); NOT_SUPPORTED with *why where it
 * cannot (dev_gpu.c; no CUDA in this build: always). */
ozblas_status_t ozb_dev_gpu_open(ozb_dev *d, int device, const char **why);
/* What ozb_dev_gpu_open would say, without creating a cuBLAS handle. */
ozblas_status_t ozb_dev_gpu_probe(int device, const char **why);
/* Sets up the emulated device in d (d->impl: its stream, the kernels' order seed `order`). */
ozblas_status_t ozb_dev_emu_open(ozb_dev *d, uint64_t order);
#endif
