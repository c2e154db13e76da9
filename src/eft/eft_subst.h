/* The in-block forward substitution of the triangular-solve rule (CONTRACT §6) on eight
 * right-hand sides at once, one lane each (eft_subst.c) */
#ifndef OZB_EFT_SUBST_H
#define OZB_EFT_SUBST_H
#include <stdint.h>
#include "core/ozb_internal.h"

/* 1 where ozb_eft_subst8 is offered: the error-free kernels built and not turned off */
int ozb_eft_subst_applies(ozblas_handle_t h);

/* Rows r0 .. bs-1 (bs <= OZB_SUBST_ROWS) of a block of eight lanes, row i at buf + 8 i (lanes
 * from `lanes` on hold zeros and are kept zero):
 *     row i := RN(row i - sum_{l < i} tb[OZB_SUBST_ROWS i + l] row l)   (i > 0, each lane)
 *     row i := row i / d[i]                                             (d == NULL: unit)
 * Returns bs when every row is done; else the row r whose sum is not certified on some lane:
 * rows before r are done, fail[q] = 1 for such a lane q (its element untouched), and the
 * other lanes of row r hold their sums, not yet divided. */
#define OZB_SUBST_ROWS 16
int64_t ozb_eft_subst8(const double *tb, const double *d, int64_t bs, int64_t r0, int lanes, double *buf,
                       uint8_t fail[8], int wide);
/* The certified rows alone with 512-bit vectors (eft_subst512.c; wide: ozb_eft_wide): rows r0
 * .. as ozb_eft_subst8 computes them while every lane is certified; returns bs, or the first
 * row with a lane left (untouched: ozb_eft_subst8 takes it from there) */
int64_t ozb_eft_subst8_512(const double *tb, const double *d, int64_t bs, int64_t r0, int lanes, double *buf);
/* The same on two lane groups at once from row 0 (buf0, buf1: two ozb_eft_subst8 blocks):
 * returns bs, or the first row with a lane of either group left (rows before it done in both;
 * each group then goes on by ozb_eft_subst8 from there) */
int64_t ozb_eft_subst16_512(const double *tb, const double *d, int64_t bs, int lanes0, int lanes1, double *buf0, double *buf1);
/* The same on one right-hand side, x[i] the block's row i: rows r0 .. bs-1 of
 *     x[i] := RN(x[i] - sum_{l < i} tb[OZB_SUBST_ROWS i + l] x[l])   (i > 0)
 *     x[i] := x[i] / d[i]                                          (d == NULL: unit)
 * Returns bs when every row is done; else the row r whose sum is not certified (a zero,
 * Inf or NaN, products out of range, a rounding boundary): rows before r done, x[r]
 * untouched.  Every certified value is RN(exact), as subst8's. */
int64_t ozb_eft_subst1(const double *tb, const double *d, int64_t bs, int64_t r0, double *x);
#endif
