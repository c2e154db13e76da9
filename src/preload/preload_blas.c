/* The interposer's Fortran entry points for the rest of the double BLAS (reference BLAS ABI,
 * LP64, hidden CHARACTER lengths last): each goes to ozblas_<routine> on the thread's handle
 * and, where ozblas does not serve it (invalid arguments, which the process's BLAS then
 * reports through its xerbla; any other status; OZBLAS_PRELOAD_MIN_SIZE), to the process's
 * BLAS with the caller's arguments, after an output ozblas may have written is put back. */
#include <stddef.h>
#include "preload_core.h"
#include "fortran_blas.h"
#include <stdlib.h>

/* the process's definition, looked up once */
static void *real(void *_Atomic *cache, const char *name)
{
    void *f = *cache;
    if (!f) *cache = f = ozb_preload_real(name);
    return f;
}
#define REAL(name, ...) static void *_Atomic real_##name; __typeof__(__VA_ARGS__) f_real = (__VA_ARGS__)real(&real_##name, #name)

/* one served call: HANDLE, then SAVE (an expression, 0 when the output cannot be saved), then
 * CALL with the handle h; returns from the caller where ozblas served it */
#define SERVE(desc, routine, a, b, d, SAVE, CALL)                                              \
    do {                                                                                       \
        ozblas_handle_t h = ozb_preload_enter(&(desc), (a), (b), (d));                        \
        if (h) {                                                                               \
            saved_out sv = { NULL, NULL, 0, 0, 0, 0 };                                         \
            if (SAVE) {                                                                        \
                ozb_preload_inside(1);                                                         \
                const long long t0 = ozb_preload_clock();                                      \
                const ozblas_status_t st = CALL;                                               \
                ozb_preload_profile(routine, (double)(a) * (double)(b) * (double)(d), t0);     \
                ozb_preload_inside(0);                                                         \
                if (ozb_preload_finish(&(desc), st, &sv)) SERVED;                              \
            } else ozb_preload_say(&(desc), "real BLAS", "cannot save the output");           \
        }                                                                                      \
    } while (0)
#define SERVED return

static ozblas_uplo_t uplo_of(const char *c)
{
    return (*c == 'U' || *c == 'u') ? OZBLAS_UPPER : (*c == 'L' || *c == 'l') ? OZBLAS_LOWER : (ozblas_uplo_t)-1;
}
static ozblas_diag_t diag_of(const char *c)
{
    return (*c == 'U' || *c == 'u') ? OZBLAS_UNIT : (*c == 'N' || *c == 'n') ? OZBLAS_NON_UNIT : (ozblas_diag_t)-1;
}
static ozblas_side_t side_of(const char *c)
{
    return (*c == 'L' || *c == 'l') ? OZBLAS_LEFT : (*c == 'R' || *c == 'r') ? OZBLAS_RIGHT : (ozblas_side_t)-1;
}
static ozblas_operation_t op_of(const char *c)
{
    const int t = ozb_preload_fortran_trans(c);
    return t < 0 ? (ozblas_operation_t)-1 : (ozblas_operation_t)t;
}
static int64_t len(int64_t n) { return n <= 0 ? 0 : n; }
/* a matrix output is saved only where its leading dimension is valid (else ozblas declines) */
static int ld_ok(int ld, int rows) { return ld >= (rows > 1 ? rows : 1); }
static double *vec0(double *x, int64_t n, int64_t inc) { return inc < 0 && n > 0 ? x + (n - 1) * -inc : x; }

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

/* x and y both written: y saved beside x (sv2), put back with it */
#define SAVE2(n, x, incx, y, incy)                                                                  \
    (ozb_preload_save(&sv, vec0(x, n, incx), len(n), 1, incx, 0) &&                           \
     ozb_preload_save(&sv2, vec0(y, n, incy), len(n), 1, incy, 0))
#undef SERVED
#define SERVED do { free(sv2.buf); return; } while (0)
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
    saved_out sv2 = { NULL, NULL, 0, 0, 0, 0 };
    SERVE(c, PR_DROT, *n, 1, 1, SAVE2(*n, x, *incx, y, *incy), second(ozblas_drot(h, *n, x, *incx, y, *incy, *cc, *s), &sv2));
    free(sv2.buf);
    REAL(drot_, void (*)(const int *, double *, const int *, double *, const int *, const double *, const double *));
    if (f_real) f_real(n, x, incx, y, incy, cc, s);
}

void drotm_(const int *n, double *x, const int *incx, double *y, const int *incy, const double *param)
{
    ozb_preload_init();
    call_desc c = { "drotm_", "", 0, 0, -1, *n, -1 };
    saved_out sv2 = { NULL, NULL, 0, 0, 0, 0 };
    SERVE(c, PR_DROTM, *n, 1, 1, SAVE2(*n, x, *incx, y, *incy), second(ozblas_drotm(h, *n, x, *incx, y, *incy, param), &sv2));
    free(sv2.buf);
    REAL(drotm_, void (*)(const int *, double *, const int *, double *, const int *, const double *));
    if (f_real) f_real(n, x, incx, y, incy, param);
}
#undef SERVED

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

void dger_(const int *m, const int *n, const double *alpha, const double *x, const int *incx, const double *y,
           const int *incy, double *A, const int *lda)
{
    ozb_preload_init();
    call_desc c = { "dger_", "", 0, 0, *m, *n, -1 };
    SERVE(c, PR_DGER, *m, *n, 1, !ld_ok(*lda, *m) || ozb_preload_save(&sv, A, *m, *n, 1, *lda),
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
    SERVE(c, PR_DSYR, *n, *n, 1, !ld_ok(*lda, *n) || ozb_preload_save(&sv, A, *n, *n, 1, *lda),
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
    SERVE(c, PR_DSYR2, *n, *n, 1, !ld_ok(*lda, *n) || ozb_preload_save(&sv, A, *n, *n, 1, *lda),
          ozblas_dsyr2(h, uplo_of(uplo), *n, *alpha, x, *incx, y, *incy, A, *lda));
    REAL(dsyr2_, void (*)(const char *, const int *, const double *, const double *, const int *, const double *,
                  const int *, double *, const int *, size_t));
    if (f_real) f_real(uplo, n, alpha, x, incx, y, incy, A, lda, 1);
}

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
