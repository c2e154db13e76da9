/* ozblas_drotg and ozblas_drotmg (CONTRACT §6) in every mode.  drotg: r against MPFR (the
 * exact sum of squares, correctly rounded square root, the reference's sign), c, s, z the IEEE
 * quotients of the returned doubles, the reference's cases for a zero a or b, Inf and NaN.
 * drotmg: bit for bit against the corrected reference algorithm transcribed here, and that
 * transcription against the reference BLAS installed (Debian's libblas3, 3.11, compiled for
 * x86-64 without FMA, opened from /usr/lib/x86_64-linux-gnu/blas beside ozblas; the test fails
 * where it is missing) wherever the two versions agree (at most one rescaling step), on
 * generated inputs that take every branch and the rescaling; NaN where the rescaling would
 * never end (the reference not called there: it would hang). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "tu.h"

static const ozblas_mode_t MODES[3] = TU_MODES;

/* the rule's expected (r, z, c, s) of (a, b) */
static void rotg_rule(double a, double b, double out[4])
{
    if (fabs(b) == 0.0) { out[0] = a; out[1] = 0.0; out[2] = 1.0; out[3] = 0.0; return; }
    if (fabs(a) == 0.0) { out[0] = b; out[1] = 1.0; out[2] = 0.0; out[3] = 1.0; return; }
    const double pair[2] = { a, b };
    const double r = copysign(ozref_dnrm2(2, pair, 1), fabs(a) > fabs(b) ? a : b);
    const double c = a / r, s = b / r;
    out[0] = r;
    out[1] = fabs(a) > fabs(b) ? s : c != 0.0 ? 1.0 / c : 1.0;
    out[2] = c;
    out[3] = s;
}

static void check_rotg(ozblas_handle_t h, double a, double b, const char *what)
{
    double got[4] = { a, b, -7.0, -7.0 }, want[4];
    rotg_rule(a, b, want);
    ck_assert_int_eq(ozblas_drotg(h, &got[0], &got[1], &got[2], &got[3]), OZBLAS_STATUS_SUCCESS);
    char ctx[160];
    snprintf(ctx, sizeof ctx, "drotg %s (%a, %a): r z c s", what, a, b);
    tu_check_bits(got, want, 4, 1, ctx);
}

START_TEST(rotg_values)
{
    ozblas_handle_t h = tu_handle(MODES[_i]);
    ozref_rng r;
    tu_rng(&r, "rotg_values");
    const double phis[] = { 0.0, 1.0, 4.0, 8.0 };
    for (int p = 0; p < 4; p++)
        for (int q = 0; q < 400; q++) {
            double v[2];
            ozref_fill_phi(&r, v, 2, phis[p]);
            check_rotg(h, v[0], v[1], "phi");
        }
    /* r where a naive a^2 + b^2 overflows or underflows, on the subnormal grid, ties of |a| and |b| */
    const double cases[][2] = {
        { 0x1.fp1023, 0x1.8p1023 } /* r overflows */, { -0x1p1000, 0x1p1000 }, { 0x1p-1074, 0x1p-1074 }, { 3e-320, -4e-320 },
        { 0x1p-600, 0x1.8p-600 }, { 1.0, -1.0 }, { -2.5, 2.5 }, { 0.1, 0.7 }, { 1.0, 0x1p-600 }, { 0x1p-600, -1.0 },
        { 0x1.8p1022, 0x1p1022 }, { 0x1p-1000, -0x1.8p-1000 },   /* squares beyond the range, r not */
        { 0x1.fffffffffffffp1023, 0x1.fffffffffffffp1023 },   /* r overflows: +Inf, c = s = +0, z = 1 */
        /* the reference's zero cases: b = +-0 (z +0, a kept), a = +-0 (r = b) */
        { 5.0, 0.0 }, { -5.0, -0.0 }, { 0.0, -2.0 }, { -0.0, 3.0 }, { 0.0, 0.0 }, { NAN, 0.0 },
        /* Inf and NaN: r Inf or NaN, the quotients as IEEE divides them */
        { INFINITY, 1.0 }, { 1.0, -INFINITY }, { INFINITY, INFINITY }, { NAN, 1.0 }, { 2.0, NAN }, { INFINITY, NAN },
    };
    for (size_t q = 0; q < sizeof cases / sizeof cases[0]; q++) check_rotg(h, cases[q][0], cases[q][1], "case");
    /* a few spelled out, so the rule itself is pinned */
    double a = 3.0, b = -4.0, c, s;
    ck_assert_int_eq(ozblas_drotg(h, &a, &b, &c, &s), OZBLAS_STATUS_SUCCESS);
    ck_assert(a == -5.0 && c == -0.6 && s == 0.8 && b == 1.0 / -0.6);
    a = 0.0; b = -2.0;
    ck_assert_int_eq(ozblas_drotg(h, &a, &b, &c, &s), OZBLAS_STATUS_SUCCESS);
    ck_assert(a == -2.0 && b == 1.0 && c == 0.0 && !signbit(c) && s == 1.0);
    a = -5.0; b = -0.0;
    ck_assert_int_eq(ozblas_drotg(h, &a, &b, &c, &s), OZBLAS_STATUS_SUCCESS);
    ck_assert(a == -5.0 && b == 0.0 && !signbit(b) && c == 1.0 && s == 0.0);
    ozblas_destroy(h);
}
END_TEST

