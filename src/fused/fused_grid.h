/* The fixed grid of a block, shared by the fused CORRECTLY_ROUNDED kernels' driver (fused.c)
 * and FIXED mode's (fixed_dot.c): the block exponent from the largest |bits|, a strided
 * block gathered with its maximum, and a vector's digits on the grid (fused_grid.c). */
#ifndef OZB_FUSED_GRID_H
#define OZB_FUSED_GRID_H
#include <stdint.h>

#define OZB_FZ_E_ZERO INT32_MIN   /* the block is zero: no terms */
#define OZB_FZ_E_BAD  INT32_MAX   /* Inf/NaN, or a scale 2^(beta - e) outside the normal range */

/* Block exponent e (max < 2^e) from the largest |bits| of the block, for digits of beta bits;
 * OZB_FZ_E_ZERO, or OZB_FZ_E_BAD where the block holds Inf/NaN or its scale 2^(beta - e)
 * would not be a normal double. */
int32_t ozb_fused_block_exp(int64_t mxbits, int beta);
static inline int ozb_fused_usable(int32_t e) { return e != OZB_FZ_E_ZERO && e != OZB_FZ_E_BAD; }

/* x[l inc], l < n, copied to copy[l]; returns their largest |bits| (Inf/NaN above every finite) */
int64_t ozb_fused_gather_max(const double *x, int64_t inc, int64_t n, double *copy);

/* Digits q_u, u < D, of x[l inc], l < n, on the grid of block exponent e with beta-bit digits:
 * yq[u ldq + l] (zeros where e is not usable).  Scalar (a vector is read once per call); the
 * same arithmetic as the kernels' split (fused_kern.h). */
void ozb_fused_digits(const double *x, int64_t inc, int64_t n, int32_t e, int beta, int D, double *yq, int64_t ldq);
#endif
