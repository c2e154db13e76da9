/* Lane-order sums side by side (lane_sums.h): ozb_op_lane_tree's additions, vectorized
 * across the sums. */
#include "sum/lane_sums.h"
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
