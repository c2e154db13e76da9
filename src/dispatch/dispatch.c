/* Dispatch of one routine call (drivers -> ozb_run): the mode and format the call computes
 * with, then the method: the CUDA device engines, the CRT (src/crt), the fused DOT/GEMV kernels
 * (src/fused) or Ozaki scheme I (src/scheme1).  Every method gives the configuration's bits. */
#include "core/pipeline.h"
#include "core/format.h"
#include "crt/crt.h"
#include "cuda/dev.h"
#include "cuda/resident.h"
#include "cuda/stage.h"
#include "fused/fused.h"
#include "scheme1/scheme1.h"

/* Correctly rounded DOT and GEMV go to the fused kernels (src/fused) first; the rows they
 * cannot certify (special values, extreme ranges, undecided roundings) are computed here,
 * in runs of consecutive rows.  Both give RN(exact), so which path a row takes never
 * changes a bit. */
static ozblas_status_t run(ozblas_handle_t h, const ozb_problem *pr)
{
    /* CRT_INT8: FIXED and DOUBLE through the scheme (INT8 slices where it does not reach);
     * CORRECTLY_ROUNDED GEMM through it too, DOT/GEMV through the fused FP64 kernels, which
     * are faster for one column (the bits are the same) */
    const int crt_cr = h->run_mode == OZBLAS_MODE_CORRECTLY_ROUNDED && pr->n > 8;
    /* CORRECTLY_ROUNDED GEMM with the default FP64 format also goes through the CRT where
     * oneDNN is built in: the result is unique, and from 64^3 on it is faster than the lazy
     * FP64 slices (measured: 300^3 9.2 against 20.6 ms, 2048^3 0.80 against 2.34 s).
     * OZBLAS_NO_CRT=1 keeps the slices (a test knob: both paths must give the same bits). */
    const int crt_default_cr = crt_cr && h->engine == OZBLAS_ENGINE_FP64 && ozb_format_for(h, OZBLAS_ENGINE_INT8) && ozb_int8_fast(h) &&
                               (double)pr->m * (double)pr->n * (double)pr->k >= 262144.0 && !h->knobs.no_crt;
    if ((h->engine == OZBLAS_ENGINE_CRT_INT8 && (h->run_mode != OZBLAS_MODE_CORRECTLY_ROUNDED || crt_cr)) || crt_default_cr) {
        int nt = ozb_threads(h);
        if ((double)pr->m * (double)pr->n * (double)pr->k < 65536.0) nt = 1;
        const double t0 = ozb_now();
        ozblas_status_t st = crt_cr ? ozb_crt_cr_run(h, pr, nt) : ozb_crt_run(h, pr, nt);
        h->info.seconds_total = ozb_now() - t0;
        if (st != OZBLAS_STATUS_NOT_SUPPORTED) return st;
        if (!crt_cr) h->run_engine = OZBLAS_ENGINE_INT8;   /* out of the scheme's reach: INT8 slices */
    }
    if (!ozb_fused_eligible(h, pr)) return ozb_scheme1_run(h, pr);
    const double t_start = ozb_now();
    int nt = ozb_threads(h);
    if ((double)pr->m * (double)pr->n * (double)pr->k < 65536.0) nt = 1;
    const uint8_t *fail;
    int64_t nfail;
    ozblas_status_t st = ozb_fused_cr(h, pr, nt, &fail, &nfail);
    if (st != OZBLAS_STATUS_SUCCESS) return st;
    ozblas_info_t fi = h->info;
    for (int64_t i = 0; i < pr->m && nfail > 0; i++) {
        if (!fail[i]) continue;
        int64_t j = i;
        while (j < pr->m && fail[j]) j++;
        ozb_problem sub = *pr;
        sub.m = j - i;
        sub.a.p += i * pr->a.rs;
        sub.c += i * pr->crs;
        st = ozb_scheme1_run(h, &sub);
        if (st != OZBLAS_STATUS_SUCCESS) return st;
        fi.gemm_calls += h->info.gemm_calls;
        fi.slice_products += h->info.slice_products;
        fi.gemm_flops += h->info.gemm_flops;
        fi.exact_fallbacks += h->info.exact_fallbacks;
        fi.slices_a = fi.slices_a > h->info.slices_a ? fi.slices_a : h->info.slices_a;
        fi.slices_b = fi.slices_b > h->info.slices_b ? fi.slices_b : h->info.slices_b;
        fi.seconds_split += h->info.seconds_split;
        fi.seconds_multiply += h->info.seconds_multiply;
        fi.seconds_sum += h->info.seconds_sum;
        i = j;
    }
    fi.seconds_total = ozb_now() - t_start;
    h->info = fi;
    return OZBLAS_STATUS_SUCCESS;
}

