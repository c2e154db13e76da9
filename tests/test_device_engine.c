/* The CUDA backend's device-resident engine (src/cuda/resident.c) against the CPU handle,
 * bit for bit, in the configurations the routine tests leave to their defaults: FIXED mode
 * with every split count, fast mode on and off, both summations, DOUBLE mode (correctly
 * rounded with the slice formats), the three Scheme-I formats
 * (level sums of FP16/INT8, several k-blocks) and the CRT format (moduli counts = split counts,
 * DOUBLE's count and per-element certificates, staged), the fused DOT/GEMV kernel and the batched
 * GEMM path, tiling under a small workspace, alpha/beta/C, strides and transposes.
 *
 * Run plainly it checks the CPU handle (CORRECTLY_ROUNDED against MPFR); the comparison with
 * the device is the runners' CUDA twin: ctest runs it with OZBLAS_TEST_CUDA=emulate (the
 * emulated device, in CI), =emulate plus OZBLAS_CUDA_STAGED=1 (the staged path), and =1
 * (the GPU, skipped without one). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "tu.h"

typedef struct { ozblas_mode_t mode; int split, fast; ozblas_summation_t sum; } cfg_t;

static const cfg_t CFGS[] = {
    {OZBLAS_MODE_FIXED, 1, 0, OZBLAS_SUM_NEARSUM},
    {OZBLAS_MODE_FIXED, 2, 1, OZBLAS_SUM_DOUBLE},
    {OZBLAS_MODE_FIXED, 3, 0, OZBLAS_SUM_DOUBLE},
    {OZBLAS_MODE_FIXED, 3, 1, OZBLAS_SUM_NEARSUM},
    {OZBLAS_MODE_FIXED, 5, 1, OZBLAS_SUM_DOUBLE},
    {OZBLAS_MODE_FIXED, 8, 0, OZBLAS_SUM_NEARSUM},
    {OZBLAS_MODE_CORRECTLY_ROUNDED, 0, 0, OZBLAS_SUM_NEARSUM},
    {OZBLAS_MODE_DOUBLE, 0, 0, OZBLAS_SUM_NEARSUM},
};
#define NCFG ((int)(sizeof CFGS / sizeof CFGS[0]))
static const ozblas_engine_t ENGINES[4] = {OZBLAS_ENGINE_FP64, OZBLAS_ENGINE_FP16, OZBLAS_ENGINE_INT8,
                                           OZBLAS_ENGINE_CRT_INT8};

static ozblas_handle_t cfg_handle(const cfg_t *c, ozblas_engine_t eng, size_t ws)
{
    ozblas_handle_t h = tu_handle(c->mode);
    /* an engine this build lacks (INT8 and CRT_INT8 without oneDNN): suite() has reported the
     * program to ctest as skipped, so the cases returning here never count as passed */
    if (ozblas_set_engine(h, eng) != OZBLAS_STATUS_SUCCESS) { ozblas_destroy(h); return NULL; }
    if (c->mode == OZBLAS_MODE_FIXED) {
        ck_assert_int_eq(ozblas_set_split_count(h, c->split), OZBLAS_STATUS_SUCCESS);
        ck_assert_int_eq(ozblas_set_fast_mode(h, c->fast), OZBLAS_STATUS_SUCCESS);
        ck_assert_int_eq(ozblas_set_summation(h, c->sum), OZBLAS_STATUS_SUCCESS);
    }
    ck_assert_int_eq(ozblas_set_workspace_limit(h, ws), OZBLAS_STATUS_SUCCESS);
    return h;
}

static const double PHIS[3] = {0.0, 1.0, 4.0};

/* DOUBLE mode: the device's moduli count is the CPU handle's (info.split_count).  DOUBLE with
 * the slice formats (FP64, FP16, INT8) is computed correctly rounded, each side by its own
 * method and counts; with CRT_INT8 the count comes from k on both (the slices fields also count
 * the correctly rounded completion of what the certificate leaves, which each side computes
 * by its own method). */
