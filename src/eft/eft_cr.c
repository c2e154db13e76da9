/* The error-free DOT, GEMV and GEMM (CORRECTLY_ROUNDED, FP64 format): eligibility, buffers,
 * the column loop and the GEMM's walk of its units; the kernels are in eft_dot.c,
 * eft_gemv_n.c and eft_gemm.c, the method and its bit budget in eft_kern.h.  Below 8 rows a
 * GEMM is one GEMV per column of op(B), with op(A) copied column-major first where its rows
 * are contiguous (the GEMV-N strips read it then). */
#include "eft/eft_dot.h"
#include "eft/eft_kern.h"
#include "exact/zero_products.h"
#include "core/info.h"
#include "core/par.h"
#include <omp.h>
#include <string.h>

static size_t up64(size_t b) { return (b + 63) & ~(size_t)63; }

/* GEMMs with m >= 8: op(A) in strips, op(B)'s columns contiguous (eft_gemm.c); below 8 rows
 * a strip would be mostly padding: one GEMV (or DOT) per column, op(A) copied column-major
 * where its rows are contiguous */
static int strips(const ozb_problem *pr) { return pr->n > 1 && pr->m >= 8; }
static int packs_a(const ozb_problem *pr) { return pr->n > 1 && pr->m > 1 && !strips(pr) && pr->a.cs == 1 && pr->a.rs != 1; }
static int packs_b(const ozb_problem *pr) { return strips(pr) && pr->b.cs != 1; }
static size_t strips_bytes(const ozb_problem *pr) { return up64((size_t)(8 * ((pr->m + 7) / 8)) * (size_t)pr->k * sizeof(double)); }
/* the sub-blocks' maxima of the strips' rows and of op(B)'s columns */
static int64_t nblocks(const ozb_problem *pr) { return (pr->k + BL - 1) / BL; }
static int64_t nsub(const ozb_problem *pr) { return (pr->k + SBL - 1) / SBL; }
static size_t maxima_bytes(const ozb_problem *pr)
{
    return up64((size_t)(8 * ((pr->m + 7) / 8) + pr->n) * (size_t)(nsub(pr) + nblocks(pr)) * sizeof(double)) +
           up64((size_t)((pr->m + 7) / 8 + pr->n)) + up64(2 * (size_t)((pr->m + 7) / 8 + pr->n) * sizeof(int32_t));
}

/* per thread: a strided column of op(B), the GEMV-N state, a parallel DOT's pieces */
static size_t thread_bytes(const ozb_problem *pr)
{
    return up64((size_t)pr->k * sizeof(double)) + up64(ozb_eft_state_bytes(pr->m)) + up64(4 * NCHUNK_PAR * sizeof(double));
}

static size_t bytes_needed(const ozb_problem *pr, int nt)
{
    size_t b = up64((size_t)pr->m * (size_t)pr->n + 8);                  /* fail flags */
    if (packs_a(pr)) b += up64((size_t)pr->m * (size_t)pr->k * sizeof(double));
    if (strips(pr)) b += strips_bytes(pr) + maxima_bytes(pr);
    if (packs_b(pr)) b += up64((size_t)pr->k * (size_t)pr->n * sizeof(double));
    return b + (size_t)nt * thread_bytes(pr);
}

int ozb_eft_applies(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *plan)
{
#ifdef EFT_AVX2
    if (plan->mode != OZBLAS_MODE_CORRECTLY_ROUNDED || plan->engine != OZBLAS_ENGINE_FP64) return 0;
    if (h->knobs.no_dot2 || !isfinite(pr->alpha) || !isfinite(pr->beta)) return 0;
    if (pr->k > ((int64_t)1 << 32)) return 0;                     /* blocks <= 2^32: the (1 + 2^-20) on G */
    return pr->m == 1 || pr->a.rs == 1 || pr->a.cs == 1;
#else
    (void)h; (void)pr; (void)plan;
    return 0;                     /* the kernels are written for AVX2 and FMA */
#endif
}

