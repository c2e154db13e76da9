/* Moduli table and the exact constants of the CRT reconstruction (crt_consts.h).
 * Compiled with -ffp-contract=off; fma() below is an explicit TwoProduct. */
#include "crt/crt_consts.h"
#include "core/ozb_internal.h"
#include <math.h>

const int ozb_crt_moduli[OZB_CRT_NMOD] = {256, 255, 253, 251, 247, 241, 239, 233, 229, 227,
                                          223, 217, 211, 199, 197, 193, 191, 181, 179, 173,
                                          167, 163, 157, 151, 149, 139, 137, 131, 127, 113,
                                          109, 107, 103, 101, 97, 89, 83, 79, 73, 71,
                                          67, 61, 59, 53, 47, 43, 41, 37};

int64_t ozb_crt_inverse_mod(int64_t x, int64_t m)
{
    int64_t r0 = m, r1 = ((x % m) + m) % m, t0 = 0, t1 = 1;
    while (r1) {
        int64_t q = r0 / r1, tmp;
        tmp = r0 - q * r1; r0 = r1; r1 = tmp;
        tmp = t0 - q * t1; t0 = t1; t1 = tmp;
    }
    return ((t0 % m) + m) % m;
}

void ozb_crt_consts_init(int s, ozb_crt_consts *c)
{
    c->s = s;
    double Mh = 1.0, Ml = 0.0;
    for (int t = 0; t < s; t++) {
        const int64_t m = ozb_crt_moduli[t];
        /* (M / m_t) mod m_t as a product of the other moduli mod m_t: exact in int64 */
        int64_t Mt = 1;
        for (int u = 0; u < s; u++)
            if (u != t) Mt = (Mt * ozb_crt_moduli[u]) % m;
        const int64_t y = ozb_crt_inverse_mod(Mt, m);
        /* f = y/m: y 2^44 < 2^52, so the divisions below are exact integer operations */
        const int64_t n1 = y << 44;
        c->F1[t] = n1 / m;
        const int64_t r1 = n1 % m, n2 = r1 << 44;
        c->F2[t] = n2 / m;
        c->f3[t] = (double)(n2 % m) / (double)m;
        /* M *= m in double-double: TwoProduct of the high part, the low part's product rounds
         * (relative error of M after s steps below s 2^-104) */
        const double p = Mh * (double)m, e = fma(Mh, (double)m, -p);
        const double l = Ml * (double)m + e;
        Mh = p + l;
        Ml = l - (Mh - p);
    }
    c->Mh = Mh;
    c->Ml = Ml;
    /* floor(log2 M): Mh = RN(M) and M = Mh + Ml (to 2^-104), M is not a power of two (it has
     * odd factors), so ilogb(Mh) is floor(log2 M) unless Mh rounded up to a power of two. */
    c->log2M = ozb_ilogb(Mh) - ((Mh == ozb_pow2(ozb_ilogb(Mh)) && Ml < 0.0) ? 1 : 0);
    /* Cauchy-Schwarz budget (crt.c): ||A'_i||_2 <= 2^alpha and ||B'_j||_2 <= 2^alpha give
     * |C'| <= 2^(2 alpha) <= 2^(log2M - 1) < M/2 (M > 2^log2M), so the centred residue
     * class determines C'.  alpha <= 61 keeps the scaled integers below 2^61, as the
     * residue kernel needs. */
    c->alpha = (c->log2M - 1) / 2;
    if (c->alpha > 61) c->alpha = 61;
}
