/* Host-callable launchers of the CUDA kernels (ozb_kernels.cu), as a table.  Pointers are
 * device pointers; every launcher runs on `stream` (a cudaStream_t, NULL = default stream;
 * the emulated device's ozb_emu_stream in the host build) and returns 0, or the cudaError_t
 * of the launch. */
#ifndef OZB_KERNELS_H
#define OZB_KERNELS_H
#include <stdint.h>
#include "ozb_launch.h"
#ifdef __cplusplus
extern "C" {
#endif
typedef struct ozb_kl_table {
    /* dst[i] = ozb_op_u8_to_s8_mod(src[i], m), i < n */
    int (*u8_to_s8_mod)(const uint8_t *src, int8_t *dst, int64_t n, int32_t m, void *stream);
    /* hi[i] = src[i] >> 4, lo[i] = src[i] & 15 */
    int (*u8_nibbles)(const uint8_t *src, int8_t *hi, int8_t *lo, int64_t n, void *stream);
    /* dst[i] = 16 hi[i] + lo[i] */
    int (*hi_lo)(const int32_t *hi, const int32_t *lo, int32_t *dst, int64_t n, void *stream);
    /* P[i + j*ldp] = sum_l A[i*kb + l] X[j*kb + l] for i < M, j < N (N <= 16): the skinny
     * product of INT32-packed digits A with double digits X, exact (ozb_op_i32_times) */
    int (*skinny_i32)(const int32_t *A, const double *X, double *P, int64_t M, int64_t N, int64_t kb, int64_t ldp,
                          void *stream);
    /* acc[e] = ozb_op_crt_fold(acc[e], src[e], m), e < ne */
    int (*crt_fold)(int32_t *acc, const int32_t *src, int64_t ne, int32_t m, void *stream);
    /* out[e] = ozb_op_crt_recon(C + e, ne, k), e < ne (k: a struct ozb_op_crt_consts, by value) */
    int (*crt_recon)(const int32_t *C, int64_t ne, const void *k, double *out, void *stream);
    /* c[i*crs + j*ccs] = ozb_op_scale(c[...], beta), i < m, j < n (only the window is touched) */
    int (*scale)(double *c, int64_t crs, int64_t ccs, int64_t m, int64_t n, double beta, void *stream);

    /* The device-resident engine (src/cuda/resident.c); work items in ozb_engine_ops.h */
    /* row metadata: e, ns (ozb_op_meta_finish) of every row and k-block of the side */
    int (*meta)(const void *side, int beta, int limit, uint64_t *mx, int32_t *low, int32_t *e, int32_t *ns, void *stream);
    /* slices: ozb_op_split_item for every item w < items */
    int (*split)(const void *side, int type, int beta, const int32_t *e, const int32_t *ns, int s, int64_t kbp,
                     int rowfast, void *S, int64_t items, void *stream);
    /* fused products: ozb_op_fused_item, added into P (zeroed by the caller) */
    int (*fused)(const void *side, int beta, const int32_t *eA, const int32_t *nsA, int sa, const double *SX, int sb,
                     int64_t kbp, double *P, void *stream);
    /* the DOT's fused products: as fused, op(B)^T's one row split in registers too (yside over
     * the same k and kb, eB/nsB its metadata), no stored slices (ozb_op_fused_dot_item) */
    int (*fused_dot)(const void *side, const void *yside, int beta, const int32_t *eA, const int32_t *nsA, int sa,
                     const int32_t *eB, const int32_t *nsB, int sb, double *P, void *stream);
    /* the CRT format: row scales (ozb_op_crt_rowscale's values, a block of 32 lanes a row),
     * residues (ozb_op_crt_res_item; rc: an ozb_op_crt_res) and the output
     * (ozb_op_crt_out_item; g: an ozb_op_crt_out_args) */
    int (*crt_rows)(const void *side, void *out, void *stream);
    int (*crt_residues)(const void *side, const double *f1, const double *f2, const void *rc, int64_t kbp, int8_t *out,
                            int64_t items, void *stream);
    int (*crt_out)(const void *g, void *stream);
    /* the ACCURATE scaling's bound: ozb_op_crt_quant_item, ozb_op_crt_bound_acc, ozb_op_crt_z_item */
    int (*crt_quant)(const void *side, const int32_t *e, int bits, int64_t kbp, int8_t *lo, int8_t *hi, int64_t items,
                         void *stream);
    int (*crt_bound_acc)(const int32_t *Ulo, const int32_t *Uhi, double *Ud, int first, int64_t ne, void *stream);
    int (*crt_zmax)(const double *Ud, int64_t mbb, int64_t nbb, int64_t i0, int64_t j0, const int32_t *eB, const int32_t *cB,
                        uint64_t *Z, void *stream);
    /* sums: C(i0 + i, j0 + j) = ozb_op_sum_elem (g: an ozb_op_sum_args); the exact sum's long
     * accumulators in la, ozb_kl_sum_accumulators(mb nb, nkb, exact) of them */
    int (*sum)(const void *g, void *la, void *stream);
    /* the certified DOT (ozb_eft_ops.h; g: an ozb_op_eft_args): res[i] = RN(...) of every row
     * it certifies, *bad = 1 if it does not certify one (*bad untouched otherwise); part:
     * m nq (ozb_kl_eft_plan) ozb_eft_acc of scratch */
    int (*eft_dot)(const void *g, void *part, double *res, int *bad, void *stream);
    /* c[i crs] = res[i], i < m */
    int (*eft_put)(const double *res, int64_t m, double *c, int64_t crs, const int *skip, void *stream);
    /* the correctly rounded CRT's output: ozb_op_crcr_elem for every element (g: an ozb_op_crcr_args) */
    int (*crcr_recon)(const void *g, void *stream);
    /* the exact CRT's row scales and flag: ozb_op_crcr_ka for every row r < rows */
    int (*crcr_ka)(const uint64_t *mx, const int32_t *low, int32_t *ka, int *ok, int64_t rows, void *stream);
    /* DOUBLE mode's certificate: the lower bound's operands (ozb_op_crt_hat_item) and each
     * element's certificate (ozb_op_crt_cert_item; g: an ozb_op_crt_cert_args), the flagged
     * elements counted into *count */
    int (*crt_hats)(const void *side, const int32_t *e, const int32_t *hs, int64_t kbp, int8_t *out, int64_t items,
                    void *stream);
    int (*crt_cert)(const void *g, double *count, void *stream);
    /* the positions e < ne of the flagged elements (flags[e] != 0), the first cap of them in
     * pos[] in any order, their number counted into *count */
    int (*crt_flagged)(const uint8_t *flags, int64_t ne, int64_t cap, double *count, int64_t *pos, void *stream);
    /* the rows and columns the flagged elements of an m-row array span, as maxima: win[0] =
     * m - 1 - the first row, win[1] = the last, win[2] = n - 1 - the first column, win[3] =
     * the last (win zeroed first; at least one element flagged) */
    int (*crt_window)(const uint8_t *flags, int64_t m, int64_t ne, unsigned long long *win, void *stream);
    /* the level-3 shapes: ozb_op_shape_elem for every element of the window (args: an ozb_op_shape) */
    int (*shape)(const void *args, void *stream);
    /* a triangular solve's in-block rows: ozb_op_subst_col for every column (args: an ozb_op_subst) */
    int (*subst)(const void *args, void *stream);
    /* Inf and NaN in a window: ozb_op_nonfinite_elem for every element, ozb_op_nonfinite_col
     * for every column (args: an ozb_op_nonfinite) */
    int (*nonfinite_any)(const void *args, void *stream);
    int (*nonfinite_cols)(const void *args, void *stream);
} ozb_kl_table;

/* The launchers of the GPU build (ozb_kernels.cu by nvcc) and of the host build of the same
 * kernels for the emulated device (src/cuda/kernels_host.cc: kernels/ozb_cuda_host.h), whose
 * stream is the emulated device's ozb_emu_stream. */
const ozb_kl_table *ozb_kl_gpu(void);
const ozb_kl_table *ozb_kl_host(void);
#ifndef OZB_KL_TABLE
#define OZB_KL_TABLE ozb_kl_gpu
#endif
#ifdef __cplusplus
}
#endif
#endif