static void same_counts(ozblas_handle_t h, ozblas_engine_t eng, int one_column, const char *tag)
{
    ozblas_info_t hi, ti;
    ozblas_mode_t mode;
    (void)one_column;   /* FP64 is correctly rounded whatever the shape */
    ck_assert_int_eq(ozblas_get_mode(h, &mode), OZBLAS_STATUS_SUCCESS);
    if (mode != OZBLAS_MODE_DOUBLE || eng != OZBLAS_ENGINE_CRT_INT8 || !tu_twin_info(&ti) ||
        getenv("OZBLAS_CUDA_STAGED"))
        return;
    ck_assert_int_eq(ozblas_get_info(h, &hi), OZBLAS_STATUS_SUCCESS);
    ck_assert_msg(hi.split_count == ti.split_count, "%s: DOUBLE moduli CPU %d, device %d", tag, hi.split_count,
                  ti.split_count);
}

START_TEST(engine_gemm)
{
    const ozblas_engine_t eng = ENGINES[_i % 4];
    ozref_rng r;
    tu_rng(&r, "engine_gemm");
    /* n > 8 and n <= 8; k beyond the FP16 format's 512-block; transposes; C read and not */
    const tu_gemm_params shapes[4] = {
        {0, 0, 37, 21, 1100, 0, 0, 0, 1.5, -0.75, 0},
        {1, 0, 29, 5, 300, 301, 0, 31, -2.0, 0.0, 0},
        {0, 1, 17, 33, 70, 19, 40, 0, 0.375, 1.0, 0},
        {1, 1, 1, 1, 2000, 2000, 1, 1, 1.0, 2.0, 0},
    };
    for (int c = 0; c < NCFG; c++) {
        const tu_gemm_params p = shapes[(c + _i) % 4];
        ozblas_handle_t h = cfg_handle(&CFGS[c], eng, 0);
        if (!h) return;
        char tag[96];
        snprintf(tag, sizeof tag, "engine_gemm engine=%d cfg=%d", (int)eng, c);
        tu_gemm_random(h, CFGS[c].mode, p, PHIS[c % 3], &r, tag);
        same_counts(h, eng, p.n == 1, tag);
        ozblas_destroy(h);
    }
}
END_TEST

START_TEST(engine_gemv_dot)
{
    const ozblas_engine_t eng = ENGINES[_i % 4];
    ozref_rng r;
    tu_rng(&r, "engine_gemv_dot");
    for (int c = 0; c < NCFG; c++) {
        ozblas_handle_t h = cfg_handle(&CFGS[c], eng, 0);
        if (!h) return;
        char tag[96];
        snprintf(tag, sizeof tag, "engine_gemv engine=%d cfg=%d", (int)eng, c);
        /* GEMV-N (rows contiguous) and GEMV-T (columns contiguous), negative increments,
         * more than one k-block (GEMV blocks 2^12, FP16 2^9) */
        const tu_gemv_params pn = {0, 203, 4500, 205, -2, 3, 0.75, c % 2 ? 0.0 : -1.25};
        const tu_gemv_params pt = {1, 700, 57, 0, 1, -1, -1.0, 0.5};
        tu_gemv_random(h, CFGS[c].mode, (c + _i) % 2 ? pn : pt, PHIS[c % 3], &r, tag);
        same_counts(h, eng, 1, tag);
        ozblas_info_t ti;
        if (tu_twin_info(&ti) && CFGS[c].mode == OZBLAS_MODE_FIXED && eng != OZBLAS_ENGINE_CRT_INT8 && !getenv("OZBLAS_CUDA_STAGED")
            && PHIS[c % 3] < 4.0)
            ck_assert_msg(ti.fused == 1, "%s: the device's fused kernel did not run (info.fused = %d)", tag, ti.fused);
        snprintf(tag, sizeof tag, "engine_dot engine=%d cfg=%d", (int)eng, c);
        /* DOT blocks are 2^15: three of them, strides, one backwards */
        tu_dot_random(h, CFGS[c].mode, 70001, (c % 2) ? -1 : 2, 1, PHIS[c % 3], &r, tag);
        same_counts(h, eng, 1, tag);
        ozblas_destroy(h);
    }
}
END_TEST

/* A workspace limit of 64 KiB makes the device engine tile its output (the same bits). */
START_TEST(engine_tiles)
{
    const ozblas_engine_t eng = ENGINES[_i % 4];
    ozref_rng r;
    tu_rng(&r, "engine_tiles");
    const tu_gemm_params p = {0, 1, 90, 70, 200, 0, 0, 95, -1.0, 0.5, 0};
    for (int c = 1; c < NCFG; c += 2) {
        ozblas_handle_t h = cfg_handle(&CFGS[c], eng, (size_t)64 << 10);
        if (!h) return;
        char tag[96];
        snprintf(tag, sizeof tag, "engine_tiles engine=%d cfg=%d", (int)eng, c);
        tu_gemm_random(h, CFGS[c].mode, p, 1.0, &r, tag);
        same_counts(h, eng, 0, tag);
        ozblas_info_t ti;
        if (tu_twin_info(&ti) && !getenv("OZBLAS_CUDA_STAGED"))
            ck_assert_msg(ti.blocks > 1, "%s: the device engine should tile under 64 KiB (info.blocks = %lld)", tag,
                          (long long)ti.blocks);
        ozblas_destroy(h);
    }
}
END_TEST

