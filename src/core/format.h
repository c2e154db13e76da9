/* Slice formats: the bit budget, the inner block that keeps it, and the products engine.
 * The formats' numbers (bits, blocks) are one table (format.c); each backend supplies the
 * products engine of every format it has (core/backend.h).  A new format is one more row
 * here and one products engine per backend; drivers never change. */
#ifndef OZB_FORMAT_H
#define OZB_FORMAT_H
#include "core/slices.h"

typedef struct { int64_t calls, pairs; double flops; } ozb_prod_stats;

/* P(t,i,u,j) = sum_l A(t,i,l) B(u,j,l) exactly, stored at P[(t*A.rows+i) + (u*B.rows+j)*ldp];
 * pairs t + u <= dmax - 1 guaranteed when dmax > 0, all pairs when dmax == 0.  dev: the
 * backend's state (opaque here).  Returns 0, or nonzero when a device failed (the CPU
 * engines cannot fail). */
typedef int (*ozb_products_fn)(struct ozb_dev *dev, const ozb_slices *A, const ozb_slices *B, int dmax, double *P,
                               int64_t ldp, void *scratch, int threads, ozb_prod_stats *st);
/* scratch bytes per products call for rows_a x rows_b blocks with caps */
typedef size_t (*ozb_scratch_fn)(int64_t rows_a, int64_t rows_b, int64_t kb, int cap_a, int cap_b);

/* A backend's products engine for one format. */
typedef struct { ozb_products_fn products; ozb_scratch_fn scratch_bytes; } ozb_format_engine;

typedef struct ozb_format {
    ozblas_engine_t id;
    const char     *name;
    int64_t         kblock_max;      /* inner block size that keeps the full digit width     */
    int             exact_level_sums;/* products below 2^31: pairs of one grid level add exactly */
    /* digit bits for inner block kb: every k-term dot product of two slices is exact in
     * the format's accumulator (bit budget written in format.c) */
    int           (*bits)(int64_t kb);
    ozb_scratch_fn  scratch_bytes;   /* the backend's engine */
    ozb_products_fn products;
} ozb_format;

/* The format `engine` (FP64, FP16, INT8) on the handle's backend: the table's row with the
 * backend's products engine, into *out (may be NULL).  0 where the backend has none. */
int ozb_format_for(ozblas_handle_t h, ozblas_engine_t engine, ozb_format *out);

/* 1 when the handle's backend has a fast exact INT8 GEMM (a CUDA device, or oneDNN where it
 * is exact on this CPU): where it has not, the INT8 and CRT formats still give their bits
 * (through DGEMM on the CPU), but nothing picks them by default. */
int ozb_int8_fast(ozblas_handle_t h);

/* The scratch size of engines that need none. */
size_t ozb_no_scratch(int64_t rows_a, int64_t rows_b, int64_t kb, int cap_a, int cap_b);
#endif