typedef void (*ref_rotmg_t)(double *, double *, double *, const double *, double *);

static ref_rotmg_t reference_rotmg(void)
{
    void *lib = dlopen("/usr/lib/x86_64-linux-gnu/blas/libblas.so.3", RTLD_NOW | RTLD_LOCAL);
    ck_assert_msg(lib != NULL, "the reference BLAS (libblas3) is not installed: %s", dlerror());
    ref_rotmg_t f = (ref_rotmg_t)dlsym(lib, "drotmg_");
    ck_assert_msg(f != NULL, "drotmg_ not in the reference BLAS");
    return f;
}

/* The reference BLAS's drotmg as Reference-LAPACK corrected it after release 3.12.1,
 * transcribed statement by statement (the specification the contract names); *steps: the
 * rescaling steps it took.  The releases (Debian 12's libblas3 is 3.11) differ only after the
 * first step (they reset h21 = -1, h12 = 1 at every later one), so the installed one checks
 * this transcription wherever one step or none was taken. */
static void spec_rotmg(double *d1, double *d2, double *x1, double y1, double *param, int *steps)
{
    const double gam = 4096.0, gamsq = 16777216.0, rgamsq = 5.9604645e-8;
    double dd1 = *d1, dd2 = *d2, dx1 = *x1, flag, h11 = 0, h12 = 0, h21 = 0, h22 = 0;
    *steps = 0;
    if (dd1 < 0.0) {
        flag = -1.0;
        dd1 = dd2 = dx1 = 0.0;
    } else {
        const double dp2 = dd2 * y1;
        if (dp2 == 0.0) { param[0] = -2.0; return; }
        const double dp1 = dd1 * dx1, dq2 = dp2 * y1, dq1 = dp1 * dx1;
        if (fabs(dq1) > fabs(dq2)) {
            h21 = -y1 / dx1;
            h12 = dp2 / dp1;
            const double du = 1.0 - h12 * h21;
            if (du > 0.0) { flag = 0.0; dd1 = dd1 / du; dd2 = dd2 / du; dx1 = dx1 * du; }
            else { flag = -1.0; h11 = h12 = h21 = h22 = 0.0; dd1 = dd2 = dx1 = 0.0; }
        } else if (dq2 < 0.0) {
            flag = -1.0; h11 = h12 = h21 = h22 = 0.0; dd1 = dd2 = dx1 = 0.0;
        } else {
            flag = 1.0;
            h11 = dp1 / dp2;
            h22 = dx1 / y1;
            const double du = 1.0 + h11 * h22, dtemp = dd2 / du;
            dd2 = dd1 / du;
            dd1 = dtemp;
            dx1 = y1 * du;
        }
        if (isinf(dd1) || isinf(dd2) || dd1 < 0.0) {   /* the contract's NaN where the reference would hang */
            *d1 = *d2 = *x1 = NAN;
            param[0] = -1.0;
            param[1] = param[2] = param[3] = param[4] = NAN;
            *steps = 1 << 20;
            return;
        }
        if (dd1 != 0.0)
            while (dd1 <= rgamsq || dd1 >= gamsq) {
                ++*steps;
                if (flag == 0.0) { h11 = 1.0; h22 = 1.0; flag = -1.0; }
                else if (flag == 1.0) { h21 = -1.0; h12 = 1.0; flag = -1.0; }
                if (dd1 <= rgamsq) { dd1 = dd1 * (gam * gam); dx1 = dx1 / gam; h11 = h11 / gam; h12 = h12 / gam; }
                else { dd1 = dd1 / (gam * gam); dx1 = dx1 * gam; h11 = h11 * gam; h12 = h12 * gam; }
            }
        if (dd2 != 0.0)
            while (fabs(dd2) <= rgamsq || fabs(dd2) >= gamsq) {
                ++*steps;
                if (flag == 0.0) { h11 = 1.0; h22 = 1.0; flag = -1.0; }
                else if (flag == 1.0) { h21 = -1.0; h12 = 1.0; flag = -1.0; }
                if (fabs(dd2) <= rgamsq) { dd2 = dd2 * (gam * gam); h21 = h21 / gam; h22 = h22 / gam; }
                else { dd2 = dd2 / (gam * gam); h21 = h21 * gam; h22 = h22 * gam; }
            }
    }
    if (flag < 0.0) { param[1] = h11; param[2] = h21; param[3] = h12; param[4] = h22; }
    else if (flag == 0.0) { param[2] = h21; param[3] = h12; }
    else { param[1] = h11; param[4] = h22; }
    param[0] = flag;
    *d1 = dd1; *d2 = dd2; *x1 = dx1;
}

