/* The device layer of the CUDA backend: memory, copies, the exact GEMMs (cuBLAS) and the
 * kernels, behind one small interface that the product engines (products_cuda.c) and the
 * staging (stage.c) use.
 *
 * Two implementations sit behind it: the GPU (CUDA runtime, cuBLAS loaded with dlopen so
 * that the library does not depend on it where no GPU is used), and an emulated device
 * (OZBLAS_CUDA_EMULATE=1 when the handle is created): host memory, the same calls with the
 * same arguments, cuBLAS's GEMMs by plain loops that enforce cuBLAS's documented argument
 * rules, and the real kernels compiled for the host, launched with their grid and block
 * sizes in a shuffled order.  The emulation lets the host test suite run every line of the
 * backend except the CUDA calls themselves. */
#ifndef OZB_DEV_H
#define OZB_DEV_H
#include "core/ozb_internal.h"
#include "../../kernels/ozb_sum_ops.h"
#include "../../kernels/ozb_crt_ops.h"
#include "../../kernels/ozb_eft_ops.h"
#include "../../kernels/ozb_crcr_ops.h"
#include "../../kernels/ozb_shape_ops.h"

typedef struct ozb_dev ozb_dev;

/* GEMM operand types: F64 (cublasDgemm), F16 x F16 -> F32 with FP32 accumulation on the
 * tensor cores (cublasGemmEx, CUBLAS_COMPUTE_32F), S8 x S8 -> S32 (CUBLAS_COMPUTE_32I). */
typedef enum { OZB_DT_F64 = 0, OZB_DT_F16 = 1, OZB_DT_S8 = 2 } ozb_dt;

/* Device buffer slots (grown on demand, kept by the handle). */
enum { OZB_DBUF_A = 0, OZB_DBUF_B, OZB_DBUF_C, OZB_DBUF_A2, OZB_DBUF_B2, OZB_DBUF_C2, OZB_DBUF_STAGE,
       OZB_DBUF_LA,   /* the exact sum's long accumulators (ozb_dev_sum) */
       OZB_DBUF_CSAVE, /* C's window, put back when a call that writes it tile by tile fails */
       OZB_DBUF_FLAGS, /* DOUBLE CRT: the elements its certificate leaves, one byte each;
                        * a triangular solve's block: its declined flag (ozb_dev_subst); a
                        * window's Inf/NaN flag (ozb_dev_nonfinite) */
       OZB_DBUF_ALT,   /* DOUBLE CRT: those elements' correctly rounded values, m x n; a
                        * triangular solve's block: its rows solved; a window's columns'
                        * Inf/NaN rows (ozb_dev_nonfinite) */
       OZB_DBUF_SHAPE_A, OZB_DBUF_SHAPE_B, OZB_DBUF_SHAPE_T,   /* the level-3 shapes (ozb_dev_shape_buf) */
       OZB_DBUF_CRCRK, /* the exact CRT's constants for one count of moduli, kept between calls
                        * (its tag: that count) */
       OZB_NDBUF };

/* NOT_SUPPORTED (with *why set) when this build has no CUDA, no device is present, the
 * device number is out of range or cuBLAS cannot be loaded.  The knobs pick the emulated
 * device (cuda_emulate) and its kernels' order (cuda_emu_order). */
ozblas_status_t ozb_dev_open(int device, const ozb_knobs *kn, ozb_dev **out, const char **why);
/* What ozb_dev_open would return (and *why), without opening a device: no cuBLAS handle, no
 * buffers (ozblas_cuda_unavailable_reason). */
ozblas_status_t ozb_dev_probe(int device, const ozb_knobs *kn, const char **why);
void            ozb_dev_close(ozb_dev *d);
void            ozb_dev_set_stream(ozb_dev *d, void *stream);

/* The device layer is called from the pipeline's OpenMP threads: one caller at a time.
 * Every operation makes the handle's GPU current on the calling thread; enter/leave (and
 * lock/unlock, which include them) put the thread's previous current device back, so that
 * no thread of the program, the pipeline's OpenMP workers included, is left on our device. */
int  ozb_dev_enter(ozb_dev *d);               /* returns the token for ozb_dev_leave */
void ozb_dev_leave(ozb_dev *d, int token);
int  ozb_dev_lock(ozb_dev *d);
void ozb_dev_unlock(ozb_dev *d, int token);

/* Device memory of at least `bytes` in slot `slot` (NULL on failure). */
void *ozb_dev_buf(ozb_dev *d, int slot, size_t bytes);

