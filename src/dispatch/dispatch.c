/* From a driver's problem to the executor: the call's plan (dispatch/plan.h), the standard
 * floating-point environment, then the stages (executor.c).  One shortcut: a short contiguous
 * DDOT, straight from its driver, through the same stage test and the same steps. */
#include "dispatch/dispatch.h"
#include "dispatch/executor.h"
#include "dispatch/plan.h"
#include "core/backend.h"
#include "core/fpenv.h"
#include "core/info.h"
#include "eft/eft_dot_small.h"
#include "eft/eft_dot.h"
#include "exact/zero_products.h"

ozb_env_t ozb_env_enter(ozblas_handle_t h)
{
    ozb_env_t e;
    e.changed = ozb_fpenv_enter(&e.env);
    e.threads = h->threads;
    if (e.changed) h->threads = 1;
    return e;
}

void ozb_env_leave(ozblas_handle_t h, ozb_env_t e)
{
    h->threads = e.threads;
    ozb_fpenv_leave(e.env, e.changed);
}

static ozblas_status_t run_plan(ozblas_handle_t h, const ozb_problem *pr, ozb_plan pl)
{
    const ozb_env_t e = ozb_env_enter(h);
    const ozblas_status_t st = ozb_execute(h, pr, &pl);
    ozb_env_leave(h, e);
    return st;
}

ozblas_status_t ozb_run(ozblas_handle_t h, const ozb_problem *pr) { return run_plan(h, pr, ozb_plan_of(h)); }

ozblas_status_t ozb_run_rn(ozblas_handle_t h, const ozb_problem *pr)
{
    return run_plan(h, pr, (ozb_plan){ OZBLAS_MODE_CORRECTLY_ROUNDED, OZBLAS_ENGINE_FP64 });
}

int ozb_run_rounds_exact(ozblas_handle_t h) { return ozb_plan_of(h).mode == OZBLAS_MODE_CORRECTLY_ROUNDED; }

int ozb_run_walks_triangle(ozblas_handle_t h, const ozb_problem *pr, int rn)
{
    const ozb_plan pl = rn ? (ozb_plan){ OZBLAS_MODE_CORRECTLY_ROUNDED, OZBLAS_ENGINE_FP64 } : ozb_plan_of(h);
    return !h->be->host_begin && h->engine != OZBLAS_ENGINE_CRT_INT8 && ozb_eft_eligible(h, pr, &pl);
}

/* A DDOT of contiguous operands short enough for one sigma, straight from the driver: the
 * short DOT stage (OZB_ST_DOT_SHORT: its test, ozb_short_dot_applies, and its split, here on
 * the vectors themselves) with the report written late (core/info.h), without the layers
 * between, which cost about a fifth of a 100-product DOT.  Where the split leaves the DOT
 * undecided, the walk goes on at the stage after it (not the split a second time: LAPACK's
 * DOTs of exact zeros and cancelling residuals are many). */
int ozb_run_dot_direct(ozblas_handle_t h, const double *x, const double *y, int64_t n, double *out, ozblas_status_t *st)
{
    if (n > OZB_DOT_ONE_SIGMA || h->be->host_begin || !ozb_fpenv_standard()) return 0;
    const ozb_plan pl = ozb_plan_of(h);
    if (pl.mode != OZBLAS_MODE_CORRECTLY_ROUNDED || pl.engine != OZBLAS_ENGINE_FP64 || !ozb_short_dot_applies(h, 1, 1, n))
        return 0;
    if (ozb_eft_dot_unit(x, y, n, !h->knobs.fused_avx2, out)) {  /* (the knob: 256-bit code only) */
        ozb_info_short_dot(h, n);
        *st = OZBLAS_STATUS_SUCCESS;
        return 1;
    }
    /* every product exactly zero (one factor zero, the other finite): the exact sums' +0, at
     * once (LAPACK's DOTs of vectors with disjoint nonzeros) */
    if (ozb_zero_pairs(x, y, n)) {
        *out = 0.0;
        ozb_info_short_dot(h, n);
        *st = OZBLAS_STATUS_SUCCESS;
        return 1;
    }
    /* ozblas_ddot's problem (contiguous), as ozb_run gets it */
    const ozb_problem pr = { .m = 1, .n = 1, .k = n, .a = { x, 0, 1 }, .b = { y, 0, 1 }, .alpha = 1.0, .beta = 0.0,
                             .c = out, .crs = 0, .ccs = 0, .kblock = OZB_KBLOCK_DOT, .c_host = 1 };
    *st = ozb_walk_from(h, &pr, &pl, OZB_ST_DOT_EXACT);
    return 1;
}

void ozb_info_reset(ozblas_handle_t h)
{
    ozb_info_begin(h, OZBLAS_SUM_DOUBLE, 0);   /* nothing computed: the configuration's fields */
}

ozblas_status_t ozb_scale_c(ozblas_handle_t h, double *c, int64_t crs, int64_t ccs, int64_t m, int64_t n, double beta)
{
    ozb_info_reset(h);
    return h->be->scale(h, c, crs, ccs, m, n, beta) ? OZBLAS_STATUS_EXECUTION_FAILED : OZBLAS_STATUS_SUCCESS;
}
