/*
 * ozblas: accurate and bitwise-reproducible BLAS routines built on the Ozaki scheme.
 *
 * Column-major storage, BLAS argument conventions (sizes, leading dimensions,
 * increments).  Every routine returns an ozblas_status_t; no routine prints,
 * exits or aborts.  The guarantees (exactness, reproducibility, special values)
 * are those of CONTRACT.md; README.md summarises them.
 *
 * A handle may be used by one thread at a time; different handles may be used
 * concurrently from different threads.
 */
#ifndef OZBLAS_H
#define OZBLAS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define OZBLAS_VERSION_MAJOR 0
#define OZBLAS_VERSION_MINOR 1
#define OZBLAS_VERSION_PATCH 0

typedef struct ozblas_context *ozblas_handle_t;

typedef enum {
    OZBLAS_STATUS_SUCCESS = 0,
    OZBLAS_STATUS_INVALID_VALUE,
    OZBLAS_STATUS_ALLOC_FAILED,
    OZBLAS_STATUS_NOT_SUPPORTED,
    OZBLAS_STATUS_EXECUTION_FAILED,
    /* the call failed after it had written part of its output (its workspace ran out, or a
     * device operation failed, midway): the output holds some results and some old values.
     * Every other failure status of ozblas_dgemm, ozblas_dgemv, ozblas_ddot, ozblas_drot and
     * ozblas_drotm leaves the output as it was (CONTRACT §4). */
    OZBLAS_STATUS_PARTIAL
} ozblas_status_t;

typedef enum { OZBLAS_OP_N = 0, OZBLAS_OP_T = 1 } ozblas_operation_t;

typedef enum {
    OZBLAS_MODE_DOUBLE = 0,              /* DGEMM-equivalent accuracy, fewest slices (default) */
    OZBLAS_MODE_CORRECTLY_ROUNDED = 1,   /* every output element is RN(exact result)           */
    OZBLAS_MODE_FIXED = 2                /* user's split count, fast mode and summation        */
} ozblas_mode_t;

typedef enum {
    OZBLAS_SUM_DOUBLE = 0,   /* fixed-order binary64 summation of the partial products      */
    OZBLAS_SUM_NEARSUM = 1   /* NearSum: correctly rounded sum of the partial products      */
} ozblas_summation_t;

/* Slice formats (how slices are stored and multiplied; CONTRACT §5). */
typedef enum {
    OZBLAS_ENGINE_FP64 = 0,   /* double slices, products by DGEMM                                   */
    OZBLAS_ENGINE_FP16 = 1,   /* binary16 slices, FP32 accumulation budget (tensor cores); CPU: exact */
    OZBLAS_ENGINE_INT8 = 2,   /* int8 slices, int32 accumulation (oneDNN s8s8s32 on the CPU)         */
    OZBLAS_ENGINE_CRT_INT8 = 3 /* Ozaki scheme II: int8 residues modulo coprime moduli, one INT8 GEMM
                                  per modulus, CRT reconstruction; FIXED: split count = moduli      */
} ozblas_engine_t;

/* Scaling of CRT_INT8 in FIXED and DOUBLE mode (seed 002): FAST bounds every product by
 * Cauchy-Schwarz from row and column norms; ACCURATE bounds |A||B| elementwise with one extra
 * INT8 GEMM of 6- and 7-bit magnitudes, which keeps more bits of rows whose products are small
 * next to their norms (fewer moduli for wide-range data), never fewer than FAST. */
typedef enum { OZBLAS_CRT_SCALING_FAST = 0, OZBLAS_CRT_SCALING_ACCURATE = 1 } ozblas_crt_scaling_t;

/* What the last routine called on a handle did.  A routine that runs several problems (the
 * level-3 routines beyond GEMM, the triangular solves by blocks) reports its last problem's
 * slices, calls, fallbacks and times; on a CUDA handle bytes_to_device, bytes_to_host,
 * host_staged and device_waits cover the whole routine. */
