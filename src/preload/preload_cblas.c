/* The interposer's CBLAS entry points for the rest of the double BLAS: each is the column-major
 * Fortran routine of preload_blas.c on the same storage (a row-major matrix is the
 * column-major transpose: uplo and side flip, transposes flip for the triangular and rank-k
 * routines, m and n swap), so it is served and reported as that routine is.  Invalid
 * arguments (the Fortran routine's rules on the translated ones) go to the process's own
 * cblas_ routine with the caller's arguments, whose cblas_xerbla reports them as CBLAS does. */
#define _GNU_SOURCE
#include <cblas.h>
#include "fortran_blas.h"
#include "preload_core.h"

/* the process's cblas_ routine, looked up once; called where the arguments are invalid */
#define REAL_CBLAS(name, ...)                                                                   \
    do {                                                                                        \
        static void *_Atomic f_;                                                                \
        void *f = f_;                                                                           \
        if (!f) f_ = f = ozb_preload_real(#name);                                               \
        if (f) ((__typeof__(&name))f)(__VA_ARGS__);                                             \
    } while (0)
static int ld_ok(blasint ld, blasint rows) { return ld >= (rows > 1 ? rows : 1); }

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
void cblas_drotg(double *a, double *b, double *c, double *s)
{
    drotg_(a, b, c, s);
}
void cblas_drotmg(double *d1, double *d2, double *b1, OPENBLAS_CONST double b2, double *p)
{
    drotmg_(d1, d2, b1, &b2, p);
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
    if (uc == '?' || n < 0 || !ld_ok(lda, n) || !incx || !incy)
        REAL_CBLAS(cblas_dsymv, o, u, n, alpha, a, lda, x, incx, beta, y, incy);
    else dsymv_(&uc, &n, &alpha, a, &lda, x, &incx, &beta, y, &incy);
}
void cblas_dtrmv(OPENBLAS_CONST enum CBLAS_ORDER o, OPENBLAS_CONST enum CBLAS_UPLO u,
                 OPENBLAS_CONST enum CBLAS_TRANSPOSE t, OPENBLAS_CONST enum CBLAS_DIAG d, OPENBLAS_CONST blasint n,
                 OPENBLAS_CONST double *a, OPENBLAS_CONST blasint lda, double *x, OPENBLAS_CONST blasint incx)
{
    const int row = row_of(o);
    const char uc = order_ok(o) ? uplo_c(u, row) : '?', tc = trans_c(t, row), dc = diag_c(d);
    if (uc == '?' || tc == '?' || dc == '?' || n < 0 || !ld_ok(lda, n) || !incx)
        REAL_CBLAS(cblas_dtrmv, o, u, t, d, n, a, lda, x, incx);
    else dtrmv_(&uc, &tc, &dc, &n, a, &lda, x, &incx);
}
void cblas_dtrsv(OPENBLAS_CONST enum CBLAS_ORDER o, OPENBLAS_CONST enum CBLAS_UPLO u,
                 OPENBLAS_CONST enum CBLAS_TRANSPOSE t, OPENBLAS_CONST enum CBLAS_DIAG d, OPENBLAS_CONST blasint n,
                 OPENBLAS_CONST double *a, OPENBLAS_CONST blasint lda, double *x, OPENBLAS_CONST blasint incx)
{
    const int row = row_of(o);
    const char uc = order_ok(o) ? uplo_c(u, row) : '?', tc = trans_c(t, row), dc = diag_c(d);
    if (uc == '?' || tc == '?' || dc == '?' || n < 0 || !ld_ok(lda, n) || !incx)
        REAL_CBLAS(cblas_dtrsv, o, u, t, d, n, a, lda, x, incx);
    else dtrsv_(&uc, &tc, &dc, &n, a, &lda, x, &incx);
}
void cblas_dger(OPENBLAS_CONST enum CBLAS_ORDER o, OPENBLAS_CONST blasint m, OPENBLAS_CONST blasint n,
                OPENBLAS_CONST double alpha, OPENBLAS_CONST double *x, OPENBLAS_CONST blasint incx,
                OPENBLAS_CONST double *y, OPENBLAS_CONST blasint incy, double *a, OPENBLAS_CONST blasint lda)
{
    if (!order_ok(o) || m < 0 || n < 0 || !incx || !incy || !ld_ok(lda, row_of(o) ? n : m))
        REAL_CBLAS(cblas_dger, o, m, n, alpha, x, incx, y, incy, a, lda);
    else if (row_of(o)) dger_(&n, &m, &alpha, y, &incy, x, &incx, a, &lda);   /* A^T += alpha y x^T */
    else dger_(&m, &n, &alpha, x, &incx, y, &incy, a, &lda);
}
void cblas_dsyr(OPENBLAS_CONST enum CBLAS_ORDER o, OPENBLAS_CONST enum CBLAS_UPLO u, OPENBLAS_CONST blasint n,
                OPENBLAS_CONST double alpha, OPENBLAS_CONST double *x, OPENBLAS_CONST blasint incx, double *a,
                OPENBLAS_CONST blasint lda)
{
    const char uc = order_ok(o) ? uplo_c(u, row_of(o)) : '?';
    if (uc == '?' || n < 0 || !incx || !ld_ok(lda, n)) REAL_CBLAS(cblas_dsyr, o, u, n, alpha, x, incx, a, lda);
    else dsyr_(&uc, &n, &alpha, x, &incx, a, &lda);
}
void cblas_dsyr2(OPENBLAS_CONST enum CBLAS_ORDER o, OPENBLAS_CONST enum CBLAS_UPLO u, OPENBLAS_CONST blasint n,
                 OPENBLAS_CONST double alpha, OPENBLAS_CONST double *x, OPENBLAS_CONST blasint incx,
                 OPENBLAS_CONST double *y, OPENBLAS_CONST blasint incy, double *a, OPENBLAS_CONST blasint lda)
{
    const char uc = order_ok(o) ? uplo_c(u, row_of(o)) : '?';
    if (uc == '?' || n < 0 || !incx || !incy || !ld_ok(lda, n))
        REAL_CBLAS(cblas_dsyr2, o, u, n, alpha, x, incx, y, incy, a, lda);
    else dsyr2_(&uc, &n, &alpha, x, &incx, y, &incy, a, &lda);
}

/* ---- level 2, packed: a row-major packed triangle is the column-major packed one of the
 * transpose (uplo flips; the triangular ones' transposes flip) ---- */
void cblas_dspmv(OPENBLAS_CONST enum CBLAS_ORDER o, OPENBLAS_CONST enum CBLAS_UPLO u, OPENBLAS_CONST blasint n,
                 OPENBLAS_CONST double alpha, OPENBLAS_CONST double *ap, OPENBLAS_CONST double *x,
                 OPENBLAS_CONST blasint incx, OPENBLAS_CONST double beta, double *y, OPENBLAS_CONST blasint incy)
{
    const char uc = order_ok(o) ? uplo_c(u, row_of(o)) : '?';
    if (uc == '?' || n < 0 || !incx || !incy) REAL_CBLAS(cblas_dspmv, o, u, n, alpha, ap, x, incx, beta, y, incy);
    else dspmv_(&uc, &n, &alpha, ap, x, &incx, &beta, y, &incy);
}
void cblas_dtpmv(OPENBLAS_CONST enum CBLAS_ORDER o, OPENBLAS_CONST enum CBLAS_UPLO u,
                 OPENBLAS_CONST enum CBLAS_TRANSPOSE t, OPENBLAS_CONST enum CBLAS_DIAG d, OPENBLAS_CONST blasint n,
                 OPENBLAS_CONST double *ap, double *x, OPENBLAS_CONST blasint incx)
{
    const int row = row_of(o);
    const char uc = order_ok(o) ? uplo_c(u, row) : '?', tc = trans_c(t, row), dc = diag_c(d);
    if (uc == '?' || tc == '?' || dc == '?' || n < 0 || !incx) REAL_CBLAS(cblas_dtpmv, o, u, t, d, n, ap, x, incx);
    else dtpmv_(&uc, &tc, &dc, &n, ap, x, &incx);
}
void cblas_dtpsv(OPENBLAS_CONST enum CBLAS_ORDER o, OPENBLAS_CONST enum CBLAS_UPLO u,
                 OPENBLAS_CONST enum CBLAS_TRANSPOSE t, OPENBLAS_CONST enum CBLAS_DIAG d, OPENBLAS_CONST blasint n,
                 OPENBLAS_CONST double *ap, double *x, OPENBLAS_CONST blasint incx)
{
    const int row = row_of(o);
    const char uc = order_ok(o) ? uplo_c(u, row) : '?', tc = trans_c(t, row), dc = diag_c(d);
    if (uc == '?' || tc == '?' || dc == '?' || n < 0 || !incx) REAL_CBLAS(cblas_dtpsv, o, u, t, d, n, ap, x, incx);
    else dtpsv_(&uc, &tc, &dc, &n, ap, x, &incx);
}
void cblas_dspr(OPENBLAS_CONST enum CBLAS_ORDER o, OPENBLAS_CONST enum CBLAS_UPLO u, OPENBLAS_CONST blasint n,
                OPENBLAS_CONST double alpha, OPENBLAS_CONST double *x, OPENBLAS_CONST blasint incx, double *ap)
{
    const char uc = order_ok(o) ? uplo_c(u, row_of(o)) : '?';
    if (uc == '?' || n < 0 || !incx) REAL_CBLAS(cblas_dspr, o, u, n, alpha, x, incx, ap);
    else dspr_(&uc, &n, &alpha, x, &incx, ap);
}
void cblas_dspr2(OPENBLAS_CONST enum CBLAS_ORDER o, OPENBLAS_CONST enum CBLAS_UPLO u, OPENBLAS_CONST blasint n,
                 OPENBLAS_CONST double alpha, OPENBLAS_CONST double *x, OPENBLAS_CONST blasint incx,
                 OPENBLAS_CONST double *y, OPENBLAS_CONST blasint incy, double *ap)
{
    const char uc = order_ok(o) ? uplo_c(u, row_of(o)) : '?';
    if (uc == '?' || n < 0 || !incx || !incy) REAL_CBLAS(cblas_dspr2, o, u, n, alpha, x, incx, y, incy, ap);
    else dspr2_(&uc, &n, &alpha, x, &incx, y, &incy, ap);
}

/* ---- level 2, band: a row-major band matrix is the column-major band of the transpose
 * (kl and ku swap, m and n swap; uplo flips; transposes flip) ---- */
void cblas_dgbmv(OPENBLAS_CONST enum CBLAS_ORDER o, OPENBLAS_CONST enum CBLAS_TRANSPOSE t, OPENBLAS_CONST blasint m,
                 OPENBLAS_CONST blasint n, OPENBLAS_CONST blasint kl, OPENBLAS_CONST blasint ku,
                 OPENBLAS_CONST double alpha, OPENBLAS_CONST double *a, OPENBLAS_CONST blasint lda,
                 OPENBLAS_CONST double *x, OPENBLAS_CONST blasint incx, OPENBLAS_CONST double beta, double *y,
                 OPENBLAS_CONST blasint incy)
{
    const int row = row_of(o);
    const char tc = order_ok(o) ? trans_c(t, row) : '?';
    if (tc == '?' || m < 0 || n < 0 || kl < 0 || ku < 0 || lda < kl + ku + 1 || !incx || !incy)
        REAL_CBLAS(cblas_dgbmv, o, t, m, n, kl, ku, alpha, a, lda, x, incx, beta, y, incy);
    else if (row) dgbmv_(&tc, &n, &m, &ku, &kl, &alpha, a, &lda, x, &incx, &beta, y, &incy);
    else dgbmv_(&tc, &m, &n, &kl, &ku, &alpha, a, &lda, x, &incx, &beta, y, &incy);
}
void cblas_dsbmv(OPENBLAS_CONST enum CBLAS_ORDER o, OPENBLAS_CONST enum CBLAS_UPLO u, OPENBLAS_CONST blasint n,
                 OPENBLAS_CONST blasint k, OPENBLAS_CONST double alpha, OPENBLAS_CONST double *a,
                 OPENBLAS_CONST blasint lda, OPENBLAS_CONST double *x, OPENBLAS_CONST blasint incx,
                 OPENBLAS_CONST double beta, double *y, OPENBLAS_CONST blasint incy)
{
    const char uc = order_ok(o) ? uplo_c(u, row_of(o)) : '?';
    if (uc == '?' || n < 0 || k < 0 || lda < k + 1 || !incx || !incy)
        REAL_CBLAS(cblas_dsbmv, o, u, n, k, alpha, a, lda, x, incx, beta, y, incy);
    else dsbmv_(&uc, &n, &k, &alpha, a, &lda, x, &incx, &beta, y, &incy);
}
void cblas_dtbmv(OPENBLAS_CONST enum CBLAS_ORDER o, OPENBLAS_CONST enum CBLAS_UPLO u,
                 OPENBLAS_CONST enum CBLAS_TRANSPOSE t, OPENBLAS_CONST enum CBLAS_DIAG d, OPENBLAS_CONST blasint n,
                 OPENBLAS_CONST blasint k, OPENBLAS_CONST double *a, OPENBLAS_CONST blasint lda, double *x,
                 OPENBLAS_CONST blasint incx)
{
    const int row = row_of(o);
    const char uc = order_ok(o) ? uplo_c(u, row) : '?', tc = trans_c(t, row), dc = diag_c(d);
    if (uc == '?' || tc == '?' || dc == '?' || n < 0 || k < 0 || lda < k + 1 || !incx)
        REAL_CBLAS(cblas_dtbmv, o, u, t, d, n, k, a, lda, x, incx);
    else dtbmv_(&uc, &tc, &dc, &n, &k, a, &lda, x, &incx);
}
void cblas_dtbsv(OPENBLAS_CONST enum CBLAS_ORDER o, OPENBLAS_CONST enum CBLAS_UPLO u,
                 OPENBLAS_CONST enum CBLAS_TRANSPOSE t, OPENBLAS_CONST enum CBLAS_DIAG d, OPENBLAS_CONST blasint n,
                 OPENBLAS_CONST blasint k, OPENBLAS_CONST double *a, OPENBLAS_CONST blasint lda, double *x,
                 OPENBLAS_CONST blasint incx)
{
    const int row = row_of(o);
    const char uc = order_ok(o) ? uplo_c(u, row) : '?', tc = trans_c(t, row), dc = diag_c(d);
    if (uc == '?' || tc == '?' || dc == '?' || n < 0 || k < 0 || lda < k + 1 || !incx)
        REAL_CBLAS(cblas_dtbsv, o, u, t, d, n, k, a, lda, x, incx);
    else dtbsv_(&uc, &tc, &dc, &n, &k, a, &lda, x, &incx);
}

/* ---- level 3 ---- */
void cblas_dsymm(OPENBLAS_CONST enum CBLAS_ORDER o, OPENBLAS_CONST enum CBLAS_SIDE s, OPENBLAS_CONST enum CBLAS_UPLO u,
                 OPENBLAS_CONST blasint m, OPENBLAS_CONST blasint n, OPENBLAS_CONST double alpha,
                 OPENBLAS_CONST double *a, OPENBLAS_CONST blasint lda, OPENBLAS_CONST double *b,
                 OPENBLAS_CONST blasint ldb, OPENBLAS_CONST double beta, double *c, OPENBLAS_CONST blasint ldc)
{
    const int row = row_of(o);
    const char sc = order_ok(o) ? side_c(s, row) : '?', uc = uplo_c(u, row);
    const blasint fm = row ? n : m, fn = row ? m : n;
    if (sc == '?' || uc == '?' || fm < 0 || fn < 0 || !ld_ok(lda, sc == 'L' ? fm : fn) || !ld_ok(ldb, fm) || !ld_ok(ldc, fm))
        REAL_CBLAS(cblas_dsymm, o, s, u, m, n, alpha, a, lda, b, ldb, beta, c, ldc);
    else dsymm_(&sc, &uc, &fm, &fn, &alpha, a, &lda, b, &ldb, &beta, c, &ldc);
}
void cblas_dsyrk(OPENBLAS_CONST enum CBLAS_ORDER o, OPENBLAS_CONST enum CBLAS_UPLO u,
                 OPENBLAS_CONST enum CBLAS_TRANSPOSE t, OPENBLAS_CONST blasint n, OPENBLAS_CONST blasint k,
                 OPENBLAS_CONST double alpha, OPENBLAS_CONST double *a, OPENBLAS_CONST blasint lda,
                 OPENBLAS_CONST double beta, double *c, OPENBLAS_CONST blasint ldc)
{
    const int row = row_of(o);
    const char uc = order_ok(o) ? uplo_c(u, row) : '?', tc = trans_c(t, row);
    if (uc == '?' || tc == '?' || n < 0 || k < 0 || !ld_ok(lda, tc == 'N' ? n : k) || !ld_ok(ldc, n))
        REAL_CBLAS(cblas_dsyrk, o, u, t, n, k, alpha, a, lda, beta, c, ldc);
    else dsyrk_(&uc, &tc, &n, &k, &alpha, a, &lda, &beta, c, &ldc);
}
void cblas_dsyr2k(OPENBLAS_CONST enum CBLAS_ORDER o, OPENBLAS_CONST enum CBLAS_UPLO u,
                  OPENBLAS_CONST enum CBLAS_TRANSPOSE t, OPENBLAS_CONST blasint n, OPENBLAS_CONST blasint k,
                  OPENBLAS_CONST double alpha, OPENBLAS_CONST double *a, OPENBLAS_CONST blasint lda,
                  OPENBLAS_CONST double *b, OPENBLAS_CONST blasint ldb, OPENBLAS_CONST double beta, double *c,
                  OPENBLAS_CONST blasint ldc)
{
    const int row = row_of(o);
    const char uc = order_ok(o) ? uplo_c(u, row) : '?', tc = trans_c(t, row);
    if (uc == '?' || tc == '?' || n < 0 || k < 0 || !ld_ok(lda, tc == 'N' ? n : k) || !ld_ok(ldb, tc == 'N' ? n : k) ||
        !ld_ok(ldc, n))
        REAL_CBLAS(cblas_dsyr2k, o, u, t, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    else dsyr2k_(&uc, &tc, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc);
}
void cblas_dtrmm(OPENBLAS_CONST enum CBLAS_ORDER o, OPENBLAS_CONST enum CBLAS_SIDE s, OPENBLAS_CONST enum CBLAS_UPLO u,
                 OPENBLAS_CONST enum CBLAS_TRANSPOSE t, OPENBLAS_CONST enum CBLAS_DIAG d, OPENBLAS_CONST blasint m,
                 OPENBLAS_CONST blasint n, OPENBLAS_CONST double alpha, OPENBLAS_CONST double *a,
                 OPENBLAS_CONST blasint lda, double *b, OPENBLAS_CONST blasint ldb)
{
    const int row = row_of(o);
    const char sc = order_ok(o) ? side_c(s, row) : '?', uc = uplo_c(u, row), tc = trans_c(t, 0), dc = diag_c(d);
    const blasint fm = row ? n : m, fn = row ? m : n;
    if (sc == '?' || uc == '?' || tc == '?' || dc == '?' || fm < 0 || fn < 0 || !ld_ok(lda, sc == 'L' ? fm : fn) ||
        !ld_ok(ldb, fm))
        REAL_CBLAS(cblas_dtrmm, o, s, u, t, d, m, n, alpha, a, lda, b, ldb);
    else dtrmm_(&sc, &uc, &tc, &dc, &fm, &fn, &alpha, a, &lda, b, &ldb);
}
void cblas_dtrsm(OPENBLAS_CONST enum CBLAS_ORDER o, OPENBLAS_CONST enum CBLAS_SIDE s, OPENBLAS_CONST enum CBLAS_UPLO u,
                 OPENBLAS_CONST enum CBLAS_TRANSPOSE t, OPENBLAS_CONST enum CBLAS_DIAG d, OPENBLAS_CONST blasint m,
                 OPENBLAS_CONST blasint n, OPENBLAS_CONST double alpha, OPENBLAS_CONST double *a,
                 OPENBLAS_CONST blasint lda, double *b, OPENBLAS_CONST blasint ldb)
{
    const int row = row_of(o);
    const char sc = order_ok(o) ? side_c(s, row) : '?', uc = uplo_c(u, row), tc = trans_c(t, 0), dc = diag_c(d);
    const blasint fm = row ? n : m, fn = row ? m : n;
    if (sc == '?' || uc == '?' || tc == '?' || dc == '?' || fm < 0 || fn < 0 || !ld_ok(lda, sc == 'L' ? fm : fn) ||
        !ld_ok(ldb, fm))
        REAL_CBLAS(cblas_dtrsm, o, s, u, t, d, m, n, alpha, a, lda, b, ldb);
    else dtrsm_(&sc, &uc, &tc, &dc, &fm, &fn, &alpha, a, &lda, b, &ldb);
}