/* ozblas_drotmg against the transcription on (d1, d2, x1, y1), every output bit for bit
 * (param's entries the flag leaves unset stay the sentinel in both), and against the
 * reference BLAS where it took at most one rescaling step; returns those steps */
static int check_rotmg(ozblas_handle_t h, ref_rotmg_t ref, double d1, double d2, double x1, double y1)
{
    double got[8] = { d1, d2, x1 }, want[8] = { d1, d2, x1 }, lib[8] = { d1, d2, x1 };
    for (int k = 3; k < 8; k++) got[k] = want[k] = lib[k] = -7.0;
    ck_assert_int_eq(ozblas_drotmg(h, &got[0], &got[1], &got[2], y1, got + 3), OZBLAS_STATUS_SUCCESS);
    int steps;
    spec_rotmg(&want[0], &want[1], &want[2], y1, want + 3, &steps);
    char ctx[200];
    snprintf(ctx, sizeof ctx, "drotmg (%a, %a, %a, %a): d1 d2 x1 param", d1, d2, x1, y1);
    tu_check_bits(got, want, 8, 1, ctx);
    if (steps <= 1) {   /* (never where the reference would hang: those count 2^20) */
        ref(&lib[0], &lib[1], &lib[2], &y1, lib + 3);
        snprintf(ctx, sizeof ctx, "reference drotmg (%a, %a, %a, %a) against the transcription", d1, d2, x1, y1);
        tu_check_bits(lib, want, 8, 1, ctx);
    }
    return steps;
}

