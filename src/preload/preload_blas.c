/* The interposer's Fortran entry points for levels 1 and 3 of the rest of the double BLAS
 * (reference BLAS ABI, LP64, hidden CHARACTER lengths last): each goes to ozblas_<routine> on
 * the thread's handle and, where ozblas does not serve it (invalid arguments, which the
 * process's BLAS then reports through its xerbla; any other status; OZBLAS_PRELOAD_MIN_SIZE),
 * to the process's BLAS with the caller's arguments, after an output ozblas may have written is
 * put back. */
#include "preload_serve.h"

/* ---- level 1 ---- */
void dcopy_(const int *n, const double *x, const int *incx, double *y, const int *incy)
{
    ozb_preload_init();
    call_desc c = { "dcopy_", "", 0, 0, -1, *n, -1 };
    SERVE(c, PR_DCOPY, *n, 1, 1, 1, ozblas_dcopy(h, *n, x, *incx, y, *incy));
    REAL(dcopy_, void (*)(const int *, const double *, const int *, double *, const int *));
    if (f_real) f_real(n, x, incx, y, incy);
}

void dswap_(const int *n, double *x, const int *incx, double *y, const int *incy)
{
    ozb_preload_init();
    call_desc c = { "dswap_", "", 0, 0, -1, *n, -1 };
    SERVE(c, PR_DSWAP, *n, 1, 1, 1, ozblas_dswap(h, *n, x, *incx, y, *incy));
    REAL(dswap_, void (*)(const int *, double *, const int *, double *, const int *));
    if (f_real) f_real(n, x, incx, y, incy);
}

void dscal_(const int *n, const double *alpha, double *x, const int *incx)
{
    ozb_preload_init();
    call_desc c = { "dscal_", "", 0, 0, -1, *n, -1 };
    SERVE(c, PR_DSCAL, *n, 1, 1, 1, ozblas_dscal(h, *n, *alpha, x, *incx));
    REAL(dscal_, void (*)(const int *, const double *, double *, const int *));
    if (f_real) f_real(n, alpha, x, incx);
}

void daxpy_(const int *n, const double *alpha, const double *x, const int *incx, double *y, const int *incy)
{
    ozb_preload_init();
    call_desc c = { "daxpy_", "", 0, 0, -1, *n, -1 };
    SERVE(c, PR_DAXPY, *n, 1, 1, 1, ozblas_daxpy(h, *n, *alpha, x, *incx, y, *incy));
    REAL(daxpy_, void (*)(const int *, const double *, const double *, const int *, double *, const int *));
    if (f_real) f_real(n, alpha, x, incx, y, incy);
}

/* x and y both written, and not saved: ozblas_drot and ozblas_drotm leave both as they were on
 * every failure but OZBLAS_STATUS_PARTIAL, which stops the process (ozb_preload_finish_in_place:
 * there is nothing to put back; a copy would cost a fifth of LAPACK's short rotations).  Only the
 * test knob, which fails calls after they succeeded, needs them: y saved beside x (sv2), put
 * back with it. */
#define SAVE2(n, x, incx, y, incy)                                                                  \
    (!ozb_preload_test_fail() || (ozb_preload_save(&sv, vec0(x, n, incx), len(n), 1, incx, 0) &&   \
                                  ozb_preload_save(&sv2, vec0(y, n, incy), len(n), 1, incy, 0)))
#undef SERVED
#define SERVED do { ozb_preload_release(&sv2); return; } while (0)
#undef FINISH
#define FINISH ozb_preload_finish_in_place
static ozblas_status_t second(ozblas_status_t st, saved_out *sv2)
{
    if (st != OZBLAS_STATUS_SUCCESS || ozb_preload_test_fail()) {
        if (sv2->buf)
            for (int64_t i = 0; i < sv2->rows; i++) sv2->v[i * sv2->rs] = sv2->buf[i];
    }
    return st;
}

void drot_(const int *n, double *x, const int *incx, double *y, const int *incy, const double *cc, const double *s)
{
    ozb_preload_init();
    call_desc c = { "drot_", "", 0, 0, -1, *n, -1 };
    saved_out sv2 = OZB_SAVED_NONE;
    SERVE(c, PR_DROT, *n, 1, 1, SAVE2(*n, x, *incx, y, *incy), second(ozblas_drot(h, *n, x, *incx, y, *incy, *cc, *s), &sv2));
    ozb_preload_release(&sv2);
    REAL(drot_, void (*)(const int *, double *, const int *, double *, const int *, const double *, const double *));
    if (f_real) f_real(n, x, incx, y, incy, cc, s);
}

