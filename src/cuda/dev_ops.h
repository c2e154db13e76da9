/* The device layer's implementations (private to src/cuda): one table of operations per
 * kind of device, the GPU (dev_gpu.c: CUDA runtime, cuBLAS, kernels/ozb_kernels.cu) and
 * the emulated device (dev_emu.c: host memory, the same element operations in host loops).
 * dev.c holds what both share (buffers, locking, argument checks, the kernels' side
 * descriptors) and calls through d->ops; nothing else asks which device a handle has. */
#ifndef OZB_DEV_OPS_H
#define OZB_DEV_OPS_H
#include "cuda/dev.h"
#include "../../kernels/ozb_engine_ops.h"
#include <pthread.h>

typedef struct ozb_dev_ops {
    const char *name;
    int    (*enter)(ozb_dev *d);                  /* the handle's GPU current; returns the previous */
    void   (*leave)(ozb_dev *d, int token);
    void   (*close)(ozb_dev *d);                  /* the implementation's own state (buffers are dev.c's) */
    void   (*set_stream)(ozb_dev *d, void *stream);
    void  *(*alloc)(ozb_dev *d, size_t bytes);    /* 256-byte aligned, NULL on failure */
    void   (*release)(ozb_dev *d, void *p);
    int    (*copy2d)(ozb_dev *d, int to_dev, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                     size_t height);
    int    (*sync)(ozb_dev *d);
    int    (*mem_free)(ozb_dev *d, size_t *free_bytes);   /* 0 and the free device memory, or nonzero */
    int    (*zero)(ozb_dev *d, void *p, size_t bytes);
    int    (*gemm)(ozb_dev *d, ozb_dt type, int ta, int tb, int64_t m, int64_t n, int64_t k, const void *A,
                   int64_t lda, const void *B, int64_t ldb, void *C, int64_t ldc);
    int    (*gemm_batched)(ozb_dev *d, ozb_dt type, int ta, int tb, int64_t m, int64_t n, int64_t k, const void *A,
                           int64_t lda, int64_t sa, const void *B, int64_t ldb, int64_t sb, void *C, int64_t ldc,
                           int64_t sc, int64_t batch);
    /* the kernels (kernels/ozb_kernels.h), same arguments */
    int (*u8_to_s8_mod)(ozb_dev *d, const uint8_t *src, int8_t *dst, int64_t n, int32_t m);
    int (*u8_nibbles)(ozb_dev *d, const uint8_t *src, int8_t *hi, int8_t *lo, int64_t n);
    int (*hi_lo)(ozb_dev *d, const int32_t *hi, const int32_t *lo, int32_t *dst, int64_t n);
    int (*skinny_i32)(ozb_dev *d, const int32_t *A, const double *X, double *P, int64_t M, int64_t N, int64_t kb,
                      int64_t ldp);
    int (*crt_fold)(ozb_dev *d, int32_t *acc, const int32_t *src, int64_t ne, int32_t m);
    int (*crt_recon)(ozb_dev *d, const int32_t *C, int64_t ne, const void *consts, double *out);
    int (*scale)(ozb_dev *d, double *c, int64_t crs, int64_t ccs, int64_t m, int64_t n, double beta);
    int (*meta)(ozb_dev *d, const ozb_op_side *sd, int beta, int limit, uint64_t *mx, int32_t *low, int32_t *e,
                int32_t *ns);
    int (*split)(ozb_dev *d, const ozb_op_side *sd, int type, int beta, const int32_t *e, const int32_t *ns, int s,
                 int64_t kbp, int rowfast, void *S, int64_t items);
    int (*fused)(ozb_dev *d, const ozb_op_side *sd, int beta, const int32_t *eA, const int32_t *nsA, int sa,
                 const double *SX, int sb, int64_t kbp, double *P);
    int (*colsums)(ozb_dev *d, const ozb_op_side *sd, const double *g, double sc, double sc2, double *w);
    int (*local_weights)(ozb_dev *d, const ozb_op_side *sd, const double *sg, double *v, double *u);
    int (*vmax)(ozb_dev *d, const double *w, int64_t k, uint64_t *slot, double *host_max);
    int (*crit)(ozb_dev *d, const ozb_op_side *sd, const double *v, const double *u, const int32_t *e, int32_t *ns,
                int32_t *dA, int beta, double sfac, int dhyp, int64_t items);
    int (*sum)(ozb_dev *d, const ozb_op_sum_args *g);
    int (*crt_rows)(ozb_dev *d, const ozb_op_side *sd, ozb_op_crt_row *out);
    int (*crt_dots)(ozb_dev *d, const ozb_op_side *sd, const int32_t *e, const double *v, double *dot);
    int (*crt_residues)(ozb_dev *d, const ozb_op_side *sd, const double *f1, const double *f2, const ozb_op_crt_res *rc,
                        int64_t kbp, int8_t *out, int64_t items);
    int (*crt_out)(ozb_dev *d, const ozb_op_crt_out_args *g);
    int (*crt_quant)(ozb_dev *d, const ozb_op_side *sd, const int32_t *e, int bits, int64_t kbp, int8_t *lo,
                     int8_t *hi, int64_t items);
    int (*crt_bound_acc)(ozb_dev *d, const int32_t *Ulo, const int32_t *Uhi, double *Ud, int first, int64_t ne);
    int (*crt_zmax)(ozb_dev *d, const double *Ud, int64_t mbb, int64_t nbb, int64_t i0, int64_t j0, const int32_t *eB,
                    const int32_t *cB, uint64_t *Z);
} ozb_dev_ops;

struct ozb_dev {
    const ozb_dev_ops *ops;
    int                device;
    void              *stream;
    pthread_mutex_t    mu;
    void              *buf[OZB_NDBUF];
    size_t             bytes[OZB_NDBUF];
    void              *impl;             /* the implementation's own state (dev_gpu.c) */
};

/* The emulated device's table (dev_emu.c).  A function, not exported data: a program that
 * links the static library beside the shared one (white-box tests) would otherwise hold two
 * definitions of one global (ASan's ODR check). */
const ozb_dev_ops *ozb_dev_emu_ops(void);
/* Opens the GPU `device` into d (sets d->ops and d->impl); NOT_SUPPORTED with *why where it
 * cannot (dev_gpu.c; no CUDA in this build: always). */
ozblas_status_t ozb_dev_gpu_open(ozb_dev *d, int device, const char **why);
#endif
