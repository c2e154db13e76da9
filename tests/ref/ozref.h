/*
 * ozref: exact (MPFR) references and the seed papers' input generator for the
 * ozblas test suite and benchmark.  Every reference value is the exact result
 * rounded once to binary64 (round to nearest, ties to even, gradual underflow,
 * overflow to +-Inf), following the special-value rules of CONTRACT.md:
 *   - finite case: RN(exact alpha*sum + beta*c); an exact zero result is +0;
 *   - alpha == 0 or inner dimension == 0: beta == 0 ? +0 : beta*c (one IEEE multiply);
 *   - beta == 0: c is never read;
 *   - non-finite inputs: NaN if any contributing product is NaN or 0*Inf, or if
 *     +Inf and -Inf terms meet (alpha*sum and beta*c included); else +-Inf.
 */
#ifndef OZREF_H
#define OZREF_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* RN of the exact x^T y, BLAS increments (negative: traverse backwards; zero allowed). n<=0 -> +0. */
double ozref_ddot(int64_t n, const double *x, int64_t incx, const double *y, int64_t incy);

/* RN(sqrt(sum x_i^2)), the sum exact (BLAS increment, n <= 0 -> +0; NaN/Inf as IEEE). */
double ozref_dnrm2(int64_t n, const double *x, int64_t incx);

/* y := RN(alpha*op(A)x + beta*y) per element, BLAS conventions. trans: 0=N, 1=T.
 * m == 0 || n == 0 with an empty output: no-op; inner dimension 0: y := beta*y. */
void ozref_dgemv(int trans, int64_t m, int64_t n, double alpha, const double *A, int64_t lda,
                 const double *x, int64_t incx, double beta, double *y, int64_t incy);

/* C := RN(alpha*op(A)op(B) + beta*C) per element, column-major. Only the m x n window is written. */
void ozref_dgemm(int transa, int transb, int64_t m, int64_t n, int64_t k, double alpha,
                 const double *A, int64_t lda, const double *B, int64_t ldb, double beta, double *C, int64_t ldc);

/* one element (i,j) of the dgemm reference, for sampling large outputs; c_in is C(i,j) before the call */
double ozref_dgemm_elem(int transa, int transb, int64_t i, int64_t j, int64_t k, double alpha,
                        const double *A, int64_t lda, const double *B, int64_t ldb, double beta, double c_in);

/* the seed papers' generator (rand-0.5)*exp(phi*randn); xoshiro256** + Box-Muller, deterministic per seed */
typedef struct { uint64_t s[4]; } ozref_rng;
void   ozref_rng_seed(ozref_rng *r, uint64_t seed);
double ozref_uniform(ozref_rng *r);           /* [0,1) */
double ozref_normal(ozref_rng *r);
void   ozref_fill_phi(ozref_rng *r, double *x, int64_t n, double phi);

/* |got - ref| in units of ulp(ref) (ulp of a subnormal/zero ref = 2^-1074); 0 if bitwise equal
 * (or both NaN); +Inf if one is NaN/Inf and the other differs */
double ozref_ulps(double got, double ref);

#ifdef __cplusplus
}
#endif
#endif /* OZREF_H */
