/* The interposer's shared serving macros and argument helpers for the Fortran entry points of
 * the rest of the double BLAS (preload_blas.c: levels 1 and 3, preload_blas2.c: level 2). */
#ifndef OZB_PRELOAD_SERVE_H
#define OZB_PRELOAD_SERVE_H
#include <stddef.h>
#include <stdlib.h>
#include "preload_core.h"
#include "fortran_blas.h"

/* the process's definition, looked up once */
static inline void *real(void *_Atomic *cache, const char *name)
{
    void *f = *cache;
    if (!f) *cache = f = ozb_preload_real(name);
    return f;
}
#define REAL(name, ...) static void *_Atomic real_##name; __typeof__(__VA_ARGS__) f_real = (__VA_ARGS__)real(&real_##name, #name)

/* one served call: HANDLE, then SAVE (an expression, 0 when the output cannot be saved), then
 * CALL with the handle h, then FINISH; returns from the caller where ozblas served it */
#define SERVE(desc, routine, a, b, d, SAVE, CALL)                                              \
    do {                                                                                       \
        ozblas_handle_t h = ozb_preload_enter(&(desc), (a), (b), (d));                        \
        if (h) {                                                                               \
            saved_out sv = OZB_SAVED_NONE;                                         \
            if (SAVE) {                                                                        \
                const long long t0 = ozb_preload_begin();                                      \
                const ozblas_status_t st = CALL;                                               \
                ozb_preload_end(routine, (double)(a) * (double)(b) * (double)(d), t0);         \
                if (FINISH(&(desc), st, &sv)) SERVED;                                          \
            } else {                                                                           \
                ozb_preload_release(&sv);                                                      \
                ozb_preload_say(&(desc), "real BLAS", "cannot save the output");               \
            }                                                                                  \
        }                                                                                      \
    } while (0)
#define SERVED return
#define FINISH ozb_preload_finish

static inline ozblas_uplo_t uplo_of(const char *c)
{
    return (*c == 'U' || *c == 'u') ? OZBLAS_UPPER : (*c == 'L' || *c == 'l') ? OZBLAS_LOWER : (ozblas_uplo_t)-1;
}
static inline ozblas_diag_t diag_of(const char *c)
{
    return (*c == 'U' || *c == 'u') ? OZBLAS_UNIT : (*c == 'N' || *c == 'n') ? OZBLAS_NON_UNIT : (ozblas_diag_t)-1;
}
static inline ozblas_side_t side_of(const char *c)
{
    return (*c == 'L' || *c == 'l') ? OZBLAS_LEFT : (*c == 'R' || *c == 'r') ? OZBLAS_RIGHT : (ozblas_side_t)-1;
}
static inline ozblas_operation_t op_of(const char *c)
{
    const int t = ozb_preload_fortran_trans(c);
    return t < 0 ? (ozblas_operation_t)-1 : (ozblas_operation_t)t;
}
static inline int64_t len(int64_t n) { return n <= 0 ? 0 : n; }
/* a matrix output is saved only where its leading dimension is valid (else ozblas declines) */
static inline int ld_ok(int ld, int rows) { return ld >= (rows > 1 ? rows : 1); }
static inline double *vec0(double *x, int64_t n, int64_t inc) { return inc < 0 && n > 0 ? x + (n - 1) * -inc : x; }
#endif
