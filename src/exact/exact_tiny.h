/* CORRECTLY_ROUNDED GEMM, GEMV and DOT with a tiny inner dimension (k <= OZB_EXACT_TINY_CANCEL_K):
 * LAPACK's blocked factorizations update C - A B with panels of 1-8 columns by the thousand,
 * and the result often cancels far below its terms (a trailing update of a matrix whose
 * factor is nearly exact), which the error-free sums leave to slower methods.  Here every
 * product and beta c is split exactly by TwoProduct, four rows at a time, and the 2k + 2
 * terms of each element are summed error-free once or twice over (Sum2, Sum3: Ogita, Rump, Oishi),
 * certified lane by lane: a few nanoseconds per element, cancelling or not. */
#ifndef OZB_EXACT_TINY_H
#define OZB_EXACT_TINY_H
#include "core/problem.h"

#define OZB_EXACT_TINY_K 4          /* inner dimensions up to this before the error-free sums */
#define OZB_EXACT_TINY_CANCEL_K 16  /* and up to this after them, for what they leave: LAPACK's
                                     * residuals B - A X of a few right-hand sides (k = 5, 10),
                                     * some 45 ns an element at k = 10 against the deep sums' 60-90 */

/* 1 where the method applies to the call: k <= OZB_EXACT_TINY_CANCEL_K, alpha = +-1, and the
 * build has AVX2 and FMA */
int ozb_exact_tiny_eligible(const ozb_problem *pr);

/* Writes RN(exact) for every element it certifies; *fail: m n flags (owned by the handle
 * until its next call) set where it left the element untouched, *nfail their count. */
ozblas_status_t ozb_exact_tiny(ozblas_handle_t h, const ozb_problem *pr, int nt, uint8_t **fail, int64_t *nfail);
/* The same for a call known to cancel (what the error-free sums left): both VecSum passes at
 * once, no first certificate that would fail */
ozblas_status_t ozb_exact_tiny_cancel(ozblas_handle_t h, const ozb_problem *pr, int nt, uint8_t **fail, int64_t *nfail);
/* 1 where the exact tiny sums go before the error-free sums: k <= OZB_EXACT_TINY_K and a C of
 * fewer than 8 rows (worked
 * transposed, which the error-free sums' strips of 8 rows are not), k = 1, or a GEMV of two
 * columns and at most 64 rows (LAPACK's residuals y - A x of bidiagonal and two-column panels:
 * the GEMV-N strip's setup costs more than the tiny sums there, and what cancels is decided in
 * their second pass instead of the deep sums); elsewhere, where nothing cancels, the error-free
 * sums first (faster from some 8 rows of 3 products, or a GEMV of 2 columns beyond 64 rows) */
int ozb_exact_tiny_first(const ozb_problem *pr);
#endif
