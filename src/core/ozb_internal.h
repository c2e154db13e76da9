/* Internal declarations shared by the drivers and the engines. */
#ifndef OZB_INTERNAL_H
#define OZB_INTERNAL_H

#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include "ozblas.h"

/* A strided matrix view: element (i, l) is p[i*rs + l*cs].  Rows are what the
 * splitter scales independently (rows of op(A); columns of op(B), i.e. rows of
 * op(B)^T), l runs along the inner dimension k. */
typedef struct { const double *p; int64_t rs, cs; } ozb_view;

static inline double ozb_view_at(const ozb_view *v, int64_t i, int64_t l) { return v->p[i * v->rs + l * v->cs]; }

/* Handle-owned growable buffer: allocated on first need, reused afterwards. */
typedef struct { void *p; size_t bytes; } ozb_buf;

#define OZB_NBUF 15
struct ozblas_context {
    ozblas_mode_t      mode;
    ozblas_mode_t      run_mode;      /* the mode the current call computes (ozb_run) */
    int                split_count;   /* FIXED mode */
    int                fast_mode;     /* FIXED mode */
    ozblas_summation_t summation;     /* FIXED mode */
    ozblas_engine_t    engine;
    ozblas_engine_t    run_engine;    /* the slice format the current call computes with (ozb_run) */
    ozblas_crt_scaling_t crt_scaling; /* CRT_INT8 FIXED/DOUBLE scaling */
    int                threads;       /* 0 = all cores */
    size_t             ws_limit;      /* 0 = default */
    int                slice_hint_a, slice_hint_b; /* capacities learnt from earlier calls */
    ozb_buf            buf[OZB_NBUF];
    ozblas_info_t      info;
};

/* Buffer slots of the workspace. */
enum { OZB_BUF_SA = 0, OZB_BUF_SB, OZB_BUF_WA, OZB_BUF_WB, OZB_BUF_NA, OZB_BUF_NB, OZB_BUF_P,
       OZB_BUF_CRIT, OZB_BUF_SCRATCH, OZB_BUF_TERMS, OZB_BUF_LAZY,
       OZB_BUF_FZ_TERMS, OZB_BUF_FZ_TERMS2, OZB_BUF_FZ_DIGITS, OZB_BUF_FZ_THREAD };

void  *ozb_buf_get(ozblas_handle_t h, int slot, size_t bytes);   /* NULL on allocation failure */
void   ozb_buf_free_all(ozblas_handle_t h);
size_t ozb_workspace_limit(ozblas_handle_t h);
int    ozb_threads(ozblas_handle_t h);
double ozb_now(void);

/* 2^e as a double for -1022 <= e <= 1023, built from its bits (exact, no libm). */
static inline double ozb_pow2(int e) {
    uint64_t b = (uint64_t)(e + 1023) << 52;
    double d; memcpy(&d, &b, sizeof d); return d;
}
static inline uint64_t ozb_bits(double x) { uint64_t b; memcpy(&b, &x, sizeof b); return b; }
/* floor(log2|x|) for finite nonzero x, subnormals included. */
int ozb_ilogb(double x);

/* Argument checks shared by the drivers. */
static inline int ozb_valid_op(ozblas_operation_t op) { return op == OZBLAS_OP_N || op == OZBLAS_OP_T; }

#endif
