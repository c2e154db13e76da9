/* Exact fixed-point accumulator covering every value alpha*P*2^E and beta*c can take.
 * The arithmetic is kernels/ozb_sum_ops.h, shared with the CUDA device engine. */
#ifndef OZB_LONGACC_H
#define OZB_LONGACC_H
#include <stdint.h>
#include "../../kernels/ozb_sum_ops.h"

void   ozb_la_init(ozb_longacc *a);
/* a += (neg ? -1 : 1) * mag * 2^exp, with OZB_LA_EMIN <= exp and mag < 2^128 */
void   ozb_la_add(ozb_longacc *a, int neg, ozb_u128 mag, int exp);
/* a += x * y exactly, for finite doubles */
void   ozb_la_add_product(ozb_longacc *a, double x, double y);
/* RN of the exact value (subnormal results and overflow to Inf as IEEE 754); *sign is the
 * exact sign (-1, 0, 1).  Resets a for the next use. An exact zero gives +0. */
double ozb_la_round(ozb_longacc *a, int *sign);

#endif
