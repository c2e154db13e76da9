/* Rows of tiny products, sum_l a_l b_l with a_0 = 1 (DTBSV's b_i - sum t_ij x_j: the right-hand
 * sides of LAPACK's solves with matrices scaled toward underflow, whose products lie below the
 * short DOT's range), 1 and *out where decided:
 * - b_0 itself where the other products' magnitudes sum to less than half the spacing of the
 *   doubles around b_0 (b_0 finite and nonzero; then b_0 plus them rounds to b_0, no tie).  Bit
 *   budget: with E the exponent field (1 for subnormals), |v| < 2^(E(v) - 1022), so each product
 *   is below 2^(E(a_l) + E(b_l) - 2044) and the k - 1 of them below 2^(M - 2044 + lg), M their
 *   largest E(a_l) + E(b_l), 2^lg >= k - 1; half the spacing next to a normal b_0 of exponent e
 *   is at least 2^(e - 54) (below a power of two the spacing is half its ulp), next to a
 *   subnormal one 2^-1075.
 * - else, every product below 2^-900: the row with a scaled by 2^600 (exact: every |a_l| below
 *   2^401, and b_0 below 2^301, so no scaled product passes 2^901) through the short DOT, whose
 *   RN(2^600 exact) is 2^600 RN(exact) where it is at least 2^-422 (both normal: only the
 *   exponent differs).  Below that (|exact| < 2^-1022, RN monotone) the result is RN on the
 *   subnormal grid: with q = 2^-474 (2^-1074 scaled) and C = -sign(v) 2^53 q, C + 2^600 exact
 *   lies in (2^52 q, 2^53 q] in magnitude, where the doubles are the multiples of q, so the short
 *   DOT with the term C added gives RN(C + 2^600 exact), and minus C (exact) that is 2^600 exact
 *   rounded to the grid, ties to the even multiple as C is one (exact/exact_small.c's rule). */
#ifndef OZB_EFT_TINY_ROW_H
#define OZB_EFT_TINY_ROW_H
#include <stdint.h>

/* 1 and *out = RN(sum_{l < k} a_l b_l) where decided as above (a_0 = 1, k <= OZB_DOT_ONE_SIGMA
 * for the scaled DOT); 0 elsewhere, the caller's exact sums then deciding */
int ozb_eft_tiny_row(const double *a, const double *b, int64_t k, double *out);
#endif