/* Inputs the device engine hands to the staged path (Inf/NaN, spans needing more than 40
 * slices) and extreme ranges it keeps (subnormal results, near overflow): the CPU's bits. */
START_TEST(engine_edges)
{
    const ozblas_engine_t eng = ENGINES[_i % 4];
    const int64_t m = 6, n = 3, k = 40;
    double A[6 * 40], B[40 * 3], C[6 * 3];
    ozref_rng r;
    tu_rng(&r, "engine_edges");
    for (int v = 0; v < 5; v++) {
        ozref_fill_phi(&r, A, m * k, 1.0);
        ozref_fill_phi(&r, B, k * n, 1.0);
        ozref_fill_phi(&r, C, m * n, 1.0);
        if (v == 0) A[7] = NAN;                                      /* a NaN row */
        if (v == 1) { A[3] = 0x1p-1070; A[3 + 6] = 0x1p900; }        /* a span of 1970 bits */
        if (v == 2) for (int q = 0; q < m * k; q++) A[q] *= 0x1p-1000;   /* subnormal results */
        if (v == 3) for (int q = 0; q < k * n; q++) B[q] *= 0x1p1015;    /* near overflow */
        if (v == 4) C[4] = INFINITY;                                 /* beta C infinite */
        for (int c = 0; c < NCFG; c++) {
            ozblas_handle_t h = cfg_handle(&CFGS[c], eng, 0);
            if (!h) return;
            const tu_gemm_params p = {0, 0, m, n, k, 0, 0, 0, 0.75, -1.5, 0};
            char tag[96];
            snprintf(tag, sizeof tag, "engine_edges v=%d engine=%d cfg=%d", v, (int)eng, c);
            double Cw[6 * 3];
            memcpy(Cw, C, sizeof Cw);
            tu_gemm_run(h, CFGS[c].mode, &p, A, B, Cw, tag);
            ozblas_destroy(h);
        }
    }
}
END_TEST

/* A DOT over several k-blocks whose blocks of y are scaled by 2^500, 2^-600 and 1, with the
 * large blocks cancelling so that the small one decides the result: the device's bits must be
 * the CPU's, FIXED and DOUBLE (correctly rounded with the slice formats, the CRT with
 * CRT_INT8). */
START_TEST(engine_dot_blocks)
{
    const ozblas_engine_t eng = ENGINES[_i % 4];
    const int64_t n = 3 * 32768 + 78;
    double *x = tu_alloc((size_t)n), *y = tu_alloc((size_t)n);
    ozref_rng r;
    tu_rng(&r, "engine_dot_blocks");
    ozref_fill_phi(&r, x, n, 1.0);
    ozref_fill_phi(&r, y, n, 1.0);
    /* the 2^500 and 1 blocks cancel exactly pair by pair, so the 2^-600 block is the result */
    for (int64_t l = 0; l < n; l++) {
        const int64_t g = (l / 32768) % 3;
        y[l] = ldexp(y[l], g == 0 ? 500 : g == 1 ? -600 : 0);
        if (g != 1 && (l & 1) && l / 32768 == (l - 1) / 32768) { x[l] = x[l - 1]; y[l] = -y[l - 1]; }
    }
    for (int c = 0; c < NCFG; c++) {
        if (CFGS[c].mode != OZBLAS_MODE_DOUBLE && c % 3) continue;
        ozblas_handle_t h = cfg_handle(&CFGS[c], eng, 0);
        if (!h) break;
        char tag[96];
        snprintf(tag, sizeof tag, "engine_dot_blocks engine=%d cfg=%d", (int)eng, c);
        tu_dot_run(h, CFGS[c].mode, n, x, 1, y, 1, tag);
        /* the same decisions, not only the same bits (DOUBLE's moduli counts with CRT_INT8) */
        same_counts(h, eng, 1, tag);
        ozblas_destroy(h);
    }
    free(x);
    free(y);
}
END_TEST

