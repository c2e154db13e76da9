/* Product engines of the CUDA backend (the device's counterparts of cpu/product_*.c and
 * crt/crt_gemm.c).  Return 0, or nonzero when the device failed. */
#ifndef OZB_PRODUCTS_CUDA_H
#define OZB_PRODUCTS_CUDA_H
#include "core/format.h"
#include "cuda/dev.h"
#include "../../kernels/ozb_kernel_ops.h"

size_t ozb_scratch_cuda(int64_t rows_a, int64_t rows_b, int64_t kb, int cap_a, int cap_b);
int ozb_products_cuda_fp64(ozb_dev *dev, const ozb_slices *A, const ozb_slices *B, int dmax, double *P, int64_t ldp,
                           void *scratch, int threads, ozb_prod_stats *st);
int ozb_products_cuda_fp16(ozb_dev *dev, const ozb_slices *A, const ozb_slices *B, int dmax, double *P, int64_t ldp,
                           void *scratch, int threads, ozb_prod_stats *st);
int ozb_products_cuda_int8(ozb_dev *dev, const ozb_slices *A, const ozb_slices *B, int dmax, double *P, int64_t ldp,
                           void *scratch, int threads, ozb_prod_stats *st);
int ozb_crt_gemm_cuda(ozb_dev *dev, const uint8_t *RB, int colB, const int8_t *RA, int colA, int64_t mbb, int64_t nbb,
                      int64_t kbb, int32_t *dst, int32_t m);
/* FIXED/DOUBLE CRT with the products kept on the device: modulus t's product goes to slot t of
 * a device accumulator of (s + 1) ne int32 (fold: a later k-block, into slot s, then folded
 * into slot t modulo m); ozb_crt_recon_cuda then rebuilds C' of every element there
 * (ozb_op_crt_recon) and brings the ne doubles back: 8 bytes per element instead of 4 s. */
int ozb_crt_gemm_cuda_acc(ozb_dev *dev, const uint8_t *RB, int colB, const int8_t *RA, int colA, int64_t mbb, int64_t nbb,
                          int64_t kbb, int s, int t, int fold, int32_t m);
int ozb_crt_recon_cuda(ozb_dev *dev, const ozb_op_crt_consts *k, int64_t ne, double *val);
#endif
