/* A BLAS client loaded the way Python loads NumPy: the test program opens this library with
 * RTLD_LOCAL, so its BLAS (the system's libblas.so.3, a dependency of this library) is not in
 * the process's global scope.  Its dgemm_ call still binds to the interposer when one is
 * preloaded, and the interposer must find that BLAS for its own products. */
extern void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k, const double *alpha,
                   const double *A, const int *lda, const double *B, const int *ldb, const double *beta, double *C,
                   const int *ldc, unsigned long la, unsigned long lb);

/* (1e16, 1, -1e16) . (1, 1, 1): exactly 1; any left-to-right double evaluation gives 0 */
double census_client_run(void);
double census_client_run(void)
{
    const double a[3] = { 1e16, 1.0, -1e16 }, b[3] = { 1.0, 1.0, 1.0 }, one = 1.0, zero = 0.0;
    const int m = 1, n = 1, k = 3;
    double c = -7.0;
    dgemm_("N", "N", &m, &n, &k, &one, a, &m, b, &k, &zero, &c, &m, 1, 1);
    return c;
}
