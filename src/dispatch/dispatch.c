/* Dispatch of one routine call (drivers -> ozb_run): the plan (the mode and format the call
 * computes with), then the method: a backend's device executor where it has one, else the
 * CRT (src/crt), the fused DOT/GEMV kernels (src/fused) or Ozaki scheme I (src/scheme1).
 * Every method gives the configuration's bits. */
#include "core/info.h"
#include "dispatch/dispatch.h"
#include "core/backend.h"
#include "core/fpenv.h"
#include "crt/crt.h"
#include "fused/fused.h"
#include "eft/eft_dot.h"
#include "fixed/fixed_dot.h"
#include "eft/eft_deep.h"
#include "exact/zero_products.h"
#include "eft/eft_scaled.h"
#include "exact/exact_small.h"
#include "exact/exact_tiny.h"
#include "eft/eft_dot_small.h"
#include "scheme1/scheme1.h"

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

/* A method that certifies what it can: RN(exact) written where certified, fail[i + j m] = 1
 * (column-major flags owned by the handle) where the element was left untouched. */
typedef ozblas_status_t (*certify_fn)(ozblas_handle_t h, const ozb_problem *pr, int nt, uint8_t **fail, int64_t *nfail);
/* A method that computes a whole (sub)problem. */
typedef ozblas_status_t (*method_fn)(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl);

/* Threads a call's arithmetic uses (core: ozb_threads_for).  One column costs more per
 * product than a GEMM's multiply-add in the error-free sums (seven vector operations per four
 * products, none of a GEMM's reuse): a GEMV's threads start at 2^13 products, a DOT's (whose
 * parallel path carries the general path's buffers and pieces) at 2^14.  Measured on the AVX2
 * EPYC, CR, 2 threads: DDOT 31623 17.6 -> 12.0 us (10000: 5.3 single, 8.0 us threaded, so
 * it stays single), DGEMV-T 128 11.8 -> 8.1 us.  Threads never change a bit. */
static int call_threads(ozblas_handle_t h, const ozb_problem *pr)
{
    const double work = (double)pr->m * (double)pr->n * (double)pr->k;
    return ozb_threads_for(h, pr->n > 1 ? work : pr->m > 1 ? 8.0 * work : 4.0 * work);
}

/* C's window copied to or from buf (m n doubles, column-major) */
static void copy_c(const ozb_problem *pr, double *buf, int to_buf)
{
    for (int64_t j = 0; j < pr->n; j++)
        for (int64_t i = 0; i < pr->m; i++) {
            double *c = pr->c + i * pr->crs + j * pr->ccs;
            if (to_buf) buf[i + j * pr->m] = *c; else *c = buf[i + j * pr->m];
        }
}

/* `rest` on the nfail flagged elements (fail[i + j m]), in runs of consecutive rows of a
 * column; each run's info added to fi */
static ozblas_status_t flagged_runs(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl, const uint8_t *fail,
                                    int64_t nfail, method_fn rest, ozblas_info_t *fi)
{
    for (int64_t j = 0; j < pr->n && nfail > 0; j++)
        for (int64_t i = 0; i < pr->m; i++) {
            if (!fail[i + j * pr->m]) continue;
            int64_t e = i;
            while (e < pr->m && fail[e + j * pr->m]) e++;
            ozb_problem sub = *pr;
            sub.m = e - i;
            sub.n = 1;
            sub.a.p += i * pr->a.rs;
            sub.b.p += j * pr->b.rs;
            sub.c += i * pr->crs + j * pr->ccs;
            const ozblas_status_t st = rest(h, &sub, pl);
            if (st != OZBLAS_STATUS_SUCCESS) return st;
            info_add(fi, &h->info);
            nfail -= e - i;
            i = e;
        }
    return OZBLAS_STATUS_SUCCESS;
}

