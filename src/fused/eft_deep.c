/* The deep error-free DOT, GEMV and GEMM: operands into lanes (op(A) in strips of 8 rows,
 * a DOT's vectors in lanes l mod 8), their smallest magnitudes per block, the (strip, column)
 * loop and its units.  Method and bit budget: eft_deep_kern.h. */
#include "fused/eft_deep.h"
#include "fused/eft_deep_kern.h"
#include "core/info.h"
#include "core/par.h"
#include <string.h>

#ifdef EFT_AVX2
typedef struct {
    const ozb_problem *pr;
    const double *P;          /* op(A) in strips */
    const double *nA;         /* strip b, block q: the smallest nonzero |a| of its rows at nA + 8 (b nq + q) */
    const double *Bx;         /* column j of op(B) at Bx + j ldx, contiguous */
    int64_t ldx;
    const double *nX;         /* column j, block q: the smallest nonzero |x| at nX + j nq + q */
    int64_t nq;
    uint8_t *fail;            /* m n flags, column-major */
    int by_strip;
} deep_t;

/* strip b of op(A) times column j of op(B): its rows rounded into C or flagged */
static int64_t strip_column(const deep_t *g, int64_t b, int64_t j)
{
    const ozb_problem *pr = g->pr;
    deep_row st;
    const int ok = ozb_deep_run(g->P + 8 * pr->k * b, g->Bx + j * g->ldx, 1, pr->k, g->nA + 8 * b * g->nq, g->nX + j * g->nq, 1, &st);
    int done = 0;            /* rows certified four at a time */
    double yv[8];
    if (ok && (pr->alpha == 1.0 || pr->alpha == -1.0)) {
        for (int v = 0; v < 2 && 8 * b + 4 * v < pr->m; v++) {
            double c0[4] = {0, 0, 0, 0}, dl[4] = {0, 0, 0, 0};
            int lanes = 0xf;
            for (int r = 0; r < 4; r++) {
                const int64_t i = 8 * b + 4 * v + r;
                if (i >= pr->m) { lanes &= ~(1 << r); continue; }
                if (pr->beta != 0.0) c0[r] = pr->c[i * pr->crs + j * pr->ccs];
                dl[r] = ozb_deep_lane_delta(&st, 4 * v + r, g->nq);
                if (dl[r] < 0.0) { dl[r] = 0.0; lanes &= ~(1 << r); }
            }
            done |= (ozb_deep_cert4(&st.t[v], pr->alpha, pr->beta != 0.0, pr->beta, c0, dl, yv + 4 * v) & lanes) << (4 * v);
        }
    }
    int64_t left = 0;
    for (int r = 0; r < 8 && 8 * b + r < pr->m; r++) {
        const int64_t i = 8 * b + r;
        double *cij = pr->c + i * pr->crs + j * pr->ccs, y = yv[r];
        if ((done >> r & 1) || (ok && ozb_deep_round(pr, &st, r, r + 1, g->nq, pr->beta != 0.0 ? *cij : 0.0, &y))) {
            *cij = y;
            g->fail[i + j * pr->m] = 0;
        } else {
            g->fail[i + j * pr->m] = 1;
            left++;
        }
    }
    return left;
}

static int64_t units(void *ctx, int64_t lo, int64_t hi)
{
    const deep_t *g = ctx;
    const int64_t nstrips = (g->pr->m + 7) / 8;
    int64_t left = 0;
    for (int64_t u = lo; u < hi; u++) {
        if (g->by_strip)
            for (int64_t j = 0; j < g->pr->n; j++) left += strip_column(g, u, j);
        else {
            const int64_t j0 = u * OZB_EFT_NC, j1 = j0 + OZB_EFT_NC < g->pr->n ? j0 + OZB_EFT_NC : g->pr->n;
            for (int64_t b = 0; b < nstrips; b++)
                for (int64_t j = j0; j < j1; j++) left += strip_column(g, b, j);
        }
    }
    return left;
}
#endif

static size_t up64(size_t b) { return (b + 63) & ~(size_t)63; }
static int is_dot(const ozb_problem *pr) { return pr->m == 1 && pr->n == 1; }
static int64_t nblocks(int64_t steps) { return (steps + BL - 1) / BL; }

static size_t bytes_needed(const ozb_problem *pr)
{
    const size_t flags = up64((size_t)pr->m * (size_t)pr->n + 8), k = (size_t)pr->k;
    if (is_dot(pr))        /* x, y in lanes, their lanes' minima */
        return flags + 2 * up64((k + 8) * sizeof(double)) + 2 * up64(8 * (size_t)nblocks((pr->k + 7) / 8) * sizeof(double));
    const size_t rows = 8 * (size_t)((pr->m + 7) / 8), nq = (size_t)nblocks(pr->k);
    return flags + up64(rows * k * sizeof(double)) + up64(rows * nq * sizeof(double)) + up64((size_t)pr->n * nq * sizeof(double))
           + (pr->b.cs != 1 ? up64(k * (size_t)pr->n * sizeof(double)) : 0);
}