START_TEST(rotmg_reference)
{
    ozblas_handle_t h = tu_handle(MODES[_i]);
    const ref_rotmg_t ref = reference_rotmg();
    ozref_rng r;
    tu_rng(&r, "rotmg_reference");
    /* d1, d2 of both signs and scales far apart (the rescaling by 4096 both ways), x1, y1 of the
     * generator's spread: every flag */
    for (int q = 0; q < 4000; q++) {
        double v[4];
        ozref_fill_phi(&r, v, 4, q % 4 == 0 ? 1.0 : 4.0);
        const double d1 = q % 7 == 0 ? v[0] : fabs(v[0]) * ldexp(1.0, (int)(ozref_uniform(&r) * 160.0) - 80);
        const double d2 = (q % 5 == 0 ? -1.0 : 1.0) * fabs(v[1]) * ldexp(1.0, (int)(ozref_uniform(&r) * 160.0) - 80);
        (void)check_rotmg(h, ref, d1, d2, v[2], v[3]);
    }
    /* the reference's own test values (dblat1's) and the edges: p2 = 0 (flag -2), d1 < 0, a zero
     * x1, the decimal RGAMSQ itself and its neighbours, subnormal d's, NaN */
    const double rg = 5.9604645e-8;
    const double cases[][4] = {
        { 0.1, 0.3, 1.2, 0.2 }, { 0.7, 0.2, 0.6, 4.2 }, { 0.0, 0.0, 0.0, 0.0 }, { 4.0, -1.0, 2.0, 4.0 },
        { 6e-10, 2e-2, 1e5, 10.0 }, { 4e10, 2e-2, 1e-5, 10.0 }, { 2e-10, 4e-2, 1e5, 10.0 }, { 2e10, 4e-2, 1e-5, 10.0 },
        { 4.0, -2.0, 8.0, 4.0 }, { 1.0, 0.0, 3.0, 5.0 }, { -1.0, 2.0, 3.0, 4.0 }, { 2.0, 3.0, 0.0, 4.0 },
        { rg, 1.0, 1.0, 1e-3 }, { nextafter(rg, 1.0), 1.0, 1.0, 1e-3 }, { 1.0, rg, 1e-3, 1.0 },
        { rg, 1e-30, 1.0, 1.0 }, { nextafter(rg, 0.0), 1e-30, 1.0, 1.0 }, { 0x1p-24, 1e-30, 1.0, 1.0 },
        { 0x1p-1060, 1.0, 1.0, 1e-3 }, { 1.0, 0x1p-1070, 1e3, 1.0 }, { 0x1p1000, 1.0, 1.0, 1e-3 },
        { NAN, 1.0, 1.0, 1.0 }, { 1.0, NAN, 1.0, 1.0 }, { 1.0, 1.0, NAN, 1.0 }, { 1.0, 1.0, 1.0, NAN },
        { 1.0, -INFINITY, 1.0, 2.0 }, { -INFINITY, 1.0, 1.0, 1.0 }, { 1.0, 1e-20, 1.0, 1.0 }, { 1e10, 1e-20, 1.0, 1.0 },
    };
    for (size_t q = 0; q < sizeof cases / sizeof cases[0]; q++) check_rotmg(h, ref, cases[q][0], cases[q][1], cases[q][2], cases[q][3]);
    /* fixed cases whose rescaling takes no step, one (both compared with the library), several */
    ck_assert_int_eq(check_rotmg(h, ref, 0.1, 0.3, 1.2, 0.2), 0);
    ck_assert_int_eq(check_rotmg(h, ref, 1e10, 1.0, 1.0, 1.0), 1);
    ck_assert_int_eq(check_rotmg(h, ref, 1.0, 0x1p-30, 1.0, 1.0), 1);
    ck_assert_int_eq(check_rotmg(h, ref, 1e10, 1e-20, 1.0, 1.0), 3);
    /* where the reference would rescale forever: an infinite d1, d1 / u overflowing (u = 2^-52),
     * a negative d1 (d2 < 0 with q2 = d2 y1^2 underflowing to -0) */
    const double hang[][4] = { { INFINITY, 1.0, 1.0, 1.0 }, { 1.0, INFINITY, 1.0, 2.0 }, { 1e300, -1e300 * (1.0 - 0x1p-52), 1.0, 1.0 },
                               { 1.0, -1.0, 0.0, 1e-200 }, { 0.0, -1.0, 1.0, 1e-200 } };
    for (int q = 0; q < 5; q++) {
        double d1 = hang[q][0], d2 = hang[q][1], x1 = hang[q][2], p[5] = { 0, 0, 0, 0, 0 };
        ck_assert_int_eq(ozblas_drotmg(h, &d1, &d2, &x1, hang[q][3], p), OZBLAS_STATUS_SUCCESS);
        ck_assert_msg(isnan(d1) && isnan(d2) && isnan(x1) && p[0] == -1.0 && isnan(p[1]) && isnan(p[2]) && isnan(p[3]) &&
                      isnan(p[4]), "drotmg case %d: NaN outputs and flag -1 where the rescaling would not end", q);
    }
    /* two rescaling steps of d2, spelled out: the corrected rule keeps h12 and divides h21 twice
     * (the releases give h21 = -2^-12, h12 = 1) */
    double d1 = 1.0, d2 = 1e-20, x1 = 1.0, p[5];
    ck_assert_int_eq(ozblas_drotmg(h, &d1, &d2, &x1, 1.0, p), OZBLAS_STATUS_SUCCESS);
    ck_assert(p[0] == -1.0 && p[1] == 1.0 && p[2] == -0x1p-24 && p[3] == 1e-20 && p[4] == 0x1p-24 && d1 == 1.0 &&
              d2 == 1e-20 * 0x1p48 && x1 == 1.0);
    ozblas_destroy(h);
}
END_TEST

START_TEST(rotg_args)
{
    ozblas_handle_t h = tu_handle(OZBLAS_MODE_CORRECTLY_ROUNDED);
    double a = 1.0, b = 2.0, c = 3.0, s = 4.0, p[5] = { 9, 9, 9, 9, 9 };
    ck_assert_int_eq(ozblas_drotg(NULL, &a, &b, &c, &s), OZBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(ozblas_drotg(h, &a, NULL, &c, &s), OZBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(ozblas_drotg(h, &a, &b, &c, NULL), OZBLAS_STATUS_INVALID_VALUE);
    ck_assert(a == 1.0 && b == 2.0 && c == 3.0 && s == 4.0);
    ck_assert_int_eq(ozblas_drotmg(NULL, &a, &b, &c, 1.0, p), OZBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(ozblas_drotmg(h, &a, &b, &c, 1.0, NULL), OZBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(ozblas_drotmg(h, NULL, &b, &c, 1.0, p), OZBLAS_STATUS_INVALID_VALUE);
    ck_assert(a == 1.0 && b == 2.0 && c == 3.0 && p[0] == 9.0);
    ozblas_destroy(h);
}
END_TEST

int main(void)
{
    Suite *su = suite_create("rotg");
    TCase *t = tcase_create("rotg");
    tcase_set_timeout(t, tu_timeout(120));
    tcase_add_loop_test(t, rotg_values, 0, 3);
    tcase_add_loop_test(t, rotmg_reference, 0, 3);
    tcase_add_test(t, rotg_args);
    suite_add_tcase(su, t);
    return tu_main("test_rotg", su);
}
