/* The executor: walks a call's list of stages (core/stage.h) and applies the one set of rules
 * for what a stage leaves.  A backend whose operands are not host memory has its own stages
 * walked first; what they all decline runs the host list on host copies of the operands. */
#include "dispatch/executor.h"
#include "dispatch/stages.h"
#include "dispatch/plan.h"
#include "core/backend.h"
#include "core/info.h"
#include "exact/zero_products.h"
#include <stdlib.h>
#include <string.h>

/* Adds a later part's counts and phase times to an info. */
static void info_add(ozblas_info_t *fi, const ozblas_info_t *p)
{
    fi->gemm_calls += p->gemm_calls;
    fi->slice_products += p->slice_products;
    fi->gemm_flops += p->gemm_flops;
    fi->exact_fallbacks += p->exact_fallbacks;
    fi->slices_a = fi->slices_a > p->slices_a ? fi->slices_a : p->slices_a;
    fi->slices_b = fi->slices_b > p->slices_b ? fi->slices_b : p->slices_b;
    fi->seconds_split += p->seconds_split;
    fi->seconds_multiply += p->seconds_multiply;
    fi->seconds_sum += p->seconds_sum;
    fi->fused = fi->fused > p->fused ? fi->fused : p->fused;    /* 3: the deep sums ran too */
}

/* The position of stage id in list L at or after position from (L->n where it is absent). */
static int find(const ozb_stage_list *L, int from, int id)
{
    while (from < L->n && L->id[from] != id) from++;
    return from;
}

static ozblas_status_t walk(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl, ozb_stage_list L, int pos);

/* whether the first stage a walk of L from pos would run on pr computes only the kept
 * elements (.kept); the walk's eligibility rules (a stage that would orient pr computes C^T,
 * whose want is NULL: every element) */
static int first_kept(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl, ozb_stage_list L, int pos)
{
    while (pos < L.n) {
        const ozb_stage *s = &ozb_host_stages[L.id[pos]];
        if ((s->eligible && !s->eligible(h, pr, pl)) ||
            (s->workspace_bytes && s->workspace_bytes(h, pr) > ozb_workspace_limit(h))) {
            pos = s->skip == OZB_ST_NEXT ? pos + 1 : find(&L, pos, s->skip);
            continue;
        }
        ozb_problem t;
        return s->kept && !(s->orient && s->orient(h, pr, pl, &t));
    }
    return 0;
}

/* The elements a stage left (fail[i + j m], nfail of them, C untouched there) computed by the
 * rest of the walk: plan pl's list L from position pos.  In runs of consecutive rows of a
 * column; where more than 1/frac of C is left, the whole call at once into a copy of C, the
 * flagged elements copied back (the others keep their bits: a stage's elements are never
 * recomputed), which costs less than many small calls; the flags are the copy's `want`, so its
 * stages may skip the strips that hold none.  The copy and its flags are the
 * executor's own memory: the stages of the nested walk use the handle's buffers, the flags'
 * included.  Each part's info is added to the stage's.  A failure after some runs were written
 * marks C partly written (h->out_partial); the whole call's copy is copied back only where it
 * succeeds. */