/* `certify` first, then `rest` for the elements it left, in runs of consecutive rows of a
 * column; where it left more than a quarter of them (heavy cancellation: residuals), C is
 * restored and `rest` computes the whole call at once, which costs less than many small
 * calls.  Both give RN(exact): which one computes an element never changes a bit. */
static ozblas_status_t certified(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl, certify_fn certify, method_fn rest)
{
    const int timed = ozb_timed((double)pr->m * (double)pr->n * (double)pr->k);
    const double t_start = ozb_now_if(timed);
    const int64_t mn = pr->m * pr->n;
    /* C as it came in, where it is read: to be restored before a whole-call fallback */
    double *saved = NULL;
    if (pr->beta != 0.0 && mn > 1 && (saved = ozb_buf_get(h, OZB_BUF_CSAVE, sizeof(double) * (size_t)mn))) copy_c(pr, saved, 1);
    uint8_t *fail;
    int64_t nfail;
    ozblas_status_t st = certify(h, pr, call_threads(h, pr), &fail, &nfail);
    if (st != OZBLAS_STATUS_SUCCESS) return st;
    if (nfail > 0) {              /* exact zero sums (LAPACK's structured zeros): beta c */
        const int64_t z = ozb_exact_zero_products(pr, fail);
        nfail -= z;
        if (h->info.exact_fallbacks >= z) h->info.exact_fallbacks -= z;   /* the error-free sums count them */
    }
    if (nfail == 0) {                     /* the common case: no copy of the info */
        h->info.seconds_total = ozb_now_if(timed) - t_start;
        return OZBLAS_STATUS_SUCCESS;
    }
    ozblas_info_t fi = h->info;
    if (mn > 1 && nfail * 4 > mn && (pr->beta == 0.0 || saved)) {
        if (saved) copy_c(pr, saved, 0);
        st = rest(h, pr, pl);
        if (st != OZBLAS_STATUS_SUCCESS) return st;
        info_add(&fi, &h->info);
        nfail = 0;
    }
    st = flagged_runs(h, pr, pl, fail, nfail, rest, &fi);
    if (st != OZBLAS_STATUS_SUCCESS) return st;
    fi.seconds_total = ozb_now_if(timed) - t_start;
    h->info = fi;
    return OZBLAS_STATUS_SUCCESS;
}

/* Correctly rounded GEMM that the error-free sums do not take (workspace limit, engines
 * other than FP64 slices' CR): the CRT where oneDNN's int8 GEMM is exact and fast, before the
 * FP64 slices.  It is no longer the first method for CR GEMM: on an AVX512-VNNI EPYC (Zen 4,
 * 2 threads, phi = 1) the error-free sums are faster at every size (64^3 30 against 47 us,
 * 512^3 9.3 against 29 ms, 2048^3 0.63 against 0.82 s, 4096^3 4.6 against 5.3 s).  Returns
 * NOT_SUPPORTED where it does not apply (spans beyond the moduli table, special values,
 * small or one-column calls): the result is unique, so the method never changes a bit. */
static ozblas_status_t by_crt(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl)
{
    if (pl->mode != OZBLAS_MODE_CORRECTLY_ROUNDED || pl->engine != OZBLAS_ENGINE_FP64 || pr->n <= 8 ||
        h->knobs.no_crt || !ozb_format_for(h, OZBLAS_ENGINE_INT8, NULL) || !ozb_int8_fast(h) ||
        (double)pr->m * (double)pr->n * (double)pr->k < 262144.0)
        return OZBLAS_STATUS_NOT_SUPPORTED;
    return ozb_crt_cr_run(h, pr, call_threads(h, pr));
}

/* Correctly rounded DOT and GEMV: the fused split-and-accumulate kernels (src/fused/fused.c),
 * their undecided rows by Scheme I; GEMM the CRT first where it applies. */
static ozblas_status_t by_fused(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl)
{
    const ozblas_status_t st = by_crt(h, pr, pl);
    if (st != OZBLAS_STATUS_NOT_SUPPORTED) return st;
    if (!ozb_fused_eligible(h, pr, pl)) return ozb_scheme1_run(h, pr, pl);
    return certified(h, pr, pl, ozb_fused_cr, ozb_scheme1_run);
}

