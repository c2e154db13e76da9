/* ozblas_drotg, ozblas_drotmg: the scalar constructions of a plane rotation (CONTRACT §6).
 * drotg keeps the reference BLAS's cases and signs, with r = sigma RN(sqrt(a^2 + b^2)) from the
 * exact sum of squares (ozblas_dnrm2 of the pair: no spurious overflow or underflow, the same
 * r on every machine) and c, s, z IEEE quotients of the returned doubles.  drotmg is the
 * reference BLAS's modified Givens algorithm as Reference-LAPACK corrected it after release
 * 3.12.1 (the releases reset h21 = -1, h12 = 1 at every rescaling step, not only at the first
 * one: H's scaled entries are lost), operation for operation (-ffp-contract=off: no
 * FMA joins a product and a sum), so its bits are the reference's on every machine; where the
 * reference's rescaling loops would never end (d1 or d2 infinite, or d1 negative, after the
 * construction), the outputs are NaN. */
#include "ozblas.h"
#include "core/backend.h"
#include "core/fpenv.h"
#include "dispatch/dispatch.h"
#include <math.h>

/* drotg in the standard floating-point environment */
static ozblas_status_t rotg(ozblas_handle_t h, double *a, double *b, double *c, double *s)
{
    const double av = *a, bv = *b, anorm = fabs(av), bnorm = fabs(bv);
    if (bnorm == 0.0) {
        *c = 1.0; *s = 0.0; *b = 0.0;
        return OZBLAS_STATUS_SUCCESS;
    }
    if (anorm == 0.0) {
        *c = 0.0; *s = 1.0; *a = bv; *b = 1.0;
        return OZBLAS_STATUS_SUCCESS;
    }
    const double pair[2] = { av, bv };
    double r;
    const ozblas_status_t st = ozblas_dnrm2(h, 2, pair, 1, &r);
    if (st != OZBLAS_STATUS_SUCCESS) return st;
    r = copysign(r, anorm > bnorm ? av : bv);     /* sigma: NaN's sign bit is copied too (r is NaN) */
    const double cv = av / r, sv = bv / r;
    *c = cv;
    *s = sv;
    *a = r;
    *b = anorm > bnorm ? sv : cv != 0.0 ? 1.0 / cv : 1.0;
    return OZBLAS_STATUS_SUCCESS;
}

/* the reference's constants: 4096, its square, and its decimal 5.9604645e-8 for 2^-24 (the
 * double nearest it, which the reference compares against) */
#define GAM 4096.0
#define GAMSQ 16777216.0
#define RGAMSQ 5.9604645e-8

/* H as param holds it: flag -1 explicit, 0 the off-diagonal, 1 the diagonal entries */
typedef struct { double flag, h11, h12, h21, h22; } rotm_h;

/* before the first rescaling step: H made explicit (flag -1), the implied entries written */
static void make_explicit(rotm_h *H)
{
    if (H->flag == 0.0) { H->h11 = 1.0; H->h22 = 1.0; H->flag = -1.0; }
    else if (H->flag == 1.0) { H->h21 = -1.0; H->h12 = 1.0; H->flag = -1.0; }
}

