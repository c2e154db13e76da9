/* The splitting engine: fixed-point slices with one power-of-two scale per row
 * and slice (Algorithm 1 of seed 000, rows of op(A) / columns of op(B)). */
#ifndef OZB_SPLIT_H
#define OZB_SPLIT_H
#include "core/ozb_internal.h"

/* Row flags.  DOUBLE mode: a row stops when Algorithm 3 is met at d = ns (CRIT_MET) or
 * when its remainder is zero (EXACT: then slice ns+1 is zero, so the criterion holds at
 * d = ns+1 trivially and fast mode may use that d). */
enum { OZB_ROW_NONFINITE = 1, OZB_ROW_CRIT_MET = 2, OZB_ROW_EXACT = 4 };

typedef struct {
    int64_t  rows, kb;    /* block shape                                                 */
    int      cap;         /* slices the buffer holds (plus one slot for the remainder)  */
    int      s;           /* max over rows of the slices produced                        */
    int      need;        /* > cap if some row needed more slices than cap              */
    double  *slice;       /* slice t, row i, element l: slice[(t*rows + i)*kb + l]       */
    int32_t *w;           /* w[t*wstride + i]: slice t of row i is digit * 2^w          */
    int64_t  wstride;     /* >= rows                                                     */
    int32_t *ns;          /* ns[i]: slices of row i (0 for a zero or non-finite row)     */
    int32_t *dsafe;       /* DOUBLE mode: fast mode may skip pairs t + u >= dsafe[i] of row i */
    uint8_t *flag;        /* OZB_ROW_* bits                                              */
} ozb_slices;

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

#endif