size_t ozb_eft_bytes(ozblas_handle_t h, const ozb_problem *pr)
{
    return bytes_needed(pr, ozb_threads(h));
}

int ozb_eft_eligible(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *plan)
{
    return ozb_eft_applies(h, pr, plan) && ozb_eft_bytes(h, pr) <= ozb_workspace_limit(h);
}

typedef struct {
    const ozb_problem *pr;
    ozb_view a;               /* op(A) as the columns read it */
    uint8_t *fail;
    char *thr;                /* thread t's buffers at thr + t thread_bytes */
    size_t thr_bytes;
    int wide;                 /* DOT lanes by the 512-bit loop (ozb_eft_wide) */
} gemm_t;

static void thread_bufs(const gemm_t *g, double **xbuf, double **state, double **pieces)
{
    char *t = g->thr + g->thr_bytes * (size_t)omp_get_thread_num();
    *xbuf = (double *)t;
    *state = (double *)(t + up64((size_t)g->pr->k * sizeof(double)));
    *pieces = (double *)((char *)*state + up64(ozb_eft_state_bytes(g->pr->m)));
}

/* columns lo..hi-1 of C, each a GEMV (or DOT) on this thread; returns the elements left */
static int64_t columns(void *ctx, int64_t lo, int64_t hi)
{
    const gemm_t *g = ctx;
    const ozb_problem *pr = g->pr;
    double *xbuf, *state, *pieces;
    thread_bufs(g, &xbuf, &state, &pieces);
    int64_t left = 0;
    for (int64_t j = lo; j < hi; j++) {
        ozb_problem pj = ozb_problem_part(pr);
        pj.n = 1;
        pj.a = g->a;
        pj.b.p += j * pr->b.rs;
        pj.c += j * pr->ccs;
        const ozb_eft_t e = { &pj, g->fail + j * pr->m, NULL, NULL, 1, 0.0, g->wide };
        left += ozb_eft_column(&e, xbuf, state, pieces, 0, 1);
    }
    return left;
}

#ifdef EFT_AVX2
/* whether any of the r <= 8 flags at f is set (a flag is any nonzero byte) */
static inline int any_set(const uint8_t *f, int64_t r)
{
    uint64_t v = 0;
    memcpy(&v, f, (size_t)r);
    return v != 0;
}

/* strip_columns on the columns of j0..j1-1 that meet the triangle C keeps (pr->tri): lower
 * (i >= j) those up to the strip's last row, upper (i <= j) those from its first; and where
 * pr->want, those with a kept row in the strip.  The flags of the others cleared (none of their
 * elements is kept). */
static int64_t strip_kept(const ozb_eft_gemm_t *g, int64_t b, int64_t j0, int64_t j1)
{
    const ozb_problem *pr = g->pr;
    const int64_t r = (8 * b + 8 < pr->m ? 8 * b + 8 : pr->m) - 8 * b;   /* the strip's rows */
    const int64_t a = pr->tri == OZB_TRI_UPPER && j0 < 8 * b ? 8 * b : j0;
    const int64_t z = pr->tri == OZB_TRI_LOWER && j1 > 8 * b + r ? 8 * b + r : j1;
    for (int64_t j = j0; j < j1; j++)
        if (j < a || j >= z) memset(g->fail + j * pr->m + 8 * b, 0, (size_t)r);
    if (!pr->want || a >= z) return a < z ? ozb_eft_strip_columns(g, b, a, z) : 0;
    /* a remainder's copy (pr->want): runs of columns where some row of the strip is kept */
    int64_t left = 0;
    for (int64_t j = a; j < z;) {
        int64_t e = j;
        while (e < z && any_set(pr->want + e * pr->m + 8 * b, r)) e++;
        if (e > j) { left += ozb_eft_strip_columns(g, b, j, e); j = e; continue; }
        memset(g->fail + j * pr->m + 8 * b, 0, (size_t)r);
        j++;
    }
    return left;
}

