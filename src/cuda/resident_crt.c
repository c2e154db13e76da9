/* The CRT format (Ozaki scheme II, src/crt/crt.c) on the device, FIXED mode (FAST and ACCURATE
 * scaling) and DOUBLE mode, operands left on the GPU:
 *   row scales   e, ||x||_2 and ||x||_1 of every row of op(A) and op(B)^T (one thread per row,
 *                crt.c's sums in its order), brought to the host (12 bytes a row);
 *   moduli       the split count;
 *   residues     int8 of each modulus' class, centred, k padded to 16 (one kernel per side);
 *   products     one cublasGemmStridedBatchedEx per k-block over all moduli (INT8 tensor
 *                cores, int32 accumulation: |products| <= 128 * 128, 2^16 terms < 2^30);
 *                later k-blocks folded modulo each modulus; where C keeps one triangle or
 *                an operand is zero beyond one (one k-block), a GEMM per block of columns or
 *                rows over the products left (pblocks.c), each block's C' and output after it;
 *   C'           the reconstruction kernel (ozb_op_crt_recon), then alpha 2^p C' + beta C per
 *                element (ozb_op_crt_out), written into the device's C;
 *   DOUBLE       crt.c's per-element certificate first (the lower bound of |A||B| by one more
 *                exact INT8 GEMM of the rows' 7-bit operands, ozb_op_crt_cert_item), the
 *                flagged elements counted on the device; where some are flagged, the whole
 *                call (or the window of rows and columns that holds them, where that is at
 *                most half of C) correctly rounded into a device copy of C by the resident CR engines
 *                (error-free GEMV columns, the exact CRT GEMM), whose values the output step
 *                takes for exactly those elements.  Where that engine declines, the call
 *                declines before writing C (staged, and reported in the info).
 * The residues are congruent to the CPU's (which keeps op(B)'s in [0, m) for oneDNN's u8 x s8),
 * and every other step is crt.c's own element operation, so the bits are the CPU's.  The
 * ACCURATE scaling has one more exact GEMM for the bound; Inf/NaN and non-finite alpha/beta go
 * to the staged path. */
#include "core/info.h"
#include "core/tiles.h"
#include "cuda/resident.h"
#include "cuda/dev.h"
#include "cuda/stage.h"
#include "cuda/crt_bounds.h"
#include "cuda/pblocks.h"
#include "crt/crt.h"
#include "crt/crt_gemm.h"
#include "core/format.h"
#include <float.h>
#include <math.h>
#include <stdlib.h>

static size_t al256(size_t b) { return (b + 255) & ~(size_t)255; }
static size_t al16(size_t b) { return (b + 15) & ~(size_t)15; }

static void to_rowscale(const ozb_op_crt_row *d, int64_t n, rowscale_t *r)
{
    for (int64_t i = 0; i < n; i++) {
        r[i].e = d[i].e; r[i].c = d[i].c; r[i].l1 = d[i].l1; r[i].cz = INT32_MIN; r[i].ka = 0;
        r[i].f1 = r[i].f2 = 0.0;
    }
}

static int any_bad(const rowscale_t *r, int64_t n)
{
    for (int64_t i = 0; i < n; i++) if (r[i].e == E_BAD) return 1;
    return 0;
}

/* Few elements left (at most OZB_CRT_FEW): each alone, a DOT of its row and column by the
 * error-free sums into its place in the copy w of C (a whole call would cost a CR GEMM for a
 * handful of elements).  Their positions come to the host: 8 bytes each.  NOT_SUPPORTED where
 * one of them declines (the copy then holds some values already: the caller copies C again). */
