/* CORRECTLY_ROUNDED calls with a short inner dimension whose products span the whole exponent
 * range (LAPACK's scaling tests: DOTs of length 2-3 mixing 1e-292 and 1e-146, products below
 * the subnormal range), which the error-free sums cannot certify: every product split exactly
 * into integer terms and rounded once by NearSum or the long accumulator (sum/sum.h), instead
 * of the slices of Scheme I. */
#ifndef OZB_EXACT_SMALL_H
#define OZB_EXACT_SMALL_H
#include "core/problem.h"

#define OZB_EXACT_SMALL_K 64        /* inner dimensions up to this: always, terms on the stack */
#define OZB_EXACT_LONG_K 4096       /* up to this: where ozb_exact_small_takes says so */

/* Whether the exact short sums take pr: k <= OZB_EXACT_SMALL_K, or k <= OZB_EXACT_LONG_K and
 * the elements kept are few against the slice pairs Scheme I would sum for each element of C
 * (estimated from the exponent spans of op(A)'s rows and op(B)'s columns): wide-range
 * remainders, such as LAPACK's Sylvester residuals (DSYL01: X spanning 2^-971 to 2^355, a
 * third of C left by the deep sums), which Scheme I would cut into some 55 slices.  A choice
 * of cost only: both give RN(exact). */
int ozb_exact_small_takes(const ozb_problem *pr);

/* Writes RN(exact) for every kept element whose row of op(A), column of op(B) and C (where
 * beta != 0) are finite (pr->k <= OZB_EXACT_LONG_K), the columns on nt threads; the others
 * flagged for the special-value rules of the later methods.  *fail: m n flags owned by the
 * handle. */
ozblas_status_t ozb_exact_small(ozblas_handle_t h, const ozb_problem *pr, int nt, uint8_t **fail, int64_t *nfail);
/* A DOT (m = n = 1, k <= OZB_EXACT_SMALL_K) whose terms are all doubles (alpha = +-1, every
 * product and beta c within TwoProduct's exact range): RN(exact) into *pr->c and 1, with no
 * workspace; 0 where it does not apply (the call then takes the general path) */
int ozb_exact_small_dot(ozblas_handle_t h, const ozb_problem *pr);
/* The same value into *out (nothing written, no info): 1 where it applies */
int ozb_exact_small_value(const ozb_problem *pr, double *out);
#endif