/* whether some of the n spans at sp (span_of) is not all of [0, ns): zero maxima at either
 * end, a triangular or trapezoidal operand whose strips' or columns' work differs */
static int graded(const int32_t *sp, int64_t n, int64_t ns)
{
    for (int64_t v = 0; v < n; v++)
        if (sp[2 * v] != 0 || sp[2 * v + 1] != ns) return 1;
    return 0;
}

/* The walk's tiles and how the threads share them (the schedule only: every tile from itself
 * alone).  Where C is whole and one operand alone is graded, contiguous shares across the
 * other one's direction, each alike: a graded op(A) (DTRMM from the left) split by column
 * groups of about n / nt columns (whole quads, at most OZB_EFT_NC), so that each thread reads
 * mostly its own columns of op(B) and every thread sees all of op(A)'s grades; a
 * graded op(B) split by strips.  Returns 1 for those contiguous shares, 0 for tiles taken in
 * turn (C keeps a triangle, or both operands are graded). */
static int walk_plan(ozb_eft_gemm_t *s, int64_t nstrips, int nt)
{
    const ozb_problem *pr = s->pr;
    s->nc = OZB_EFT_NC;
    /* strip by strip where B is narrow (each strip reads all of B), else group by group (each
     * group reads all of A): the fewer bytes streamed */
    s->by_strip = pr->n <= 2 * OZB_EFT_NC;
    if (pr->tri != OZB_TRI_ALL) return 0;
    const int ga = graded(s->spA, nstrips, s->ns), gb = graded(s->spX, pr->n, s->ns);
    if (ga && gb) return 0;
    if (ga) {
        const int64_t w = (pr->n + nt - 1) / nt;
        s->nc = w < OZB_EFT_NC ? (w + 3) / 4 * 4 : OZB_EFT_NC;   /* whole quads (strip_quad) */
        s->by_strip = 0;
    } else if (gb) s->by_strip = 1;
    return 1;
}

/* Tiles lo..hi-1 of the walk: a tile is one strip of 8 rows times one group of OZB_EFT_NC
 * columns (strip_kept), numbered strip by strip where by_strip (a narrow B: each strip
 * streams all of B once), else group by group (each group streams all of A once).  Tiles
 * rather than whole strips or groups, so that the threads share a few hundred rows or
 * columns evenly (contiguous shares where C is whole, tiles taken in turn where C keeps a
 * triangle: the caller, ozb_eft_cr_in). */
static int64_t gemm_units(void *ctx, int64_t lo, int64_t hi)
{
    const ozb_eft_gemm_t *g = ctx;
    const int64_t n = g->pr->n, S = (g->pr->m + 7) / 8, G = (n + g->nc - 1) / g->nc;
    int64_t left = 0;
    for (int64_t u = lo; u < hi; u++) {
        const int64_t b = g->by_strip ? u / G : u % S, j0 = (g->by_strip ? u % G : u / S) * g->nc;
        left += strip_kept(g, b, j0, j0 + g->nc < n ? j0 + g->nc : n);
    }
    return left;
}

/* A GEMM whose result cancels far below its products (a residual B - A X) leaves nearly every
 * element to the deep sums, and the dispatch then recomputes the whole call there: the middle
 * strip times the middle 2 columns, computed first, tells that beforehand (1: most of them
 * failed; then every other element is flagged at once).  The middle, because the edges are
 * where structure sits: a triangular op(A) times a graded op(B) (LAPACK's triangular solves
 * with scaling) has its loosest bounds in the first rows, and elements whose products are all
 * zero (rows 1-7 of an upper triangular A times the first columns of an upper triangular B:
 * LAPACK's inverses) do not count either: they are resolved here as the dispatch would resolve
 * them after this stage (ozb_exact_zero_products).  The probed elements are the call's own: rounded
 * into C where certified (the main pass skips them: s->skip_*), flagged where not, so the probe
 * costs nothing where it passes (else a sixteenth of a 16^3 GEMM would be computed twice).  Only
 * where the probe is a small part of the call; the bits are RN(exact) whichever stage
 * certifies them.  *left: the elements flagged. */
