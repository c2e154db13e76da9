/* Multi-limb integers of the correctly rounded CRT (crt_cr.c): the moduli's product M, the
 * Garner constants and the one rounding of a limb integer to binary64. */
#include "crt/crt_garner.h"
#include "sum/longacc.h"
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
 * would be subnormal or overflow (the caller then takes the long accumulator). */
double ozb_round_limbs(const uint64_t *X, int L, int E, int *ok)
{
    int top = L - 1;
    while (X[top] == 0) top--;
    const int lz = __builtin_clzll(X[top]);
    const int T = 64 * top + 63 - lz;                 /* highest set bit */
    uint64_t mant;
    int sh;
    if (T < 53) { mant = X[0]; sh = 0; }
    else {
        /* hi = bits T .. T-63, lo = bits T-64 .. T-127, sticky = anything lower */
        const uint64_t a0 = X[top], a1 = top >= 1 ? X[top - 1] : 0, a2 = top >= 2 ? X[top - 2] : 0;
        const uint64_t hi = lz ? (a0 << lz) | (a1 >> (64 - lz)) : a0;
        const uint64_t lo = lz ? (a1 << lz) | (a2 >> (64 - lz)) : a1;
        int sticky = lo != 0 || (a2 << lz) != 0 || (hi & 0x3ff) != 0;   /* a2 below lo (all of it when lz = 0) */
        for (int q = top - 3; q >= 0 && !sticky; q--) sticky = X[q] != 0;
        mant = hi >> 11;                              /* bits T .. T-52 */
        const int rbit = (int)((hi >> 10) & 1);
        sh = T - 52;
        if (rbit && (sticky || (mant & 1))) {
            mant++;
            if (mant == (1ull << 53)) { mant >>= 1; sh++; }
        }
    }
    const int ex = sh + E + 52;                       /* result below 2^(ex+1) */
    if (ex < -1022 || ex > 1023) { *ok = 0; return 0.0; }
    *ok = 1;
    return ldexp((double)mant, sh + E);               /* exact: 53 bits, normal exponent */
}