static ozblas_status_t rest_of(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl, ozb_stage_list L, int pos,
                               const uint8_t *fail, int64_t nfail, int frac)
{
    const int64_t m = pr->m, n = pr->n;
    const size_t mn = (size_t)(m * n);
    ozblas_info_t fi = h->info;
    ozblas_status_t st = OZBLAS_STATUS_SUCCESS;
    double *w = m * n > 1 && nfail * frac > m * n ? malloc(mn * (sizeof(double) + 1)) : NULL;
    if (w) {
        uint8_t *flag = (uint8_t *)(w + mn);
        memcpy(flag, fail, mn);
        ozb_problem whole = *pr;
        whole.c = w; whole.crs = 1; whole.ccs = m;
        whole.want = flag;        /* only those are copied back: a stage may skip the others */
        if (pr->beta != 0.0)      /* C as it came in wherever an element is flagged */
            for (int64_t j = 0; j < n; j++)
                for (int64_t i = 0; i < m; i++) w[i + j * m] = pr->c[i * pr->crs + j * pr->ccs];
        const int marked = h->out_partial;   /* the nested walk's marks are the copy's, not C's */
        st = walk(h, &whole, pl, L, pos);
        h->out_partial = marked;
        if (st == OZBLAS_STATUS_SUCCESS) {
            info_add(&fi, &h->info);
            for (int64_t j = 0; j < n; j++)
                for (int64_t i = 0; i < m; i++)
                    if (flag[i + j * m]) pr->c[i * pr->crs + j * pr->ccs] = w[i + j * m];
        }
        free(w);
        h->info = fi;
        return st;
    }
    int wrote = 0;            /* a run done: a later one's failure leaves C partly written */
    for (int64_t j = 0; j < n && nfail > 0 && st == OZBLAS_STATUS_SUCCESS; j++)
        for (int64_t i = 0; i < m; i++) {
            if (!fail[i + j * m]) continue;
            int64_t e = i;
            while (e < m && fail[e + j * m]) e++;
            const ozb_problem sub = ozb_problem_sub(pr, i, e - i, j, 1);
            if ((st = walk(h, &sub, pl, L, pos)) != OZBLAS_STATUS_SUCCESS) {
                h->out_partial |= wrote;
                break;
            }
            wrote = 1;
            info_add(&fi, &h->info);
            nfail -= e - i;
            i = e;
        }
    h->info = fi;
    return st;
}

/* Clears the flags of the elements pr does not keep (ozb_kept: outside its triangle, not
 * wanted) and returns how many stay set.  A stage may flag such elements, which it computed
 * alongside kept ones (the deep sums round a strip's eight rows where one is wanted): nothing
 * reads them, and counted they would send the rest of the walk the whole call again, and
 * every later stage would compute them too. */
static int64_t kept_only(const ozb_problem *pr, uint8_t *fail)
{
    int64_t left = 0;
    for (int64_t j = 0; j < pr->n; j++)
        for (int64_t i = 0; i < pr->m; i++) {
            uint8_t *f = &fail[i + j * pr->m];
            if (*f && !ozb_kept(pr, i, j)) *f = 0;
            left += *f != 0;
        }
    return left;
}

