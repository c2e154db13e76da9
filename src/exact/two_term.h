/* RN(a + x (uh + ul) + y (vh + vl)) element by element, certified: the element-wise updates of
 * the BLAS (DGER, DSYR, DSYR2: a + alpha x_i y_j with alpha y_j = uh + ul exactly; DROT,
 * DROTM: c x + s y) in a few vector operations per element.
 *
 * Bit budget (u = 2^-53): x uh = p + pe and y vh = q + qe exactly by TwoProduct where each
 * product is 0 or within [2^-960, 2^1000] (the low part's last bit >= 2^-1066 > 2^-1074);
 * a + p + q = s + e1 + e2 exactly by two TwoSums; the rest, e = x ul + (y vl + ((e1 + e2) +
 * (pe + qe))) (the products inside two FMAs), is rounded five times: |err| <= 4u (T1 + |x ul|
 * + |y vl|)(1 + 4u), T1 = |e1| + |e2| + |pe| + |qe|, + 2^-1074 where an FMA's result is below
 * 2^-1022 (at most 2^-1075 each; sums of doubles never round there).
 * RN(e -+ B) moves e -+ B by at most u |e -+ B|, and u |e| <= u (T1 + |x ul| + |y vl|)(1 +
 * 4u), so B must exceed 5u (T1 + |x ul| + |y vl|)(1 + 4u) + 2^-1074 (+ u B).  With |x ul| <= u
 * |p| (1 + 2u) where ul != 0 (0 where ul = 0, as for y), B = 2^-50 T1 + 2^-102 (|p| [ul != 0] +
 * |q| [vl != 0]) does: 1.6 times on T1, and 0.69 * 2^-102 |p| >= 2^-1063 to spare where x ul is
 * nonzero (p is then at least 2^-960; B's own roundings, u relative or 2^-1075 where
 * subnormal, fit there too).  Where every term is zero, e = 0 exactly and B = 0 (x ul = 0
 * needs x = 0, so p = 0, where ul != 0): an exact result, a zero among them, is certified.
 * So RN(s + RN(e - B)) and RN(s + RN(e + B)) bracket RN of the exact value (RN is monotone);
 * where they are equal that is the result, else the element is flagged for an exact method.
 * The error terms enter themselves, not a bound through |a|: results that cancel far below
 * their terms stay certifiable.  Terms beyond 2^1000 are flagged too; an overflow leaves Inf
 * or NaN in e or B, which fails lo == hi. */
#ifndef OZB_TWO_TERM_H
#define OZB_TWO_TERM_H
#include <stdint.h>

/* out[i*inco] = RN(a[i*inca] + x[i*incx] (uh + ul) + y[i*incy] (vh + vl)) for i < m where
 * certified (a == NULL: 0; y == NULL: no second term); fail[i] = 1 and out[i*inco] untouched
 * elsewhere.  Returns the number flagged.  out may be a.  safe: the caller knows every x_i uh
 * and y_i vh to be 0 or at least 2^-960 in magnitude (no per-element range test).  wide: the
 * in-place one-term updates and the unit-stride two-term ones by the 512-bit loops (the same
 * bits). */
int64_t ozb_two_term(int64_t m, const double *a, int64_t inca, const double *x, int64_t incx, double uh, double ul,
                     const double *y, int64_t incy, double vh, double vl, double *out, int64_t inco, int safe,
                     uint8_t *fail, int wide);
/* two_term.c's one-term loop with 512-bit vectors, the same decisions bit for bit (wide = 1
 * above: only where the handle's kernel set is the 512-bit one, the CPU having AVX-512F/DQ);
 * two_term512.c */
int64_t ozb_one_term512(int64_t m, const double *a, const double *x, double uh, double ul, double *out, int safe,
                        uint8_t *fail);
/* two_term.c's two-term loop (y given, unit strides) with 512-bit vectors, the same decisions
 * bit for bit (wide = 1 in ozb_two_term); two_term512.c */
int64_t ozb_two_term512(int64_t m, const double *a, const double *x, double uh, double ul, const double *y, double vh,
                        double vl, double *out, int safe, uint8_t *fail);
/* The one-term loop on two columns at once, in place: a0 with alpha v = u[0] + u[1] (safe[0], flags
 * f0), a1 with u[2] + u[3] (safe[1], f1), their rows side by side (two independent chains);
 * nf: how many each leaves.  Every lane's decision and value are ozb_one_term512's. */
void ozb_one_term512_pair(int64_t m, double *a0, double *a1, const double *x, const double u[4], const int safe[2],
                          uint8_t *f0, uint8_t *f1, int64_t nf[2]);
/* After ozb_one_term512 in place (a = out, x contiguous, y = NULL) left some elements flagged:
 * the rest of ozb_two_term's work on them (each again alone, then the second level); returns
 * how many stay flagged.  So the loop and this give ozb_two_term's bits and flags. */
int64_t ozb_one_term_rest(int64_t m, double *a, const double *x, double uh, double ul, int safe, uint8_t *fail);

/* RN(a + x (uh + ul) + y (vh + vl)) of one element (y == NULL: no second product) by its
 * terms split exactly and summed error-free (two_term_deep.c): 1 and *r where certified,
 * nonzero and finite; ozb_two_term's second level for what its first leaves */
int ozb_two_term_second(double a, double x, double uh, double ul, const double *y, double vh, double vl, double *r);

/* alpha * v = *hi + *lo exactly (TwoProduct), 1 where that holds (the product 0 or within
 * [2^-960, 2^1000]), else 0 */
int ozb_two_prod_exact(double alpha, double v, double *hi, double *lo);
#endif
