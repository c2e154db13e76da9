/* The device-resident engine of CUDA handles (resident.h): the operands stay on the GPU.
 *
 *   metadata   per row and k-block: grid exponent and slice count (kernels, order-free
 *              maxima and minima; ozb_op_meta_finish stops where split.c stops);
 *   split      op(B)'s slices, and op(A)'s for GEMM shapes, written in the format's number
 *              type (double, binary16, int8) with k padded for the tensor cores;
 *   products   one strided batched GEMM over the k-blocks per slice group (cuBLAS), or for
 *              DOT/GEMV the fused kernel, which splits op(A) in registers and never stores
 *              its slices;
 *   sum        one thread per output element walks its partial products in the CPU
 *              pipeline's order: RN(exact) by the long accumulator, or the fixed-order
 *              binary64 sum (kernels/ozb_sum_ops.h), alpha and beta C on the device.
 *
 * The slices are the CPU's (same grid, same count, same digits), every product is exact, and
 * the sum runs the CPU's code on the same terms, so each element has the CPU handle's bits.
 * It computes the modes Scheme I computes, CORRECTLY_ROUNDED and FIXED (DOUBLE mode reaches
 * it as CORRECTLY_ROUNDED: the call's plan, src/dispatch).  What it does not take (another
 * mode, the CRT format, Inf/NaN anywhere, rows needing more slices than OZB_RES_MAXS, a
 * workspace limit too small for one output element) goes, before anything is written, to the
 * staged path (stage.c), which computes on the host with the CPU's code. */
#include "core/info.h"
#include "cuda/resident.h"
#include "cuda/dev.h"
#include "cuda/stage.h"
#include "../../kernels/ozb_kernels.h"
#include "core/format.h"
#include "core/tiles.h"
#include "../../kernels/ozb_kernel_ops.h"
#include <math.h>
#include <stdlib.h>

#define OZB_RES_MAXS 40    /* slices per row beyond which the staged path is used */

static int64_t pad16(int64_t k) { return (k + 15) & ~(int64_t)15; }

static ozb_dt dtype_of(ozblas_engine_t e) { return e == OZBLAS_ENGINE_FP16 ? OZB_DT_F16 : e == OZBLAS_ENGINE_INT8 ? OZB_DT_S8 : OZB_DT_F64; }

static size_t ebytes(ozb_dt t) { return t == OZB_DT_F64 ? 8 : t == OZB_DT_F16 ? 2 : 1; }

static size_t al256(size_t b) { return (b + 255) & ~(size_t)255; }

/* The device buffers of one call: metadata, then the per-tile slices, products and output. */
typedef struct {
    int32_t *eA, *nsA, *eB, *nsB, *eC, *nsC;
    uint64_t *mx;
    int32_t *low;
} meta_t;

static int max_ns(const int32_t *ns, int64_t n, int *bad)
{
    int s = 0;
    for (int64_t q = 0; q < n; q++) {
        if (ns[q] < 0) *bad = 1;
        s = ns[q] > s ? ns[q] : s;
    }
    return s;
}

