/* CORRECTLY_ROUNDED DOT and GEMV on the device by certified error-free sums
 * (kernels/ozb_eft_ops.h): every product x y = p + e by TwoProduct, the p chained by TwoSum,
 * the errors summed approximately with a rigorous bound, and a row's result returned only
 * where the bound proves it is RN(exact).  About 15 floating-point operations and 16 bytes
 * read per multiply-add, so the call streams op(A) once at memory speed (the slice path reads
 * it once too, but spends 5-8 slices' worth of FP64 digit products per element: measured
 * 23-28x cuBLAS on an H100, bench/results/gpu-h100-2026-11-24.md).
 *
 * Correctly rounded results are unique, so a certified row has exactly the bits the slice
 * path, the CPU and any other order of partial sums would give.  If any row is not
 * certified (cancellation beyond about 2^40 of its terms, products outside [2^-960, 2^960],
 * Inf or NaN, an exact zero result), nothing has been written and the call declines
 * (NOT_SUPPORTED): the slice path (resident.c) then computes the whole call.  The geometry
 * (ozb_kl_eft_plan) depends on the shape only. */
#include "cuda/resident.h"
#include "cuda/dev.h"
#include "core/info.h"
#include "../../kernels/ozb_launch.h"

/* the buffers of one call: partial chains, then the flag (an int, 8 bytes) and the results,
 * so that a DOT reads its flag and result back in one 16-byte copy, then (GEMV) y as it was */
static size_t part_bytes(int64_t m, int64_t nq) { return ((size_t)m * (size_t)nq * sizeof(ozb_eft_acc) + 255) & ~(size_t)255; }

ozblas_status_t ozb_resident_eft_run(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *plan)
{
    if (h->knobs.cuda_staged || h->knobs.cuda_no_eft || plan->mode != OZBLAS_MODE_CORRECTLY_ROUNDED || pr->n != 1)
        return OZBLAS_STATUS_NOT_SUPPORTED;
    if (pr->c_host && pr->beta != 0.0) return OZBLAS_STATUS_NOT_SUPPORTED;
    const double t0 = ozb_now();
    const int64_t m = pr->m, k = pr->k;
    const int rows = pr->a.rs == 1 && m > 1;            /* neighbouring rows neighbouring in memory */
    const ozb_kl_eft_geom geo = ozb_kl_eft_plan(m, k, rows);
    if (geo.depth > OZB_EFT_DEPTH_MAX) return OZBLAS_STATUS_NOT_SUPPORTED;
    const size_t pb = part_bytes(m, geo.nq), bytes = pb + 8 + 8 * (size_t)m * (pr->c_host ? 1 : 2);
    ozb_dev *dev = h->dev;
    if (bytes > ozb_dev_limit(dev, ozb_workspace_limit(h), 1u << OZB_DBUF_C)) return OZBLAS_STATUS_NOT_SUPPORTED;

    const int tok = ozb_dev_lock(dev);
    ozblas_status_t st = OZBLAS_STATUS_EXECUTION_FAILED;
    char *buf = ozb_dev_buf(dev, OZB_DBUF_C, bytes);
    int *bad = (int *)(buf + pb);
    double *res = (double *)(buf + pb + 8), *kept = res + m;
    const ozb_op_eft_args g = {
        pr->a.p, pr->a.rs, pr->a.cs, pr->b.p, pr->b.cs, m, k, geo.L, geo.nq,
        (double)geo.depth, pr->alpha, pr->beta, pr->c_host ? NULL : pr->c, pr->crs, rows,
    };
    union { double d[2]; int32_t i; } back;             /* the flag, then a DOT's result */
    if (!buf) { st = OZBLAS_STATUS_NOT_SUPPORTED; goto out; }   /* the slice path may fit */
    /* y kept, the results put over it unless a row was declined (the put reads the flag on the
     * device), then the flag read back: the call's one wait, after every launch.  Where that
     * read fails y is put back as it was (a failed call leaves its output untouched). */
    if (ozb_dev_zero(dev, bad, 4) || ozb_dev_eft_dot(dev, &g, buf, res, bad) ||
        (!pr->c_host &&
         (ozb_dev_eft_keep(dev, kept, m, pr->c, pr->crs) || ozb_dev_eft_put(dev, res, m, pr->c, pr->crs, bad)))) {
        ozb_dev_sync(dev);                  /* what was queued is done with A, x and y on return */
        goto out;
    }
    if (ozb_dev_get(dev, &back, pr->c_host ? 16 : 4, bad, 16, pr->c_host ? 16 : 4, 1)) {
        /* y may hold the results: put back as it was, or, where that fails too, PARTIAL */
        if (!pr->c_host && (ozb_dev_eft_put(dev, kept, m, pr->c, pr->crs, NULL) || ozb_dev_sync(dev)))
            st = OZBLAS_STATUS_PARTIAL;
        goto out;
    }
    if (back.i) { st = OZBLAS_STATUS_NOT_SUPPORTED; goto out; }   /* nothing written */
    if (pr->c_host) *pr->c = back.d[1];
    st = OZBLAS_STATUS_SUCCESS;
    ozblas_info_t *info = ozb_info_begin(h, OZBLAS_SUM_NEARSUM, 53);
    info->slices_a = info->slices_b = 1;                /* the operands themselves, 53 bits */
    info->blocks = geo.nq;
    info->block_m = m; info->block_n = 1; info->block_k = geo.L;
    info->fused = 2;                                    /* error-free dot products, certified */
    info->seconds_sum = info->seconds_total = ozb_now() - t0;
out:
    ozb_dev_unlock(dev, tok);
    return st;
}
