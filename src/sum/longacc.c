/* Long accumulator: the exact sum of products of doubles in a fixed-point big
 * integer, rounded once.  It is the fallback of ozb_sum_nearest where NearSum's
 * scaled frame would leave the normal range, and the source of exact signs for
 * the special-value rules.  Integer arithmetic only: nothing here rounds.  The code is
 * kernels/ozb_sum_ops.h, which the CUDA device engine runs too. */
#include "sum/longacc.h"

void   ozb_la_init(ozb_longacc *a) { ozb_op_la_init(a); }
void   ozb_la_add(ozb_longacc *a, int neg, ozb_u128 mag, int exp) { ozb_op_la_add(a, neg, mag, exp); }
void   ozb_la_add_product(ozb_longacc *a, double x, double y) { ozb_op_la_add_product(a, x, y); }
double ozb_la_round(ozb_longacc *a, int *sign) { return ozb_op_la_round(a, sign); }