/* Short inner dimensions that the error-free sums could not certify (products spanning the
 * exponent range): every product split exactly and rounded once (src/exact/exact_small.c);
 * special values on to the fused kernels and Scheme I. */
static ozblas_status_t by_exact_small(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl)
{
    if (pr->k > OZB_EXACT_SMALL_K) return by_fused(h, pr, pl);
    return certified(h, pr, pl, ozb_exact_small, by_fused);
}

/* What the error-free sums leave undecided: the same sums with a second extraction level
 * (src/eft/eft_deep.c; results that cancel to ~2^-60 of their terms, residuals), then the
 * exact short sums, the fused kernels and Scheme I.  Only ever after ozb_eft_cr, so ozb_eft_eligible holds. */
static ozblas_status_t by_deep(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl)
{
    if (h->knobs.no_deep || !ozb_eft_deep_eligible(h, pr)) return by_exact_small(h, pr, pl);
    return certified(h, pr, pl, ozb_eft_deep_cr, by_exact_small);
}

/* What the error-free sums leave undecided because every product is tiny (operands near
 * 2^-970: LAPACK's scaling tests): the same sums on the call scaled by a power of two
 * (src/eft/eft_scaled.c), then the deep sums. */
static ozblas_status_t by_scaled(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl)
{
    if (!ozb_eft_scale_for(h, pr)) return by_deep(h, pr, pl);
    /* every product below 2^-898: what the scaled sums leave (a residual of tiny operands,
     * whose result is subnormal: LAPACK's dtrt tests) the unscaled deep sums cannot certify
     * either (their bound keeps 2^-1000 for underflow), so a short inner dimension goes
     * straight to the exact short sums (48x15x48: 254 -> 200 us) */
    return certified(h, pr, pl, ozb_eft_scaled_cr, pr->k <= OZB_EXACT_SMALL_K ? by_exact_small : by_deep);
}

/* What the error-free sums leave undecided with an inner dimension of at most OZB_EXACT_TINY_K
 * and alpha = +-1 (LAPACK's panel updates C - A B that cancel): the exact tiny sums
 * (src/exact/exact_tiny.c), which certify cancelling results too, then the scaled sums.  Not
 * first but for the shapes of ozb_exact_tiny_first: where nothing cancels the error-free sums
 * are faster elsewhere (AVX512-VNNI EPYC, 32x32x3: 8.3 against 6.0 us). */
static ozblas_status_t by_tiny(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl)
{
    if (!ozb_exact_tiny_eligible(pr)) return by_scaled(h, pr, pl);
    return certified(h, pr, pl, ozb_exact_tiny_cancel, by_scaled);
}

static ozblas_status_t by_eft_sums(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl)
{
    return certified(h, pr, pl, ozb_eft_cr, by_tiny);
}

/* Correctly rounded DOT, GEMV and GEMM: streaming error-free sums first (src/fused/eft_*.c;
 * the exact tiny sums first for the shapes of ozb_exact_tiny_first), what they cannot certify
 * (cancellation beyond about 2^-60 of the terms, special values, extreme exponents) by the
 * later stages above, the fused kernels and Scheme I. */
static ozblas_status_t by_eft(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl)
{
    if (!ozb_eft_eligible(h, pr, pl)) return by_fused(h, pr, pl);
    if (ozb_exact_tiny_first(pr)) return certified(h, pr, pl, ozb_exact_tiny, by_scaled);
    /* A C of fewer than 8 rows and at least 8 columns (a row vector or a few rows times a
     * matrix: NumPy's x @ A, short-wide products) worked transposed, C^T = op(B)^T op(A)^T: each
     * element is the same sum of the same products, so the same unique RN(exact) (and the same
     * special values), and the GEMM's strips of 8 rows run over n instead of each column being
     * a GEMV of fewer than 8 rows padded to a strip */
    if (pr->m < 8 && pr->n >= 8) {
        ozb_problem t = *pr;
        t.m = pr->n; t.n = pr->m;
        t.a = pr->b; t.b = pr->a;
        t.crs = pr->ccs; t.ccs = pr->crs;
        if (ozb_eft_eligible(h, &t, pl)) return by_eft_sums(h, &t, pl);
    }
    return by_eft_sums(h, pr, pl);
}

