/* GEMV-T rows four at a time (eft_rows4.c), for eft_dot.c's short rows. */
#ifndef OZB_EFT_ROWS4_H
#define OZB_EFT_ROWS4_H
#include "eft/eft_kern.h"

#ifdef EFT_AVX2
/* Four GEMV-T rows a, a + lda, a + 2 lda, a + 3 lda (each of 0 < n <= OZB_DOT_ONE_SIGMA
 * contiguous elements) times x, xmax >= max|x_l|: ozb_eft_split1_bounded's split of each row,
 * the four side by side (eight independent sums), into t (s, c, 0, G per row; s NaN for a row
 * that split would have refused). */
void ozb_eft_split4_bounded(const double *a, int64_t lda, const double *x, int64_t n, double xmax, tot4 *t);
/* The same four rows with each row's sigma guessed from its first four elements and proved by
 * the largest |d| of the running split (CHAIN4_MAX), one pass and no pass for the rows' maxima
 * (eft_rows4.c), for 0 < n <= OZB_ROWS4_GUESS: 1 and t as ozb_eft_split4_bounded leaves it where
 * every row's guess held, 0 where one did not (a row grew beyond the headroom, Inf, NaN, or
 * beyond 2^490): then the caller runs ozb_eft_split4_bounded.  wide: 1 where the split may use
 * AVX-512 DQ and VL when the CPU has them (0: the 256-bit code only; the same values). */
#define OZB_ROWS4_GUESS 96
int ozb_eft_split4_guess(const double *a, int64_t lda, const double *x, int64_t n, double xmax, int wide, tot4 *t);
#endif
#endif