void drotm_(const int *n, double *x, const int *incx, double *y, const int *incy, const double *param)
{
    ozb_preload_init();
    call_desc c = { "drotm_", "", 0, 0, -1, *n, -1 };
    saved_out sv2 = OZB_SAVED_NONE;
    SERVE(c, PR_DROTM, *n, 1, 1, SAVE2(*n, x, *incx, y, *incy), second(ozblas_drotm(h, *n, x, *incx, y, *incy, param), &sv2));
    ozb_preload_release(&sv2);
    REAL(drotm_, void (*)(const int *, double *, const int *, double *, const int *, const double *));
    if (f_real) f_real(n, x, incx, y, incy, param);
}
#undef SERVED
#undef FINISH
#define FINISH ozb_preload_finish

/* the reductions: the value returned */
#define SERVED return r
double dasum_(const int *n, const double *x, const int *incx)
{
    ozb_preload_init();
    call_desc c = { "dasum_", "", 0, 0, -1, *n, -1 };
    double r = 0.0;
    SERVE(c, PR_DASUM, *n, 1, 1, 1, ozblas_dasum(h, *n, x, *incx, &r));
    REAL(dasum_, double (*)(const int *, const double *, const int *));
    return f_real ? f_real(n, x, incx) : 0.0;
}

double dnrm2_(const int *n, const double *x, const int *incx)
{
    ozb_preload_init();
    call_desc c = { "dnrm2_", "", 0, 0, -1, *n, -1 };
    double r = 0.0;
    SERVE(c, PR_DNRM2, *n, 1, 1, 1, ozblas_dnrm2(h, *n, x, *incx, &r));
    REAL(dnrm2_, double (*)(const int *, const double *, const int *));
    return f_real ? f_real(n, x, incx) : 0.0;
}
#undef SERVED

#define SERVED return (int)r
int idamax_(const int *n, const double *x, const int *incx)
{
    ozb_preload_init();
    call_desc c = { "idamax_", "", 0, 0, -1, *n, -1 };
    int64_t r = 0;
    SERVE(c, PR_IDAMAX, *n, 1, 1, 1, ozblas_idamax(h, *n, x, *incx, &r));
    REAL(idamax_, int (*)(const int *, const double *, const int *));
    return f_real ? f_real(n, x, incx) : 0;
}
#undef SERVED
#define SERVED return

/* The scalar constructions: their in-out scalars kept in locals and put back where ozblas
 * does not serve the call (it fails only on arguments, before writing; the test knob fails
 * calls after they succeeded) */
static ozblas_status_t kept(ozblas_status_t st, double *const *v, const double *old, int n)
{
    if (st != OZBLAS_STATUS_SUCCESS || ozb_preload_test_fail())
        for (int i = 0; i < n; i++)
            if (v[i]) *v[i] = old[i];
    return st;
}

void drotg_(double *a, double *b, double *c, double *s)
{
    ozb_preload_init();
    call_desc cd = { "drotg_", "", 0, 0, -1, 1, -1 };
    double *const v[2] = { a, b };
    const double old[2] = { a ? *a : 0.0, b ? *b : 0.0 };
    SERVE(cd, PR_DROTG, 1, 1, 1, 1, kept(ozblas_drotg(h, a, b, c, s), v, old, 2));
    REAL(drotg_, void (*)(double *, double *, double *, double *));
    if (f_real) f_real(a, b, c, s);
}

void drotmg_(double *d1, double *d2, double *x1, const double *y1, double *param)
{
    ozb_preload_init();
    call_desc cd = { "drotmg_", "", 0, 0, -1, 1, -1 };
    double *const v[3] = { d1, d2, x1 };
    const double old[3] = { d1 ? *d1 : 0.0, d2 ? *d2 : 0.0, x1 ? *x1 : 0.0 };
    SERVE(cd, PR_DROTMG, 1, 1, 1, y1 != NULL, kept(ozblas_drotmg(h, d1, d2, x1, *y1, param), v, old, 3));
    REAL(drotmg_, void (*)(double *, double *, double *, const double *, double *));
    if (f_real) f_real(d1, d2, x1, y1, param);
}