/* A small CORRECTLY_ROUNDED DOT (FP64 slices, one thread) that the short split leaves
 * undecided (a residual, an orthogonality check): the exact short sum, where its terms are
 * doubles, before the general path's second pass and deep sums (LAPACK's SVD tests: DOTs of
 * 16-47 products cancelling to 2^-53, 0.6-0.8 us each before).  by_eft is what run() reaches
 * for such a call past its first test (one column: no CRT; CORRECTLY_ROUNDED: not FIXED). */
static ozblas_status_t dot_undecided(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *plan)
{
    if (ozb_exact_small_dot(h, pr)) return OZBLAS_STATUS_SUCCESS;
    return by_eft(h, pr, plan);
}

/* DOUBLE CRT's nfail uncertified elements (fail flags, C untouched there), correctly rounded,
 * only those (the others keep the CRT's bits).  Few: in runs of rows of a column.  More than an
 * eighth (phi >= 2): the whole call on a copy of C, the flagged elements copied back (2048^3,
 * phi = 2: 1.1-1.4 s against 19.5 s in runs).  Both give RN(exact): the same bits. */
static ozblas_status_t crt_double_rest(ozblas_handle_t h, const ozb_problem *pr, const uint8_t *fail, int64_t nfail)
{
    const ozb_plan cr = { OZBLAS_MODE_CORRECTLY_ROUNDED, OZBLAS_ENGINE_FP64 };
    const int64_t m = pr->m, n = pr->n;
    ozblas_info_t fi = h->info;
    double *w = nfail * 8 > m * n ? ozb_buf_get(h, OZB_BUF_CRTCR, sizeof(double) * (size_t)(m * n)) : NULL;
    ozblas_status_t st;
    if (w) {
        ozb_problem whole = *pr;
        whole.c = w;
        whole.crs = 1;
        whole.ccs = m;
        if (pr->beta != 0.0) copy_c(pr, w, 1);
        st = by_eft(h, &whole, &cr);
        if (st == OZBLAS_STATUS_SUCCESS) {
            info_add(&fi, &h->info);
            for (int64_t j = 0; j < n; j++)
                for (int64_t i = 0; i < m; i++)
                    if (fail[i + j * m]) pr->c[i * pr->crs + j * pr->ccs] = w[i + j * m];
        }
    } else {
        st = flagged_runs(h, pr, &cr, fail, nfail, by_eft, &fi);
    }
    h->info = fi;
    return st;
}