ozblas_status_t ozb_resident_run(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *plan)
{
    if (h->knobs.cuda_staged) return OZBLAS_STATUS_NOT_SUPPORTED;   /* a test knob: both paths, same bits */
    const ozblas_mode_t mode = plan->mode;
    const ozblas_engine_t eng = plan->engine;
    const int fixed = mode == OZBLAS_MODE_FIXED;
    if (!fixed && mode != OZBLAS_MODE_CORRECTLY_ROUNDED) return OZBLAS_STATUS_NOT_SUPPORTED;
    if (eng != OZBLAS_ENGINE_FP64 && eng != OZBLAS_ENGINE_FP16 && eng != OZBLAS_ENGINE_INT8) return OZBLAS_STATUS_NOT_SUPPORTED;
    if (!isfinite(pr->alpha) || !isfinite(pr->beta)) return OZBLAS_STATUS_NOT_SUPPORTED;
    ozb_format fmt_row;
    if (!ozb_format_for(h, eng, &fmt_row)) return OZBLAS_STATUS_NOT_SUPPORTED;
    const ozb_format *fmt = &fmt_row;

    const double t0 = ozb_now();
    ozb_dev *dev = h->dev;
    const int64_t m = pr->m, n = pr->n, k = pr->k;
    const int64_t kblock = pr->kblock < fmt->kblock_max ? pr->kblock : fmt->kblock_max;
    const int64_t kb = kblock < k ? kblock : k, nkb = (k + kb - 1) / kb;
    const int beta = fmt->bits(kb);
    const int limit = fixed ? h->split_count : 0;
    const int use_c = pr->beta != 0.0 && !pr->c_host;
    const int64_t mn = m > n ? m : n;

    /* metadata of op(A), op(B)^T and, where it is read, C (Inf/NaN check) */
    const size_t nA = (size_t)(nkb * m), nB = (size_t)(nkb * n), nC = use_c ? (size_t)m : 0;
    const size_t nmx = (size_t)(nkb * mn) > nC ? (size_t)(nkb * mn) : nC;
    /* the slice counts last, read back in one copy into a host buffer laid out alike */
    const size_t o_nsB = al256(4 * nA), o_nsC = o_nsB + al256(4 * nB), nsbytes = o_nsC + 4 * nC;
    const size_t mbytes = al256(8 * nmx) + al256(4 * nmx) + al256(4 * nA) + al256(4 * nB) + al256(4 * nC + 4) + al256(nsbytes);
    char *mb0 = ozb_dev_buf(dev, OZB_DBUF_A2, mbytes);
    char *hq = ozb_buf_get(h, OZB_BUF_HA, nsbytes + 64);
    if (!mb0 || !hq) return OZBLAS_STATUS_ALLOC_FAILED;
    meta_t M;
    char *q = mb0;
    M.mx = (uint64_t *)q; q += al256(8 * nmx);
    M.low = (int32_t *)q; q += al256(4 * nmx);
    M.eA = (int32_t *)q; q += al256(4 * nA);
    M.eB = (int32_t *)q; q += al256(4 * nB);
    M.eC = (int32_t *)q; q += al256(4 * nC + 4);
    M.nsA = (int32_t *)q;
    M.nsB = (int32_t *)(q + o_nsB);
    M.nsC = (int32_t *)(q + o_nsC);
    const int32_t *hnsA = (const int32_t *)hq, *hnsB = (const int32_t *)(hq + o_nsB), *hnsC = (const int32_t *)(hq + o_nsC);
    const int tok = ozb_dev_lock(dev);
    ozblas_status_t st = OZBLAS_STATUS_EXECUTION_FAILED;
    int saved = 0;                       /* C's window saved (several tiles) */
#define DEV(call) do { if ((call) != 0) goto out; } while (0)
    DEV(ozb_dev_meta(dev, &pr->a, m, k, kb, beta, limit, M.mx, M.low, M.eA, M.nsA));
    DEV(ozb_dev_meta(dev, &pr->b, n, k, kb, beta, limit, M.mx, M.low, M.eB, M.nsB));
    if (use_c) {
        const ozb_view cv = { pr->c, pr->crs, pr->ccs };
        DEV(ozb_dev_meta(dev, &cv, m, n, n, beta, 0, M.mx, M.low, M.eC, M.nsC));
    }
    DEV(ozb_dev_get(dev, hq, nsbytes, M.nsA, nsbytes, nsbytes, 1));
    int bad = 0;
    const int sa = max_ns(hnsA, (int64_t)nA, &bad);
    const int sb = max_ns(hnsB, (int64_t)nB, &bad);
    (void)max_ns(hnsC, (int64_t)nC, &bad);
    if (bad) { st = OZBLAS_STATUS_NOT_SUPPORTED; goto out; }
    const int fused = n == 1 && sa <= OZB_OP_FUSED_MAXS && sb <= OZB_OP_FUSED_MAXS && !h->knobs.cuda_no_fused;
    if (sa > OZB_RES_MAXS || sb > OZB_RES_MAXS) { st = OZBLAS_STATUS_NOT_SUPPORTED; goto out; }

    /* tiles of mb x nb outputs whose slices and products fit the workspace limit
     * (tiling never changes a bit: an element depends on its row and column alone) */
    const ozb_dt type = fused ? OZB_DT_F64 : dtype_of(eng);
    const int64_t kbp = type == OZB_DT_F64 ? kb : pad16(kb);
    /* slices of a side whose rows are contiguous in memory (op(A) = A, op(B) = B^T, column-major)
     * are written row-fastest, so that the split's writes are as coalesced as its reads; the
     * GEMM takes them untransposed.  INT8 keeps the TN layout of the integer tensor cores. */
    const int rowA = !fused && type != OZB_DT_S8 && pr->a.rs == 1 && m > 1;
    const int rowB = !fused && type != OZB_DT_S8 && pr->b.rs == 1 && n > 1;
    const size_t eb = ebytes(type), ob = fused || type == OZB_DT_F64 ? 8 : 4;
    /* a DOT splits both sides in registers: no slices stored (ozb_dev_fused_dot) */
    const int dot = fused && m == 1;
    const double sA = fused ? 0.0 : (double)nkb * sa * kbp * eb, sB = dot ? 0.0 : (double)nkb * sb * kbp * (fused ? 8 : eb);
    const double pe = (double)nkb * sa * sb * ob;
    /* the exact sum's long accumulators are ozb_dev_sum's own scratch (at most 2^17 of 1.9 KB,
     * kernels/ozb_launch.h), outside the workspace limit like cuBLAS's workspace */
    const int exact = !fixed || h->summation == OZBLAS_SUM_NEARSUM;
    ozb_dev_tilebuf tbuf[3] = {
        { OZB_DBUF_B, 0.0, sB, 0.0, 8.0 },                 /* op(B)'s slices of a column tile */
        { OZB_DBUF_C, 0.0, 0.0, pe, 8.0 },                 /* the products */
    };
    int ntb = 2, iA = -1;
    if (sa && !fused) { iA = ntb; tbuf[ntb++] = (ozb_dev_tilebuf){ OZB_DBUF_A, sA, 0.0, 0.0, 0.0 }; }   /* op(A)'s slices */
    void *tp[3] = { NULL, NULL, NULL };
    int64_t mb, nb;
    /* a tile's batched GEMM has sa mb rows and up to sb nb columns: cuBLAS's int sizes */
    const int64_t mbmax = INT32_MAX / (sa > 0 ? sa : 1), nbmax = INT32_MAX / (sb > 0 ? sb : 1);
    if ((st = ozb_dev_tiles(dev, ozb_workspace_limit(h), m, n, mbmax, nbmax, tbuf, ntb, &mb, &nb, tp)) != OZBLAS_STATUS_SUCCESS)
        goto out;                                          /* NOT_SUPPORTED: the host blocks finer */
    void *SB = tp[0], *P = tp[1], *SA = iA >= 0 ? tp[iA] : NULL;
    double *dres = pr->c_host ? ozb_dev_buf(dev, OZB_DBUF_STAGE, 8) : NULL;
    st = OZBLAS_STATUS_EXECUTION_FAILED;
    if (pr->c_host && !dres) { st = OZBLAS_STATUS_ALLOC_FAILED; goto out; }
    /* several tiles write C one after another: C's window saved, put back if a step fails */
    if (!pr->c_host && (mb < m || nb < n)) {
        if ((st = ozb_stage_save_c(h, pr)) != OZBLAS_STATUS_SUCCESS) goto out;
        saved = 1;
        st = OZBLAS_STATUS_EXECUTION_FAILED;
    }

    ozb_prod_stats ps = {0, 0, 0.0};
    const int dfast = fixed && h->fast_mode ? h->split_count : 0;
    const int all_pairs = dfast <= 0 || dfast >= sa + sb - 1;
    double tsplit = 0.0, tmul = 0.0, tsum = 0.0;
    int64_t tiles = 0;
    for (int64_t j0 = 0; j0 < n; j0 += nb) {
        const int64_t nbb = nb < n - j0 ? nb : n - j0;
        if (sa && sb && !dot) {                          /* op(B)'s slices of this column tile, once */
            const double ts = ozb_now();
            DEV(ozb_dev_split(dev, type, &pr->b, j0, nbb, n, k, kb, beta, M.eB, M.nsB, sb, kbp, rowB, SB));
            tsplit += ozb_now() - ts;
        }
        for (int64_t i0 = 0; i0 < m; i0 += mb) {
            const int64_t mbb = mb < m - i0 ? mb : m - i0;
            const int64_t Mt = (int64_t)sa * mbb, Nt = (int64_t)sb * nbb;
            double ta = ozb_now();
            if (sa && sb) {
                if (fused) {
                    DEV(ozb_dev_zero(dev, P, 8 * (size_t)(nkb * Mt * Nt)));
                    if (dot) DEV(ozb_dev_fused_dot(dev, &pr->a, &pr->b, k, kb, beta, M.eA, M.nsA, sa, M.eB, M.nsB, sb, P));
                    else DEV(ozb_dev_fused(dev, &pr->a, i0, mbb, m, k, kb, beta, M.eA, M.nsA, sa, SB, sb, kbp, P));
                    ps.calls += 1; ps.pairs += (int64_t)sa * sb * nkb;
                    ps.flops += 2.0 * (double)Mt * (double)Nt * (double)k;
                } else {
                    DEV(ozb_dev_split(dev, type, &pr->a, i0, mbb, m, k, kb, beta, M.eA, M.nsA, sa, kbp, rowA, SA));
                    const double tb = ozb_now();
                    tsplit += tb - ta; ta = tb;
                    /* P_kk = A_kk^T B_kk for every k-block in one batched call: all pairs, or
                     * per slice t of op(A) the pairs u <= dfast - 1 - t (fast mode) */
                    const int64_t strA = (int64_t)sa * mbb * kbp, strB = (int64_t)sb * nbb * kbp, strP = Mt * Nt;
                    for (int t = 0; t < (all_pairs ? 1 : sa); t++) {
                        const int qn = all_pairs ? sb : (dfast - t < sb ? dfast - t : sb);
                        if (qn <= 0) break;
                        const int64_t rows = all_pairs ? Mt : mbb;
                        /* slices stored row-fastest are the GEMM's N operand (A) or T operand (B) */
                        DEV(ozb_dev_gemm_batched(dev, type, !rowA, rowB, rows, (int64_t)qn * nbb, kbp,
                                                 (const char *)SA + eb * (size_t)(rowA ? t * mbb : t * mbb * kbp),
                                                 rowA ? Mt : kbp, strA, SB, rowB ? Nt : kbp, strB,
                                                 (char *)P + ob * (size_t)(t * mbb), Mt, strP, nkb));
                        ps.calls += 1;
                        ps.pairs += (all_pairs ? (int64_t)sa * sb : qn) * nkb;
                        ps.flops += 2.0 * (double)rows * (double)(qn * nbb) * (double)k;
                    }
                }
            }
            const double tb = ozb_now();
            tmul += tb - ta;
            ozb_op_sum_args g = {
                P, fused || type == OZB_DT_F64 ? 0 : type == OZB_DT_F16 ? 1 : 2,
                Mt > 0 ? Mt : 1, Nt > 0 ? Nt : 1, mbb, nbb, i0, j0, m, n, (int)nkb, beta,
                M.eA, M.nsA, M.eB, M.nsB,
                exact, fmt->exact_level_sums, dfast,
                pr->alpha, pr->beta, pr->c_host ? dres : pr->c, pr->c_host ? 0 : pr->crs, pr->c_host ? 0 : pr->ccs, use_c,
            };
            if (!sa || !sb) g.nkb = 0;                   /* no slices: every element is beta C (or 0) */
            DEV(ozb_dev_sum(dev, &g));
            tsum += ozb_now() - tb;
            tiles++;
        }
    }
    if (pr->c_host) DEV(ozb_dev_get(dev, pr->c, 8, dres, 8, 8, 1));
    else DEV(ozb_dev_sync(dev));
    st = OZBLAS_STATUS_SUCCESS;

    ozblas_info_t *info = ozb_info_begin(h, fixed ? h->summation : OZBLAS_SUM_NEARSUM, beta);
    info->slices_a = sa;
    info->slices_b = sb;
    info->fast_mode = dfast > 0;
    info->split_count = fixed ? h->split_count : 0;
    info->gemm_calls = ps.calls;
    info->slice_products = ps.pairs;
    info->gemm_flops = ps.flops;
    info->blocks = tiles;
    info->fused = fused;
    info->block_m = mb; info->block_n = nb; info->block_k = kb;
    info->seconds_split = tsplit;
    info->seconds_multiply = tmul;
    info->seconds_sum = tsum;
    info->seconds_total = ozb_now() - t0;
out:
#undef DEV
    if (st != OZBLAS_STATUS_SUCCESS && saved) ozb_stage_restore_c(h, pr);
    ozb_dev_unlock(dev, tok);
    return st;
}
