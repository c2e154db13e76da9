/* Garner's mixed-radix reconstruction for the correctly rounded CRT (crt_cr.c, crt_garner.c). */
#ifndef OZB_CRT_GARNER_H
#define OZB_CRT_GARNER_H
#include "crt/crt_consts.h"

#define LIMBS 6                     /* 64-bit limbs of C' (M < 2^337 < 2^384) */

/* Garner constants for s moduli: inv[t] = (m_0 ... m_{t-1})^-1 mod m_t,
 * P[u][t] = (m_0 ... m_{u-1}) mod m_t (u < t); M and floor(M/2) in 64-bit limbs. */
typedef struct { int s; int32_t inv[OZB_CRT_NMOD]; int32_t P[OZB_CRT_NMOD][OZB_CRT_NMOD]; uint64_t M[LIMBS], H[LIMBS]; } garner_t;

void   ozb_garner_init(int s, garner_t *g);
/* floor(log2 M) for the first s moduli */
int    ozb_log2M_of(int s);
/* RN(X 2^E) for the integer X > 0 in L 64-bit limbs, or 0 with *ok = 0 when the result
 * would be subnormal or overflow (the caller then takes the long accumulator). */
double ozb_round_limbs(const uint64_t *X, int L, int E, int *ok);
#endif