static ozblas_status_t walk(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *plan, ozb_stage_list L, int pos)
{
    ozb_plan pl = *plan;
    ozb_problem t;
    while (pos < L.n) {
        const ozb_stage *s = &ozb_host_stages[L.id[pos]];
        if ((s->eligible && !s->eligible(h, pr, &pl)) ||
            (s->workspace_bytes && s->workspace_bytes(h, pr) > ozb_workspace_limit(h))) {
            pos = s->skip == OZB_ST_NEXT ? pos + 1 : find(&L, pos, s->skip);
            continue;
        }
        if (s->orient && s->orient(h, pr, &pl, &t)) pr = &t;     /* this stage and the rest on C^T */
        const int timed = ozb_timed((double)pr->m * (double)pr->n * (double)pr->k);
        const double t0 = ozb_now_if(timed);
        uint8_t *fail = NULL;
        int64_t nfail = 0;
        ozblas_status_t st = s->run(h, pr, &pl, ozb_call_threads(h, pr->m, pr->n, pr->k), &fail, &nfail);
        if (st == OZBLAS_STATUS_NOT_SUPPORTED) {                  /* declined: C as it was */
            if (s->replan) {
                const int id = s->replan(&pl, &pl);
                L = ozb_stage_list_for(h, &pl);
                pos = find(&L, 0, id);
            } else {
                pos++;
            }
            continue;
        }
        if (st != OZBLAS_STATUS_SUCCESS) return st;   /* (a stage that wrote part of C marked it) */
        /* whether the stage wrote any element, from its own count (a stage that writes nothing
         * flags every element, unkept ones included): then a failure of the rest leaves C
         * partly written (an element not flagged counts as written: C's elements outside the
         * kept ones too, which errs toward PARTIAL) */
        int wrote = nfail < pr->m * pr->n;
        if (nfail > 0 && (pr->want || pr->tri != OZB_TRI_ALL)) nfail = kept_only(pr, fail);
        if (nfail > 0 && s->zeros) {     /* exact zero sums (LAPACK's structured zeros): RN(beta c) */
            const int64_t z = ozb_exact_zero_products(pr, fail);
            nfail -= z;
            wrote |= z > 0;
            if (h->info.exact_fallbacks >= z) h->info.exact_fallbacks -= z;   /* the stage counted them */
        }
        if (nfail > 0) {
            int at = pos + 1;
            ozb_stage_list R = L;
            ozb_plan rp = pl;
            if (s->replan) {
                const int id = s->replan(&pl, &rp);
                R = ozb_stage_list_for(h, &rp);
                at = find(&R, 0, id);
            } else if (s->rest_at) {
                at = find(&L, pos, s->rest_at(pr));
            }
            st = rest_of(h, pr, &rp, R, at, fail, nfail, first_kept(h, pr, &rp, R, at) ? OZB_KEPT_FRAC : s->whole_frac);
            if (st != OZBLAS_STATUS_SUCCESS) h->out_partial |= wrote;
        }
        if (timed) h->info.seconds_total = ozb_now() - t0;
        return st;
    }
    return OZBLAS_STATUS_NOT_SUPPORTED;        /* no stage took it (a format the handle lacks) */
}

ozblas_status_t ozb_walk_from(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl, int first)
{
    const ozb_stage_list L = ozb_stage_list_for(h, pl);
    return walk(h, pr, pl, L, find(&L, 0, first));
}

ozblas_status_t ozb_execute(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl)
{
    const ozb_backend *be = h->be;
    h->out_partial = 0;
    if (!be->host_begin) {
        /* a failure after part of C was written is reported as such (host copies, below,
         * leave the device's C as it was on every failure) */
        const ozblas_status_t st = walk(h, pr, pl, ozb_stage_list_for(h, pl), 0);
        return st != OZBLAS_STATUS_SUCCESS && h->out_partial ? OZBLAS_STATUS_PARTIAL : st;
    }
    const ozb_moves m0 = be->moved(h);
    /* the backend's own stages on its memory: each decides the whole call or declines */
    ozblas_status_t st = OZBLAS_STATUS_NOT_SUPPORTED;
    for (int q = 0; q < be->nstages && st == OZBLAS_STATUS_NOT_SUPPORTED; q++) {
        const ozb_stage *s = &be->stages[q];
        if (s->eligible && !s->eligible(h, pr, pl)) continue;
        uint8_t *fail = NULL;
        int64_t nfail = 0;
        st = s->run(h, pr, pl, ozb_call_threads(h, pr->m, pr->n, pr->k), &fail, &nfail);
    }
    const int staged = st == OZBLAS_STATUS_NOT_SUPPORTED;
    if (staged) {        /* the host stages on host copies (the products still on the device) */
        ozb_problem hp;
        st = be->host_begin(h, pr, &hp);
        if (st == OZBLAS_STATUS_SUCCESS) st = walk(h, &hp, pl, ozb_stage_list_for(h, pl), 0);
        st = be->host_end(h, pr, st);
    }
    /* what the call moved between host and device: never through the host silently */
    const ozb_moves m1 = be->moved(h);
    h->info.bytes_to_device = (int64_t)(m1.to_dev - m0.to_dev);
    h->info.bytes_to_host = (int64_t)(m1.to_host - m0.to_host);
    h->info.device_waits = (int64_t)(m1.waits - m0.waits);
    h->info.host_staged = staged;
    ozb_info_moves_add(h, m0, m1, staged);
    return st;
}
