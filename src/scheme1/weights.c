/* Algorithm 3's weights for DOUBLE mode (seed 000): column sums of |op(B)| and fast mode's
 * exponent weights, in a canonical order (thread-independent). */
#include "scheme1/s1_internal.h"

/* w[l] = sum_i |v(i, l)| over finite entries, i in order (canonical, thread-independent),
 * then scaled by 2^-E so that max_l w[l] < 1 (E >= 0): the Algorithm 3 sums over a row
 * scaled below 1 then stay below k, far from overflow.  One pass over the data; only
 * when a raw sum overflows (entries near DBL_MAX) is it redone with every entry
 * pre-scaled by 2^-E0, 2^E0 above the largest entry.  Algorithm 3 compares two sums
 * weighted by the same w, so the scale cancels. */
void s1_col_sums_pass(const double *p, int64_t rs, int64_t cs, int64_t rows, int64_t k,
                          double sc, double *w, int nt, int par)
{
    if (rs == 1 && rows > 1) {             /* walk memory in order; each w[l] sums i in order */
        OZB_PARALLEL_FOR_IF(par, num_threads(nt) schedule(static),
        for (int64_t l = 0; l < k; l++) {
            double s = 0.0;
            for (int64_t i = 0; i < rows; i++) {
                double x = fabs(p[i + l * cs]);
                s += x <= DBL_MAX ? x * sc : 0.0;
            }
            w[l] = s;
        });
    } else {
        const int64_t chunk = 4096, nch = (k + chunk - 1) / chunk;
        OZB_PARALLEL_FOR_IF(par, num_threads(nt) schedule(static),
        for (int64_t ch = 0; ch < nch; ch++) {
            const int64_t l0 = ch * chunk, l1 = l0 + chunk < k ? l0 + chunk : k;
            for (int64_t l = l0; l < l1; l++) w[l] = 0.0;
            for (int64_t i = 0; i < rows; i++) {
                const double *row = p + i * rs;
                for (int64_t l = l0; l < l1; l++) {
                    double x = fabs(row[l * cs]);
                    w[l] += x <= DBL_MAX ? x * sc : 0.0;
                }
            }
        });
    }
}

double s1_max_of(const double *w, int64_t k)
{
    double m = 0.0;
    for (int64_t l = 0; l < k; l++) m = w[l] > m ? w[l] : m;   /* order-free */
    return m;
}

/* Returns Ev: w[l] = 2^-Ev sum_i |v(i, l)|. */
int s1_abs_col_sums(const ozb_view *v, int64_t rows, int64_t k, double *w, int nt)
{
    const int par = nt > 1 && rows * k >= OZB_PAR_WORK;
    double m = 0.0;
    int Ev = 0;
    if (rows == 1) {                       /* DOT: w = |x|, nothing to sum */
        for (int64_t l = 0; l < k; l++) {
            double x = fabs(v->p[l * v->cs]);
            x = x <= DBL_MAX ? x : 0.0;
            w[l] = x;
            m = x > m ? x : m;
        }
    } else {
        s1_col_sums_pass(v->p, v->rs, v->cs, rows, k, 1.0, w, nt, par);
        m = s1_max_of(w, k);
    }
    if (!(m <= DBL_MAX)) {                 /* a sum overflowed: pre-scale every entry */
        int64_t mx = 0;
        OZB_PARALLEL_FOR_IF(par, num_threads(nt) schedule(static) reduction(max:mx),
        for (int64_t l = 0; l < k; l++)
            for (int64_t i = 0; i < rows; i++) {
                int64_t b = (int64_t)(ozb_bits(ozb_view_at(v, i, l)) & 0x7fffffffffffffffull);
                b = b < 0x7ff0000000000000LL ? b : 0;
                mx = b > mx ? b : mx;
            });
        double e; memcpy(&e, &mx, sizeof e);
        Ev = ozb_ilogb(e) + 1;
        s1_col_sums_pass(v->p, v->rs, v->cs, rows, k, ldexp(1.0, -Ev), w, nt, par);
        m = s1_max_of(w, k);
    }
    if (m >= 1.0) {
        const double sc = ldexp(1.0, -(ozb_ilogb(m) + 1));
        Ev += ozb_ilogb(m) + 1;
        for (int64_t l = 0; l < k; l++) w[l] *= sc;
    }
    return Ev;
}

/* Fast mode's weights (DOUBLE mode), on the scale of s1_abs_col_sums's w (2^-Ev):
 *   u[l] = 2^-Ev sum_i [v(i, l) != 0] 2^E_i,  E_i with max_l |v(i, l)| < 2^E_i,
 * rounded up (a term below the subnormal range counts as 2^-1074): an upper bound that split.c
 * uses to bound the pairs fast mode skips (ozb_split_params.u).  i in order: canonical. */
void s1_exp_col_sums(const ozb_view *v, int64_t rows, int64_t k, int Ev, double *u, int32_t *E)
{
    for (int64_t i = 0; i < rows; i++) {
        uint64_t mx = 0;
        for (int64_t l = 0; l < k; l++) { uint64_t b = ozb_bits(ozb_view_at(v, i, l)) & 0x7fffffffffffffffull; mx = b > mx ? b : mx; }
        double d; memcpy(&d, &mx, sizeof d);
        E[i] = mx == 0 || mx >= 0x7ff0000000000000ull ? INT32_MIN : ozb_ilogb(d) + 1;
    }
    for (int64_t l = 0; l < k; l++) u[l] = 0.0;
    for (int64_t i = 0; i < rows; i++) {
        if (E[i] == INT32_MIN) continue;
        const int p = E[i] - Ev;                 /* <= 1: w's scale keeps every column sum below 1 */
        const double g = p < -1074 ? 0x1p-1074 : ldexp(1.0, p);
        for (int64_t l = 0; l < k; l++) {
            const double x = ozb_view_at(v, i, l);
            u[l] += (x != 0.0 && isfinite(x)) ? g : 0.0;
        }
    }
}
