/* Multi-limb integers of the correctly rounded CRT (crt_cr.c): the moduli's product M, the
 * Garner constants and the one rounding of a limb integer to binary64. */
#include "crt/crt_garner.h"
#include "sum/longacc.h"
#include "../../kernels/ozb_crcr_ops.h"
#include <math.h>
#include <string.h>

/* M = m_0 ... m_{s-1} in 64-bit limbs */
static void m_limbs(int s, uint64_t M[LIMBS])
{
    memset(M, 0, sizeof(uint64_t) * LIMBS);
    M[0] = 1;
    for (int t = 0; t < s; t++) {
        ozb_u128 carry = 0;
        for (int q = 0; q < LIMBS; q++) {
            const ozb_u128 v = (ozb_u128)M[q] * (uint64_t)ozb_crt_moduli[t] + carry;
            M[q] = (uint64_t)v; carry = v >> 64;
        }
    }
}

void ozb_garner_init(int s, garner_t *g)
{
    g->s = s;
    for (int t = 0; t < s; t++) {
        const int64_t m = ozb_crt_moduli[t];
        int64_t pr = 1 % m;
        for (int u = 0; u < t; u++) { g->P[u][t] = (int32_t)pr; pr = pr * ozb_crt_moduli[u] % m; }
        g->inv[t] = (int32_t)ozb_crt_inverse_mod(pr, m);
    }
    m_limbs(s, g->M);
    uint64_t c = 0;
    for (int q = LIMBS - 1; q >= 0; q--) { g->H[q] = (g->M[q] >> 1) | (c << 63); c = g->M[q] & 1; }
}

int ozb_log2M_of(int s)
{
    uint64_t M[LIMBS];
    m_limbs(s, M);
    for (int q = LIMBS - 1; q >= 0; q--)
        if (M[q]) return 64 * q + 63 - __builtin_clzll(M[q]);
    return 0;
}

/* RN(X 2^E) for the integer X > 0 in L 64-bit limbs, or 0 with *ok = 0 when the result
 * would be subnormal or overflow (the caller then takes the long accumulator): the device's
 * element operation, one definition for both */
double ozb_round_limbs(const uint64_t *X, int L, int E, int *ok) { return ozb_op_crcr_round(X, L, E, ok); }
