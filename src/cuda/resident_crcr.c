/* CORRECTLY_ROUNDED GEMM on the device through the exact CRT (the CPU's src/crt/crt_cr.c),
 * operands left on the GPU, the products on the INT8 tensor cores:
 *   exact scaling  per row of op(A) and op(B)^T the largest |x| and the lowest set bit
 *                  (ozb_dev_meta over the whole row: order-free maxima and minima); the row's
 *                  scaled entries x 2^ka (ka = minus the lowest set bit) are integers below
 *                  2^span, span = ilogb(max) + 1 - lowest bit, nothing truncated;
 *   moduli         |C'_ij| <= sum_l |A'_il| |B'_lj| < k 2^(spanA_i + spanB_j), so the first s
 *                  moduli of the table with floor(log2 M) - 1 >= max spanA + max spanB +
 *                  ceil(log2 k) determine C' exactly (centred residues); at most 48;
 *   residues       of the scaled integers, by the FIXED/DOUBLE residue kernels in their exact
 *                  mode (ozb_op_crt_res with ka: M's residue times 2^sh mod m), in groups of at
 *                  most 20 moduli, k padded to 16;
 *   products       one cublasGemmStridedBatchedEx per k-block over all moduli (TN, int32:
 *                  |products| <= 128 * 128, 2^16 terms < 2^30); later k-blocks folded; by
 *                  blocks where C keeps a triangle or an operand has zeros (pblocks.c);
 *   output         Garner, Horner and one rounding per element (kernels/ozb_crcr_ops.h).
 * The result is RN(exact), unique: the CPU's bits, whatever s (a bound looser than the CPU's
 * 2-norms can only add moduli).  Where a row holds Inf/NaN or spans more than 400 bits, C holds
 * Inf/NaN where read, or an element's rounding is not certified (a near-tie with beta c, a
 * result outside the normal range), the call returns NOT_SUPPORTED with C as it was (C saved
 * first where it is read) and the FP64 slices compute it.  OZBLAS_NO_CRT turns it off. */
#include "core/info.h"
#include "core/tiles.h"
#include "cuda/resident.h"
#include "cuda/dev.h"
#include "cuda/stage.h"
#include "cuda/pblocks.h"
#include "crt/crt.h"
#include "crt/crt_consts.h"
#include "crt/crt_garner.h"
#include "crt/crt_gemm.h"
#include <math.h>
#include <string.h>

#define CRCR_SPAN_MAX 400        /* bits of a scaled row: the table's M ~ 2^337 covers two of ~150 */
#define CRCR_GROUP    OZB_OP_CRT_MAXMOD   /* moduli per residue launch (the kernels' constants) */

static size_t al256(size_t b) { return (b + 255) & ~(size_t)255; }
static size_t al16(size_t b) { return (b + 15) & ~(size_t)15; }

/* per row: the span from the row's maximum bits and lowest set bit (its ka, minus that bit,
 * is set on the device: ozb_op_crcr_ka); 0 where a row holds Inf or NaN or spans more than
 * CRCR_SPAN_MAX bits */
static int row_spans(const uint64_t *mx, const int32_t *low, int64_t rows, int *span_max)
{
    for (int64_t i = 0; i < rows; i++) {
        if (mx[i] == 0) continue;                          /* a zero row: C' gets nothing from it */
        if (mx[i] >= 0x7ff0000000000000ull) return 0;
        double v;
        memcpy(&v, &mx[i], sizeof v);
        const int span = ozb_ilogb(v) + 1 - low[i];
        if (span > CRCR_SPAN_MAX) return 0;
        if (span > *span_max) *span_max = span;
    }
    return 1;
}