/* ---- level 3 ---- */
void dsymm_(const char *side, const char *uplo, const int *m, const int *n, const double *alpha, const double *A,
            const int *lda, const double *B, const int *ldb, const double *beta, double *C, const int *ldc)
{
    ozb_preload_init();
    call_desc c = { "dsymm_", "", *side, *uplo, *m, *n, -1 };
    SERVE(c, PR_DSYMM, *m, *n, *side == 'L' || *side == 'l' ? *m : *n,
          *beta == 0.0 || !ld_ok(*ldc, *m) || ozb_preload_save(&sv, C, *m, *n, 1, *ldc),
          ozblas_dsymm(h, side_of(side), uplo_of(uplo), *m, *n, *alpha, A, *lda, B, *ldb, *beta, C, *ldc));
    REAL(dsymm_, void (*)(const char *, const char *, const int *, const int *, const double *, const double *, const int *,
                  const double *, const int *, const double *, double *, const int *, size_t, size_t));
    if (f_real) f_real(side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc, 1, 1);
}

void dsyrk_(const char *uplo, const char *trans, const int *n, const int *k, const double *alpha, const double *A,
            const int *lda, const double *beta, double *C, const int *ldc)
{
    ozb_preload_init();
    call_desc c = { "dsyrk_", "", *uplo, *trans, -1, *n, *k };
    SERVE(c, PR_DSYRK, *n, *n, *k, *beta == 0.0 || !ld_ok(*ldc, *n) || ozb_preload_save(&sv, C, *n, *n, 1, *ldc),
          ozblas_dsyrk(h, uplo_of(uplo), op_of(trans), *n, *k, *alpha, A, *lda, *beta, C, *ldc));
    REAL(dsyrk_, void (*)(const char *, const char *, const int *, const int *, const double *, const double *, const int *,
                  const double *, double *, const int *, size_t, size_t));
    if (f_real) f_real(uplo, trans, n, k, alpha, A, lda, beta, C, ldc, 1, 1);
}

void dsyr2k_(const char *uplo, const char *trans, const int *n, const int *k, const double *alpha, const double *A,
             const int *lda, const double *B, const int *ldb, const double *beta, double *C, const int *ldc)
{
    ozb_preload_init();
    call_desc c = { "dsyr2k_", "", *uplo, *trans, -1, *n, *k };
    SERVE(c, PR_DSYR2K, *n, *n, 2 * (int64_t)*k, *beta == 0.0 || !ld_ok(*ldc, *n) || ozb_preload_save(&sv, C, *n, *n, 1, *ldc),
          ozblas_dsyr2k(h, uplo_of(uplo), op_of(trans), *n, *k, *alpha, A, *lda, B, *ldb, *beta, C, *ldc));
    REAL(dsyr2k_, void (*)(const char *, const char *, const int *, const int *, const double *, const double *, const int *,
                  const double *, const int *, const double *, double *, const int *, size_t, size_t));
    if (f_real) f_real(uplo, trans, n, k, alpha, A, lda, B, ldb, beta, C, ldc, 1, 1);
}

typedef void (*tr3_fn)(const char *, const char *, const char *, const char *, const int *, const int *,
                       const double *, const double *, const int *, double *, const int *, size_t, size_t, size_t,
                       size_t);

void dtrmm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m, const int *n,
            const double *alpha, const double *A, const int *lda, double *B, const int *ldb)
{
    ozb_preload_init();
    call_desc c = { "dtrmm_", "", *side, *uplo, *m, *n, -1 };
    SERVE(c, PR_DTRMM, *m, *n, *side == 'L' || *side == 'l' ? *m : *n, !ld_ok(*ldb, *m) || ozb_preload_save(&sv, B, *m, *n, 1, *ldb),
          ozblas_dtrmm(h, side_of(side), uplo_of(uplo), op_of(transa), diag_of(diag), *m, *n, *alpha, A, *lda, B, *ldb));
    REAL(dtrmm_, tr3_fn);
    if (f_real) f_real(side, uplo, transa, diag, m, n, alpha, A, lda, B, ldb, 1, 1, 1, 1);
}

void dtrsm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m, const int *n,
            const double *alpha, const double *A, const int *lda, double *B, const int *ldb)
{
    ozb_preload_init();
    call_desc c = { "dtrsm_", "", *side, *uplo, *m, *n, -1 };
    SERVE(c, PR_DTRSM, *m, *n, *side == 'L' || *side == 'l' ? *m : *n, !ld_ok(*ldb, *m) || ozb_preload_save(&sv, B, *m, *n, 1, *ldb),
          ozblas_dtrsm(h, side_of(side), uplo_of(uplo), op_of(transa), diag_of(diag), *m, *n, *alpha, A, *lda, B, *ldb));
    REAL(dtrsm_, tr3_fn);
    if (f_real) f_real(side, uplo, transa, diag, m, n, alpha, A, lda, B, ldb, 1, 1, 1, 1);
}
