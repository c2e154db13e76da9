/* The splitting engine: fixed-point slices with one power-of-two scale per row
 * and slice (Algorithm 1 of seed 000, rows of op(A) / columns of op(B)). */
#ifndef OZB_SPLIT_H
#define OZB_SPLIT_H
#include "core/slices.h"


typedef struct {
    int           beta;       /* bits per slice                                          */
    int           limit;      /* most slices per row (FIXED split count), 0 = until exact */
} ozb_split_params;

/* Split rows r0..r0+rows-1 of `src` over l0..l0+kb-1 into `out` (whose buffers hold
 * out->cap + 1 slices).  Deterministic and independent of the thread count.
 * Sets out->s and out->need. */
void ozb_split(const ozb_view *src, int64_t r0, int64_t rows, int64_t l0, int64_t kb,
               const ozb_split_params *prm, ozb_slices *out, int nthreads);

#endif