static void crcr_consts(int s, ozb_op_crcr_consts *kc)
{
    garner_t G;
    ozb_garner_init(s, &G);
    memset(kc, 0, sizeof *kc);
    kc->s = s;
    const int lm = ozb_log2M_of(s);
    kc->L = lm / 64 + 2 < OZB_OP_CRCR_LIMBS ? lm / 64 + 2 : OZB_OP_CRCR_LIMBS;
    for (int t = 0; t < s; t++) {
        kc->m[t] = ozb_crt_moduli[t];
        kc->md[t] = (double)ozb_crt_moduli[t];
        kc->mi[t] = 1.0 / kc->md[t];
        kc->inv[t] = G.inv[t];
        for (int u = 0; u < t; u++) kc->P[u][t] = G.P[u][t];
    }
    memcpy(kc->M, G.M, sizeof kc->M);
    memcpy(kc->H, G.H, sizeof kc->H);
    /* Horner groups of up to seven moduli from the top (their product < 2^56), and the limbs
     * in use after group g: X < 2^(56 (g + 1)) */
    for (int t = s - 1; t >= 0; kc->ngroups++) {
        const int g = kc->ngroups;
        kc->ghi[g] = t;
        kc->gM[g] = 1;
        for (int c = 0; c < 7 && t >= 0; c++, t--) kc->gM[g] *= (uint64_t)ozb_crt_moduli[t];
        kc->glo[g] = t + 1;
        kc->glimbs[g] = (56 * (g + 1)) / 64 + 1 < kc->L ? (56 * (g + 1)) / 64 + 1 : kc->L;
    }
}

