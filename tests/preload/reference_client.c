/* preload_reference_blas: a program on the reference BLAS (Debian's libblas3, whose CBLAS layer
 * calls its Fortran routines through the dynamic linker) under the interposer in FIXED mode,
 * where ozblas's slice products run as DGEMMs on the process's BLAS: those DGEMMs reach the
 * interposer's dgemm_ from inside the reference cblas_dgemm and must go straight to the real
 * BLAS, silently.  Prints the results; run_reference.sh checks them and that each of the
 * program's three calls is reported exactly once, by ozblas. */
#include <stdio.h>

extern void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k, const double *alpha,
                   const double *A, const int *lda, const double *B, const int *ldb, const double *beta, double *C,
                   const int *ldc, unsigned long la, unsigned long lb);
extern double ddot_(const int *n, const double *x, const int *incx, const double *y, const int *incy);

int main(void)
{
    const double a[3] = { 1e16, 1.0, -1e16 }, b[3] = { 1.0, 1.0, 1.0 }, one = 1.0, zero = 0.0;
    const int m = 1, k = 3, inc = 1;
    double c = -7.0;
    dgemm_("N", "N", &m, &m, &k, &one, a, &m, b, &k, &zero, &c, &m, 1, 1);
    printf("dgemm %.17g\n", c);
    printf("ddot %.17g\n", ddot_(&k, a, &inc, b, &inc));
    /* small integers: every product and sum exact, so the result is known */
    enum { N = 96 };
    static double A[N * N], B[N * N], C[N * N];
    for (int i = 0; i < N * N; i++) { A[i] = (double)(i % 7) - 3.0; B[i] = (double)(i % 5) - 2.0; }
    const int n = N;
    dgemm_("N", "N", &n, &n, &n, &one, A, &n, B, &n, &zero, C, &n, 1, 1);
    double want = 0.0;
    for (int l = 0; l < N; l++) want += A[l * N] * B[l];
    printf("big %s\n", C[0] == want ? "ok" : "wrong");
    return 0;
}
