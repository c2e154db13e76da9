/* The interposer's Fortran entry points for level 2 of the rest of the double BLAS (full,
 * packed and band storage), served as preload_blas.c serves levels 1 and 3. */
#include "preload_serve.h"

/* ---- level 2 ---- */
void dsymv_(const char *uplo, const int *n, const double *alpha, const double *A, const int *lda, const double *x,
            const int *incx, const double *beta, double *y, const int *incy)
{
    ozb_preload_init();
    call_desc c = { "dsymv_", "", *uplo, 0, -1, *n, -1 };
    SERVE(c, PR_DSYMV, *n, *n, 1, ozb_preload_save(&sv, vec0(y, *n, *incy), len(*n), 1, *incy, 0),
          ozblas_dsymv(h, uplo_of(uplo), *n, *alpha, A, *lda, x, *incx, *beta, y, *incy));
    REAL(dsymv_, void (*)(const char *, const int *, const double *, const double *, const int *, const double *, const int *,
                  const double *, double *, const int *, size_t));
    if (f_real) f_real(uplo, n, alpha, A, lda, x, incx, beta, y, incy, 1);
}

typedef void (*tr2_fn)(const char *, const char *, const char *, const int *, const double *, const int *, double *,
                       const int *, size_t, size_t, size_t);

void dtrmv_(const char *uplo, const char *trans, const char *diag, const int *n, const double *A, const int *lda,
            double *x, const int *incx)
{
    ozb_preload_init();
    call_desc c = { "dtrmv_", "", *uplo, *trans, -1, *n, -1 };
    SERVE(c, PR_DTRMV, *n, *n, 1, ozb_preload_save(&sv, vec0(x, *n, *incx), len(*n), 1, *incx, 0),
          ozblas_dtrmv(h, uplo_of(uplo), op_of(trans), diag_of(diag), *n, A, *lda, x, *incx));
    REAL(dtrmv_, tr2_fn);
    if (f_real) f_real(uplo, trans, diag, n, A, lda, x, incx, 1, 1, 1);
}

void dtrsv_(const char *uplo, const char *trans, const char *diag, const int *n, const double *A, const int *lda,
            double *x, const int *incx)
{
    ozb_preload_init();
    call_desc c = { "dtrsv_", "", *uplo, *trans, -1, *n, -1 };
    SERVE(c, PR_DTRSV, *n, *n, 1, ozb_preload_save(&sv, vec0(x, *n, *incx), len(*n), 1, *incx, 0),
          ozblas_dtrsv(h, uplo_of(uplo), op_of(trans), diag_of(diag), *n, A, *lda, x, *incx));
    REAL(dtrsv_, tr2_fn);
    if (f_real) f_real(uplo, trans, diag, n, A, lda, x, incx, 1, 1, 1);
}

/* The rank updates' A is updated in place and not saved: ozblas_dger, dsyr and dsyr2 leave it
 * as it was on every failure but OZBLAS_STATUS_PARTIAL, which stops the process
 * (ozb_preload_finish_in_place: there is nothing to put back; a copy of A would cost as much as
 * a small update itself).  Only the test knob, which fails calls after they succeeded, needs the
 * copy. */
#undef FINISH
#define FINISH ozb_preload_finish_in_place
void dger_(const int *m, const int *n, const double *alpha, const double *x, const int *incx, const double *y,
           const int *incy, double *A, const int *lda)
{
    ozb_preload_init();
    call_desc c = { "dger_", "", 0, 0, *m, *n, -1 };
    SERVE(c, PR_DGER, *m, *n, 1, !ld_ok(*lda, *m) || !ozb_preload_test_fail() || ozb_preload_save(&sv, A, *m, *n, 1, *lda),
          ozblas_dger(h, *m, *n, *alpha, x, *incx, y, *incy, A, *lda));
    REAL(dger_, void (*)(const int *, const int *, const double *, const double *, const int *, const double *, const int *,
                  double *, const int *));
    if (f_real) f_real(m, n, alpha, x, incx, y, incy, A, lda);
}

void dsyr_(const char *uplo, const int *n, const double *alpha, const double *x, const int *incx, double *A,
           const int *lda)
{
    ozb_preload_init();
    call_desc c = { "dsyr_", "", *uplo, 0, -1, *n, -1 };
    SERVE(c, PR_DSYR, *n, *n, 1, !ld_ok(*lda, *n) || !ozb_preload_test_fail() || ozb_preload_save(&sv, A, *n, *n, 1, *lda),
          ozblas_dsyr(h, uplo_of(uplo), *n, *alpha, x, *incx, A, *lda));
    REAL(dsyr_, void (*)(const char *, const int *, const double *, const double *, const int *, double *, const int *,
                  size_t));
    if (f_real) f_real(uplo, n, alpha, x, incx, A, lda, 1);
}

