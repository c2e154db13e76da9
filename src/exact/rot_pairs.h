/* DROT's and DROTM's new pairs, certified element by element (rot_pairs.c; the 512-bit loop
 * rot_pairs512.c, the same values). */
#ifndef OZB_ROT_PAIRS_H
#define OZB_ROT_PAIRS_H
#include <stdint.h>

/* For i < m (contiguous): nx[i] = RN(h[0] x[i] + h[1] y[i]) and ny[i] = RN(h[2] x[i] + h[3] y[i])
 * where both are certified (an exact zero as +0, as ozb_two_term with a = +0 gives it; an
 * infinity only where it is RN of the exact value: finite products whose sum overflows),
 * fail[i] = 0; elsewhere fail[i] = 1 and nx[i], ny[i] are not written.  nx may be x and ny
 * may be y (in place: an element left keeps its x[i], y[i]).  Returns the number flagged.
 * wide: by the 512-bit loop (only where ozb_eft_wide says the CPU's kernel set is the 512-bit
 * one), the same operations and so the same flags and values. */
int64_t ozb_rot_pairs(int64_t m, const double *x, const double *y, const double h[4], double *nx, double *ny,
                      uint8_t *fail, int wide);

/* The loop's constants for H: h[0..3] and the bound's weights w[0..3], one for each h_ij
 * (rot_pairs.c) */
typedef struct {
    double h[4], w[4];
} ozb_rot_consts;

/* the bound's absolute term where x or y is nonzero: the smallest normal number, above the
 * 2^-1073 the two TwoProduct errors can lose below the subnormal grid, and normal so that the
 * bound's FMA never takes a subnormal addend (rot_pairs.c) */
#define OZB_ROT_TAU 0x1p-1022
/* rot_pairs512.c: the loop with 512-bit vectors */
int64_t ozb_rot_pairs512(int64_t m, const double *x, const double *y, const ozb_rot_consts *k, double *nx, double *ny,
                         uint8_t *fail);
#endif
