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
/* the rest of the double BLAS (preload_blas.c) */
void dcopy_(const int *n, const double *x, const int *incx, double *y, const int *incy);
void dswap_(const int *n, double *x, const int *incx, double *y, const int *incy);
void dscal_(const int *n, const double *alpha, double *x, const int *incx);
void daxpy_(const int *n, const double *alpha, const double *x, const int *incx, double *y, const int *incy);
void drot_(const int *n, double *x, const int *incx, double *y, const int *incy, const double *c, const double *s);
void drotm_(const int *n, double *x, const int *incx, double *y, const int *incy, const double *param);
void drotg_(double *a, double *b, double *c, double *s);
void drotmg_(double *d1, double *d2, double *x1, const double *y1, double *param);
double dasum_(const int *n, const double *x, const int *incx);
double dnrm2_(const int *n, const double *x, const int *incx);
int idamax_(const int *n, const double *x, const int *incx);
void dsymv_(const char *uplo, const int *n, const double *alpha, const double *A, const int *lda, const double *x,
            const int *incx, const double *beta, double *y, const int *incy);
void dtrmv_(const char *uplo, const char *trans, const char *diag, const int *n, const double *A, const int *lda,
            double *x, const int *incx);
void dtrsv_(const char *uplo, const char *trans, const char *diag, const int *n, const double *A, const int *lda,
            double *x, const int *incx);
void dger_(const int *m, const int *n, const double *alpha, const double *x, const int *incx, const double *y,
           const int *incy, double *A, const int *lda);
void dsyr_(const char *uplo, const int *n, const double *alpha, const double *x, const int *incx, double *A,
           const int *lda);
void dsyr2_(const char *uplo, const int *n, const double *alpha, const double *x, const int *incx, const double *y,
            const int *incy, double *A, const int *lda);
void dsymm_(const char *side, const char *uplo, const int *m, const int *n, const double *alpha, const double *A,
            const int *lda, const double *B, const int *ldb, const double *beta, double *C, const int *ldc);
void dsyrk_(const char *uplo, const char *trans, const int *n, const int *k, const double *alpha, const double *A,
            const int *lda, const double *beta, double *C, const int *ldc);
void dsyr2k_(const char *uplo, const char *trans, const int *n, const int *k, const double *alpha, const double *A,
             const int *lda, const double *B, const int *ldb, const double *beta, double *C, const int *ldc);
void dtrmm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m, const int *n,
            const double *alpha, const double *A, const int *lda, double *B, const int *ldb);
void dtrsm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m, const int *n,
            const double *alpha, const double *A, const int *lda, double *B, const int *ldb);
void dspmv_(const char *uplo, const int *n, const double *alpha, const double *AP, const double *x, const int *incx,
            const double *beta, double *y, const int *incy);
void dtpmv_(const char *uplo, const char *trans, const char *diag, const int *n, const double *AP, double *x,
            const int *incx);
void dtpsv_(const char *uplo, const char *trans, const char *diag, const int *n, const double *AP, double *x,
            const int *incx);
void dspr_(const char *uplo, const int *n, const double *alpha, const double *x, const int *incx, double *AP);
void dspr2_(const char *uplo, const int *n, const double *alpha, const double *x, const int *incx, const double *y,
            const int *incy, double *AP);
void dgbmv_(const char *trans, const int *m, const int *n, const int *kl, const int *ku, const double *alpha,
            const double *A, const int *lda, const double *x, const int *incx, const double *beta, double *y,
            const int *incy);
void dsbmv_(const char *uplo, const int *n, const int *k, const double *alpha, const double *A, const int *lda,
            const double *x, const int *incx, const double *beta, double *y, const int *incy);
void dtbmv_(const char *uplo, const char *trans, const char *diag, const int *n, const int *k, const double *A,
            const int *lda, double *x, const int *incx);
void dtbsv_(const char *uplo, const char *trans, const char *diag, const int *n, const int *k, const double *A,
            const int *lda, double *x, const int *incx);
#endif