void dsyr2_(const char *uplo, const int *n, const double *alpha, const double *x, const int *incx, const double *y,
            const int *incy, double *A, const int *lda)
{
    ozb_preload_init();
    call_desc c = { "dsyr2_", "", *uplo, 0, -1, *n, -1 };
    SERVE(c, PR_DSYR2, *n, *n, 1, !ld_ok(*lda, *n) || !ozb_preload_test_fail() || ozb_preload_save(&sv, A, *n, *n, 1, *lda),
          ozblas_dsyr2(h, uplo_of(uplo), *n, *alpha, x, *incx, y, *incy, A, *lda));
    REAL(dsyr2_, void (*)(const char *, const int *, const double *, const double *, const int *, const double *,
                  const int *, double *, const int *, size_t));
    if (f_real) f_real(uplo, n, alpha, x, incx, y, incy, A, lda, 1);
}

#undef FINISH
#define FINISH ozb_preload_finish

/* ---- level 2, packed ---- */
static int64_t packed_len(int n) { return n > 0 ? (int64_t)n * (n + 1) / 2 : 0; }

void dspmv_(const char *uplo, const int *n, const double *alpha, const double *AP, const double *x, const int *incx,
            const double *beta, double *y, const int *incy)
{
    ozb_preload_init();
    call_desc c = { "dspmv_", "", *uplo, 0, -1, *n, -1 };
    SERVE(c, PR_DSPMV, *n, *n, 1, ozb_preload_save(&sv, vec0(y, *n, *incy), len(*n), 1, *incy, 0),
          ozblas_dspmv(h, uplo_of(uplo), *n, *alpha, AP, x, *incx, *beta, y, *incy));
    REAL(dspmv_, void (*)(const char *, const int *, const double *, const double *, const double *, const int *,
                          const double *, double *, const int *, size_t));
    if (f_real) f_real(uplo, n, alpha, AP, x, incx, beta, y, incy, 1);
}

typedef void (*tp2_fn)(const char *, const char *, const char *, const int *, const double *, double *, const int *,
                       size_t, size_t, size_t);

void dtpmv_(const char *uplo, const char *trans, const char *diag, const int *n, const double *AP, double *x,
            const int *incx)
{
    ozb_preload_init();
    call_desc c = { "dtpmv_", "", *uplo, *trans, -1, *n, -1 };
    SERVE(c, PR_DTPMV, *n, *n, 1, ozb_preload_save(&sv, vec0(x, *n, *incx), len(*n), 1, *incx, 0),
          ozblas_dtpmv(h, uplo_of(uplo), op_of(trans), diag_of(diag), *n, AP, x, *incx));
    REAL(dtpmv_, tp2_fn);
    if (f_real) f_real(uplo, trans, diag, n, AP, x, incx, 1, 1, 1);
}

void dtpsv_(const char *uplo, const char *trans, const char *diag, const int *n, const double *AP, double *x,
            const int *incx)
{
    ozb_preload_init();
    call_desc c = { "dtpsv_", "", *uplo, *trans, -1, *n, -1 };
    SERVE(c, PR_DTPSV, *n, *n, 1, ozb_preload_save(&sv, vec0(x, *n, *incx), len(*n), 1, *incx, 0),
          ozblas_dtpsv(h, uplo_of(uplo), op_of(trans), diag_of(diag), *n, AP, x, *incx));
    REAL(dtpsv_, tp2_fn);
    if (f_real) f_real(uplo, trans, diag, n, AP, x, incx, 1, 1, 1);
}

void dspr_(const char *uplo, const int *n, const double *alpha, const double *x, const int *incx, double *AP)
{
    ozb_preload_init();
    call_desc c = { "dspr_", "", *uplo, 0, -1, *n, -1 };
    SERVE(c, PR_DSPR, *n, *n, 1, ozb_preload_save(&sv, AP, packed_len(*n), 1, 1, 0),
          ozblas_dspr(h, uplo_of(uplo), *n, *alpha, x, *incx, AP));
    REAL(dspr_, void (*)(const char *, const int *, const double *, const double *, const int *, double *, size_t));
    if (f_real) f_real(uplo, n, alpha, x, incx, AP, 1);
}

