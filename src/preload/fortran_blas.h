/* The Fortran BLAS entry points the interposer serves (reference BLAS ABI, LP64: 32-bit
 * integers, every argument by reference; hidden string lengths, if passed, are ignored).
 * Declared once for the interposer and its test. */
#ifndef OZB_FORTRAN_BLAS_H
#define OZB_FORTRAN_BLAS_H
double ddot_(const int *n, const double *x, const int *incx, const double *y, const int *incy);
void dgemv_(const char *trans, const int *m, const int *n, const double *alpha, const double *A,
            const int *lda, const double *x, const int *incx, const double *beta, double *y, const int *incy);
void dgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const double *alpha, const double *A, const int *lda, const double *B, const int *ldb,
            const double *beta, double *C, const int *ldc);
#endif
