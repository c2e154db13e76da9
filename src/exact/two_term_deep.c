/* The second level of the certified element-wise updates (exact/two_term.h). */
#include "exact/two_term.h"
#include "sum/eft.h"
#include <math.h>

/* TwoSum of every neighbouring pair, upwards: t[n-1] becomes the rounded sum, t[0..n-2] the
 * errors; the exact sum of t is unchanged */
static inline void vec_sum(double *t, int n)
{
    for (int i = 0; i + 1 < n; i++) ozb_two_sum(t[i], t[i + 1], &t[i + 1], &t[i]);
}

/* The second level of ozb_two_term, one element the first left (a result that cancels to about the first
 * level's own bound: a Householder or Givens update that zeroes an element leaves u |a|, whose
 * last bits the rounded x ul spoils): every product split by TwoProduct, so the terms a, x uh,
 * x ul (y vh, y vl) are n <= 9 doubles whose sum is the exact value; up to three VecSum passes,
 * each followed by the bracket of the bit budget at the top of two_term.h: s = t[n-1], e the
 * rest summed in order (n - 2 roundings, error <= (n - 2) u (1 + 2^-50) sum |t_i| < 2^-50
 * sum |t_i|, plus 2^-1072 for roundings of tiny values), B = 2^-48 sum |t_i| + 2^-1069 at
 * least twice that, and at least 2u |e| so that RN(e -+ B) stays outside the error interval.
 * Taken only where nonzero and finite (a zero result keeps the first level's and the exact
 * path's sign rules). */
int ozb_two_term_second(double a, double x, double uh, double ul, const double *y, double vh, double vl, double *r)
{
    double t[9];
    if (!(isfinite(a) && ozb_two_prod_exact(x, uh, t + 1, t + 2) && ozb_two_prod_exact(x, ul, t + 3, t + 4))) return 0;
    int n = 5;
    t[0] = a;
    if (y) {
        if (!(ozb_two_prod_exact(*y, vh, t + 5, t + 6) && ozb_two_prod_exact(*y, vl, t + 7, t + 8))) return 0;
        n = 9;
    }
    for (int pass = 0; pass < 3; pass++) {
        vec_sum(t, n);
        double e = 0.0, sum = 0.0;
        for (int i = 0; i + 1 < n; i++) {
            e += t[i];
            sum += fabs(t[i]);
        }
        const double B = 0x1p-48 * sum + (sum > 0.0 ? 0x1p-1069 : 0.0);
        const double lo = t[n - 1] + (e - B), hi = t[n - 1] + (e + B);
        if (lo == hi) {
            *r = lo;
            return lo != 0.0 && fabs(lo) <= 0x1.fffffffffffffp1023;
        }
    }
    return 0;
}