/* drotmg in the standard floating-point environment */
static void rotmg(double *d1, double *d2, double *x1, double y1, double *param)
{
    double dd1 = *d1, dd2 = *d2, dx1 = *x1;
    rotm_h H = { -1.0, 0.0, 0.0, 0.0, 0.0 };   /* the zero case's: flag -1, H zero */
    int zero = dd1 < 0.0;
    if (!zero) {
        const double p2 = dd2 * y1;
        if (p2 == 0.0) {
            param[0] = -2.0;
            return;
        }
        const double p1 = dd1 * dx1, q2 = p2 * y1, q1 = p1 * dx1;
        if (fabs(q1) > fabs(q2)) {
            const double h21 = -y1 / dx1, h12 = p2 / p1, u = 1.0 - h12 * h21;
            zero = !(u > 0.0);
            if (!zero) {
                H = (rotm_h){ 0.0, 0.0, h12, h21, 0.0 };
                dd1 = dd1 / u;
                dd2 = dd2 / u;
                dx1 = dx1 * u;
            }
        } else if (q2 < 0.0) {
            zero = 1;
        } else {
            H = (rotm_h){ 1.0, p1 / p2, 0.0, 0.0, dx1 / y1 };
            const double u = 1.0 + H.h11 * H.h22;
            const double t = dd2 / u;
            dd2 = dd1 / u;
            dd1 = t;
            dx1 = y1 * u;
        }
    }
    if (zero) {
        dd1 = dd2 = dx1 = 0.0;
    } else {
        /* the reference's rescaling would never end: an infinite d1 or d2, or a negative d1 (flag
         * 1 with d2 < 0 where q2 = d2 y1^2 underflowed to -0, so the test q2 < 0 missed it) */
        if (isinf(dd1) || isinf(dd2) || dd1 < 0.0) {
            *d1 = *d2 = *x1 = NAN;
            param[0] = -1.0;
            param[1] = param[2] = param[3] = param[4] = NAN;
            return;
        }
        /* rescaling: d1 and |d2| into (RGAMSQ, GAMSQ) by powers of 4096^2, x1 and H by powers
         * of 4096 (exact unless they leave the normal range), H made explicit at the first step */
        if (dd1 != 0.0)
            while (dd1 <= RGAMSQ || dd1 >= GAMSQ) {
                make_explicit(&H);
                if (dd1 <= RGAMSQ) { dd1 = dd1 * GAMSQ; dx1 = dx1 / GAM; H.h11 = H.h11 / GAM; H.h12 = H.h12 / GAM; }
                else { dd1 = dd1 / GAMSQ; dx1 = dx1 * GAM; H.h11 = H.h11 * GAM; H.h12 = H.h12 * GAM; }
            }
        if (dd2 != 0.0)
            while (fabs(dd2) <= RGAMSQ || fabs(dd2) >= GAMSQ) {
                make_explicit(&H);
                if (fabs(dd2) <= RGAMSQ) { dd2 = dd2 * GAMSQ; H.h21 = H.h21 / GAM; H.h22 = H.h22 / GAM; }
                else { dd2 = dd2 / GAMSQ; H.h21 = H.h21 * GAM; H.h22 = H.h22 * GAM; }
            }
    }
    if (H.flag < 0.0) { param[1] = H.h11; param[2] = H.h21; param[3] = H.h12; param[4] = H.h22; }
    else if (H.flag == 0.0) { param[2] = H.h21; param[3] = H.h12; }
    else { param[1] = H.h11; param[4] = H.h22; }
    param[0] = H.flag;
    *d1 = dd1;
    *d2 = dd2;
    *x1 = dx1;
}

ozblas_status_t ozblas_drotg(ozblas_handle_t h, double *a, double *b, double *c, double *s)
{
    if (!h || !a || !b || !c || !s) return OZBLAS_STATUS_INVALID_VALUE;
    if (!ozb_host_operands(h)) return OZBLAS_STATUS_NOT_SUPPORTED;
    ozb_info_reset(h);
    ozb_fpenv_t env;
    const int changed = ozb_fpenv_enter(&env);
    const ozblas_status_t st = rotg(h, a, b, c, s);
    ozb_fpenv_leave(env, changed);
    return st;
}

ozblas_status_t ozblas_drotmg(ozblas_handle_t h, double *d1, double *d2, double *x1, double y1, double *param)
{
    if (!h || !d1 || !d2 || !x1 || !param) return OZBLAS_STATUS_INVALID_VALUE;
    if (!ozb_host_operands(h)) return OZBLAS_STATUS_NOT_SUPPORTED;
    ozb_info_reset(h);
    ozb_fpenv_t env;
    const int changed = ozb_fpenv_enter(&env);
    rotmg(d1, d2, x1, y1, param);
    ozb_fpenv_leave(env, changed);
    return OZBLAS_STATUS_SUCCESS;
}
