/* The interposer's CBLAS entry points for the rest of the double BLAS: each is the column-major
 * Fortran routine of preload_blas.c on the same storage (a row-major matrix is the
 * column-major transpose: uplo and side flip, transposes flip for the triangular and rank-k
 * routines, m and n swap), so it is served, declined and reported as that routine is.  An
 * invalid layout or enum reaches the Fortran routine as '?', which ozblas declines and the
 * process's BLAS reports through its xerbla. */
#define _GNU_SOURCE
#include <cblas.h>
#include "fortran_blas.h"

static char uplo_c(enum CBLAS_UPLO u, int row)
{
    if (u != CblasUpper && u != CblasLower) return '?';
    return (u == CblasUpper) != row ? 'U' : 'L';
}
static char trans_c(enum CBLAS_TRANSPOSE t, int flip)
{
    const int tr = t == CblasTrans || t == CblasConjTrans;
    if (!tr && t != CblasNoTrans && t != CblasConjNoTrans) return '?';
    return tr != flip ? 'T' : 'N';
}
static char diag_c(enum CBLAS_DIAG d) { return d == CblasUnit ? 'U' : d == CblasNonUnit ? 'N' : '?'; }
static char side_c(enum CBLAS_SIDE s, int row)
{
    if (s != CblasLeft && s != CblasRight) return '?';
    return (s == CblasLeft) != row ? 'L' : 'R';
}
static int row_of(enum CBLAS_ORDER o) { return o == CblasRowMajor; }
static int order_ok(enum CBLAS_ORDER o) { return o == CblasRowMajor || o == CblasColMajor; }

/* ---- level 1 ---- */
void cblas_dcopy(OPENBLAS_CONST blasint n, OPENBLAS_CONST double *x, OPENBLAS_CONST blasint incx, double *y,
                 OPENBLAS_CONST blasint incy)
{
    dcopy_(&n, x, &incx, y, &incy);
}
void cblas_dswap(OPENBLAS_CONST blasint n, double *x, OPENBLAS_CONST blasint incx, double *y, OPENBLAS_CONST blasint incy)
{
    dswap_(&n, x, &incx, y, &incy);
}
void cblas_dscal(OPENBLAS_CONST blasint n, OPENBLAS_CONST double alpha, double *x, OPENBLAS_CONST blasint incx)
{
    dscal_(&n, &alpha, x, &incx);
}
void cblas_daxpy(OPENBLAS_CONST blasint n, OPENBLAS_CONST double alpha, OPENBLAS_CONST double *x,
                 OPENBLAS_CONST blasint incx, double *y, OPENBLAS_CONST blasint incy)
{
    daxpy_(&n, &alpha, x, &incx, y, &incy);
}
void cblas_drot(OPENBLAS_CONST blasint n, double *x, OPENBLAS_CONST blasint incx, double *y, OPENBLAS_CONST blasint incy,
                OPENBLAS_CONST double c, OPENBLAS_CONST double s)
{
    drot_(&n, x, &incx, y, &incy, &c, &s);
}
void cblas_drotm(OPENBLAS_CONST blasint n, double *x, OPENBLAS_CONST blasint incx, double *y,
                 OPENBLAS_CONST blasint incy, OPENBLAS_CONST double *p)
{
    drotm_(&n, x, &incx, y, &incy, p);
}
double cblas_dasum(OPENBLAS_CONST blasint n, OPENBLAS_CONST double *x, OPENBLAS_CONST blasint incx)
{
    return dasum_(&n, x, &incx);
}
double cblas_dnrm2(OPENBLAS_CONST blasint n, OPENBLAS_CONST double *x, OPENBLAS_CONST blasint incx)
{
    return dnrm2_(&n, x, &incx);
}
/* CBLAS's index is 0-based */
CBLAS_INDEX cblas_idamax(OPENBLAS_CONST blasint n, OPENBLAS_CONST double *x, OPENBLAS_CONST blasint incx)
{
    const int i = idamax_(&n, x, &incx);
    return i > 0 ? (CBLAS_INDEX)(i - 1) : 0;
}

