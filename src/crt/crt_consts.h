/* Moduli and reconstruction constants of Ozaki scheme II with INT8 residues (seed 002). */
#ifndef OZB_CRT_CONSTS_H
#define OZB_CRT_CONSTS_H
#include <math.h>
#include <stdint.h>
#include "../../kernels/ozb_kernel_ops.h"   /* ozb_op_crt_mod: one definition for host and device */

#define OZB_CRT_MAXMOD 20      /* FIXED and DOUBLE mode (the fraction tables below)   */
#define OZB_CRT_NMOD   48      /* the whole table: correctly rounded mode (crt_cr.c)    */

/* Pairwise coprime moduli <= 256, greedily from 256 down (each the largest coprime to all
 * before it), so that every prefix has the largest product for its length:
 * 256 = 2^8, 255 = 3*5*17, 253 = 11*23, 251, 247 = 13*19, 241, 239, 233, 229, 227, 223,
 * 217 = 7*31, 211, 199, 197, 193, 191, 181, 179, 173, then the primes 167 ... 37 that share
 * no factor with those (tests/test_crt.c checks every pair).  A residue in [-128, 127] is an
 * int8 (for 256, +128 and -128 are the same class). */
extern const int ozb_crt_moduli[OZB_CRT_NMOD];

/* Constants for the first s moduli, M = m_1 ... m_s.
 * y_t = (M / m_t)^-1 mod m_t, so that X = sum_t c_t (M/m_t) y_t is congruent to C' mod M for
 * residues c_t of C'.  Then X / M = sum_t c_t y_t / m_t, and with |C'| < M/2,
 * C' = M * (frac(sum_t c_t y_t / m_t) centred into [-1/2, 1/2)).
 * The fractions f_t = y_t / m_t are held exactly enough in three pieces,
 *   f_t = F1_t 2^-44 + F2_t 2^-88 + f3_t 2^-88,   F1, F2 integers < 2^44, 0 <= f3 < 1,
 * where F1 and F2 are exact (integer division) and f3 = RN(r / m_t) is the only rounding
 * (absolute error below 2^-141 per unit of c_t). */
typedef struct {
    int     s;
    int     log2M;          /* floor(log2 M) */
    int     alpha;          /* bits kept per side: 2 * 2^(2 alpha) < M  (crt_consts.c) */
    int64_t F1[OZB_CRT_MAXMOD], F2[OZB_CRT_MAXMOD];
    double  f3[OZB_CRT_MAXMOD];
    double  Mh, Ml;         /* M = Mh + Ml to ~2^-106 relative (double-double) */
} ozb_crt_consts;

/* x^-1 mod m for gcd(x, m) = 1 (extended Euclid in small integers) */
int64_t ozb_crt_inverse_mod(int64_t x, int64_t m);

/* x mod m in [0, m) for an integer-valued 0 <= |x| < 2^40 in binary64: the quotient from
 * x * inv (inv = RN(1/m)) is within one of floor(x/m), and the two corrections absorb it;
 * every step is an exact integer operation. */
static inline double ozb_crt_mod(double x, double m, double inv) { return ozb_op_crt_mod(x, m, inv); }

/* Fills c for 2 <= s <= OZB_CRT_MAXMOD (exact integer arithmetic, see crt_consts.c). */
void ozb_crt_consts_init(int s, ozb_crt_consts *c);

#endif