/* The certified error-free DOT/GEMV of CORRECTLY_ROUNDED calls (src/cuda/resident_eft.c):
 * where it must certify (positive integers: every product, sum and alpha/beta term exact below
 * 2^53, so the error sum is zero and no result lies near a midpoint -- guaranteed, not
 * likely), the device's info says it ran; where it cannot (an exact zero
 * result, a product below 2^-960, an Inf), the call is declined before anything is written
 * and the slice path gives the bits.  Either way the runners compare with MPFR and the CPU. */
static double phi_val(ozref_rng *r, double phi) { double v; ozref_fill_phi(r, &v, 1, phi); return v; }

/* 1 + floor(16 |v|), v from the phi = 1 generator: an integer in [1, 2^16) (|randn| <= 8.6 by
 * Box-Muller from 53-bit uniforms) */
static double pos_int(ozref_rng *r) { return 1.0 + floor(16.0 * fabs(phi_val(r, 1.0))); }

static void eft_expect(int certified, const char *tag)
{
    ozblas_info_t ti;
    if (!tu_twin_info(&ti) || getenv("OZBLAS_CUDA_STAGED") || getenv("OZBLAS_CUDA_NO_EFT")) return;
    ck_assert_msg((ti.fused == 2) == certified, "%s: certified path %s (info.fused = %d)", tag,
                  certified ? "did not run" : "ran", ti.fused);
}

START_TEST(engine_eft)
{
    const ozblas_mode_t mode = _i ? OZBLAS_MODE_DOUBLE : OZBLAS_MODE_CORRECTLY_ROUNDED;   /* DOUBLE: FP64 is CR */
    ozblas_handle_t h = tu_handle(mode);
    ozref_rng r;
    tu_rng(&r, "engine_eft");
    const int64_t n = 100003;
    double *x = tu_alloc((size_t)n), *y = tu_alloc((size_t)n);
    for (int64_t l = 0; l < n; l++) {
        x[l] = pos_int(&r);        /* products below 2^31, sums below 2^48 */
        y[l] = pos_int(&r);
    }
    tu_dot_run(h, mode, n, x, 1, y, 1, "engine_eft dot positive");
    eft_expect(1, "engine_eft dot positive");
    tu_dot_run(h, mode, 3000, x, -3, y, 2, "engine_eft dot strided");
    eft_expect(1, "engine_eft dot strided");
    /* GEMV-N (by rows) and GEMV-T (by blocks), alpha, beta and C positive */
    const tu_gemv_params pn = {0, 301, 333, 305, 1, 1, 0.75, 1.5}, pt = {1, 333, 130, 340, 1, -2, 2.0, 0.5};
    for (int t = 0; t < 2; t++) {
        const tu_gemv_params *p = t ? &pt : &pn;
        int64_t lda; size_t na, nx, ny;
        tu_gemv_sizes(p, &lda, &na, &nx, &ny);
        double *A = tu_alloc(na), *xv = tu_alloc(nx), *yv = tu_alloc(ny);
        for (size_t e = 0; e < na; e++) A[e] = pos_int(&r);
        for (size_t e = 0; e < nx; e++) xv[e] = pos_int(&r);
        for (size_t e = 0; e < ny; e++) yv[e] = pos_int(&r);   /* 0.75 S + 1.5 c: exact */
        tu_gemv_run(h, mode, p, A, xv, yv, t ? "engine_eft gemv T" : "engine_eft gemv N");
        eft_expect(1, t ? "engine_eft gemv T" : "engine_eft gemv N");
        /* one row's sum exactly zero: the whole call declined, the slice path's bits */
        const int64_t len = t ? p->m : p->n;               /* op(A)'s row length */
        for (int64_t l = 0; l < len; l++) {
            const double v = l % 2 ? -A[t ? 5 * lda + l - 1 : 5 + (l - 1) * lda] : A[t ? 5 * lda + l : 5 + l * lda];
            A[t ? 5 * lda + l : 5 + l * lda] = v;
        }
        for (size_t e = 0; e < nx; e++) xv[e] = 1.0;
        if (len % 2) A[t ? 5 * lda + len - 1 : 5 + (len - 1) * lda] = 0.0;
        for (size_t e = 0; e < ny; e++) yv[e] = fabs(phi_val(&r, 1.0));
        const tu_gemv_params pz = {p->trans, p->m, p->n, p->lda, p->incx, p->incy, p->alpha, 0.0};
        tu_gemv_run(h, mode, &pz, A, xv, yv, t ? "engine_eft gemv T zero row" : "engine_eft gemv N zero row");
        eft_expect(0, t ? "engine_eft gemv T zero row" : "engine_eft gemv N zero row");
        free(A); free(xv); free(yv);
    }
    /* DOTs the certificate must decline: an exact zero, a product below 2^-960 (not exact by
     * TwoProduct), an Inf */
    double zx[4] = {1.5, -1.5, 0x1p-30, -0x1p-30}, zy[4] = {2.0, 2.0, 1.0, 1.0};
    tu_dot_run(h, mode, 4, zx, 1, zy, 1, "engine_eft dot zero");
    eft_expect(0, "engine_eft dot zero");
    double ux[3] = {0x1p-600, 1.0, 3.0}, uy[3] = {0x1p-400, 1.0, 0.5};
    tu_dot_run(h, mode, 3, ux, 1, uy, 1, "engine_eft dot underflow");
    eft_expect(0, "engine_eft dot underflow");
    double ix[3] = {INFINITY, 1.0, 3.0}, iy[3] = {1.0, 1.0, 0.5};
    tu_dot_run(h, mode, 3, ix, 1, iy, 1, "engine_eft dot inf");
    eft_expect(0, "engine_eft dot inf");
    free(x);
    free(y);
    ozblas_destroy(h);
}
END_TEST

