/* Column sums in lane order (kernels/ozb_engine_ops.h: ozb_op_colsum_term, ozb_op_lane_tree),
 * walked in memory order on the CPU; the device's k_colsums gives the same bits. */
#ifndef OZB_LANE_SUMS_H
#define OZB_LANE_SUMS_H
#include <stdint.h>

/* w[l] = sum over j < rows of ozb_op_colsum_term(p[j rs + l cs], g, j, sc, sc2), l < k, in lane
 * order over j; OpenMP on nt threads where par (the bits do not depend on it) */
void ozb_lane_col_sums(const double *p, int64_t rs, int64_t cs, int64_t rows, int64_t k, const double *g, double sc,
                       double sc2, double *w, int nt, int par);

/* ozb_op_lane_tree of w sums side by side: partial t of sum i at p[t stride + i]; the results
 * into p[i] (the same additions in the same order, vectorized across the sums) */
void ozb_lane_tree_cols(double *p, int64_t stride, int64_t w);
#endif
