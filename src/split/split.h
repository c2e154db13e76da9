/* The splitting engine: fixed-point slices with one power-of-two scale per row
 * and slice (Algorithm 1 of seed 000, rows of op(A) / columns of op(B)). */
#ifndef OZB_SPLIT_H
#define OZB_SPLIT_H
#include "core/slices.h"


typedef struct {
    int           beta;       /* bits per slice                                          */
    int           limit;      /* most slices per row (FIXED split count), 0 = until exact */
    int           criterion;  /* DOUBLE mode: stop at Algorithm 3's d                     */
    const double *v;          /* Algorithm 3 weights over the k-block (|B|e or e^T|A|)     */
    double        sfac;       /* 2 sqrt(kb) u                                              */
    const double *u;          /* DOUBLE mode: sum_j [b_jl != 0] 2^E_j on v's scale (dsafe), or NULL */
} ozb_split_params;

/* Split rows r0..r0+rows-1 of `src` over l0..l0+kb-1 into `out` (whose buffers hold
 * out->cap + 1 slices).  Deterministic and independent of the thread count.
 * Sets out->s and out->need. */
void ozb_split(const ozb_view *src, int64_t r0, int64_t rows, int64_t l0, int64_t kb,
               const ozb_split_params *prm, ozb_slices *out, int nthreads);

/* Algorithm 3's sums in their canonical order (see split.c). */
double ozb_crit_sum(const double *d, const double *r, double ds, double rs, int64_t stride,
                    const double *v, int64_t n);

/* DOUBLE mode: the d of a row split to its end, from the format's bits beta and the inner
 * block kb: the least d >= 2 with (d+1) 2^(-(d-1) beta) < 2 sqrt(kb) u. */
int ozb_hypothetical_d(int beta, int64_t kb);

#endif