/* CORRECTLY_ROUNDED GEMM through the exact CRT on the device (src/cuda/resident_crcr.c):
 * with alpha a power of two and beta = 0 the rounding is exact (never declined) for data whose
 * nonzero results are normal, so the device must take it (info: the moduli as split count,
 * no slice bits); alpha and beta C in general (certified, or the slices); a row spanning more
 * than 400 bits is declined to the slices.  The runners compare every call with MPFR and the
 * CPU handle bit for bit. */
static void crcr_expect(int taken, const char *tag)
{
    ozblas_info_t ti;
    if (!tu_twin_info(&ti) || getenv("OZBLAS_CUDA_STAGED") || getenv("OZBLAS_NO_CRT")) return;
    const int crt = ti.split_count > 0 && ti.bits_per_slice == 0;
    ck_assert_msg(crt == taken, "%s: exact CRT %s (split_count %d, bits %d)", tag, taken ? "not taken" : "taken",
                  ti.split_count, ti.bits_per_slice);
}

START_TEST(engine_crcr)
{
    ozblas_handle_t h = tu_handle(OZBLAS_MODE_CORRECTLY_ROUNDED);
    ozref_rng r;
    tu_rng(&r, "engine_crcr");
    const tu_gemm_params exact[3] = {
        {0, 0, 37, 21, 300, 0, 0, 0, 1.0, 0.0, 0},
        {1, 1, 19, 40, 70001, 0, 0, 0, -0.5, 0.0, 0},        /* two k-blocks of 2^16: a fold */
        {0, 1, 64, 9, 5, 70, 0, 66, 0x1p-3, 0.0, 0},
    };
    const double phis[3] = {1.0, 0.0, 6.0};
    for (int c = 0; c < 3; c++) {
        char tag[64];
        snprintf(tag, sizeof tag, "engine_crcr exact %d", c);
        tu_gemm_random(h, OZBLAS_MODE_CORRECTLY_ROUNDED, exact[c], phis[c], &r, tag);
        crcr_expect(1, tag);
    }
    const tu_gemm_params general = {1, 0, 33, 17, 129, 0, 0, 35, 1.5, -0.75, 0};
    tu_gemm_random(h, OZBLAS_MODE_CORRECTLY_ROUNDED, general, 2.0, &r, "engine_crcr alpha beta");
    /* one row of op(A) spanning 2^300 .. 2^-300: declined, the slices' bits */
    const tu_gemm_params wide = {0, 0, 12, 10, 20, 0, 0, 0, 1.0, 0.0, 0};
    double *A = tu_alloc(12 * 20), *B = tu_alloc(20 * 10), *C = tu_alloc(12 * 10);
    for (int e = 0; e < 12 * 20; e++) A[e] = phi_val(&r, 1.0);
    for (int e = 0; e < 20 * 10; e++) B[e] = phi_val(&r, 1.0);
    A[3] = ldexp(A[3], 300);
    A[3 + 12 * 7] = ldexp(A[3 + 12 * 7], -300);
    tu_gemm_run(h, OZBLAS_MODE_CORRECTLY_ROUNDED, &wide, A, B, C, "engine_crcr wide row");
    crcr_expect(0, "engine_crcr wide row");
    free(A); free(B); free(C);
    /* the exact rounding's sticky bit in the third limb: C' = 2^191 + 2^138 + 1 rounds up */
    const tu_gemm_params st = {0, 0, 1, 9, 3, 0, 0, 0, 1.0, 0.0, 0};
    double sA[3] = {0x1p139, 0x1p138, 1.0}, sB[27], sC[9];
    for (int j = 0; j < 9; j++) { sB[3 * j] = 0x1p52; sB[3 * j + 1] = 1.0; sB[3 * j + 2] = 1.0; }
    tu_gemm_run(h, OZBLAS_MODE_CORRECTLY_ROUNDED, &st, sA, sB, sC, "engine_crcr sticky");
    crcr_expect(1, "engine_crcr sticky");
    ozblas_destroy(h);
}
END_TEST

