/* LAPACK drivers on a fixed 300 x 300 matrix and its SPD companion, called as a Fortran
 * program calls them (linked against liblapack.so.3 and libblas.so.3): prints one hash per
 * output for the whole-program reproducibility test (repro_programs.sh).  n from argv[1]. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b, const int *ldb, int *info);
void dposv_(const char *uplo, const int *n, const int *nrhs, double *a, const int *lda, double *b, const int *ldb,
            int *info);
void dsyev_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda, double *w, double *work,
            const int *lwork, int *info);
void dgeqrf_(const int *m, const int *n, double *a, const int *lda, double *tau, double *work, const int *lwork,
             int *info);
void dormqr_(const char *side, const char *trans, const int *m, const int *n, const int *k, const double *a,
             const int *lda, const double *tau, double *c, const int *ldc, double *work, const int *lwork, int *info);
void dtrtrs_(const char *uplo, const char *trans, const char *diag, const int *n, const int *nrhs, const double *a,
             const int *lda, double *b, const int *ldb, int *info);
void dgesvd_(const char *jobu, const char *jobvt, const int *m, const int *n, double *a, const int *lda, double *s,
             double *u, const int *ldu, double *vt, const int *ldvt, double *work, const int *lwork, int *info);
void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k, const double *alpha,
            const double *a, const int *lda, const double *b, const int *ldb, const double *beta, double *c,
            const int *ldc);

static uint64_t hash(const void *p, size_t bytes)   /* FNV-1a */
{
    const unsigned char *c = p;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < bytes; i++) h = (h ^ c[i]) * 1099511628211ull;
    return h;
}
static void out(const char *name, const double *v, size_t n) { printf("%s %016llx\n", name, (unsigned long long)hash(v, n * sizeof *v)); }

int main(int argc, char **argv)
{
    const int n = argc > 1 ? atoi(argv[1]) : 300, nrhs = 3, lwork = 64 * n + 1024;
    const size_t nn = (size_t)n * (size_t)n;
    double *A = malloc(nn * sizeof *A), *S = malloc(nn * sizeof *A), *W = malloc(nn * sizeof *A);
    double *B = malloc((size_t)n * nrhs * sizeof *A), *X = malloc((size_t)n * nrhs * sizeof *A);
    double *work = malloc((size_t)lwork * sizeof *A), *w = malloc((size_t)n * sizeof *A), *tau = malloc((size_t)n * sizeof *A);
    int *ipiv = malloc((size_t)n * sizeof *ipiv), info;
    uint64_t s = 20261127;
    for (size_t i = 0; i < nn; i++) { s = s * 6364136223846793005ull + 1442695040888963407ull; A[i] = (double)(s >> 11) * 0x1p-53 - 0.5; }
    for (int i = 0; i < n * nrhs; i++) B[i] = (double)(i % 17) - 8.0;
    const double one = 1.0, zero = 0.0;
    dgemm_("N", "T", &n, &n, &n, &one, A, &n, A, &n, &zero, S, &n);            /* S = A A^T + n I */
    for (int i = 0; i < n; i++) S[i + (size_t)i * n] += n;
    memcpy(W, A, nn * sizeof *A); memcpy(X, B, (size_t)n * nrhs * sizeof *A);
    dgesv_(&n, &nrhs, W, &n, ipiv, X, &n, &info); out("dgesv", X, (size_t)n * nrhs);
    memcpy(W, S, nn * sizeof *A); memcpy(X, B, (size_t)n * nrhs * sizeof *A);
    dposv_("L", &n, &nrhs, W, &n, X, &n, &info); out("dposv", X, (size_t)n * nrhs);
    memcpy(W, S, nn * sizeof *A);
    dsyev_("V", "U", &n, W, &n, w, work, &lwork, &info); out("dsyev_w", w, (size_t)n);
    memcpy(W, A, nn * sizeof *A); memcpy(X, B, (size_t)n * nrhs * sizeof *A);
    dgeqrf_(&n, &n, W, &n, tau, work, &lwork, &info);
    dormqr_("L", "T", &n, &nrhs, &n, W, &n, tau, X, &n, work, &lwork, &info);
    dtrtrs_("U", "N", "N", &n, &nrhs, W, &n, X, &n, &info); out("qr_solve", X, (size_t)n * nrhs);
    memcpy(W, A, nn * sizeof *A);
    dgesvd_("N", "N", &n, &n, W, &n, w, NULL, &n, NULL, &n, work, &lwork, &info); out("dgesvd_s", w, (size_t)n);
    free(A); free(S); free(W); free(B); free(X); free(work); free(w); free(tau); free(ipiv);
    return 0;
}