static ozblas_status_t run(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *plan)
{
    /* a small CORRECTLY_ROUNDED DOT straight to the error-free sums: no workspace, no
     * eligibility walk (its bits are RN(exact) like every other path's) */
    if (pr->m == 1 && pr->n == 1 && plan->mode == OZBLAS_MODE_CORRECTLY_ROUNDED && plan->engine == OZBLAS_ENGINE_FP64 &&
        !h->knobs.no_dot2 && call_threads(h, pr) == 1) {
        if (ozb_eft_dot_small(h, pr)) {
            ozb_info_eft(h, pr, 0, 2, 0.0);
            return OZBLAS_STATUS_SUCCESS;
        }
        return dot_undecided(h, pr, plan);
    }
    ozb_plan pl = *plan;
    /* CRT_INT8: FIXED and DOUBLE through the scheme (INT8 slices where it does not reach);
     * CORRECTLY_ROUNDED GEMM through it too, DOT/GEMV through the FP64 kernels, which
     * are faster for one column (the bits are the same) */
    const int crt_cr = pl.mode == OZBLAS_MODE_CORRECTLY_ROUNDED && pr->n > 8;
    /* pl.engine is CRT_INT8 in FIXED and DOUBLE with CRT_INT8 (INT8 once a device's CRT found
     * the accuracy beyond the moduli table: the host's would too, same selection) */
    if (pl.engine == OZBLAS_ENGINE_CRT_INT8 || (h->engine == OZBLAS_ENGINE_CRT_INT8 && crt_cr)) {
        const double t0 = ozb_now();
        uint8_t *fail = NULL;
        int64_t nfail = 0;
        ozblas_status_t st = crt_cr ? ozb_crt_cr_run(h, pr, call_threads(h, pr)) : ozb_crt_run(h, pr, &pl, call_threads(h, pr), &fail, &nfail);
        if (st == OZBLAS_STATUS_SUCCESS && nfail > 0) {
            /* DOUBLE: the elements the CRT's count did not certify, correctly rounded (only
             * those: the others keep the CRT's bits, a function of their own row and column) */
            st = crt_double_rest(h, pr, fail, nfail);
        }
        h->info.seconds_total = ozb_now() - t0;
        if (st != OZBLAS_STATUS_NOT_SUPPORTED) return st;
        /* out of the scheme's reach (no exact INT8 product, non-finite alpha): FIXED on INT8
         * slices, DOUBLE correctly rounded (a function of each element's own row and column) */
        if (!crt_cr)
            pl = pl.mode == OZBLAS_MODE_FIXED ? (ozb_plan){ pl.mode, OZBLAS_ENGINE_INT8 }
                                              : (ozb_plan){ OZBLAS_MODE_CORRECTLY_ROUNDED, OZBLAS_ENGINE_FP64 };
    }
    /* FIXED DOT and GEMV with FP64 slices: the fused kernels, the pipeline's bits without its
     * slices */
    if (pl.mode == OZBLAS_MODE_FIXED && pr->n == 1) {
        const ozblas_status_t st = ozb_fixed_dot(h, pr, &pl, call_threads(h, pr));
        if (st != OZBLAS_STATUS_NOT_SUPPORTED) return st;
    }
    /* CORRECTLY_ROUNDED (and DOUBLE with FP64 slices) DOT, GEMV and GEMM: streaming
     * error-free sums (src/fused/eft_*.c), what they cannot certify by the fused kernels (one
     * column at a time) and Scheme I */
    return by_eft(h, pr, &pl);
}

/* DOUBLE mode with the slice formats (FP64, FP16, INT8) is computed correctly rounded, every
 * routine and shape: FP64 since CHANGELOG 2026-11-24 (it meets DOUBLE's bound and costs no more
 * than Algorithm 3's slices where measured: bench/results/sweep-*), FP16 and INT8 since
 * 2026-11-27 (Algorithm 3 takes a row's slice count from the whole of op(B)).  RN(exact) is
 * unique, so every element of C is a function of its own row of op(A) and column of op(B):
 * a GEMM computed whole, in column blocks or as GEMVs gives the same bits (LAPACK's DGGEV3
 * test 5 relies on it; tests/test_element_local.c). */
static ozblas_mode_t effective_mode(ozblas_handle_t h)
{
    if (h->mode == OZBLAS_MODE_DOUBLE && h->engine != OZBLAS_ENGINE_CRT_INT8) return OZBLAS_MODE_CORRECTLY_ROUNDED;
    return h->mode;
}

/* The slice format a call computes with: the handle's, except that CORRECTLY_ROUNDED with
 * CRT_INT8 runs the FP64 slices where the CRT does not (DOT/GEMV shapes, spans beyond the
 * moduli table, Inf/NaN): the result is unique, so the bits are the same. */