typedef struct {
    int      slices_a;          /* largest number of slices of op(A) (DOT: x; GEMV: op(A))     */
    int      slices_b;          /* largest number of slices of op(B) (DOT: y; GEMV: x)         */
    int      split_count;       /* d used for fast mode (0 if fast mode was off)               */
    int      fast_mode;         /* 1 if pairs with p + q > d + 1 were skipped                  */
    ozblas_mode_t      mode;
    ozblas_summation_t summation;
    ozblas_engine_t    engine;
    int      bits_per_slice;    /* digit bits of the slice format at the inner block used        */
    int64_t  gemm_calls;        /* number of BLAS GEMM calls that multiplied slices            */
    int64_t  slice_products;    /* number of slice pairs multiplied (summed over blocks)       */
    double   gemm_flops;        /* 2*m*n*k summed over every GEMM call                          */
    int64_t  blocks;            /* number of (m-block, n-block, k-block) tiles processed       */
    int64_t  block_m, block_n, block_k; /* tile sizes used                                       */
    int64_t  exact_fallbacks;   /* elements a method left to a slower exact one: rounded by the long
                                 * accumulator instead of NearSum, or (DOUBLE with CRT_INT8) left by
                                 * the per-element certificate to the correctly rounded completion */
    int64_t  lazy_fixups;       /* CORRECTLY_ROUNDED: elements that needed the small pairs too  */
    /* phase times: 0 for calls too small to pay for the clock reads (below 2^14 multiply-adds
     * in the error-free and fused DOT/GEMV and their fallbacks; seconds_total too there) */
    double   seconds_split;     /* wall time splitting inputs into slices                      */
    double   seconds_multiply;  /* wall time in slice products                                 */
    double   seconds_sum;       /* wall time summing partial products, alpha/beta              */
    double   seconds_total;
    int      fused;             /* 1: DOT/GEMV done by the fused split-and-accumulate kernel;
                                 * 2: by error-free dot products (TwoSum/TwoProduct, certified);
                                 * 3: the last certifying stage was the deep (two-level) error-free
                                 *    sums, for results that cancel far below their terms         */
    /* CUDA handles: the bytes the call copied from the host to the device and back (scalars,
     * row scales, flags: O(m + n) where it ran on the device), and 1 in host_staged where its
     * operands went through the host instead (O(m k + k n + m n) bytes: a configuration without
     * a device-resident path, or one the resident engines declined).  0 on CPU handles. */
    int64_t  bytes_to_device;
    int64_t  bytes_to_host;
    int      host_staged;
    /* CUDA handles: the times the call waited for the device (each copy between host and
     * device, which completes before the call goes on, and each synchronisation of its
     * stream): what a small call's time on a GPU is mostly made of.  0 on CPU handles. */
    int64_t  device_waits;
} ozblas_info_t;

/* Handle management.  ozblas_create: CPU backend. */
ozblas_status_t ozblas_create(ozblas_handle_t *handle);
ozblas_status_t ozblas_destroy(ozblas_handle_t handle);
const char     *ozblas_status_string(ozblas_status_t status);

/* CUDA backend on GPU `device`: matrix and vector arguments are device pointers (as in cuBLAS);
 * ozblas_ddot's result is written to host memory.  The results are the CPU handle's, bit for bit,
 * for the same configuration.  OZBLAS_STATUS_NOT_SUPPORTED where this build has no CUDA or no
 * such device is present (ozblas_cuda_unavailable_reason says which). */
ozblas_status_t ozblas_create_cuda(ozblas_handle_t *handle, int device);
/* cudaStream_t for a CUDA handle's work (NULL = default stream); NOT_SUPPORTED on a CPU handle.
 * Every routine has finished with its operands when it returns. */
ozblas_status_t ozblas_set_stream(ozblas_handle_t h, void *cuda_stream);
/* NULL when ozblas_create_cuda(.., device) would succeed, else why not (static text). */
const char     *ozblas_cuda_unavailable_reason(int device);

typedef enum { OZBLAS_BACKEND_CPU = 0, OZBLAS_BACKEND_CUDA = 1 } ozblas_backend_t;
ozblas_status_t ozblas_get_backend(ozblas_handle_t h, ozblas_backend_t *backend);

/* Configuration.  Split count, fast mode and summation are used in FIXED mode;
 * DOUBLE and CORRECTLY_ROUNDED choose them themselves. */