int ozb_eft_deep_eligible(ozblas_handle_t h, const ozb_problem *pr)
{
    return bytes_needed(pr) <= ozb_workspace_limit(h);
}

ozblas_status_t ozb_eft_deep_cr(ozblas_handle_t h, const ozb_problem *pr, int nt, const uint8_t **failp, int64_t *nfail)
{
    const int timed = ozb_timed((double)pr->m * (double)pr->n * (double)pr->k);
    const double t0 = ozb_now_if(timed);
    char *buf = ozb_buf_get(h, OZB_BUF_DEEP, bytes_needed(pr));
    if (!buf) return OZBLAS_STATUS_ALLOC_FAILED;
    uint8_t *fail = (uint8_t *)buf;
    char *p = buf + up64((size_t)pr->m * (size_t)pr->n + 8);
    int64_t left = 0;
#ifdef EFT_AVX2
    const int64_t k = pr->k;
    if (is_dot(pr)) {
        /* the two vectors in lanes (element l in lane l mod 8), zero-padded to whole steps */
        const int64_t steps = (k + 7) / 8, nq = nblocks(steps);
        double *x = (double *)p, *y = (double *)(p + up64(((size_t)k + 8) * sizeof(double)));
        double *mx = (double *)((char *)y + up64(((size_t)k + 8) * sizeof(double)));
        double *my = (double *)((char *)mx + up64(8 * (size_t)nq * sizeof(double)));
        for (int64_t l = 0; l < 8 * steps; l++) {
            x[l] = l < k ? pr->a.p[l * pr->a.cs] : 0.0;
            y[l] = l < k ? pr->b.p[l * pr->b.cs] : 0.0;
        }
        ozb_deep_lane_minima(x, steps, mx);
        ozb_deep_lane_minima(y, steps, my);
        deep_row st;
        double yv;
        const int ok = ozb_deep_run(x, y, 8, steps, mx, my, 8, &st) &&
                       ozb_deep_round(pr, &st, 0, 8, nq, pr->beta != 0.0 ? *pr->c : 0.0, &yv);
        if (ok) *pr->c = yv;
        fail[0] = !ok;
        left = !ok;
    } else {
        const int64_t nq = nblocks(k), nstrips = (pr->m + 7) / 8;
        double *P = (double *)p;
        double *nA = (double *)(p + up64(8 * (size_t)nstrips * (size_t)k * sizeof(double)));
        double *nX = (double *)((char *)nA + up64(8 * (size_t)nstrips * (size_t)nq * sizeof(double)));
        ozb_eft_pack_strips(pr, P, nA);        /* the maxima it writes there are replaced by minima */
        for (int64_t b = 0; b < nstrips; b++) ozb_deep_lane_minima(P + 8 * k * b, k, nA + 8 * b * nq);
        deep_t g = { pr, P, nA, pr->b.p, pr->b.rs, nX, nq, fail, pr->n <= 2 * OZB_EFT_NC };
        if (pr->b.cs != 1) {
            double *Bp = (double *)((char *)nX + up64((size_t)pr->n * (size_t)nq * sizeof(double)));
            for (int64_t j = 0; j < pr->n; j++)
                for (int64_t l = 0; l < k; l++) Bp[l + j * k] = pr->b.p[l * pr->b.cs + j * pr->b.rs];
            g.Bx = Bp;
            g.ldx = k;
        }
        for (int64_t j = 0; j < pr->n; j++)
            for (int64_t q = 0; q < nq; q++) {
                double m = INFINITY;
                for (int64_t l = q * BL; l < k && l < (q + 1) * BL; l++) {
                    const double v = fabs(g.Bx[j * g.ldx + l]);
                    if (v != 0.0 && v < m) m = v;
                }
                nX[j * nq + q] = m;
            }
        const int64_t nunits = g.by_strip ? nstrips : (pr->n + OZB_EFT_NC - 1) / OZB_EFT_NC;
        left = ozb_par_for(nt > 1, nt, nunits, units, &g);
    }
#else
    (void)nt;
    memset(fail, 1, (size_t)pr->m * (size_t)pr->n);
    left = pr->m * pr->n;
#endif
    *failp = fail;
    *nfail = left;
    ozblas_info_t *info = ozb_info_begin(h, OZBLAS_SUM_NEARSUM, 53);
    info->slices_a = info->slices_b = 1;
    info->exact_fallbacks = left;
    info->blocks = pr->n;
    info->block_m = pr->m; info->block_n = 1; info->block_k = pr->k;
    info->fused = 3;
    info->seconds_sum = ozb_now_if(timed) - t0;
    return OZBLAS_STATUS_SUCCESS;
}