/* 2-D copies, rows of `width` bytes, `height` rows (cudaMemcpy2D semantics), completed on return
 * (each one a wait for the device: a call gathers what it sends, and what it reads back, into
 * as few as it can).  Return 0 on success. */
int ozb_dev_put(ozb_dev *d, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height);
int ozb_dev_get(ozb_dev *d, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height);
/* The same from device memory to device memory, ordered on the device's stream as a kernel is
 * (no wait). */
int ozb_dev_copy(ozb_dev *d, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height);
/* The bytes ozb_dev_put (to_dev) and ozb_dev_get (to_host) have copied since the device opened,
 * and the times the host has waited for the device: every copy (each completes before it
 * returns) and every synchronisation. */
ozb_moves ozb_dev_moved(const ozb_dev *d);

/* C (m x n, column-major, ldc; double / float / int32 by type) = op(A) op(B), device
 * pointers, ta/tb 0 = N, 1 = T.  Only exact products are ever asked for (bit budgets in
 * core/format.c and crt/crt_gemm.h), so the GEMM's order and blocking do not matter. */
int ozb_dev_gemm(ozb_dev *d, ozb_dt type, int ta, int tb, int64_t m, int64_t n, int64_t k,
                 const void *A, int64_t lda, const void *B, int64_t ldb, void *C, int64_t ldc);

/* The kernels (kernels/ozb_kernels.h), on the device's stream. */
int ozb_dev_u8_to_s8_mod(ozb_dev *d, const uint8_t *src, int8_t *dst, int64_t n, int32_t m);
int ozb_dev_u8_nibbles(ozb_dev *d, const uint8_t *src, int8_t *hi, int8_t *lo, int64_t n);
int ozb_dev_hi_lo(ozb_dev *d, const int32_t *hi, const int32_t *lo, int32_t *dst, int64_t n);
/* INT32-packed skinny product (N <= OZB_SKINNY_MAX_N), see kernels/ozb_kernels.h */
#define OZB_SKINNY_MAX_N 16
int ozb_dev_skinny_i32(ozb_dev *d, const int32_t *A, const double *X, double *P, int64_t M, int64_t N, int64_t kb, int64_t ldp);
/* The CRT format's reconstruction on the device (kernels/ozb_kernel_ops.h) */
int ozb_dev_crt_fold(ozb_dev *d, int32_t *acc, const int32_t *src, int64_t ne, int32_t m);
int ozb_dev_crt_recon(ozb_dev *d, const int32_t *C, int64_t ne, const void *consts, double *out);
int ozb_dev_scale(ozb_dev *d, double *c, int64_t crs, int64_t ccs, int64_t m, int64_t n, double beta);
/* the level-3 shape s (kernels/ozb_shape_ops.h) on device memory, then the stream synchronised */
int ozb_dev_shape(ozb_dev *d, const ozb_op_shape *s);
/* a triangular solve block's in-block rows (ozb_op_subst_col for every column, into device
 * scratch; g->out and g->bad not read), copied over X where no row was declined, else *left =
 * 1 and X untouched (also where the scratch cannot be had), decided on the device: one wait,
 * the flag's read-back; 0, or nonzero on failure (X may then hold the block's rows solved:
 * the copy is queued before the flag is read) */
int ozb_dev_subst(ozb_dev *d, const ozb_op_subst *g, int *left);
/* Inf and NaN in the m x n window x(i, j) = x[i rs + j cs] of device memory: *any = 0 where
 * it holds none (one launch and a 4-byte read-back), else *any = 1 and each column's first and
 * last non-finite row read back into the host array range[2 n] (-1 where none); 0, or nonzero
 * on failure (ozb_shape_ops.h's ozb_op_nonfinite) */
int ozb_dev_nonfinite(ozb_dev *d, const double *x, int64_t rs, int64_t cs, int64_t m, int64_t n, int64_t *range,
                      int *any);
int ozb_dev_sync(ozb_dev *d);

/* ---- the device-resident engine's operations (cuda/resident.c; element operations in
 * kernels/ozb_kernel_ops.h and ozb_sum_ops.h) ---- */
/* The device memory a call's tile buffers may use: the handle's workspace limit, and on a GPU
 * at most half of the device memory free now plus what the buffers in `slots` (a bit mask of
 * OZB_DBUF_*: the ones the tiles will grow or reuse) already hold, so that a limit derived
 * from host memory never asks a GPU for more than it has. */