/* ---- level 2 ---- */
void cblas_dsymv(OPENBLAS_CONST enum CBLAS_ORDER o, OPENBLAS_CONST enum CBLAS_UPLO u, OPENBLAS_CONST blasint n,
                 OPENBLAS_CONST double alpha, OPENBLAS_CONST double *a, OPENBLAS_CONST blasint lda,
                 OPENBLAS_CONST double *x, OPENBLAS_CONST blasint incx, OPENBLAS_CONST double beta, double *y,
                 OPENBLAS_CONST blasint incy)
{
    const char uc = order_ok(o) ? uplo_c(u, row_of(o)) : '?';
    dsymv_(&uc, &n, &alpha, a, &lda, x, &incx, &beta, y, &incy);
}
void cblas_dtrmv(OPENBLAS_CONST enum CBLAS_ORDER o, OPENBLAS_CONST enum CBLAS_UPLO u,
                 OPENBLAS_CONST enum CBLAS_TRANSPOSE t, OPENBLAS_CONST enum CBLAS_DIAG d, OPENBLAS_CONST blasint n,
                 OPENBLAS_CONST double *a, OPENBLAS_CONST blasint lda, double *x, OPENBLAS_CONST blasint incx)
{
    const int row = row_of(o);
    const char uc = order_ok(o) ? uplo_c(u, row) : '?', tc = trans_c(t, row), dc = diag_c(d);
    dtrmv_(&uc, &tc, &dc, &n, a, &lda, x, &incx);
}
void cblas_dtrsv(OPENBLAS_CONST enum CBLAS_ORDER o, OPENBLAS_CONST enum CBLAS_UPLO u,
                 OPENBLAS_CONST enum CBLAS_TRANSPOSE t, OPENBLAS_CONST enum CBLAS_DIAG d, OPENBLAS_CONST blasint n,
                 OPENBLAS_CONST double *a, OPENBLAS_CONST blasint lda, double *x, OPENBLAS_CONST blasint incx)
{
    const int row = row_of(o);
    const char uc = order_ok(o) ? uplo_c(u, row) : '?', tc = trans_c(t, row), dc = diag_c(d);
    dtrsv_(&uc, &tc, &dc, &n, a, &lda, x, &incx);
}
void cblas_dger(OPENBLAS_CONST enum CBLAS_ORDER o, OPENBLAS_CONST blasint m, OPENBLAS_CONST blasint n,
                OPENBLAS_CONST double alpha, OPENBLAS_CONST double *x, OPENBLAS_CONST blasint incx,
                OPENBLAS_CONST double *y, OPENBLAS_CONST blasint incy, double *a, OPENBLAS_CONST blasint lda)
{
    const blasint bad = -1;
    if (!order_ok(o)) dger_(&bad, &n, &alpha, x, &incx, y, &incy, a, &lda);
    else if (row_of(o)) dger_(&n, &m, &alpha, y, &incy, x, &incx, a, &lda);   /* A^T += alpha y x^T */
    else dger_(&m, &n, &alpha, x, &incx, y, &incy, a, &lda);
}
void cblas_dsyr(OPENBLAS_CONST enum CBLAS_ORDER o, OPENBLAS_CONST enum CBLAS_UPLO u, OPENBLAS_CONST blasint n,
                OPENBLAS_CONST double alpha, OPENBLAS_CONST double *x, OPENBLAS_CONST blasint incx, double *a,
                OPENBLAS_CONST blasint lda)
{
    const char uc = order_ok(o) ? uplo_c(u, row_of(o)) : '?';
    dsyr_(&uc, &n, &alpha, x, &incx, a, &lda);
}
void cblas_dsyr2(OPENBLAS_CONST enum CBLAS_ORDER o, OPENBLAS_CONST enum CBLAS_UPLO u, OPENBLAS_CONST blasint n,
                 OPENBLAS_CONST double alpha, OPENBLAS_CONST double *x, OPENBLAS_CONST blasint incx,
                 OPENBLAS_CONST double *y, OPENBLAS_CONST blasint incy, double *a, OPENBLAS_CONST blasint lda)
{
    const char uc = order_ok(o) ? uplo_c(u, row_of(o)) : '?';
    dsyr2_(&uc, &n, &alpha, x, &incx, y, &incy, a, &lda);
}