#define OZB_CRT_FEW 64
static ozblas_status_t complete_few(ozblas_handle_t h, const ozb_problem *pr, const ozb_problem *w, const uint8_t *flags,
                                    int64_t nflag, double *scratch)
{
    const ozb_plan cr = { OZBLAS_MODE_CORRECTLY_ROUNDED, OZBLAS_ENGINE_FP64 };
    ozb_dev *dev = h->dev;
    int64_t pos[OZB_CRT_FEW];
    int64_t *dpos = (int64_t *)(scratch + 1);
    const int tok = ozb_dev_lock(dev);
    const int rc = ozb_dev_zero(dev, scratch, sizeof(double)) ||
                   ozb_dev_crt_flagged(dev, flags, pr->m * pr->n, OZB_CRT_FEW, scratch, dpos) ||
                   ozb_dev_get(dev, pos, 8 * (size_t)nflag, dpos, 8 * (size_t)nflag, 8 * (size_t)nflag, 1);
    ozb_dev_unlock(dev, tok);
    if (rc) return OZBLAS_STATUS_EXECUTION_FAILED;
    for (int64_t q = 0; q < nflag; q++) {
        const int64_t gi = pos[q] % pr->m, gj = pos[q] / pr->m;
        const ozb_problem e = ozb_problem_sub(w, gi, 1, gj, 1);
        const ozblas_status_t st = ozb_resident_eft_run(h, &e, &cr);
        if (st != OZBLAS_STATUS_SUCCESS) return st;
    }
    return OZBLAS_STATUS_SUCCESS;
}

/* Many elements left, in few rows or columns (DTRMM's first rows, whose sums are short): *w,
 * the whole call into the copy of C, made the window of rows and columns that holds them, where
 * that is at most half of C.  win: 4 uint64 of device scratch. */
static ozblas_status_t window(ozblas_handle_t h, const uint8_t *flags, int64_t m, int64_t n, uint64_t *win,
                              ozb_problem *w)
{
    ozb_dev *dev = h->dev;
    uint64_t hw[4];
    const int tok = ozb_dev_lock(dev);
    const int rc = ozb_dev_zero(dev, win, 32) || ozb_dev_crt_window(dev, flags, m, m * n, win) ||
                   ozb_dev_get(dev, hw, 32, win, 32, 32, 1);
    ozb_dev_unlock(dev, tok);
    if (rc) return OZBLAS_STATUS_EXECUTION_FAILED;
    const int64_t r0 = m - 1 - (int64_t)hw[0], r1 = (int64_t)hw[1] + 1, c0 = n - 1 - (int64_t)hw[2], c1 = (int64_t)hw[3] + 1;
    if (2 * (r1 - r0) * (c1 - c0) > m * n) return OZBLAS_STATUS_SUCCESS;
    *w = ozb_problem_sub(w, r0, r1 - r0, c0, c1 - c0);   /* (each element's value is its own row's and column's) */
    return OZBLAS_STATUS_SUCCESS;
}

/* DOUBLE mode's elements the certificate left, correctly rounded on the device by the resident
 * CR engines (a few of several columns: each alone; else the error-free GEMV, a column at a time
 * where n <= 8, or the exact CRT GEMM beyond; a GEMV's always by one GEMV on their window of
 * rows, two waits: the window read back and the GEMV's flag): all of them (and n == 1 or
 * n > 8), the call itself, written into C (*direct = 1); else the whole call, or its window of the flagged rows and columns, into a
 * copy of C in device memory, *wp the whole call's problem on that copy (its C the values).
 * NOT_SUPPORTED where an engine declines (C and every output as they were).  Called with the
 * device unlocked. */