ozblas_status_t ozblas_set_mode(ozblas_handle_t h, ozblas_mode_t mode);
ozblas_status_t ozblas_get_mode(ozblas_handle_t h, ozblas_mode_t *mode);
ozblas_status_t ozblas_set_split_count(ozblas_handle_t h, int slices);          /* >= 1, default 3 */
ozblas_status_t ozblas_set_fast_mode(ozblas_handle_t h, int enabled);           /* default 0 */
ozblas_status_t ozblas_set_summation(ozblas_handle_t h, ozblas_summation_t s);  /* default NEARSUM */
ozblas_status_t ozblas_set_num_threads(ozblas_handle_t h, int threads);         /* 0 = default (all cores) */
ozblas_status_t ozblas_set_workspace_limit(ozblas_handle_t h, size_t bytes);    /* 0 = default */
/* Calls of fewer multiply-adds (m n k; DOT and GEMV count their products a few times over)
 * run on one thread: 0 = the default (65536).  A process that runs other threaded code between
 * calls (LAPACK over a threaded BLAS) gains from a higher one, as idle OpenMP threads spin
 * on the cores it needs.  Thread counts never change a bit. */
ozblas_status_t ozblas_set_parallel_threshold(ozblas_handle_t h, int64_t work);
ozblas_status_t ozblas_get_parallel_threshold(ozblas_handle_t h, int64_t *work);   /* as set: 0 = default */
ozblas_status_t ozblas_get_workspace_limit(ozblas_handle_t h, size_t *bytes);
ozblas_status_t ozblas_get_info(ozblas_handle_t h, ozblas_info_t *info);
ozblas_status_t ozblas_get_split_count(ozblas_handle_t h, int *slices);
ozblas_status_t ozblas_get_fast_mode(ozblas_handle_t h, int *enabled);
ozblas_status_t ozblas_get_summation(ozblas_handle_t h, ozblas_summation_t *s);
ozblas_status_t ozblas_get_num_threads(ozblas_handle_t h, int *threads);      /* as set: 0 = default */
/* What computes the exact products of format `engine` on this handle (static text: e.g.
 * "oneDNN int8 GEMM (exact on this CPU: VNNI)"); NULL where the handle has no such products.
 * Calls computed by error-free sums (CORRECTLY_ROUNDED, and DOUBLE with the slice formats,
 * where info.gemm_calls is 0) use none. */
const char     *ozblas_products_name(ozblas_handle_t h, ozblas_engine_t engine);
/* Slice format; NOT_SUPPORTED when this build lacks it (INT8 needs oneDNN). Default FP64. */
ozblas_status_t ozblas_set_engine(ozblas_handle_t h, ozblas_engine_t engine);
ozblas_status_t ozblas_get_engine(ozblas_handle_t h, ozblas_engine_t *engine);
/* CRT_INT8 scaling (default FAST); results are reproducible per scaling */
ozblas_status_t ozblas_set_crt_scaling(ozblas_handle_t h, ozblas_crt_scaling_t scaling);
ozblas_status_t ozblas_get_crt_scaling(ozblas_handle_t h, ozblas_crt_scaling_t *scaling);

/* result = x^T y.  n <= 0 gives 0.  incx, incy may be negative or zero (BLAS). */
ozblas_status_t ozblas_ddot(ozblas_handle_t h, int64_t n, const double *x, int64_t incx,
                            const double *y, int64_t incy, double *result);

/* y = alpha * op(A) x + beta * y, A is m x n column-major. */
ozblas_status_t ozblas_dgemv(ozblas_handle_t h, ozblas_operation_t trans, int64_t m, int64_t n,
                             double alpha, const double *A, int64_t lda, const double *x, int64_t incx,
                             double beta, double *y, int64_t incy);

/* C = alpha * op(A) op(B) + beta * C, op(A) is m x k, op(B) is k x n, column-major. */
ozblas_status_t ozblas_dgemm(ozblas_handle_t h, ozblas_operation_t transa, ozblas_operation_t transb,
                             int64_t m, int64_t n, int64_t k, double alpha, const double *A, int64_t lda,
                             const double *B, int64_t ldb, double beta, double *C, int64_t ldc);