size_t ozb_dev_limit(ozb_dev *d, size_t ws_limit, unsigned slots);
/* A tile buffer: a*mb + b*nb + elem*mb*nb + fixed bytes in device buffer slot `slot`. */
typedef struct { int slot; double a, b, elem, fixed; } ozb_dev_tilebuf;
/* The tiles mb x nb of an m x n output whose buffers fit the call's device memory
 * (ozb_dev_limit, counting as available what the listed slots already hold), and the
 * buffers themselves (ptr[i] for bufs[i]): where an allocation fails, the limit is halved and
 * the tiles planned again.  SUCCESS; NOT_SUPPORTED where not even a 1 x 1 tile fits the
 * limit (the host then blocks finer); ALLOC_FAILED where no tile could be allocated.  mb <= mbmax
 * and nb <= nbmax (cuBLAS's int dimensions: a tile's GEMM has mb times the slices rows). */
ozblas_status_t ozb_dev_tiles(ozb_dev *d, size_t ws_limit, int64_t m, int64_t n, int64_t mbmax, int64_t nbmax,
                              const ozb_dev_tilebuf *bufs, int nbufs, int64_t *mb, int64_t *nb, void **ptr);
/* Sets `bytes` bytes of device memory to zero. */
int ozb_dev_zero(ozb_dev *d, void *p, size_t bytes);
/* C_b = op(A_b) op(B_b) for b < batch, A_b = A + b*sa elements (likewise B, C): one strided
 * batched GEMM (cublasGemmStridedBatchedEx), the types and exactness of ozb_dev_gemm. */
int ozb_dev_gemm_batched(ozb_dev *d, ozb_dt type, int ta, int tb, int64_t m, int64_t n, int64_t k, const void *A,
                         int64_t lda, int64_t sa, const void *B, int64_t ldb, int64_t sb, void *C, int64_t ldc,
                         int64_t sc, int64_t batch);
/* Row metadata of `rows` rows of the device view v over k, per k-block of kb:
 * e[kk*rows + r], ns[kk*rows + r] (ozb_op_meta_finish); mx and low are scratch of
 * nkb*rows entries each.  Device arrays. */
int ozb_dev_meta(ozb_dev *d, const ozb_view *v, int64_t rows, int64_t k, int64_t kb, int beta, int limit, uint64_t *mx,
                 int32_t *low, int32_t *e, int32_t *ns);
/* Slices of rows r0..r0+rows-1 of v (a side of R rows, metadata e, ns) for every k-block:
 * S[((kk*s + t)*rows + r)*kbp + l], digit t of element (r0 + r, kk*kb + l) in the type's
 * format (F64: double, F16: binary16 bits, S8: int8); 0 for t >= ns and l >= the block.
 * rowfast (for rows contiguous in memory): S[((kk*kbp + l)*s + t)*rows + r] instead. */
int ozb_dev_split(ozb_dev *d, ozb_dt type, const ozb_view *v, int64_t r0, int64_t rows, int64_t R, int64_t k,
                  int64_t kb, int beta, const int32_t *e, const int32_t *ns, int s, int64_t kbp, int rowfast, void *S);
/* The fused split-and-accumulate product of DOT/GEMV (op(B) one row, its F64 slices SX from
 * ozb_dev_split with s = sb): P[kk*M*sb + (t*rows + r) + u*M] += sum_l digit t of
 * a(r0 + r, l) times SX digit u, M = sa*rows; P zeroed by the caller.  A's slices are
 * never stored. */
int ozb_dev_fused(ozb_dev *d, const ozb_view *a, int64_t r0, int64_t rows, int64_t R, int64_t k, int64_t kb, int beta,
                  const int32_t *eA, const int32_t *nsA, int sa, const double *SX, int sb, int64_t kbp, double *P);
/* The DOT's fused products (op(A) and op(B)^T one row each): as ozb_dev_fused, op(B)^T's
 * digits split in registers too (metadata eB, nsB from ozb_dev_meta, sb its largest count),
 * so that no slices are stored. */
int ozb_dev_fused_dot(ozb_dev *d, const ozb_view *a, const ozb_view *b, int64_t k, int64_t kb, int beta, const int32_t *eA,
                      const int32_t *nsA, int sa, const int32_t *eB, const int32_t *nsB, int sb, double *P);
/* ---- the CRT format on the device (cuda/resident_crt.c; kernels/ozb_crt_ops.h) ---- */
/* out[r] = ozb_op_crt_rowscale of row r of v over k, r < rows (device array) */
int ozb_dev_crt_rows(ozb_dev *d, const ozb_view *v, int64_t rows, int64_t k, ozb_op_crt_row *out);
/* residues of rows r0..r0+rows-1 over l0..l0+kbb-1, scaled by f1 f2 (per global row):
 * out[(t*rows + r)*kbp + l] (ozb_op_crt_res_item) */