ozblas_status_t ozb_resident_crcr_run(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *plan)
{
    if (h->knobs.cuda_staged || h->knobs.no_crt || plan->mode != OZBLAS_MODE_CORRECTLY_ROUNDED || pr->n <= 8 || pr->c_host)
        return OZBLAS_STATUS_NOT_SUPPORTED;
    if (!isfinite(pr->alpha) || !isfinite(pr->beta)) return OZBLAS_STATUS_NOT_SUPPORTED;
    const double t0 = ozb_now();
    ozb_dev *dev = h->dev;
    const int64_t m = pr->m, n = pr->n, k = pr->k, mn = m + n;
    const int use_c = pr->beta != 0.0;
    const size_t pwb = (size_t)OZB_CRT_NMOD * OZB_OP_CRCR_SHMAX, M = (size_t)m, MN = (size_t)mn;
    /* device: what comes back (the rows' maxima and lowest bits, C's rows' Inf/NaN check),
     * laid out on the host as on the device so that it is one copy; ka and the certificate's
     * flag (set there from the maxima); scratch.  The constants and 2^sh mod m_t (s SHMAX bytes
     * used) in a slot of their own, kept between calls and sent only where s changes. */
    const size_t o_low = al256(8 * MN), o_cns = o_low + al256(4 * MN), o_ka = o_cns + al256(4 * M);
    const size_t o_ok = o_ka + al16(4 * MN), o_de = al256(o_ok + 16), o_ns = o_de + al256(4 * MN);
    const size_t o_cmx = o_ns + al256(4 * MN), o_clow = o_cmx + al256(8 * M), o_ce = o_clow + al256(4 * M);
    const size_t o_end = o_ce + al256(4 * M), kb_pw = al16(sizeof(ozb_op_crcr_consts));
    char *b0 = ozb_dev_buf(dev, OZB_DBUF_A2, o_end), *ck = ozb_dev_buf(dev, OZB_DBUF_CRCRK, kb_pw + pwb);
    char *hb = ozb_buf_get(h, OZB_BUF_HA, o_ka + kb_pw + pwb);
    if (!b0 || !ck || !hb) return OZBLAS_STATUS_ALLOC_FAILED;
    uint64_t *dmx = (uint64_t *)b0;
    int32_t *dlow = (int32_t *)(b0 + o_low), *dka = (int32_t *)(b0 + o_ka);
    uint8_t *dpw = (uint8_t *)(ck + kb_pw);
    ozb_op_crcr_consts *dk = (ozb_op_crcr_consts *)ck;
    int *dok = (int *)(b0 + o_ok);
    int32_t *de = (int32_t *)(b0 + o_de), *dns = (int32_t *)(b0 + o_ns);
    uint64_t *hmx = (uint64_t *)hb;
    int32_t *hlow = (int32_t *)(hb + o_low), *hcns = (int32_t *)(hb + o_cns);
    ozb_op_crcr_consts *hk = (ozb_op_crcr_consts *)(hb + o_ka);   /* what the constants' slot is sent (after what comes back) */
    uint8_t *hpw = (uint8_t *)(hb + o_ka + kb_pw);

    const int tok = ozb_dev_lock(dev);
    ozblas_status_t st = OZBLAS_STATUS_EXECUTION_FAILED;
    int saved = 0;
#define DEV(call) do { if ((call) != 0) goto out; } while (0)
    DEV(ozb_dev_meta(dev, &pr->a, m, k, k, 53, 0, dmx, dlow, de, dns));
    DEV(ozb_dev_meta(dev, &pr->b, n, k, k, 53, 0, dmx + m, dlow + m, de + m, dns + m));
    if (use_c) {                                     /* Inf/NaN in C: the slices' special rules */
        const ozb_view cv = { pr->c, pr->crs, pr->ccs };
        DEV(ozb_dev_meta(dev, &cv, m, n, n, 53, 0, (uint64_t *)(b0 + o_cmx), (int32_t *)(b0 + o_clow),
                         (int32_t *)(b0 + o_ce), (int32_t *)(b0 + o_cns)));
    }
    DEV(ozb_dev_get(dev, hb, o_ka, b0, o_ka, use_c ? o_cns + 4 * M : o_cns, 1));   /* one copy back */
    int spanA = INT32_MIN, spanB = INT32_MIN;
    if (!row_spans(hmx, hlow, m, &spanA) || !row_spans(hmx + m, hlow + m, n, &spanB)) {
        st = OZBLAS_STATUS_NOT_SUPPORTED;
        goto out;
    }
    for (int64_t i = 0; use_c && i < m; i++) if (hcns[i] < 0) { st = OZBLAS_STATUS_NOT_SUPPORTED; goto out; }
    int s = 2;
    if (spanA != INT32_MIN && spanB != INT32_MIN) {
        int lk = 0;
        while (((int64_t)1 << lk) < k) lk++;
        while (s <= OZB_CRT_NMOD && ozb_log2M_of(s) - 1 < spanA + spanB + lk) s++;
        if (s > OZB_CRT_NMOD) { st = OZBLAS_STATUS_NOT_SUPPORTED; goto out; }
    }
    DEV(ozb_dev_crcr_ka(dev, dmx, dlow, dka, dok, (int64_t)mn));
    int *held = ozb_dev_buf_tag(dev, OZB_DBUF_CRCRK);   /* the s whose constants the slot holds */
    if (*held != s) {
        crcr_consts(s, hk);
        for (int t = 0; t < s; t++) {                    /* 2^sh mod m_t */
            int32_t p = 1 % ozb_crt_moduli[t];
            for (int sh = 0; sh < OZB_OP_CRCR_SHMAX; sh++) {
                hpw[t * OZB_OP_CRCR_SHMAX + sh] = (uint8_t)p;
                p = 2 * p % ozb_crt_moduli[t];
            }
        }
        const size_t go = kb_pw + (size_t)s * OZB_OP_CRCR_SHMAX;
        *held = 0;
        DEV(ozb_dev_put(dev, ck, go, hk, go, go, 1));   /* the one copy there, where s changed */
        *held = s;
    }
    const double t1 = ozb_now();

    const int64_t kb = k < OZB_CRT_KBLOCK ? k : OZB_CRT_KBLOCK, nkb = (k + kb - 1) / kb, kbp = (kb + 15) & ~(int64_t)15;
    const ozb_dev_tilebuf tbuf[3] = {
        { OZB_DBUF_A, (double)s * (double)kbp, 0.0, 0.0, 0.0 }, { OZB_DBUF_B, 0.0, (double)s * (double)kbp, 0.0, 0.0 },
        { OZB_DBUF_C, 0.0, 0.0, 4.0 * s * (nkb > 1 ? 2 : 1), 0.0 },
    };
    void *tp[3];
    int64_t mb, nb;
    if ((st = ozb_dev_tiles(dev, ozb_workspace_limit(h), m, n, INT32_MAX, INT32_MAX, tbuf, 3, &mb, &nb, tp)) != OZBLAS_STATUS_SUCCESS)
        goto out;
    st = OZBLAS_STATUS_EXECUTION_FAILED;
    int8_t *RA = tp[0], *RB = tp[1];
    int32_t *acc = tp[2];
    /* C read and written by several steps: saved, put back if a step fails or an element
     * declines (then the slices read it) */
    if (use_c || mb < m || nb < n) {
        if ((st = ozb_stage_save_c(h, pr)) != OZBLAS_STATUS_SUCCESS) goto out;
        saved = 1;
        st = OZBLAS_STATUS_EXECUTION_FAILED;
    }
    ozb_op_crt_res rc[2][(OZB_CRT_NMOD + CRCR_GROUP - 1) / CRCR_GROUP];
    const int ng = (s + CRCR_GROUP - 1) / CRCR_GROUP;
    for (int side = 0; side < 2; side++)
        for (int g = 0; g < ng; g++) {
            ozb_op_crt_res *r = &rc[side][g];
            ozb_crt_resconst_init(g * CRCR_GROUP, s - g * CRCR_GROUP < CRCR_GROUP ? s - g * CRCR_GROUP : CRCR_GROUP, r);
            r->ka = side ? dka + m : dka;            /* the exact scaling */
            r->pw = dpw + (size_t)g * CRCR_GROUP * OZB_OP_CRCR_SHMAX;
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
                const double ta = ozb_now();
                for (int g = 0; g < ng; g++) {
                    const size_t off = (size_t)g * CRCR_GROUP * (size_t)kbp;
                    DEV(ozb_dev_crt_residues(dev, &pr->a, i0, mbb, l0, kbb, NULL, NULL, &rc[0][g], kbp, RA + off * (size_t)mbb));
                    DEV(ozb_dev_crt_residues(dev, &pr->b, j0, nbb, l0, kbb, NULL, NULL, &rc[1][g], kbp, RB + off * (size_t)nbb));
                }
                const double tb = ozb_now();
                tres += tb - ta;
                if (npb) break;                            /* by blocks, below */
                int32_t *dst = kk ? later : acc;
                DEV(ozb_dev_gemm_batched(dev, OZB_DT_S8, 1, 0, mbb, nbb, kbp, RA, kbp, mbb * kbp, RB, kbp, nbb * kbp,
                                         dst, mbb, ne, s));
                calls++;
                if (kk) for (int t = 0; t < s; t++)
                    DEV(ozb_dev_crt_fold(dev, acc + (size_t)t * ne, later + (size_t)t * ne, ne, ozb_crt_moduli[t]));
                tmul += ozb_now() - tb;
            }
            /* the whole tile, or each block (pblocks.h): its products, then its output */
            const ozb_ptile tile = { RA, RB, mbb, nbb, kbp, k, s, acc };
            for (int u = 0; u < (npb ? npb : 1); u++) {
                ozb_pblock b;
                DEV(ozb_ptile_block(dev, &tile, pb, npb, u, &b, &calls, &flops, &tmul));
                const int64_t rows = b.r1 - b.r0, cols = b.c1 - b.c0, nq = rows * cols;
                const double te = ozb_now();
                const ozb_op_crcr_args g = { acc, nq, rows, cols, i0 + b.r0, j0 + b.c0, dka, dka + m, pr->alpha,
                                             pr->beta, pr->c, pr->crs, pr->ccs, use_c, dk, dok };
                DEV(ozb_dev_crcr_recon(dev, &g));
                tsum += ozb_now() - te;
            }
        }
    }
    int ok = 0;
    DEV(ozb_dev_get(dev, &ok, 4, dok, 4, 4, 1));
    if (!ok) { st = OZBLAS_STATUS_NOT_SUPPORTED; goto out; }   /* C put back below */
    st = OZBLAS_STATUS_SUCCESS;
    ozblas_info_t *info = ozb_info_begin(h, OZBLAS_SUM_NEARSUM, 0);
    ozb_info_crt(info, s, m, n, k, calls, calls * s, (t1 - t0) + tres, tmul, tsum);
    ozb_info_tiles(info, m, n, mb, nb, kb);
    info->gemm_flops = flops;
    info->seconds_total = ozb_now() - t0;
out:
#undef DEV
    if (st != OZBLAS_STATUS_SUCCESS && saved) ozb_stage_restore_c(h, pr);
    ozb_dev_unlock(dev, tok);
    return st;
}
