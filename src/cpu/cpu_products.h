/* The CPU backend's products engines (product_fp64.c, product_int8.c, crt_gemm_cpu.c). */
#ifndef OZB_CPU_PRODUCTS_H
#define OZB_CPU_PRODUCTS_H
#include "core/format.h"

int ozb_products_fp64(struct ozb_dev *dev, const ozb_slices *A, const ozb_slices *B, int dmax, double *P, int64_t ldp,
                      void *scratch, int threads, ozb_prod_stats *st);
#ifdef OZBLAS_HAVE_DNNL
int ozb_products_int8(struct ozb_dev *dev, const ozb_slices *A, const ozb_slices *B, int dmax, double *P, int64_t ldp,
                      void *scratch, int threads, ozb_prod_stats *st);
size_t ozb_scratch_int8(int64_t rows_a, int64_t rows_b, int64_t kb, int cap_a, int cap_b);
#endif

/* The CRT's product on the CPU (core/backend.h's crt_gemm, always exact): oneDNN's u8 x s8
 * GEMM where dnnl, else DGEMM on the same integers.  0, -1 (oneDNN failed), -2 (no memory). */
int ozb_cpu_crt_gemm(const uint8_t *RB, int colB, const int8_t *RA, int colA, int64_t mbb, int64_t nbb, int64_t kbb,
                     int32_t *dst, int nt, int dnnl);
#endif
