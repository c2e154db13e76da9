/* Algorithm 3's weights for DOUBLE mode (seed 000): column sums of |op(B)| and fast mode's
 * exponent weights, in a canonical order (thread-independent). */
#include "scheme1/s1_internal.h"
#include "sum/lane_sums.h"
#include "../../kernels/ozb_engine_ops.h"
#include <string.h>

/* w[l] = sum_i |v(i, l)| sc over finite entries, in lane order over i (src/sum/lane_sums.c:
 * canonical, thread-independent, the device's k_colsums the same), then scaled by 2^-E so that
 * max_l w[l] < 1 (E >= 0): the Algorithm 3 sums over a row scaled below 1 then stay below k,
 * far from overflow.  One pass over the data; only when a raw sum overflows (entries near
 * DBL_MAX) is it redone with every entry pre-scaled by 2^-E0, 2^E0 above the largest entry.
 * Algorithm 3 compares two sums weighted by the same w, so the scale cancels. */
void ozb_s1_col_sums_pass(const double *p, int64_t rs, int64_t cs, int64_t rows, int64_t k,
                          double sc, double *w, int nt, int par)
{
    ozb_lane_col_sums(p, rs, cs, rows, k, NULL, sc, 1.0, w, nt, par);
}

double ozb_s1_max_of(const double *w, int64_t k)
{
    double m = 0.0;
    for (int64_t l = 0; l < k; l++) m = w[l] > m ? w[l] : m;   /* order-free */
    return m;
}

/* Returns Ev: w[l] = 2^-Ev sum_i |v(i, l)|. */
int ozb_s1_abs_col_sums(const ozb_view *v, int64_t rows, int64_t k, double *w, int nt)
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
        ozb_s1_col_sums_pass(v->p, v->rs, v->cs, rows, k, 1.0, w, nt, par);
        m = ozb_s1_max_of(w, k);
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
        ozb_s1_col_sums_pass(v->p, v->rs, v->cs, rows, k, ldexp(1.0, -Ev), w, nt, par);
        m = ozb_s1_max_of(w, k);
    }
    if (m >= 1.0) {
        const double sc = ldexp(1.0, -(ozb_ilogb(m) + 1));
        Ev += ozb_ilogb(m) + 1;
        for (int64_t l = 0; l < k; l++) w[l] *= sc;
    }
    return Ev;
}

/* Fast mode's weights (DOUBLE mode), on the scale of ozb_s1_abs_col_sums's w (2^-Ev):
 *   u[l] = 2^-Ev sum_i [v(i, l) != 0] 2^E_i,  E_i with max_l |v(i, l)| < 2^E_i,
 * rounded up (a term below the subnormal range counts as 2^-1074): an upper bound that split.c
 * uses to bound the pairs fast mode skips (ozb_split_params.u).  In lane order over i
 * (src/sum/lane_sums.c, as the device's k_colsums): canonical. */
static double exp_weight(int32_t E, int Ev)
{
    if (E == INT32_MIN) return 0.0;                 /* a zero or non-finite row: no term */
    const int p = E - Ev;                           /* <= 1: w's scale keeps every column sum below 1 */
    return p < -1074 ? 0x1p-1074 : ldexp(1.0, p);
}

void ozb_s1_exp_col_sums(const ozb_view *v, int64_t rows, int64_t k, int Ev, double *u, int32_t *E)
{
    for (int64_t i = 0; i < rows; i++) {
        uint64_t mx = 0;
        for (int64_t l = 0; l < k; l++) { uint64_t b = ozb_bits(ozb_view_at(v, i, l)) & 0x7fffffffffffffffull; mx = b > mx ? b : mx; }
        double d; memcpy(&d, &mx, sizeof d);
        E[i] = mx == 0 || mx >= 0x7ff0000000000000ull ? INT32_MIN : ozb_ilogb(d) + 1;
    }
    double *g = malloc(sizeof(double) * (size_t)rows);
    if (g) {
        for (int64_t i = 0; i < rows; i++) g[i] = exp_weight(E[i], Ev);
        ozb_lane_col_sums(v->p, v->rs, v->cs, rows, k, g, 0.0, 1.0, u, 1, 0);
        free(g);
        return;
    }
    /* no memory for the weights: the same terms in the same order, each weight recomputed */
    for (int64_t l = 0; l < k; l++) {
        double a[OZB_OP_SUM_LANES] = {0.0};
        for (int64_t i = 0; i < rows; i++) {
            const double x = ozb_view_at(v, i, l), gi = exp_weight(E[i], Ev);
            a[i % OZB_OP_SUM_LANES] += ozb_op_colsum_term(x, &gi, 0, 0.0, 1.0);
        }
        u[l] = ozb_op_lane_tree(a);
    }
}