void dspr2_(const char *uplo, const int *n, const double *alpha, const double *x, const int *incx, const double *y,
            const int *incy, double *AP)
{
    ozb_preload_init();
    call_desc c = { "dspr2_", "", *uplo, 0, -1, *n, -1 };
    SERVE(c, PR_DSPR2, *n, *n, 1, ozb_preload_save(&sv, AP, packed_len(*n), 1, 1, 0),
          ozblas_dspr2(h, uplo_of(uplo), *n, *alpha, x, *incx, y, *incy, AP));
    REAL(dspr2_, void (*)(const char *, const int *, const double *, const double *, const int *, const double *,
                          const int *, double *, size_t));
    if (f_real) f_real(uplo, n, alpha, x, incx, y, incy, AP, 1);
}

/* ---- level 2, band ---- */
void dgbmv_(const char *trans, const int *m, const int *n, const int *kl, const int *ku, const double *alpha,
            const double *A, const int *lda, const double *x, const int *incx, const double *beta, double *y,
            const int *incy)
{
    ozb_preload_init();
    call_desc c = { "dgbmv_", "", *trans, 0, *m, *n, -1 };
    const ozblas_operation_t t = op_of(trans);
    const int ly = t == OZBLAS_OP_T ? *n : *m;
    SERVE(c, PR_DGBMV, *m, *n, 1, ozb_preload_save(&sv, vec0(y, ly, *incy), len(ly), 1, *incy, 0),
          ozblas_dgbmv(h, t, *m, *n, *kl, *ku, *alpha, A, *lda, x, *incx, *beta, y, *incy));
    REAL(dgbmv_, void (*)(const char *, const int *, const int *, const int *, const int *, const double *,
                          const double *, const int *, const double *, const int *, const double *, double *,
                          const int *, size_t));
    if (f_real) f_real(trans, m, n, kl, ku, alpha, A, lda, x, incx, beta, y, incy, 1);
}

void dsbmv_(const char *uplo, const int *n, const int *k, const double *alpha, const double *A, const int *lda,
            const double *x, const int *incx, const double *beta, double *y, const int *incy)
{
    ozb_preload_init();
    call_desc c = { "dsbmv_", "", *uplo, 0, -1, *n, *k };
    SERVE(c, PR_DSBMV, *n, *k, 1, ozb_preload_save(&sv, vec0(y, *n, *incy), len(*n), 1, *incy, 0),
          ozblas_dsbmv(h, uplo_of(uplo), *n, *k, *alpha, A, *lda, x, *incx, *beta, y, *incy));
    REAL(dsbmv_, void (*)(const char *, const int *, const int *, const double *, const double *, const int *,
                          const double *, const int *, const double *, double *, const int *, size_t));
    if (f_real) f_real(uplo, n, k, alpha, A, lda, x, incx, beta, y, incy, 1);
}

typedef void (*tb2_fn)(const char *, const char *, const char *, const int *, const int *, const double *, const int *,
                       double *, const int *, size_t, size_t, size_t);

void dtbmv_(const char *uplo, const char *trans, const char *diag, const int *n, const int *k, const double *A,
            const int *lda, double *x, const int *incx)
{
    ozb_preload_init();
    call_desc c = { "dtbmv_", "", *uplo, *trans, -1, *n, *k };
    SERVE(c, PR_DTBMV, *n, *k, 1, ozb_preload_save(&sv, vec0(x, *n, *incx), len(*n), 1, *incx, 0),
          ozblas_dtbmv(h, uplo_of(uplo), op_of(trans), diag_of(diag), *n, *k, A, *lda, x, *incx));
    REAL(dtbmv_, tb2_fn);
    if (f_real) f_real(uplo, trans, diag, n, k, A, lda, x, incx, 1, 1, 1);
}

void dtbsv_(const char *uplo, const char *trans, const char *diag, const int *n, const int *k, const double *A,
            const int *lda, double *x, const int *incx)
{
    ozb_preload_init();
    call_desc c = { "dtbsv_", "", *uplo, *trans, -1, *n, *k };
    SERVE(c, PR_DTBSV, *n, *k, 1, ozb_preload_save(&sv, vec0(x, *n, *incx), len(*n), 1, *incx, 0),
          ozblas_dtbsv(h, uplo_of(uplo), op_of(trans), diag_of(diag), *n, *k, A, *lda, x, *incx));
    REAL(dtbsv_, tb2_fn);
    if (f_real) f_real(uplo, trans, diag, n, k, A, lda, x, incx, 1, 1, 1);
}