static ozblas_engine_t effective_engine(ozblas_handle_t h, ozblas_mode_t mode)
{
    /* DOUBLE computed correctly rounded: the FP64 slices' methods, the fastest for RN(exact) */
    if (h->mode == OZBLAS_MODE_DOUBLE && mode == OZBLAS_MODE_CORRECTLY_ROUNDED) return OZBLAS_ENGINE_FP64;
    if (h->engine == OZBLAS_ENGINE_CRT_INT8 && mode == OZBLAS_MODE_CORRECTLY_ROUNDED) return OZBLAS_ENGINE_FP64;
    /* CORRECTLY_ROUNDED with INT8 slices where the backend's INT8 products are not fast (a CPU
     * without an exact oneDNN int8 GEMM: they are DGEMMs on 7-bit digits): FP64 slices carry
     * 26 bits, so about 14x fewer slice pairs for the same unique result (a fuzz input of wide
     * spans, 36x34x94, took 7.3 s with INT8 slices) */
    if (h->engine == OZBLAS_ENGINE_INT8 && mode == OZBLAS_MODE_CORRECTLY_ROUNDED && !ozb_int8_fast(h))
        return OZBLAS_ENGINE_FP64;
    return h->engine;
}

/* A backend with a device executor (CUDA) computes the call there; it calls run back on
 * host copies of the operands for what it does not compute on the device. */
ozblas_status_t ozb_run(ozblas_handle_t h, const ozb_problem *pr)
{
    ozb_plan pl;
    pl.mode = effective_mode(h);
    pl.engine = effective_engine(h, pl.mode);
    /* the standard floating-point environment for the call (core/fpenv.h); under another
     * one, the call runs on this thread alone (the pool's threads may carry the caller's) */
    ozb_fpenv_t env;
    const int changed = ozb_fpenv_enter(&env);
    const int threads = h->threads;
    if (changed) h->threads = 1;
    const ozblas_status_t st = h->be->execute ? h->be->execute(h, pr, &pl, run) : run(h, pr, &pl);
    h->threads = threads;
    ozb_fpenv_leave(env, changed);
    return st;
}

/* A DDOT of contiguous operands short enough for one sigma, straight from the driver: what
 * ozb_run reaches through the plan, the environment's save and restore and run()'s first test
 * (the same conditions, the same steps, RN(x^T y) like every path), here in one call and with
 * the report written late (core/info.h).  ~10 ns of a 100-product DOT of ~45 ns went to the
 * layers between (issue 14).  Where the short split leaves the DOT undecided, run()'s next
 * steps follow at once (not the split a second time: LAPACK's DOTs of exact zeros and
 * cancelling residuals are many). */
int ozb_run_dot_direct(ozblas_handle_t h, const double *x, const double *y, int64_t n, double *out, ozblas_status_t *st)
{
    if (n > OZB_DOT_ONE_SIGMA || h->be->execute || h->knobs.no_dot2 || !ozb_fpenv_standard()) return 0;
    const ozb_plan pl = { effective_mode(h), effective_engine(h, effective_mode(h)) };
    if (pl.mode != OZBLAS_MODE_CORRECTLY_ROUNDED || pl.engine != OZBLAS_ENGINE_FP64) return 0;
    if (ozb_threads_for(h, 4.0 * (double)n) != 1) return 0;     /* call_threads of a DOT */
    if (ozb_eft_dot_unit(x, y, n, !h->knobs.fused_avx2, out)) {  /* (the knob: 256-bit code only) */
        ozb_info_short_dot(h, n);
        *st = OZBLAS_STATUS_SUCCESS;
        return 1;
    }
    /* ozblas_ddot's problem (contiguous), as ozb_run gets it */
    const ozb_problem pr = { .m = 1, .n = 1, .k = n, .a = { x, 0, 1 }, .b = { y, 0, 1 }, .alpha = 1.0, .beta = 0.0,
                             .c = out, .crs = 0, .ccs = 0, .kblock = OZB_KBLOCK_DOT, .c_host = 1 };
    *st = dot_undecided(h, &pr, &pl);
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
