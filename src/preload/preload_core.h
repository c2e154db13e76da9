/* The interposer's shared path (ozblas_preload.c), for the files that serve the rest of the
 * BLAS (preload_blas.c: the Fortran names, preload_cblas.c: CBLAS). */
#ifndef OZB_PRELOAD_CORE_H
#define OZB_PRELOAD_CORE_H
#include <stdint.h>
#include "ozblas.h"

typedef struct {
    const char *name;     /* routine as called */
    const char *layout;   /* "" for Fortran and DOT */
    char ta, tb;          /* 0: not applicable */
    long long m, n, k;    /* as the caller passed them (-1: not applicable) */
} call_desc;

/* an output saved before ozblas runs, put back where it fails: v[i*rs + j*cs]; buf is one of
 * the thread's two kept save buffers (slot 0 or 1) or its own allocation (slot -1) */
typedef struct { double *buf, *v; int64_t rows, cols, rs, cs; int slot; } saved_out;
#define OZB_SAVED_NONE { NULL, NULL, 0, 0, 0, 0, -1 }

/* the routines of preload_blas.c in the profile, in this order */
#define OZB_PRELOAD_MORE 31
#define OZB_PRELOAD_MORE_NAMES "dcopy", "dswap", "dscal", "daxpy", "drot", "drotm", "dasum", "dnrm2", "idamax", \
    "dsymv", "dtrmv", "dtrsv", "dger", "dsyr", "dsyr2", "dsymm", "dsyrk", "dsyr2k", "dtrmm", "dtrsm", "dspmv", \
    "dtpmv", "dtpsv", "dspr", "dspr2", "dgbmv", "dsbmv", "dtbmv", "dtbsv", "drotg", "drotmg"
enum { PR_DCOPY, PR_DSWAP, PR_DSCAL, PR_DAXPY, PR_DROT, PR_DROTM, PR_DASUM, PR_DNRM2, PR_IDAMAX, PR_DSYMV, PR_DTRMV,
       PR_DTRSV, PR_DGER, PR_DSYR, PR_DSYR2, PR_DSYMM, PR_DSYRK, PR_DSYR2K, PR_DTRMM, PR_DTRSM, PR_DSPMV, PR_DTPMV,
       PR_DTPSV, PR_DSPR, PR_DSPR2, PR_DGBMV, PR_DSBMV, PR_DTBMV, PR_DTBSV, PR_DROTG, PR_DROTMG };

void ozb_preload_init(void);
/* this thread's handle, or NULL (the reason said): the caller runs the process's BLAS */
ozblas_handle_t ozb_preload_enter(const call_desc *c, int64_t a, int64_t b, int64_t d);
/* 1: ozblas served the call; 0: it did not (the saved output put back, freed) */
int ozb_preload_finish(const call_desc *c, ozblas_status_t st, saved_out *sv);
/* the same for an output read and updated in place that was not saved: OZBLAS_STATUS_PARTIAL
 * stops the process */
int ozb_preload_finish_in_place(const call_desc *c, ozblas_status_t st, saved_out *sv);
int ozb_preload_save(saved_out *s, double *v, int64_t rows, int64_t cols, int64_t rs, int64_t cs);
void ozb_preload_release(saved_out *s);   /* the save's memory back (its values are gone) */
void ozb_preload_say(const call_desc *c, const char *where, const char *why);
/* around ozblas's work on a call: the thread marked inside ozblas, and the clock read where
 * OZBLAS_PRELOAD_PROFILE is set (begin returns the start, end adds the call to the profile) */
long long ozb_preload_begin(void);
void ozb_preload_end(int routine, double work, long long t0);
void *ozb_preload_real(const char *name);
int ozb_preload_test_fail(void);   /* OZBLAS_PRELOAD_TEST_FAIL: every served call fails */
int ozb_preload_fortran_trans(const char *t);
#endif
