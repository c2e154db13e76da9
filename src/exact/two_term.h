/* RN(a + x (uh + ul) + y (vh + vl)) element by element, certified: the element-wise updates of
 * the BLAS (DGER, DSYR, DSYR2: a + alpha x_i y_j with alpha y_j = uh + ul exactly; DROT,
 * DROTM: c x + s y) in a few vector operations per element.
 *
 * Bit budget (u = 2^-53): x uh = p + pe and y vh = q + qe exactly by TwoProduct where each
 * product is 0 or at least 2^-960 in magnitude (the low part's last bit >= 2^-1066 > 2^-1074;
 * one that overflows is caught below);
 * a + p = s1 + e1 and s1 + q = s + e2 exactly by two TwoSums, so the exact value is s + f' +
 * g' with f' = e1 + e2 and g' = pe + qe + x ul + y vl.  The loops round
 *     g = RN(x ul + RN(y vl + RN(pe + qe)))  (two FMAs),   f = RN(e1 + e2),
 *     lo = RN(s + RN(f + RN(g - B))),   hi = RN(s + RN(f + RN(g + B))),
 * so that B waits on nothing late and e2 only on one addition before lo.  Before lo's last
 * rounding the value is s + f' + g' - B + err with, W = |x ul| + |y vl|, every rounding's
 * error at most u of its result (sums of doubles below 2^-1022 are exact) or 2^-1075 for an
 * FMA's result below 2^-1022:
 *     |err| <= (2u (|e1| + |e2|) + 5u (|pe| + |qe|) + 4u W + 2u B)(1 + 4u) + 2^-1074.
 * |e2| <= u |s| (half an ulp of s), |pe| <= u |p|, and |x ul| <= u |p| (1 + 2u) where ul != 0
 * (0 where ul = 0, as for y), so
 *     B = 2^-50 (|e1| + |pe| + |qe|) + 2^-103 |s| + 2^-102 (|p| [ul != 0] + |q| [vl != 0])
 * exceeds |err| with room: 1.6 times on |pe| + |qe|, 4 times on e1, e2 and W, and where x ul
 * is nonzero (p then at least 2^-960) 2^-102 |p| > 2^-1063 takes the 2^-1074 too.  B's own
 * four roundings lose at most u of it each where normal, 2^-1073 in all below 2^-1022.  There,
 * where x ul or y vl is nonzero, B >= 2^-1062 and the loss is within the room; else every
 * value of the rest lies on the grid of 2^-1074 (pe, qe on 2^-1066's), a sum of such is exact
 * below 2^-1021, and a rounding that errs has a result of at least 2^-1021, whose terms make B
 * at least 2^-1072 before its roundings (B >= RN(2^-50 (|e1| + ...)) and so on, RN being
 * monotone): B keeps at least half, against errors of 2u on e1, e2 and pe + qe there (the
 * low parts' own sum and the FMAs are exact in that range).  The one-term update (DGER, DSYR) is the
 * same with q = 0, e2 = 0 and s = s1: g = RN(x ul + pe), lo = RN(s + RN(e1 + RN(g - B))),
 * |err| <= (u |e1| + 3u (|pe| + |x ul|) + 2u B)(1 + 3u) + 2^-1075, B = 2^-50 |pe| + 2^-103 |s|
 * + 2^-102 |p| [ul != 0] (|e1| <= u |s| there).  Where every term is exact
 * and the result exactly zero (s = e1 = pe = qe = 0, ul = vl = 0 or x = y = 0), B = 0 and lo
 * = hi = +0: an exact result, a zero among them, is certified.  So lo <= RN(exact) <= hi (RN
 * is monotone); where they are equal that is the result, else the element is flagged for an
 * exact method.  The error terms enter themselves or through the result, never through |a|:
 * results that cancel far below their terms stay certifiable.  Large terms need no test: an
 * overflow in a product or a TwoSum leaves Inf or NaN in f, g or B, which fails lo == hi.  The
 * callers' splits give |ul| <= u |uh| and |vl| <= u |vh| (TwoProduct), which the budget uses. */
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
/* two_term.c's two-term loop (y given, unit strides, AVX2 and FMA) on m elements, m a multiple
 * of 4: decided elements written (out may be a), the others flagged (1) and untouched; returns
 * how many are flagged; two_term256.c */
int64_t ozb_two_term256(int64_t m, const double *a, const double *x, double uh, double ul, const double *y, double vh,
                        double vl, double *out, int safe, uint8_t *fail);
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

/* The in-place one-term update where no product can leave TwoProduct's range (the caller's
 * safe, or uh = 0): a[i] = RN(a[i] + x[i] (uh + ul)) with ozb_two_term's values and decisions
 * (ul = 0: one FMA an element), no flags, up to the first vector of four (or the last m mod
 * 4 taken as one; the scalar loop of builds without AVX2: the first element) with an element
 * it does not decide, left untouched with the rest; returns how many leading elements it
 * wrote (m where all: DGER's and DSYR's common column).  x contiguous. */
int64_t ozb_one_term_prefix(int64_t m, double *a, const double *x, double uh, double ul);

/* RN(a + x (uh + ul) + y (vh + vl)) of one element (y == NULL: no second product) by its
 * terms split exactly and summed error-free (two_term_deep.c): 1 and *r where certified,
 * nonzero and finite; ozb_two_term's second level for what its first leaves */
int ozb_two_term_second(double a, double x, double uh, double ul, const double *y, double vh, double vl, double *r);

/* alpha * v = *hi + *lo exactly (TwoProduct), 1 where that holds (the product 0 or within
 * [2^-960, 2^1000]), else 0 */
int ozb_two_prod_exact(double alpha, double v, double *hi, double *lo);
#endif
