/* CORRECTLY_ROUNDED DOT, GEMV and GEMM whose products are all tiny (LAPACK's scaling tests:
 * operands near 2^-970, results near 2^-975): the error-free sums' bound has an absolute term
 * of 2^-1000 (underflow of the products' errors), so they certify nothing below about 2^-947.
 * Scaled by a power of two into the middle of the range, the same sums certify them. */
#ifndef OZB_EFT_SCALED_H
#define OZB_EFT_SCALED_H
#include "core/problem.h"
#include <math.h>

/* Certified results of a frame scaled by 2^s (s > 0) taken back: r = RN(2^s E) certified gives
 * RN(E) as 2^-s r where that is normal (the scaling back exact, in two steps beyond one
 * factor's range); where it is not, r rounded again to the subnormal grid scaled, q =
 * 2^(s-1074): there |2^s E| < 2^(s-1022), where the doubles' spacing is at most q / 2, so
 * every midpoint of the q grid is a double, and where r is not one, 2^s E lies on r's side of
 * every midpoint (RN is monotone) and rounds to r's nearest multiple of q; a signed zero
 * below 2^-1075.  ozb_unscale_for(s) once, then ozb_unscale(&u, r, &v) per result: 1 and *v,
 * or 0 where r is zero or such a midpoint (left to the next method).  r / q is one correctly
 * rounded product by the power of two 2^(1074-s) (a subnormal one where s > 2096), the value
 * ldexp gives. */
typedef struct { double normal_from, back1, back2, grid; } ozb_unscale_t;

static inline ozb_unscale_t ozb_unscale_for(int s)
{
    const ozb_unscale_t u = { ldexp(1.0, s - 1022), ldexp(1.0, -(s < 1022 ? s : 1022)),
                              ldexp(1.0, -(s < 1022 ? 0 : s - 1022)), ldexp(1.0, 1074 - s) };
    return u;
}

static inline int ozb_unscale(const ozb_unscale_t *u, double r, double *v)
{
    if (fabs(r) >= u->normal_from) {
        *v = r * u->back1 * u->back2;
        return 1;
    }
    const double g = r * u->grid;                          /* r / q; |g| < 2^52 */
    if (r == 0.0 || fabs(g - trunc(g)) == 0.5) return 0;
    const double t = rint(g);
    *v = t == 0.0 ? copysign(0.0, r) : t * 0x1p-1074;
    return 1;
}

/* The power of two s > 0 that brings pr's largest product near 1 (one operand and C scaled by
 * 2^s without overflow), or 0 where the products are not tiny, some operand is not finite,
 * or the scaled copies do not fit the workspace limit. */
int ozb_eft_scale_for(ozblas_handle_t h, const ozb_problem *pr);

/* As ozb_eft_cr (eft_dot.h) on pr scaled by 2^s (ozb_eft_scale_for > 0): RN(exact) written
 * where the scaled sums certify it and it is a normal number (the scaling back is then
 * exact); the rest flagged. */
ozblas_status_t ozb_eft_scaled_cr(ozblas_handle_t h, const ozb_problem *pr, int nt, uint8_t **fail, int64_t *nfail);
#endif
