/* A stage: one method as the executor (src/dispatch/executor.c) walks it.  The host methods
 * fill one table (src/dispatch/stages.c), a backend whose memory is not the host's fills its
 * own (core/backend.h: its device-resident engines, walked first).
 *
 * A stage is asked, in this order: eligible (does it apply to this (sub)problem and plan?),
 * workspace_bytes (does its workspace fit the handle's limit?), then run, whose outcome is
 *   decided       OZBLAS_STATUS_SUCCESS, *nfail == 0: every element of C written;
 *   partly        OZBLAS_STATUS_SUCCESS, *nfail > 0: (*fail)[i + j m] = 1 (column-major
 *                 flags in the handle's workspace) where the element was left as it was,
 *                 every other element written;
 *   declined      OZBLAS_STATUS_NOT_SUPPORTED, C as it was;
 *   failed        any other status, returned to the caller.
 * What a stage leaves goes on down the call's list (or where rest_at says); every stage of a
 * list gives its elements the configuration's bits, so which stage computes an element never
 * changes a bit (CONTRACT §3). */
#ifndef OZB_CORE_STAGE_H
#define OZB_CORE_STAGE_H
#include "core/problem.h"

/* The host stages, in the one table's order (src/dispatch/stages.c). */
typedef enum {
    OZB_ST_DOT_SHORT,     /* a short CORRECTLY_ROUNDED DOT by one split (eft/eft_dot_small.c) */
    OZB_ST_DOT_EXACT,     /* what it leaves: the exact short sum (exact/exact_small.c)     */
    OZB_ST_TINY_FIRST,    /* k <= 4, alpha = +-1, few rows or k = 1: exact/exact_tiny.c       */
    OZB_ST_SMALL_GEMM,    /* m, n <= 64, k <= 16, alpha = +-1: the error-free sums without setup (eft/eft_small_gemm.c) */
    OZB_ST_EFT,           /* the streaming error-free sums (eft/eft_cr.c)                     */
    OZB_ST_TINY_CANCEL,   /* k <= 16, alpha = +-1, results that cancel: exact/exact_tiny.c   */
    OZB_ST_SCALED,        /* tiny products, the sums scaled by 2^s (eft/eft_scaled.c)         */
    OZB_ST_DEEP,          /* two-level error-free sums (eft/eft_deep.c)                       */
    OZB_ST_EXACT_SMALL,   /* k <= 64, or few elements left up to 4096; TwoProduct and NearSum (exact/exact_small.c) */
    OZB_ST_CRT_CR,        /* CORRECTLY_ROUNDED GEMM by the exact CRT where INT8 is fast (crt/crt_cr.c) */
    OZB_ST_CRT_CR_FORMAT, /* the same for the CRT_INT8 format's CORRECTLY_ROUNDED GEMM        */
    OZB_ST_CRT,           /* FIXED and DOUBLE with CRT_INT8 (crt/crt.c)                       */
    OZB_ST_FIXED_DOT,     /* FIXED DOT/GEMV on FP64 slices (fixed/fixed_dot.c)                */
    OZB_ST_FUSED,         /* CORRECTLY_ROUNDED DOT/GEMV by split-and-accumulate (fused/fused.c) */
    OZB_ST_SCHEME1,       /* Ozaki scheme I, every configuration (scheme1/pipeline.c)         */
    OZB_ST_COUNT,
    OZB_ST_NEXT = 255     /* rest_at/skip: the following stage of the list                   */
} ozb_stage_id;

typedef struct ozb_stage {
    const char *name;
    /* 1 where the stage applies (NULL: always) */
    int (*eligible)(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl);
    /* the workspace it needs, checked against ozblas_set_workspace_limit's (NULL: it sizes
     * its own within the limit) */
    size_t (*workspace_bytes)(ozblas_handle_t h, const ozb_problem *pr);
    /* where C is better worked transposed (C^T = op(B)^T op(A)^T, the same sums per element):
     * 1 and *t filled (NULL: never) */
    int (*orient)(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl, ozb_problem *t);
    /* nt: the threads the call's arithmetic uses (a function of its size) */
    ozblas_status_t (*run)(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl, int nt, uint8_t **fail,
                           int64_t *nfail);
    /* declined, or partly decided: the plan the rest runs with and the stage it starts at
     * (NULL: the same plan, the list's next stage) */
    ozb_stage_id (*replan)(const ozb_plan *pl, ozb_plan *rest);
    /* partly decided: the stage the rest starts at (NULL: the next) */
    ozb_stage_id (*rest_at)(const ozb_problem *pr);
    uint8_t skip;         /* not eligible: the stage the walk goes on at (OZB_ST_NEXT: the next) */
    uint8_t zeros;        /* after it, elements whose products are all zero are RN(beta c) */
    uint8_t whole_frac;   /* more than 1/whole_frac of C left: the rest computes the whole call
                             (into a copy, the flagged elements copied back), not runs of rows */
    uint8_t kept;         /* computes only the elements ozb_kept keeps (pr->tri, pr->want): a
                             remainder that goes first to such a stage is computed whole from
                             1/OZB_KEPT_FRAC of C left */
} ozb_stage;
#define OZB_KEPT_FRAC 64
#endif
