/* DTBSV's solve by columns of op(T) where the band is narrow (k <= 8): the positions still open
 * are lanes of two 256-bit vectors, each accumulating its certified short residual
 * (exact/residual.h's bound), while every new value updates them all at once (band_cols.c). */
#ifndef OZB_BAND_COLS_H
#define OZB_BAND_COLS_H
#include <stdint.h>

/* A position's part (0: its terms before its block, at s; 1: those in it) computed on x itself
 * by the exact sums: the position's element holds its value so far, every position the part
 * reads its final value.  Returns a status (0: success). */
typedef int (*ozb_band_fix_fn)(void *ctx, int64_t s, int64_t p, int part);

typedef struct {
    const double *col;  /* position 0's column of op(T): its diagonal at col, its term for
                         * position l at col + l ts (l = 1 .. k); position p's column at
                         * col + p cstep */
    int64_t cstep, ts;
    int64_t n;
    int k;              /* 1 .. 8 */
    int unit;
    double *x;          /* position p's element at x + p xst */
    int64_t xst;
    int64_t block;      /* the rule's block (OZBLAS_TRSM_BLOCK) */
    ozb_band_fix_fn fix;
    void *ctx;
} ozb_band_cols_t;

/* The solve rule of CONTRACT §6 on positions 0 .. n - 1: each position's part before its block
 * (where it has terms there), then its part in the block, each RN of the exact value, then the
 * division (unless unit), as the exact sums give them; what the certificate leaves by b->fix.
 * In the standard floating-point environment (core/fpenv.h).  Returns 0 or fix's status. */
int ozb_band_cols(const ozb_band_cols_t *b);
#endif