static int probe_fails(ozb_eft_gemm_t *s, int64_t *left)
{
    const ozb_problem *pr = s->pr;
    *left = 0;
    /* the probe: at most 6 % of the call; not on a remainder's copy (pr->want: its elements
     * kept here and there) */
    if (pr->m * pr->n < 256 || pr->want) return 0;
    /* j0 even: the main pass's pairs of columns (eft_gemm.c) start at even columns, so the
     * probe's pair is one of them and no column is left to a single-column pass.  Where C
     * keeps a triangle (DSYRK's I - Q^T Q), the probe's columns are the nearest to the
     * middle strip whose eight rows are all kept: its elements are written into C. */
    const int64_t b = (pr->m + 7) / 8 / 2, pn = pr->n < 2 ? pr->n : 2;
    const int64_t j0 = pr->tri == OZB_TRI_UPPER ? 8 * b + 8 : pr->tri == OZB_TRI_LOWER ? 8 * b - 2
                                                                                    : (pr->n / 2 - (pr->n >= 2)) & ~(int64_t)1;
    if (j0 < 0 || j0 + pn > pr->n) return 0;
    const int64_t pm = pr->m - 8 * b < 8 ? pr->m - 8 * b : 8;
    uint8_t pfail[16];
    ozb_problem pp = ozb_problem_part(pr);
    pp.m = pm; pp.n = pn;
    pp.c = pr->c + 8 * b * pr->crs + j0 * pr->ccs;
    pp.a.p += 8 * b * pr->a.rs;
    pp.b.p += j0 * pr->b.rs;
    ozb_eft_gemm_t ps = *s;
    ps.pr = &pp; ps.fail = pfail;
    ps.P += 8 * pr->k * b;
    ps.mA += 8 * b * s->ns;
    ps.Bx += j0 * s->ldx;
    ps.mX += j0 * s->ns;
    ps.mAc += 8 * b * s->nq;
    ps.mXc += j0 * s->nq;
    ps.zA += b;
    ps.zX += j0;
    ps.spA += 2 * b;
    ps.spX += 2 * j0;
    int64_t pl = strip_kept(&ps, 0, 0, pn);
    if (pl) pl -= ozb_exact_zero_products(&pp, pfail);
    const int residual = 2 * pl > pm * pn;
    if (residual) {
        int64_t kept = pr->m * pr->n;
        if (pr->tri == OZB_TRI_ALL) memset(s->fail, 1, (size_t)kept);
        else {                               /* the kept triangle's flags, the others clear */
            kept = 0;
            for (int64_t j = 0; j < pr->n; j++)
                for (int64_t i = 0; i < pr->m; i++) kept += s->fail[i + j * pr->m] = (uint8_t)ozb_kept(pr, i, j);
        }
        *left = kept - pm * pn + pl;
    } else {
        s->skip_b = b; s->skip_j = j0; s->skip_n = pn;
        *left = pl;
    }
    for (int64_t j = 0; j < pn; j++)
        for (int64_t i = 0; i < pm; i++) s->fail[8 * b + i + (j0 + j) * pr->m] = pfail[i + j * pm];
    return residual;
}
#endif

ozblas_status_t ozb_eft_cr(ozblas_handle_t h, const ozb_problem *pr, int nt, uint8_t **failp, int64_t *nfail)
{
    return ozb_eft_cr_in(h, pr, nt, OZB_BUF_EFT, failp, nfail);
}

