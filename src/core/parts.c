/* The parts' handles and their region (parts.h).  A part handle is made at the first call
 * that needs it and kept with the handle; before each region it takes the handle's
 * configuration as it is then (mode, formats, thresholds, knobs), so a setting changed
 * between calls reaches the parts.  Workspace fault injection (OZBLAS_FAIL_ALLOC) counts
 * the growths of every part's workspace on the handle itself. */
#include "core/parts.h"
#include "core/backend.h"
#include "core/fpenv.h"
#include <omp.h>
#include <stdlib.h>

/* part handle t of h, configured as h with one thread; NULL where it cannot be made */
static ozblas_handle_t part(ozblas_handle_t h, int t)
{
    if (t >= h->nparts) {
        ozblas_handle_t *p = realloc(h->parts, sizeof *p * (size_t)(t + 1));
        if (!p) return NULL;
        for (int i = h->nparts; i <= t; i++) p[i] = NULL;
        h->parts = p;
        h->nparts = t + 1;
    }
    if (!h->parts[t] && !(h->parts[t] = calloc(1, sizeof *h->parts[t]))) return NULL;
    ozblas_handle_t k = h->parts[t];
    k->be = h->be;
    k->mode = h->mode;
    k->split_count = h->split_count;
    k->fast_mode = h->fast_mode;
    k->summation = h->summation;
    k->engine = h->engine;
    k->crt_scaling = h->crt_scaling;
    k->threads = 1;
    k->par_work = h->par_work;
    k->ws_limit = h->ws_limit;
    k->slice_hint_a = h->slice_hint_a;
    k->slice_hint_b = h->slice_hint_b;
    k->knobs = h->knobs;
    k->root = h;
    return k;
}

int ozb_cuts_free(ozblas_handle_t h)
{
    return !(h->mode == OZBLAS_MODE_FIXED && h->engine == OZBLAS_ENGINE_CRT_INT8 &&
             h->crt_scaling == OZBLAS_CRT_SCALING_ACCURATE);
}

int ozb_parts_count(ozblas_handle_t h, int threads, int64_t n, int64_t quantum)
{
    if (!ozb_cuts_free(h) || h->be->shape != NULL || !ozb_host_operands(h) || threads <= 1) return 1;
    if (quantum < 1) quantum = 1;
    int64_t nt = n / quantum;
    if (nt > threads) nt = threads;
    if (nt > OZB_MAX_PARTS) nt = OZB_MAX_PARTS;
    return nt < 1 ? 1 : (int)nt;
}

/* part t's body on its handle k, in the standard environment, its info cleared first */
static ozblas_status_t run_part(ozblas_handle_t k, int64_t lo, int64_t hi, ozb_part_fn body, void *ctx)
{
    ozb_fpenv_t env;
    const int changed = ozb_fpenv_enter(&env);
    memset(&k->info, 0, sizeof k->info);
    k->info_dot_k = 0;
    const ozblas_status_t st = body(k, lo, hi, ctx);
    ozb_fpenv_leave(env, changed);
    return st;
}

ozblas_status_t ozb_par_parts_at(ozblas_handle_t h, int nt, const int64_t *cuts, ozb_part_fn body, void *ctx)
{
    int ok = nt > 1;
    for (int t = 0; ok && t < nt; t++) ok = cuts[t] == cuts[t + 1] || part(h, t) != NULL;
    if (!ok) {
        ozb_fpenv_t env;
        const int changed = ozb_fpenv_enter(&env);
        const ozblas_status_t st = body(h, cuts[0], cuts[nt], ctx);
        ozb_fpenv_leave(env, changed);
        return st;
    }
    ozblas_status_t st[OZB_MAX_PARTS];
    #pragma omp parallel for num_threads(nt) schedule(static, 1)
    for (int t = 0; t < nt; t++)
        /* a team of one per part: the worksharing directives a part's problems meet outside
         * their own regions (par.h: OZB_PRAGMA(omp for ...), barriers) bind to it, not to
         * this region's team, whose other threads are in other parts */
        #pragma omp parallel num_threads(1)
        st[t] = cuts[t] < cuts[t + 1] ? run_part(h->parts[t], cuts[t], cuts[t + 1], body, ctx) : OZBLAS_STATUS_SUCCESS;
    /* the call's info: the last part's */
    for (int t = nt - 1; t >= 0; t--)
        if (cuts[t] < cuts[t + 1]) {
            const ozblas_handle_t k = h->parts[t];
            h->info = k->info;
            h->info_dot_k = k->info_dot_k;
            h->info_dot_mode = k->info_dot_mode;
            h->info_dot_engine = k->info_dot_engine;
            break;
        }
    for (int t = 0; t < nt; t++)
        if (st[t] != OZBLAS_STATUS_SUCCESS) return st[t];
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozb_par_parts(ozblas_handle_t h, int threads, int64_t n, int64_t quantum, ozb_part_fn body, void *ctx)
{
    if (quantum < 1) quantum = 1;
    const int nt = ozb_parts_count(h, threads, n, quantum);
    const int64_t nq = (n + quantum - 1) / quantum;
    int64_t cuts[OZB_MAX_PARTS + 1];
    for (int t = 0; t < nt; t++) cuts[t] = nq * t / nt * quantum;
    cuts[nt] = n;
    return ozb_par_parts_at(h, nt, cuts, body, ctx);
}

void ozb_parts_free(ozblas_handle_t h)
{
    for (int t = 0; t < h->nparts; t++)
        if (h->parts[t]) {
            ozb_buf_free_all(h->parts[t]);
            free(h->parts[t]);
        }
    free(h->parts);
    h->parts = NULL;
    h->nparts = 0;
}