static ozblas_status_t complete(ozblas_handle_t h, const ozb_problem *pr, int64_t nflag, const uint8_t *flags,
                                ozb_problem *wp, int *direct)
{
    const ozb_plan cr = { OZBLAS_MODE_CORRECTLY_ROUNDED, OZBLAS_ENGINE_FP64 };
    ozb_problem w = *pr;
    *direct = 1;
    if (nflag < pr->m * pr->n || (pr->n > 1 && pr->n <= 8)) {
        *direct = 0;
        const size_t mn = (size_t)(pr->m * pr->n);
        double *W = ozb_dev_buf(h->dev, OZB_DBUF_ALT, sizeof(double) * (mn + 1 + OZB_CRT_FEW + 4));
        if (!W) return OZBLAS_STATUS_NOT_SUPPORTED;
        int tok = ozb_dev_enter(h->dev);
        ozblas_status_t cs = ozb_stage_c_copy(h, pr, W, &w);
        ozb_dev_leave(h->dev, tok);
        if (cs != OZBLAS_STATUS_SUCCESS) return cs;
        *wp = w;
        if (nflag <= OZB_CRT_FEW && pr->n > 1) {
            if ((cs = complete_few(h, pr, &w, flags, nflag, W + mn)) != OZBLAS_STATUS_NOT_SUPPORTED) return cs;
            tok = ozb_dev_enter(h->dev);                  /* C again: the copy holds some values */
            cs = ozb_stage_c_copy(h, pr, W, &w);
            ozb_dev_leave(h->dev, tok);
            if (cs != OZBLAS_STATUS_SUCCESS) return cs;
        } else if ((cs = window(h, flags, pr->m, pr->n, (uint64_t *)(W + mn + 1 + OZB_CRT_FEW), &w)) != OZBLAS_STATUS_SUCCESS)
            return cs;
    }
    if (w.n == 1) return ozb_resident_eft_run(h, &w, &cr);
    if (w.n > 8) return ozb_resident_crcr_run(h, &w, &cr);
    /* 2 to 8 columns: a GEMV each (an element's value is its own row's and column's) */
    for (int64_t j = 0; j < w.n; j++) {
        const ozb_problem col = ozb_problem_sub(&w, 0, w.m, j, 1);
        const ozblas_status_t st = ozb_resident_eft_run(h, &col, &cr);
        if (st != OZBLAS_STATUS_SUCCESS) return st;
    }
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozb_resident_crt_run(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *plan)
{
    const int dbl = plan->mode == OZBLAS_MODE_DOUBLE;
    if (h->knobs.cuda_staged || (plan->mode != OZBLAS_MODE_FIXED && !dbl)) return OZBLAS_STATUS_NOT_SUPPORTED;
    if (!isfinite(pr->alpha) || !isfinite(pr->beta)) return OZBLAS_STATUS_NOT_SUPPORTED;
    const double t0 = ozb_now();
    ozb_dev *dev = h->dev;
    const int64_t m = pr->m, n = pr->n, k = pr->k;
    const int use_c = pr->beta != 0.0 && !pr->c_host;
    /* device: what comes back (the rows' scales, C's rows' Inf/NaN check), then what goes (e,
     * ka, f1 and f2 of op(A)'s rows, then of op(B)^T's), each run laid out on the host as on
     * the device so that it is one copy; then scratch of C's check */
    const size_t rowb = sizeof(ozb_op_crt_row), M = (size_t)m, N = (size_t)n;
    const size_t o_cns = al256(rowb * (M + N)), o_go = o_cns + al256(4 * M);
    const size_t o_kA = o_go + al16(4 * M), o_f1A = o_kA + al16(4 * M), o_f2A = o_f1A + al16(8 * M);
    const size_t o_eB = o_f2A + al16(8 * M), o_kB = o_eB + al16(4 * N), o_f1B = o_kB + al16(4 * N);
    const size_t o_f2B = o_f1B + al16(8 * N), o_end = o_f2B + 8 * N;
    const size_t b0_bytes = al256(o_end) + al256(8 * M) + 2 * al256(4 * M);
    char *b0 = ozb_dev_buf(dev, OZB_DBUF_A2, b0_bytes);
    rowscale_t *ra = ozb_buf_get(h, OZB_BUF_WA, sizeof(rowscale_t) * (size_t)m + 64);
    rowscale_t *rb = ozb_buf_get(h, OZB_BUF_WB, sizeof(rowscale_t) * (size_t)n + 64);
    char *hb = ozb_buf_get(h, OZB_BUF_HA, o_end);
    if (!b0 || !ra || !rb || !hb) return OZBLAS_STATUS_ALLOC_FAILED;
    ozb_op_crt_row *dRow = (ozb_op_crt_row *)b0;
    ozb_op_crt_row *hRow = (ozb_op_crt_row *)hb;
    const int32_t *hcns = (const int32_t *)(hb + o_cns);

    int tok = ozb_dev_lock(dev);
    ozblas_status_t st = OZBLAS_STATUS_EXECUTION_FAILED;
    int saved = 0;                       /* C's window saved (several tiles) */
    int64_t nflag = 0;                   /* DOUBLE: the elements the certificate left */
    ozb_problem wp = *pr;                /* DOUBLE: their correctly rounded values (wp.c) */
    ozblas_info_t ci = h->info;          /* DOUBLE: the report of their computation */
#define DEV(call) do { if ((call) != 0) goto out; } while (0)
    DEV(ozb_dev_crt_rows(dev, &pr->a, m, k, dRow));
    DEV(ozb_dev_crt_rows(dev, &pr->b, n, k, dRow + m));
    if (use_c) {                                     /* Inf/NaN in C, where it is read: staged */
        const ozb_view cv = { pr->c, pr->crs, pr->ccs };
        char *cb = b0 + al256(o_end);                                   /* scratch: maxima, low bits, exponents */
        DEV(ozb_dev_meta(dev, &cv, m, n, n, 1, 0, (uint64_t *)cb, (int32_t *)(cb + al256(8 * M)),
                         (int32_t *)(cb + al256(8 * M) + al256(4 * M)), (int32_t *)(b0 + o_cns)));
    }
    DEV(ozb_dev_get(dev, hb, o_go, b0, o_go, use_c ? o_cns + 4 * M : rowb * (M + N), 1));   /* one copy back */
    to_rowscale(hRow, m, ra);
    to_rowscale(hRow + m, n, rb);
    if (any_bad(ra, m) || any_bad(rb, n)) { st = OZBLAS_STATUS_NOT_SUPPORTED; goto out; }
    for (int64_t i = 0; use_c && i < m; i++) if (hcns[i] < 0) { st = OZBLAS_STATUS_NOT_SUPPORTED; goto out; }

    if (!dbl && h->crt_scaling == OZBLAS_CRT_SCALING_ACCURATE) {   /* DOUBLE ignores ACCURATE, as crt.c */
        const ozblas_status_t as = ozb_crt_dev_accurate(h, pr, ra, rb);
        if (as != OZBLAS_STATUS_SUCCESS) { st = as; goto out; }
    }
    /* the moduli count, as ozb_crt_run (FIXED mode: the split count; DOUBLE: from k alone) */
    const int s = dbl ? ozb_crt_double_moduli(k)
                      : h->split_count < 2 ? 2 : h->split_count > OZB_CRT_MAXMOD ? OZB_CRT_MAXMOD : h->split_count;
    ozb_crt_consts cs;
    ozb_crt_consts_init(s, &cs);
    ozb_crt_set_factors(ra, m, &cs);
    ozb_crt_set_factors(rb, n, &cs);
    uint8_t *flags = NULL;
    if (dbl) {
        ozb_crt_set_hats(ra, m, k);
        ozb_crt_set_hats(rb, n, k);
        if (!(flags = ozb_dev_buf(dev, OZB_DBUF_FLAGS, (size_t)(m * n)))) { st = OZBLAS_STATUS_ALLOC_FAILED; goto out; }
        if ((st = ozb_crt_dev_certify(h, pr, ra, rb, flags, &nflag)) != OZBLAS_STATUS_SUCCESS) goto out;
        st = OZBLAS_STATUS_EXECUTION_FAILED;
        if (nflag > 0) {                 /* the CR engines take the device themselves */
            int direct;
            ozb_dev_unlock(dev, tok);
            const ozblas_status_t cst = complete(h, pr, nflag, flags, &wp, &direct);
            tok = ozb_dev_lock(dev);
            if (cst != OZBLAS_STATUS_SUCCESS || direct) {
                if (cst == OZBLAS_STATUS_SUCCESS) {     /* the CRT's moduli and its fallbacks, as the host reports */
                    h->info.split_count = s;
                    h->info.exact_fallbacks += nflag;
                }
                st = cst;
                goto out;
            }
            ci = h->info;
            /* their buffers may have moved the device's and the host's: taken again */
            b0 = ozb_dev_buf(dev, OZB_DBUF_A2, b0_bytes);
            hb = ozb_buf_get(h, OZB_BUF_HA, o_end);
            flags = ozb_dev_buf(dev, OZB_DBUF_FLAGS, (size_t)(m * n));
            if (!b0 || !hb || !flags) { st = OZBLAS_STATUS_ALLOC_FAILED; goto out; }
        }
    }
    int32_t *deA = (int32_t *)(b0 + o_go), *dkA = (int32_t *)(b0 + o_kA);
    int32_t *deB = (int32_t *)(b0 + o_eB), *dkB = (int32_t *)(b0 + o_kB);
    double *df1A = (double *)(b0 + o_f1A), *df2A = (double *)(b0 + o_f2A);
    double *df1B = (double *)(b0 + o_f1B), *df2B = (double *)(b0 + o_f2B);
    for (int side = 0; side < 2; side++) {   /* rows' e, ka and factors to the device: one copy */
        const rowscale_t *rr = side ? rb : ra;
        const int64_t R = side ? n : m;
        int32_t *he = (int32_t *)(hb + (side ? o_eB : o_go)), *hk = (int32_t *)(hb + (side ? o_kB : o_kA));
        double *h1 = (double *)(hb + (side ? o_f1B : o_f1A)), *h2 = (double *)(hb + (side ? o_f2B : o_f2A));
        for (int64_t i = 0; i < R; i++) { he[i] = rr[i].e; hk[i] = rr[i].ka; h1[i] = rr[i].f1; h2[i] = rr[i].f2; }
    }
    DEV(ozb_dev_put(dev, deA, o_end - o_go, hb + o_go, o_end - o_go, o_end - o_go, 1));
    ozb_op_crt_res rc;
    ozb_crt_resconst_init(0, s, &rc);            /* trunc(x f1 f2): the FAST scaling */
    ozb_op_crt_consts kc;
    ozb_crt_recon_consts(&cs, &kc);
    const double t1 = ozb_now();

    /* tiles: residues s (mb + nb) kbp bytes, products s ne int32 (2 s ne: a later k-block's
     * beside the accumulated ones), C' ne doubles */
    const int64_t kb = k < OZB_CRT_KBLOCK ? k : OZB_CRT_KBLOCK, nkb = (k + kb - 1) / kb, kbp = (kb + 15) & ~(int64_t)15;
    const ozb_dev_tilebuf tbuf[4] = {
        { OZB_DBUF_A, (double)s * (double)kbp, 0.0, 0.0, 0.0 }, { OZB_DBUF_B, 0.0, (double)s * (double)kbp, 0.0, 0.0 },
        { OZB_DBUF_C, 0.0, 0.0, 4.0 * s * (nkb > 1 ? 2 : 1), 0.0 }, { OZB_DBUF_C2, 0.0, 0.0, 8.0, 0.0 },
    };
    void *tp[4];
    int64_t mb, nb;
    if ((st = ozb_dev_tiles(dev, ozb_workspace_limit(h), m, n, INT32_MAX, INT32_MAX, tbuf, 4, &mb, &nb, tp)) != OZBLAS_STATUS_SUCCESS) goto out;
    st = OZBLAS_STATUS_EXECUTION_FAILED;
    int8_t *RA = tp[0], *RB = tp[1];
    int32_t *acc = tp[2];
    double *val = tp[3];
    /* several tiles write C one after another: C's window saved, put back if a step fails */
    if (!pr->c_host && (mb < m || nb < n)) {
        if ((st = ozb_stage_save_c(h, pr)) != OZBLAS_STATUS_SUCCESS) goto out;
        saved = 1;
        st = OZBLAS_STATUS_EXECUTION_FAILED;
    }
    double tres = 0.0, tmul = 0.0, tsum = 0.0, flops = 0.0;   /* 2 m n k of each GEMM, every modulus */
    int64_t calls = 0;
    for (int64_t j0 = 0; j0 < n; j0 += nb) {
        const int64_t nbb = nb < n - j0 ? nb : n - j0;
        for (int64_t i0 = 0; i0 < m; i0 += mb) {
            const int64_t mbb = mb < m - i0 ? mb : m - i0, ne = mbb * nbb;
            int32_t *later = acc + (size_t)s * (size_t)ne;
            ozb_pblock pb[OZB_PBLOCKS_MAX];
            const int npb = nkb == 1 ? ozb_pblocks(pr, i0, mbb, j0, nbb, kbp, pb) : 0;
            if (npb < 0) continue;
            for (int64_t kk = 0; kk < nkb; kk++) {
                const int64_t l0 = kk * kb, kbb = kb < k - l0 ? kb : k - l0;
                double ta = ozb_now();
                DEV(ozb_dev_crt_residues(dev, &pr->a, i0, mbb, l0, kbb, df1A, df2A, &rc, kbp, RA));
                DEV(ozb_dev_crt_residues(dev, &pr->b, j0, nbb, l0, kbb, df1B, df2B, &rc, kbp, RB));
                double tb = ozb_now();
                tres += tb - ta;
                if (npb) break;                            /* by blocks, below */
                /* C_t (mbb x nbb) = RA_t^T RB_t for every modulus t in one batched call */
                int32_t *dst = kk ? later : acc;
                DEV(ozb_dev_gemm_batched(dev, OZB_DT_S8, 1, 0, mbb, nbb, kbp, RA, kbp, mbb * kbp, RB, kbp, nbb * kbp,
                                         dst, mbb, ne, s));
                calls++;
                if (kk) for (int t = 0; t < s; t++)            /* a later k-block, modulo m_t */
                    DEV(ozb_dev_crt_fold(dev, acc + (size_t)t * ne, later + (size_t)t * ne, ne, ozb_crt_moduli[t]));
                tmul += ozb_now() - tb;
            }
            /* the whole tile, or each block (pblocks.h): its products, C' and output */
            const ozb_ptile tile = { RA, RB, mbb, nbb, kbp, k, s, acc };
            for (int u = 0; u < (npb ? npb : 1); u++) {
                ozb_pblock b;
                DEV(ozb_ptile_block(dev, &tile, pb, npb, u, &b, &calls, &flops, &tmul));
                const int64_t rows = b.r1 - b.r0, cols = b.c1 - b.c0, nq = rows * cols;
                const double te = ozb_now();
                DEV(ozb_dev_crt_recon(dev, acc, nq, &kc, val));
                const ozb_op_crt_out_args g = { val, rows, cols, i0 + b.r0, j0 + b.c0, deA, dkA, deB, dkB, pr->alpha,
                                                pr->beta, pr->c_host ? val : pr->c, pr->c_host ? 0 : pr->crs,
                                                pr->c_host ? 0 : pr->ccs, use_c, nflag ? flags : NULL, m,
                                                nflag ? wp.c : NULL, nflag ? wp.crs : 0, nflag ? wp.ccs : 0 };
                DEV(ozb_dev_crt_out(dev, &g));               /* DOT: in place, one element */
                if (pr->c_host) DEV(ozb_dev_get(dev, pr->c, 8, val, 8, 8, 1));
                tsum += ozb_now() - te;
            }
        }
    }
    DEV(ozb_dev_sync(dev));
    st = OZBLAS_STATUS_SUCCESS;
    ozblas_info_t *info = ozb_info_begin(h, OZBLAS_SUM_DOUBLE, cs.alpha);
    ozb_info_crt(info, s, m, n, k, calls, calls * s, (t1 - t0) + tres, tmul, tsum);
    ozb_info_tiles(info, m, n, mb, nb, kb);
    info->gemm_flops = flops;
    if (nflag) {     /* the completion's counts added, as the host's executor adds a later part's */
        info->gemm_calls += ci.gemm_calls;
        info->slice_products += ci.slice_products;
        info->gemm_flops += ci.gemm_flops;
        info->slices_a = info->slices_a > ci.slices_a ? info->slices_a : ci.slices_a;
        info->slices_b = info->slices_b > ci.slices_b ? info->slices_b : ci.slices_b;
        info->exact_fallbacks = nflag + ci.exact_fallbacks;
    }
    info->seconds_total = ozb_now() - t0;
out:
#undef DEV
    if (st != OZBLAS_STATUS_SUCCESS && saved) ozb_stage_restore_c(h, pr);
    ozb_dev_unlock(dev, tok);
    return st;
}
