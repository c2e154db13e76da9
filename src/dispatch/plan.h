/* The plan of a call: the mode and slice format it computes with, the threads its arithmetic
 * uses and which list of stages computes it.  Every choice comes from the handle's
 * configuration and the problem's shape, never from timing or the thread count's effect. */
#ifndef OZB_PLAN_H
#define OZB_PLAN_H
#include "core/problem.h"
#include "core/stage.h"
#include "core/format.h"

/* Threads a call's arithmetic uses (core: ozb_threads_for).  One column costs more per
 * product than a GEMM's multiply-add in the error-free sums (seven vector operations per four
 * products, none of a GEMM's reuse): a GEMV's threads start at 2^13 products, a DOT's (whose
 * parallel path carries the general path's buffers and pieces) at 2^14.  On the AVX2 EPYC, CR,
 * 2 threads, a DDOT of 31623 products takes 12.0 us threaded against 17.6 us on one thread and
 * one of 10000 products 5.3 us single against 8.0 us threaded; a DGEMV-T of 128, 8.1 against
 * 11.8 us.  Threads never change a bit. */
static inline int ozb_call_threads(ozblas_handle_t h, int64_t m, int64_t n, int64_t k)
{
    const double work = (double)m * (double)n * (double)k;
    return ozb_threads_for(h, n > 1 ? work : m > 1 ? 8.0 * work : 4.0 * work);
}

/* DOUBLE mode with the slice formats (FP64, FP16, INT8) is computed correctly rounded, every
 * routine and shape: RN(exact) meets DOUBLE's bound and is unique, so every element of C is a
 * function of its own row of op(A) and column of op(B): a GEMM computed whole, in column
 * blocks or as GEMVs gives the same bits (tests/test_element_local.c). */
static inline ozblas_mode_t ozb_plan_mode(ozblas_handle_t h)
{
    if (h->mode == OZBLAS_MODE_DOUBLE && h->engine != OZBLAS_ENGINE_CRT_INT8) return OZBLAS_MODE_CORRECTLY_ROUNDED;
    return h->mode;
}

/* The slice format a call computes with: the handle's, except that a correctly rounded call
 * runs the FP64 slices' methods (the fastest for RN(exact)) for DOUBLE, for the CRT_INT8
 * format where the CRT does not take it (DOT/GEMV shapes, spans beyond the moduli table,
 * Inf/NaN), and for INT8 slices where the backend's INT8 products are not fast (DGEMMs on
 * 7-bit digits: FP64 slices carry 26 bits, about 14x fewer slice pairs for the same unique
 * result).  RN(exact) is unique, so the bits are the same. */
static inline ozb_plan ozb_plan_of(ozblas_handle_t h)
{
    const ozblas_mode_t mode = ozb_plan_mode(h);
    ozblas_engine_t e = h->engine;
    if (mode == OZBLAS_MODE_CORRECTLY_ROUNDED &&
        (h->mode == OZBLAS_MODE_DOUBLE || e == OZBLAS_ENGINE_CRT_INT8 || (e == OZBLAS_ENGINE_INT8 && !ozb_int8_fast(h))))
        e = OZBLAS_ENGINE_FP64;
    return (ozb_plan){ mode, e };
}

/* The short DOT stage's test (OZB_ST_DOT_SHORT), shared with the drivers' direct DDOT
 * (ozb_run_dot_direct): one output element on one thread; the list it belongs to is the
 * correctly rounded FP64 one. */
static inline int ozb_short_dot_applies(ozblas_handle_t h, int64_t m, int64_t n, int64_t k)
{
    return m == 1 && n == 1 && !h->knobs.no_dot2 && ozb_call_threads(h, m, n, k) == 1;
}
#endif
