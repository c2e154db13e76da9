/* Banded level 2 by strips of eight rows: the error-free GEMV-N strip on a strip's window of
 * the band (eft_band.c). */
#ifndef OZB_EFT_BAND_H
#define OZB_EFT_BAND_H
#include "core/problem.h"

/* 1 where ozb_eft_band_strip may run: the kernels are built (AVX2 and FMA), OZBLAS_NO_DOT2 is
 * not set, alpha and beta are finite */
int ozb_eft_band_applies(ozblas_handle_t h, double alpha, double beta);

/* Rows r < rows <= 8 of y (row r at y[r incy]) := RN(alpha sum_{j < w} P[8 j + r] xs[j] +
 * beta y) (beta == 0: y not read), P the strip's terms column by column (a zero where row r
 * has no term in column j).  The one-level sums first; the rows they leave (results that
 * cancel far below their terms: residuals b - A x) by the deep sums (eft_deep.h), lsb their
 * scratch (9 w int32).  Where every product is tiny (a matrix scaled toward underflow) both
 * in a frame scaled by a power of two, P scaled in place (the caller's scratch).  Writes
 * every row it certifies and returns the others as bits (bit r:
 * row r, left as it was: Inf or NaN among the products, a product beyond the kernels'
 * range, a result neither certifies).  In the standard floating-point environment
 * (core/fpenv.h). */
unsigned ozb_eft_band_strip(double *P, const double *xs, int64_t w, int rows, double alpha, double beta, double *y,
                            int64_t incy, int32_t *lsb);
/* The one-level sums of a strip of eight rows read where it lies: column j's eight lanes at
 * a + j ld, and-ed with mk[8 j .. 8 j + 7] (all ones, or zeros where the row has no term; every
 * lane's load within the storage), and the same masks without the sign bit at mk + 8 w.  1
 * with the certified rows written and the others in *left (bits) for ozb_eft_band_deep on the
 * packed window; 0 where nothing is written and the strip goes whole to ozb_eft_band_strip
 * (Inf, NaN, products beyond the kernels' range or all tiny).  The same values as
 * ozb_eft_band_strip on the window packed. */
int ozb_eft_band_strip_direct(const double *a, int64_t ld, const double *mk, const double *xs, int64_t w, double alpha,
                              double beta, double *y, int64_t incy, unsigned *left);
/* The deep sums (eft_deep.h) of the rows `rows` (bits) of a packed window, as ozb_eft_band_strip
 * takes the rows its one-level sums leave; returns the rows still left */
unsigned ozb_eft_band_deep(const double *P, const double *xs, int64_t w, unsigned rows, double alpha, double beta,
                           double *y, int64_t incy, int32_t *lsb);
#endif