/* ---- the rest of the double-precision BLAS (docs/CONTRACT.md §6) ----
 * BLAS argument conventions; results per mode as the contract's table says.  On a CUDA
 * handle the level-3 routines (dsymm, dsyrk, dsyr2k, dtrmm, dtrsm) take device pointers and
 * run on the device with the CPU handle's bits; level 1 and 2 return
 * OZBLAS_STATUS_NOT_SUPPORTED there for now. */
typedef enum { OZBLAS_UPPER = 0, OZBLAS_LOWER = 1 } ozblas_uplo_t;
typedef enum { OZBLAS_NON_UNIT = 0, OZBLAS_UNIT = 1 } ozblas_diag_t;
typedef enum { OZBLAS_LEFT = 0, OZBLAS_RIGHT = 1 } ozblas_side_t;
#define OZBLAS_TRSM_BLOCK 16   /* rows per block of the triangular-solve rule (CONTRACT §6) */

/* level 1 */
ozblas_status_t ozblas_dcopy(ozblas_handle_t h, int64_t n, const double *x, int64_t incx, double *y, int64_t incy);
ozblas_status_t ozblas_dswap(ozblas_handle_t h, int64_t n, double *x, int64_t incx, double *y, int64_t incy);
ozblas_status_t ozblas_dscal(ozblas_handle_t h, int64_t n, double alpha, double *x, int64_t incx);
ozblas_status_t ozblas_daxpy(ozblas_handle_t h, int64_t n, double alpha, const double *x, int64_t incx,
                             double *y, int64_t incy);
ozblas_status_t ozblas_drot(ozblas_handle_t h, int64_t n, double *x, int64_t incx, double *y, int64_t incy,
                            double c, double s);
/* param: flag, h11, h21, h12, h22 (reference BLAS layout) */
ozblas_status_t ozblas_drotm(ozblas_handle_t h, int64_t n, double *x, int64_t incx, double *y, int64_t incy,
                             const double *param);
/* the rotation from (a, b): r into a, z into b, c and s (CONTRACT §6) */
ozblas_status_t ozblas_drotg(ozblas_handle_t h, double *a, double *b, double *c, double *s);
/* the modified rotation from (d1, d2, x1, y1): d1, d2, x1 updated, H into param (as drotm reads it) */
ozblas_status_t ozblas_drotmg(ozblas_handle_t h, double *d1, double *d2, double *x1, double y1, double *param);
ozblas_status_t ozblas_dasum(ozblas_handle_t h, int64_t n, const double *x, int64_t incx, double *result);
ozblas_status_t ozblas_dnrm2(ozblas_handle_t h, int64_t n, const double *x, int64_t incx, double *result);
/* *result: 1-based index, 0 for n < 1 or incx < 1 */
ozblas_status_t ozblas_idamax(ozblas_handle_t h, int64_t n, const double *x, int64_t incx, int64_t *result);

/* level 2 */
ozblas_status_t ozblas_dsymv(ozblas_handle_t h, ozblas_uplo_t uplo, int64_t n, double alpha, const double *A,
                             int64_t lda, const double *x, int64_t incx, double beta, double *y, int64_t incy);
ozblas_status_t ozblas_dtrmv(ozblas_handle_t h, ozblas_uplo_t uplo, ozblas_operation_t trans, ozblas_diag_t diag,
                             int64_t n, const double *A, int64_t lda, double *x, int64_t incx);
ozblas_status_t ozblas_dtrsv(ozblas_handle_t h, ozblas_uplo_t uplo, ozblas_operation_t trans, ozblas_diag_t diag,
                             int64_t n, const double *A, int64_t lda, double *x, int64_t incx);
ozblas_status_t ozblas_dger(ozblas_handle_t h, int64_t m, int64_t n, double alpha, const double *x, int64_t incx,
                            const double *y, int64_t incy, double *A, int64_t lda);
ozblas_status_t ozblas_dsyr(ozblas_handle_t h, ozblas_uplo_t uplo, int64_t n, double alpha, const double *x,
                            int64_t incx, double *A, int64_t lda);
ozblas_status_t ozblas_dsyr2(ozblas_handle_t h, ozblas_uplo_t uplo, int64_t n, double alpha, const double *x,
                             int64_t incx, const double *y, int64_t incy, double *A, int64_t lda);