ozblas_status_t ozb_eft_cr_in(ozblas_handle_t h, const ozb_problem *pr, int nt, int slot, uint8_t **failp, int64_t *nfail)
{
    const double work = (double)pr->m * (double)pr->n * (double)pr->k;
    const int timed = ozb_timed(work);
    const double t0 = ozb_now_if(timed);
    char *buf = ozb_buf_get(h, slot, bytes_needed(pr, nt));
    if (!buf) return OZBLAS_STATUS_ALLOC_FAILED;
    gemm_t g = { pr, pr->a, (uint8_t *)buf, NULL, thread_bytes(pr), ozb_eft_wide(h) };
    char *p = buf + up64((size_t)pr->m * (size_t)pr->n + 8);
    if (packs_a(pr)) {
        double *P = (double *)p;
        for (int64_t i = 0; i < pr->m; i++)
            for (int64_t l = 0; l < pr->k; l++) P[i + l * pr->m] = pr->a.p[i * pr->a.rs + l];
        g.a.p = P; g.a.rs = 1; g.a.cs = pr->m;
        p += up64((size_t)pr->m * (size_t)pr->k * sizeof(double));
    }
    g.thr = p;                    /* (the strips path uses this space for its packed operands) */
    const int par = nt > 1;       /* nt: the caller's, 1 below OZB_PAR_WORK (ozb_threads_for) */
    int64_t left = 0;
    if (strips(pr)) {
#ifdef EFT_AVX2
        const int64_t na = 8 * ((pr->m + 7) / 8);
        double *mA = (double *)(p + strips_bytes(pr)), *mX = mA + na * nsub(pr);
        double *mAc = mX + pr->n * nsub(pr), *mXc = mAc + na * nblocks(pr);
        uint8_t *zA = (uint8_t *)(mXc + pr->n * nblocks(pr)), *zX = zA + (pr->m + 7) / 8;
        int32_t *spA = (int32_t *)((char *)zA + up64((size_t)((pr->m + 7) / 8 + pr->n))), *spX = spA + 2 * ((pr->m + 7) / 8);
        ozb_eft_gemm_t s = { pr, (const double *)p, pr->b.p, pr->b.rs, g.fail, 0, mA, mX, mAc, mXc, zA, zX, spA, spX,
                             nblocks(pr), nsub(pr), -1, 0, 0, g.wide, OZB_EFT_NC };
        const int64_t nstrips = (pr->m + 7) / 8;
        double *P = (double *)p, *Bp = NULL;
        p += strips_bytes(pr) + maxima_bytes(pr);
        if (packs_b(pr)) {
            Bp = (double *)p;
            s.Bx = Bp;
            s.ldx = pr->k;
        }
        ozb_eft_gemm_prepare(&s, P, Bp, par ? nt : 1);
        /* a residual: everything the probe left to the deep sums at once.  Contiguous shares
         * of the tiles where walk_plan finds their work even (each thread then reads the
         * strips and columns it prepared from its own cache); else taken in turn */
        const int even = walk_plan(&s, nstrips, nt);
        const int64_t ntiles = nstrips * ((pr->n + s.nc - 1) / s.nc);
        if (!probe_fails(&s, &left))
            left += even ? ozb_par_for(par, nt, ntiles, gemm_units, &s) : ozb_par_for_dyn(par, nt, ntiles, 1, gemm_units, &s);
#endif
    } else if (pr->n == 1) {             /* DOT or GEMV: threads inside the column */
        double *xbuf, *state, *pieces;
        thread_bufs(&g, &xbuf, &state, &pieces);
        const ozb_eft_t e = { pr, g.fail, NULL, NULL, 1, 0.0, g.wide };
        left = ozb_eft_column(&e, xbuf, state, pieces, par, nt);
    } else {
        left = ozb_par_for(par, nt, pr->n, columns, &g);
    }
    *failp = g.fail;
    *nfail = left;
    ozb_info_eft(h, pr, left, 2, ozb_now_if(timed) - t0);
    return OZBLAS_STATUS_SUCCESS;
}
