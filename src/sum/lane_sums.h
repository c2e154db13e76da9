/* Sums in lane order (kernels/ozb_engine_ops.h: ozb_op_lane_tree) for loops that walk memory
 * order on the CPU (crt_scale.c's row scales); the device's kernels give the same bits. */
#ifndef OZB_LANE_SUMS_H
#define OZB_LANE_SUMS_H
#include <stdint.h>

/* ozb_op_lane_tree of w sums side by side: partial t of sum i at p[t stride + i]; the results
 * into p[i] (the same additions in the same order, vectorized across the sums) */
void ozb_lane_tree_cols(double *p, int64_t stride, int64_t w);
#endif