/* The CRT format's ACCURATE scaling (one more exact INT8 GEMM bounds |A||B|) on the device:
 * FIXED and DOUBLE, several k-blocks of 2^16, tiles under a small workspace. */
START_TEST(engine_crt_accurate)
{
    const cfg_t cfgs[3] = {{OZBLAS_MODE_FIXED, 4, 0, OZBLAS_SUM_DOUBLE}, {OZBLAS_MODE_FIXED, 9, 0, OZBLAS_SUM_DOUBLE},
                           {OZBLAS_MODE_DOUBLE, 0, 0, OZBLAS_SUM_NEARSUM}};
    const tu_gemm_params shapes[3] = {
        {0, 0, 41, 23, 300, 0, 0, 0, 1.25, -0.5, 0},
        {1, 0, 6, 3, 70000, 0, 0, 0, -1.0, 0.0, 0},
        {0, 1, 77, 65, 40, 0, 0, 80, 0.5, 2.0, 0},
    };
    ozref_rng r;
    tu_rng(&r, "engine_crt_accurate");
    for (int c = 0; c < 3; c++) {
        ozblas_handle_t h = cfg_handle(&cfgs[c], OZBLAS_ENGINE_CRT_INT8, _i ? (size_t)64 << 10 : 0);
        if (!h) return;
        ck_assert_int_eq(ozblas_set_crt_scaling(h, OZBLAS_CRT_SCALING_ACCURATE), OZBLAS_STATUS_SUCCESS);
        for (int q = 0; q < 3; q++) {
            char tag[96];
            snprintf(tag, sizeof tag, "engine_crt_accurate ws=%d cfg=%d shape=%d", _i, c, q);
            tu_gemm_random(h, cfgs[c].mode, shapes[q], PHIS[(c + q) % 3], &r, tag);
            same_counts(h, OZBLAS_ENGINE_CRT_INT8, 0, tag);
        }
        ozblas_destroy(h);
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("device_engine");
    ozblas_handle_t h;
    if (ozblas_create(&h) != OZBLAS_STATUS_SUCCESS) abort();
    for (int e = 0; e < 4; e++)
        if (ozblas_set_engine(h, ENGINES[e]) != OZBLAS_STATUS_SUCCESS)
            tu_skip_note("test_device_engine", e == 2 ? "the INT8 format is not built in (no oneDNN)" : e == 3 ? "the CRT_INT8 format is not built in (no oneDNN)" : "an engine is not built in");
    ozblas_destroy(h);
    TCase *tc = tcase_create("engine");
    tcase_set_timeout(tc, tu_timeout(600));
    tcase_add_loop_test(tc, engine_gemm, 0, 4);
    tcase_add_loop_test(tc, engine_gemv_dot, 0, 4);
    tcase_add_loop_test(tc, engine_tiles, 0, 4);
    tcase_add_loop_test(tc, engine_edges, 0, 4);
    tcase_add_loop_test(tc, engine_dot_blocks, 0, 4);
    tcase_add_loop_test(tc, engine_crt_accurate, 0, 2);
    tcase_add_loop_test(tc, engine_eft, 0, 2);
    tcase_add_test(tc, engine_crcr);
    suite_add_tcase(s, tc);
    return s;
}

TU_MAIN("test_device_engine", suite)