/* ---- level 3 ---- */
void cblas_dsymm(OPENBLAS_CONST enum CBLAS_ORDER o, OPENBLAS_CONST enum CBLAS_SIDE s, OPENBLAS_CONST enum CBLAS_UPLO u,
                 OPENBLAS_CONST blasint m, OPENBLAS_CONST blasint n, OPENBLAS_CONST double alpha,
                 OPENBLAS_CONST double *a, OPENBLAS_CONST blasint lda, OPENBLAS_CONST double *b,
                 OPENBLAS_CONST blasint ldb, OPENBLAS_CONST double beta, double *c, OPENBLAS_CONST blasint ldc)
{
    const int row = row_of(o);
    const char sc = order_ok(o) ? side_c(s, row) : '?', uc = uplo_c(u, row);
    if (row) dsymm_(&sc, &uc, &n, &m, &alpha, a, &lda, b, &ldb, &beta, c, &ldc);
    else dsymm_(&sc, &uc, &m, &n, &alpha, a, &lda, b, &ldb, &beta, c, &ldc);
}
void cblas_dsyrk(OPENBLAS_CONST enum CBLAS_ORDER o, OPENBLAS_CONST enum CBLAS_UPLO u,
                 OPENBLAS_CONST enum CBLAS_TRANSPOSE t, OPENBLAS_CONST blasint n, OPENBLAS_CONST blasint k,
                 OPENBLAS_CONST double alpha, OPENBLAS_CONST double *a, OPENBLAS_CONST blasint lda,
                 OPENBLAS_CONST double beta, double *c, OPENBLAS_CONST blasint ldc)
{
    const int row = row_of(o);
    const char uc = order_ok(o) ? uplo_c(u, row) : '?', tc = trans_c(t, row);
    dsyrk_(&uc, &tc, &n, &k, &alpha, a, &lda, &beta, c, &ldc);
}
void cblas_dsyr2k(OPENBLAS_CONST enum CBLAS_ORDER o, OPENBLAS_CONST enum CBLAS_UPLO u,
                  OPENBLAS_CONST enum CBLAS_TRANSPOSE t, OPENBLAS_CONST blasint n, OPENBLAS_CONST blasint k,
                  OPENBLAS_CONST double alpha, OPENBLAS_CONST double *a, OPENBLAS_CONST blasint lda,
                  OPENBLAS_CONST double *b, OPENBLAS_CONST blasint ldb, OPENBLAS_CONST double beta, double *c,
                  OPENBLAS_CONST blasint ldc)
{
    const int row = row_of(o);
    const char uc = order_ok(o) ? uplo_c(u, row) : '?', tc = trans_c(t, row);
    dsyr2k_(&uc, &tc, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc);
}
void cblas_dtrmm(OPENBLAS_CONST enum CBLAS_ORDER o, OPENBLAS_CONST enum CBLAS_SIDE s, OPENBLAS_CONST enum CBLAS_UPLO u,
                 OPENBLAS_CONST enum CBLAS_TRANSPOSE t, OPENBLAS_CONST enum CBLAS_DIAG d, OPENBLAS_CONST blasint m,
                 OPENBLAS_CONST blasint n, OPENBLAS_CONST double alpha, OPENBLAS_CONST double *a,
                 OPENBLAS_CONST blasint lda, double *b, OPENBLAS_CONST blasint ldb)
{
    const int row = row_of(o);
    const char sc = order_ok(o) ? side_c(s, row) : '?', uc = uplo_c(u, row), tc = trans_c(t, 0), dc = diag_c(d);
    if (row) dtrmm_(&sc, &uc, &tc, &dc, &n, &m, &alpha, a, &lda, b, &ldb);
    else dtrmm_(&sc, &uc, &tc, &dc, &m, &n, &alpha, a, &lda, b, &ldb);
}
void cblas_dtrsm(OPENBLAS_CONST enum CBLAS_ORDER o, OPENBLAS_CONST enum CBLAS_SIDE s, OPENBLAS_CONST enum CBLAS_UPLO u,
                 OPENBLAS_CONST enum CBLAS_TRANSPOSE t, OPENBLAS_CONST enum CBLAS_DIAG d, OPENBLAS_CONST blasint m,
                 OPENBLAS_CONST blasint n, OPENBLAS_CONST double alpha, OPENBLAS_CONST double *a,
                 OPENBLAS_CONST blasint lda, double *b, OPENBLAS_CONST blasint ldb)
{
    const int row = row_of(o);
    const char sc = order_ok(o) ? side_c(s, row) : '?', uc = uplo_c(u, row), tc = trans_c(t, 0), dc = diag_c(d);
    if (row) dtrsm_(&sc, &uc, &tc, &dc, &n, &m, &alpha, a, &lda, b, &ldb);
    else dtrsm_(&sc, &uc, &tc, &dc, &m, &n, &alpha, a, &lda, b, &ldb);
}