int ozb_dev_crt_residues(ozb_dev *d, const ozb_view *v, int64_t r0, int64_t rows, int64_t l0, int64_t kbb,
                         const double *f1, const double *f2, const ozb_op_crt_res *rc, int64_t kbp, int8_t *out);
/* the ACCURATE bound: quantized magnitudes of rows r0.. over l0..l0+kbb-1 (ozb_op_crt_quant_item),
 * Ud += Ulo + Uhi (ne elements), and Z[i0 + i] = max(Z, row maxima of the tile), Z as bits */
int ozb_dev_crt_quant(ozb_dev *d, const ozb_view *v, int64_t r0, int64_t rows, int64_t l0, int64_t kbb, const int32_t *e,
                      int bits, int64_t kbp, int8_t *lo, int8_t *hi);
int ozb_dev_crt_bound_acc(ozb_dev *d, const int32_t *Ulo, const int32_t *Uhi, double *Ud, int first, int64_t ne);
int ozb_dev_crt_zmax(ozb_dev *d, const double *Ud, int64_t mbb, int64_t nbb, int64_t i0, int64_t j0, const int32_t *eB,
                     const int32_t *cB, uint64_t *Z);
/* the output of a tile: ozb_op_crt_out_item for every element */
int ozb_dev_crt_out(ozb_dev *d, const ozb_op_crt_out_args *g);
/* DOUBLE mode's certificate: the lower bound's operands of rows r0.. over l0..l0+kbb-1
 * (ozb_op_crt_hat_item, out[r kbp + l]), and the certificate of a tile's elements
 * (ozb_op_crt_cert_item), the flagged ones added to the device double *count */
int ozb_dev_crt_hats(ozb_dev *d, const ozb_view *v, int64_t r0, int64_t rows, int64_t l0, int64_t kbb, const int32_t *e,
                     const int32_t *hs, int64_t kbp, int8_t *out);
int ozb_dev_crt_cert(ozb_dev *d, const ozb_op_crt_cert_args *g, double *count);
/* the positions e < ne of the flagged elements, the first cap in pos[] (any order), their
 * number added to the device double *count */
int ozb_dev_crt_flagged(ozb_dev *d, const uint8_t *flags, int64_t ne, int64_t cap, double *count, int64_t *pos);
/* the window of the flagged elements of an m-row array, as the maxima of kernels/ozb_kernels.h's
 * crt_window (win: 4 device uint64, zeroed first) */
int ozb_dev_crt_window(ozb_dev *d, const uint8_t *flags, int64_t m, int64_t ne, uint64_t *win);
/* C(i0 + i, j0 + j) = ozb_op_sum_elem(g, i, j) for i < g->mb, j < g->nb. */
int ozb_dev_sum(ozb_dev *d, const ozb_op_sum_args *g);
/* ---- the certified DOT (cuda/resident_eft.c; kernels/ozb_eft_ops.h) ---- */
/* res[i] = RN(alpha op(A)(i, :) b + beta C(i)) for every row i < g->m it certifies; *bad = 1
 * (device int) if it does not certify one.  part: g->m nq ozb_eft_acc (ozb_kl_eft_plan). */
int ozb_dev_eft_dot(ozb_dev *d, const ozb_op_eft_args *g, void *part, double *res, int *bad);
/* the correctly rounded CRT's output of a tile (cuda/resident_crcr.c) */
int ozb_dev_crcr_recon(ozb_dev *d, const ozb_op_crcr_args *g);
/* the exact CRT's ka of rows rows from their maxima and lowest bits, and its flag set
 * (ozb_op_crcr_ka; device arrays, no wait) */
/* slot's tag, the host's note of what the slot holds: 0 whenever ozb_dev_buf allocates it
 * anew, else what its user last wrote there */
int *ozb_dev_buf_tag(ozb_dev *d, int slot);
int ozb_dev_crcr_ka(ozb_dev *d, const uint64_t *mx, const int32_t *low, int32_t *ka, int *ok, int64_t rows);
/* c[i crs] = res[i], i < m (device arrays), unless skip is set and *skip (device int) is not 0;
 * ordered on the stream (no wait) */
int ozb_dev_eft_put(ozb_dev *d, const double *res, int64_t m, double *c, int64_t crs, const int *skip);
/* keep[i] = c[i crs], i < m (device arrays), ordered on the stream (no wait) */
int ozb_dev_eft_keep(ozb_dev *d, double *keep, int64_t m, const double *c, int64_t crs);
#endif
