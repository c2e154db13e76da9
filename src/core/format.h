/* Slice formats: the bit budget, the inner block that keeps it, and the product engine.
 * A new format is one more entry here and one product file; drivers never change. */
#ifndef OZB_FORMAT_H
#define OZB_FORMAT_H
#include "split/split.h"

typedef struct { int64_t calls, pairs; double flops; } ozb_prod_stats;

typedef struct ozb_format {
    ozblas_engine_t id;
    const char     *name;
    int64_t         kblock_max;      /* inner block size that keeps the full digit width     */
    int             exact_level_sums;/* products below 2^31: pairs of one grid level add exactly */
    /* digit bits for inner block kb: every k-term dot product of two slices is exact in
     * the format's accumulator (bit budget written in format.c) */
    int           (*bits)(int64_t kb);
    /* scratch bytes per products call for rows_a x rows_b blocks with caps */
    size_t        (*scratch_bytes)(int64_t rows_a, int64_t rows_b, int64_t kb, int cap_a, int cap_b);
    /* P(t,i,u,j) = sum_l A(t,i,l) B(u,j,l) exactly, stored at P[(t*A.rows+i) + (u*B.rows+j)*ldp];
     * pairs t + u <= dmax - 1 guaranteed when dmax > 0, all pairs when dmax == 0 */
    /* returns 0, or nonzero when a device failed (the CPU engines cannot fail) */
    int           (*products)(struct ozb_dev *dev, const ozb_slices *A, const ozb_slices *B, int dmax, double *P,
                              int64_t ldp, void *scratch, int threads, ozb_prod_stats *st);
} ozb_format;

/* The CPU formats; NULL when the engine is unknown or not built in.  dnnl: INT8 products by
 * oneDNN (only where ozb_int8_exact_cpu), else by DGEMM on the same integers (same bits). */
const ozb_format *ozb_format_of(ozblas_engine_t engine, int dnnl);
/* The handle's backend's formats (the CPU's, or the CUDA device's); NULL when not available. */
const ozb_format *ozb_format_for(ozblas_handle_t h, ozblas_engine_t engine);

/* 1 when the handle's backend has a fast exact INT8 GEMM (a CUDA device, or oneDNN where it
 * is exact on this CPU): where it has not, the INT8 and CRT formats still give their bits,
 * through DGEMM, but nothing picks them by default. */
int ozb_int8_fast(ozblas_handle_t h);
/* 1 when a CPU handle's INT8 and CRT products go through oneDNN: its int8 GEMM is exact on
 * this CPU (cpu/blas_gate.c's probe) and OZBLAS_NO_DNNL is not set for the handle. */
int ozb_int8_exact_cpu(ozblas_handle_t h);

int ozb_products_fp64(struct ozb_dev *dev, const ozb_slices *A, const ozb_slices *B, int dmax, double *P, int64_t ldp,
                      void *scratch, int threads, ozb_prod_stats *st);
#ifdef OZBLAS_HAVE_DNNL
int ozb_products_int8(struct ozb_dev *dev, const ozb_slices *A, const ozb_slices *B, int dmax, double *P, int64_t ldp,
                      void *scratch, int threads, ozb_prod_stats *st);
size_t ozb_scratch_int8(int64_t rows_a, int64_t rows_b, int64_t kb, int cap_a, int cap_b);
#endif
#endif
