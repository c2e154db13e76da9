/* Column sums in lane order (lane_sums.h).  Two walks of the same sums: columns with
 * contiguous elements (cs == 1) by chunks of columns, rows of the chunk in order, with the
 * 32 lane partials of each column side by side; otherwise column by column.  Either way term
 * j goes into partial j mod 32 in ascending j, and the partials meet in ozb_op_lane_tree:
 * the same bits. */
#include "sum/lane_sums.h"
#include "core/par.h"
#include "../../kernels/ozb_engine_ops.h"

void ozb_lane_tree_cols(double *p, int64_t stride, int64_t w)
{
    for (int h = OZB_OP_SUM_LANES / 2; h > 0; h >>= 1)
        for (int t = 0; t < h; t++) {
            double *a = p + t * stride;
            const double *b = p + (t + h) * stride;
            for (int64_t i = 0; i < w; i++) a[i] = a[i] + b[i];
        }
}

void ozb_lane_col_sums(const double *p, int64_t rs, int64_t cs, int64_t rows, int64_t k, const double *g, double sc,
                       double sc2, double *w, int nt, int par)
{
    enum { L = OZB_OP_SUM_LANES, CH = 128 };
    if (rows == 1) {           /* one term and 31 zero partials: the tree gives the term (>= +0) */
        for (int64_t l = 0; l < k; l++) w[l] = ozb_op_colsum_term(p[l * cs], g, 0, sc, sc2);
        return;
    }
    if (cs == 1 && rows > 1) {
        const int64_t nch = (k + CH - 1) / CH;
        OZB_PARALLEL_FOR_IF(par, num_threads(nt) schedule(static),
        for (int64_t ch = 0; ch < nch; ch++) {
            const int64_t l0 = ch * CH, wd = l0 + CH < k ? CH : k - l0;
            double q[L][CH];                                /* [lane][column]: columns contiguous */
            /* the first term of a lane is stored (every term is +0 or more: 0 + t = t), lanes
             * that get none are zero */
            for (int t = (int)(rows < L ? rows : L); t < L; t++)
                for (int64_t l = 0; l < wd; l++) q[t][l] = 0.0;
            for (int64_t j = 0; j < rows; j++) {
                const double *row = p + j * rs + l0;
                double *qt = q[j % L];
                if (j < L) for (int64_t l = 0; l < wd; l++) qt[l] = ozb_op_colsum_term(row[l], g, j, sc, sc2);
                else       for (int64_t l = 0; l < wd; l++) qt[l] += ozb_op_colsum_term(row[l], g, j, sc, sc2);
            }
            ozb_lane_tree_cols(&q[0][0], CH, wd);
            for (int64_t l = 0; l < wd; l++) w[l0 + l] = q[0][l];
        });
        return;
    }
    OZB_PARALLEL_FOR_IF(par, num_threads(nt) schedule(static),
    for (int64_t l = 0; l < k; l++) w[l] = ozb_op_colsum_col(p + l * cs, rs, rows, g, sc, sc2););
}
