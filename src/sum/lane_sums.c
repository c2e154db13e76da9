/* Column sums in lane order (lane_sums.h).  Two walks of the same sums: columns with
 * contiguous elements (cs == 1) by chunks of columns, rows of the chunk in order, with the
 * 32 lane partials of each column side by side; otherwise column by column.  Either way term
 * j goes into partial j mod 32 in ascending j, and the partials meet in ozb_op_lane_tree:
 * the same bits. */
#include "sum/lane_sums.h"
#include "core/par.h"
#include "../../kernels/ozb_engine_ops.h"

void ozb_lane_col_sums(const double *p, int64_t rs, int64_t cs, int64_t rows, int64_t k, const double *g, double sc,
                       double sc2, double *w, int nt, int par)
{
    enum { L = OZB_OP_SUM_LANES, CH = 128 };
    if (cs == 1 && rows > 1) {
        const int64_t nch = (k + CH - 1) / CH;
        OZB_PARALLEL_FOR_IF(par, num_threads(nt) schedule(static),
        for (int64_t ch = 0; ch < nch; ch++) {
            const int64_t l0 = ch * CH, wd = l0 + CH < k ? CH : k - l0;
            double q[L][CH];                                /* [lane][column]: columns contiguous */
            for (int t = 0; t < L; t++)
                for (int64_t l = 0; l < wd; l++) q[t][l] = 0.0;
            for (int64_t j = 0; j < rows; j++) {
                const double *row = p + j * rs + l0;
                double *qt = q[j % L];
                for (int64_t l = 0; l < wd; l++) qt[l] += ozb_op_colsum_term(row[l], g, j, sc, sc2);
            }
            for (int64_t l = 0; l < wd; l++) {
                double a[L];
                for (int t = 0; t < L; t++) a[t] = q[t][l];
                w[l0 + l] = ozb_op_lane_tree(a);
            }
        });
        return;
    }
    OZB_PARALLEL_FOR_IF(par, num_threads(nt) schedule(static),
    for (int64_t l = 0; l < k; l++) {
        double a[L] = {0.0};
        const double *col = p + l * cs;
        for (int64_t j = 0; j < rows; j++) a[j % L] += ozb_op_colsum_term(col[j * rs], g, j, sc, sc2);
        w[l] = ozb_op_lane_tree(a);
    });
}