/* DOUBLE mode for DOT and GEMV (one output column) with FP64 slices is computed correctly
 * rounded: the fused kernels do that with the same four slices per side that Algorithm 3
 * picked for these shapes, in a third to a half of the time of the GEMM-ized DOUBLE path
 * (bench/results), and a correctly rounded result meets DOUBLE's bound.  Every path
 * (fused, pipeline) then computes the same unique value, so DOUBLE results stay identical
 * across paths, threads and backends.  The other formats keep Algorithm 3. */
static ozblas_mode_t effective_mode(ozblas_handle_t h, const ozb_problem *pr)
{
    if (h->mode == OZBLAS_MODE_DOUBLE && h->engine == OZBLAS_ENGINE_FP64 && pr->n == 1)
        return OZBLAS_MODE_CORRECTLY_ROUNDED;
    return h->mode;
}

/* The slice format a call computes with: the handle's, except that CORRECTLY_ROUNDED with
 * CRT_INT8 runs the FP64 slices where the CRT does not (DOT/GEMV shapes, spans beyond the
 * moduli table, Inf/NaN): the result is unique, so the bits are the same. */
static ozblas_engine_t effective_engine(ozblas_handle_t h)
{
    if (h->engine == OZBLAS_ENGINE_CRT_INT8 && h->run_mode == OZBLAS_MODE_CORRECTLY_ROUNDED) return OZBLAS_ENGINE_FP64;
    return h->engine;
}

static ozblas_status_t run_host(ozblas_handle_t h, const ozb_problem *pr)
{
    h->run_mode = effective_mode(h, pr);
    h->run_engine = effective_engine(h);
    return run(h, pr);
}

/* A device handle computes on the device where the resident engine can (src/cuda/resident.c);
 * elsewhere its operands are brought to the host around the same computation as a CPU
 * handle's (src/cuda/stage.c), with the products on the device. */
ozblas_status_t ozb_run(ozblas_handle_t h, const ozb_problem *pr)
{
    if (!h->dev) return run_host(h, pr);
    /* the device-resident engine first (cuda/resident.c); what it does not take is staged */
    h->run_mode = effective_mode(h, pr);
    h->run_engine = effective_engine(h);
    ozblas_status_t st = OZBLAS_STATUS_NOT_SUPPORTED;
    if (h->run_engine == OZBLAS_ENGINE_CRT_INT8) {            /* FIXED, DOUBLE (CR runs FP64 slices) */
        int to_int8 = 0;
        st = ozb_resident_crt_run(h, pr, &to_int8);
        if (st == OZBLAS_STATUS_NOT_SUPPORTED && to_int8) h->run_engine = OZBLAS_ENGINE_INT8;   /* as run() */
    }
    if (st == OZBLAS_STATUS_NOT_SUPPORTED && h->run_engine != OZBLAS_ENGINE_CRT_INT8) st = ozb_resident_run(h, pr);
    return st == OZBLAS_STATUS_NOT_SUPPORTED ? ozb_stage_run(h, pr, run_host) : st;
}

void ozb_info_reset(ozblas_handle_t h)
{
    memset(&h->info, 0, sizeof h->info);
    h->info.mode = h->mode;
}

ozblas_status_t ozb_scale_c(ozblas_handle_t h, double *c, int64_t crs, int64_t ccs, int64_t m, int64_t n, double beta)
{
    ozb_info_reset(h);
    if (h->dev) {
        const int tok = ozb_dev_enter(h->dev);
        const int rc = ozb_dev_scale(h->dev, c, crs, ccs, m, n, beta);
        ozb_dev_leave(h->dev, tok);
        return rc ? OZBLAS_STATUS_EXECUTION_FAILED : OZBLAS_STATUS_SUCCESS;
    }
    if (beta == 1.0) return OZBLAS_STATUS_SUCCESS;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            double *p = c + i * crs + j * ccs;
            *p = beta == 0.0 ? 0.0 : beta * *p;
        }
    return OZBLAS_STATUS_SUCCESS;
}