/* level 2, packed storage (column-major packed triangle, as the reference BLAS): the bits of
 * dsymv, dtrmv, dtrsv, dsyr, dsyr2 on the same matrix in full storage */
ozblas_status_t ozblas_dspmv(ozblas_handle_t h, ozblas_uplo_t uplo, int64_t n, double alpha, const double *AP,
                             const double *x, int64_t incx, double beta, double *y, int64_t incy);
ozblas_status_t ozblas_dtpmv(ozblas_handle_t h, ozblas_uplo_t uplo, ozblas_operation_t trans, ozblas_diag_t diag,
                             int64_t n, const double *AP, double *x, int64_t incx);
ozblas_status_t ozblas_dtpsv(ozblas_handle_t h, ozblas_uplo_t uplo, ozblas_operation_t trans, ozblas_diag_t diag,
                             int64_t n, const double *AP, double *x, int64_t incx);
ozblas_status_t ozblas_dspr(ozblas_handle_t h, ozblas_uplo_t uplo, int64_t n, double alpha, const double *x,
                            int64_t incx, double *AP);
ozblas_status_t ozblas_dspr2(ozblas_handle_t h, ozblas_uplo_t uplo, int64_t n, double alpha, const double *x,
                             int64_t incx, const double *y, int64_t incy, double *AP);

/* level 2, band storage (the reference BLAS's): every element correctly rounded in every mode,
 * the values dgemv / dsymv / dtrmv / dtrsv give correctly rounded on the full matrix */
ozblas_status_t ozblas_dgbmv(ozblas_handle_t h, ozblas_operation_t trans, int64_t m, int64_t n, int64_t kl, int64_t ku,
                             double alpha, const double *A, int64_t lda, const double *x, int64_t incx, double beta,
                             double *y, int64_t incy);
ozblas_status_t ozblas_dsbmv(ozblas_handle_t h, ozblas_uplo_t uplo, int64_t n, int64_t k, double alpha,
                             const double *A, int64_t lda, const double *x, int64_t incx, double beta, double *y,
                             int64_t incy);
ozblas_status_t ozblas_dtbmv(ozblas_handle_t h, ozblas_uplo_t uplo, ozblas_operation_t trans, ozblas_diag_t diag,
                             int64_t n, int64_t k, const double *A, int64_t lda, double *x, int64_t incx);
ozblas_status_t ozblas_dtbsv(ozblas_handle_t h, ozblas_uplo_t uplo, ozblas_operation_t trans, ozblas_diag_t diag,
                             int64_t n, int64_t k, const double *A, int64_t lda, double *x, int64_t incx);

/* level 3 */
ozblas_status_t ozblas_dsymm(ozblas_handle_t h, ozblas_side_t side, ozblas_uplo_t uplo, int64_t m, int64_t n,
                             double alpha, const double *A, int64_t lda, const double *B, int64_t ldb,
                             double beta, double *C, int64_t ldc);
ozblas_status_t ozblas_dsyrk(ozblas_handle_t h, ozblas_uplo_t uplo, ozblas_operation_t trans, int64_t n, int64_t k,
                             double alpha, const double *A, int64_t lda, double beta, double *C, int64_t ldc);
ozblas_status_t ozblas_dsyr2k(ozblas_handle_t h, ozblas_uplo_t uplo, ozblas_operation_t trans, int64_t n, int64_t k,
                              double alpha, const double *A, int64_t lda, const double *B, int64_t ldb,
                              double beta, double *C, int64_t ldc);
ozblas_status_t ozblas_dtrmm(ozblas_handle_t h, ozblas_side_t side, ozblas_uplo_t uplo, ozblas_operation_t transa,
                             ozblas_diag_t diag, int64_t m, int64_t n, double alpha, const double *A, int64_t lda,
                             double *B, int64_t ldb);
ozblas_status_t ozblas_dtrsm(ozblas_handle_t h, ozblas_side_t side, ozblas_uplo_t uplo, ozblas_operation_t transa,
                             ozblas_diag_t diag, int64_t m, int64_t n, double alpha, const double *A, int64_t lda,
                             double *B, int64_t ldb);

#ifdef __cplusplus
}
#endif
#endif /* OZBLAS_H */
