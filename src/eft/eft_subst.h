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
                       uint8_t fail[8]);
/* The same on one right-hand side, x[i] the block's row i: rows r0 .. bs-1 of
 *     x[i] := RN(x[i] - sum_{l < i} tb[OZB_SUBST_ROWS i + l] x[l])   (i > 0)
 *     x[i] := x[i] / d[i]                                          (d == NULL: unit)
 * Returns bs when every row is done; else the row r whose sum is not certified (a zero,
 * Inf or NaN, products out of range, a rounding boundary): rows before r done, x[r]
 * untouched.  Every certified value is RN(exact), as subst8's. */
int64_t ozb_eft_subst1(const double *tb, const double *d, int64_t bs, int64_t r0, double *x);
#endif
