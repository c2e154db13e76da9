/* The correctly rounded CRT's reconstruction on the device (src/cuda/resident_crcr.c; the CPU's
 * is src/crt/crt_cr.c): per element, the residues of the exact integer C' = sum_l A'_il B'_lj
 * (A', B' the exactly scaled rows), Garner's mixed-radix digits, C' in 64-bit limbs by
 * Horner, centred (|C'| < M/2 by the choice of the moduli), and one rounding of
 * alpha 2^E C' + beta c.  Integer steps are exact; the rounding is exact (ozb_op_crcr_round)
 * where alpha is a power of two and beta c is zero, else certified by ozb_op_eft_finish from
 * C's two leading 53-bit chunks and a bound on the rest; an element it cannot certify (a
 * near-tie against beta c, a result outside the normal range) clears *ok and the caller
 * computes the call otherwise (correctly rounded: the same bits).
 * Budgets: the residues summed by the INT8 GEMMs and folded are in [-2^30, 2^30) (|centred
 * residue| <= 128, 2^16 terms a k-block) or [0, 2m) after a fold; Garner's sums stay below
 * 48 * 255 * 255 < 2^22; a Horner group of seven moduli is below 2^56, so X * gM + W fits
 * 128 bits per limb step. */
#ifndef OZB_CRCR_OPS_H
#define OZB_CRCR_OPS_H
#include "ozb_sum_ops.h"
#include "ozb_crt_ops.h"
#include "ozb_eft_ops.h"

#define OZB_OP_CRCR_NMOD 48
#define OZB_OP_CRCR_LIMBS 6                       /* M < 2^337 < 2^384 */

/* constants of s moduli (device memory: too large for kernel parameters) */
typedef struct {
    int s, L, ngroups;
    int32_t m[OZB_OP_CRCR_NMOD], inv[OZB_OP_CRCR_NMOD];
    double md[OZB_OP_CRCR_NMOD], mi[OZB_OP_CRCR_NMOD];        /* m_t and RN(1 / m_t) as doubles */
    int32_t P[OZB_OP_CRCR_NMOD][OZB_OP_CRCR_NMOD];          /* (m_0 ... m_{u-1}) mod m_t, u < t */
    uint64_t M[OZB_OP_CRCR_LIMBS], H[OZB_OP_CRCR_LIMBS];    /* M and floor(M/2) */
    int glo[OZB_OP_CRCR_NMOD], ghi[OZB_OP_CRCR_NMOD], glimbs[OZB_OP_CRCR_NMOD];
    uint64_t gM[OZB_OP_CRCR_NMOD];
} ozb_op_crcr_consts;

/* one tile's output: C(i0 + i, j0 + j) from acc[t ne + i + j mbb], t < s */
typedef struct {
    const int32_t *acc;
    int64_t ne, mbb, nbb, i0, j0;
    const int32_t *kaA, *kaB;                     /* per row of op(A) / of op(B)^T, whole problem */
    double alpha, beta;
    double *c;
    int64_t crs, ccs;
    int use_c;
    const ozb_op_crcr_consts *k;
    int *ok;
} ozb_op_crcr_args;

/* RN(X 2^E) for the integer X > 0 in L limbs, 0 with *ok = 0 where the result is not normal
 * (crt_garner.c's ozb_round_limbs: the same steps) */
OZB_HD double ozb_op_crcr_round(const uint64_t *X, int L, int E, int *ok)
{
    int top = L - 1;
    while (top > 0 && X[top] == 0) top--;
    const int lz = ozb_op_clz64(X[top]);
    const int T = 64 * top + 63 - lz;
    uint64_t mant;
    int sh;
    if (T < 53) { mant = X[0]; sh = 0; }
    else {
        const uint64_t a0 = X[top], a1 = top >= 1 ? X[top - 1] : 0, a2 = top >= 2 ? X[top - 2] : 0;
        const uint64_t hi = lz ? (a0 << lz) | (a1 >> (64 - lz)) : a0;
        const uint64_t lo = lz ? (a1 << lz) | (a2 >> (64 - lz)) : a1;
        int sticky = lo != 0 || (a2 << lz) != 0 || (hi & 0x3ff) != 0;   /* a2 below lo (all of it when lz = 0) */
        for (int q = top - 3; q >= 0 && !sticky; q--) sticky = X[q] != 0;
        mant = hi >> 11;
        const int rbit = (int)((hi >> 10) & 1);
        sh = T - 52;
        if (rbit && (sticky || (mant & 1))) {
            mant++;
            if (mant == (1ull << 53)) { mant >>= 1; sh++; }
        }
    }
    const int ex = sh + E + 52;
    if (ex < -1022 || ex > 1023) { *ok = 0; return 0.0; }
    *ok = 1;
    return ozb_op_scale2((double)mant, sh + E);
}

/* bits [b, b + 53) of X as an integer (bits below 0 are zero) */
OZB_HD uint64_t ozb_op_crcr_bits53(const uint64_t *X, int L, int b)
{
    const uint64_t mask = (1ull << 53) - 1;
    if (b <= -53) return 0;
    if (b < 0) return (X[0] << -b) & mask;
    const int l = b >> 6, o = b & 63;
    if (l >= L) return 0;
    uint64_t r = X[l] >> o;
    if (o > 11 && l + 1 < L) r |= X[l + 1] << (64 - o);
    return r & mask;
}

/* any bit of X below position b */
OZB_HD int ozb_op_crcr_any_below(const uint64_t *X, int b)
{
    if (b <= 0) return 0;
    int any = 0;
    for (int l = 0; l < (b >> 6); l++) any |= X[l] != 0;
    if (b & 63) any |= (X[b >> 6] & ((1ull << (b & 63)) - 1)) != 0;
    return any;
}

/* The exact scaling of row r (< rows), from the row maxima and lowest set bits the meta pass
 * left on the device: ka = minus the lowest set bit, 0 for a zero row (resident_crcr.c's
 * row_spans has declined rows with Inf or NaN or too wide a span before this runs);
 * row 0 also sets the certificate's flag, which the output clears where it does not certify. */
OZB_HD void ozb_op_crcr_ka(const uint64_t *mx, const int32_t *low, int32_t *ka, int *ok, int64_t r)
{
    ka[r] = mx[r] == 0 ? 0 : -low[r];
    if (r == 0) *ok = 1;
}

/* element e of the tile; 0 and *ok cleared where not certified */
OZB_HD void ozb_op_crcr_elem(const ozb_op_crcr_args *g, int64_t e)
{
    const ozb_op_crcr_consts *k = g->k;
    const int s = k->s, L = k->L;
    int32_t V[OZB_OP_CRCR_NMOD];
    for (int t = 0; t < s; t++) {                 /* Garner's digits */
        /* the reductions modulo m_t in binary64 (ozb_op_crt_mod: exact for |x| < 2^51, one
         * correction either way), not 32-bit '%', which a GPU computes in ~20 instructions */
        const double mt = k->md[t], inv = k->mi[t];
        int32_t a = 0;
        for (int u = 0; u < t; u++) a += V[u] * k->P[u][t];            /* < 48 * 255 * 255 < 2^22 */
        const double c = ozb_op_crt_mod((double)g->acc[(int64_t)t * g->ne + e], mt, inv);   /* |acc| < 2^31 */
        double d = c - ozb_op_crt_mod((double)a, mt, inv);
        d += d < 0.0 ? mt : 0.0;
        V[t] = (int32_t)ozb_op_crt_mod(d * (double)k->inv[t], mt, inv);  /* < 2^16 */
    }
    uint64_t X[OZB_OP_CRCR_LIMBS] = {0, 0, 0, 0, 0, 0};
    for (int q = 0; q < k->ngroups; q++) {         /* Horner from the top group down */
        uint64_t W = 0;
        for (int t = k->ghi[q]; t >= k->glo[q]; t--) W = W * (uint64_t)k->m[t] + (uint64_t)V[t];
        ozb_u128 carry = W;
        for (int l = 0; l < k->glimbs[q]; l++) {
            const ozb_u128 v = (ozb_u128)X[l] * k->gM[q] + carry;
            X[l] = (uint64_t)v;
            carry = v >> 64;
        }
    }
    int neg = 0;                                   /* centred: X > floor(M/2) means C' = X - M */
    for (int l = L - 1; l >= 0; l--)
        if (X[l] != k->H[l]) { neg = X[l] > k->H[l]; break; }
    if (neg) {
        uint64_t br = 0;
        for (int l = 0; l < L; l++) {
            const uint64_t mq = k->M[l], xq = X[l];
            X[l] = mq - xq - br;
            br = (mq < xq) || (mq - xq < br);
        }
    }
    int64_t il;
    const int64_t jl = ozb_op_divmod(e, g->mbb, &il), gi = g->i0 + il, gj = g->j0 + jl;
    double *cij = g->c + gi * g->crs + gj * g->ccs;
    const double cval = g->use_c ? *cij : 0.0;
    int zero = 1;
    for (int l = 0; l < L; l++) zero &= X[l] == 0;
    if (zero) { *cij = g->use_c ? (cval == 0.0 ? 0.0 : g->beta * cval) : 0.0; return; }
    const int E = -(g->kaA[gi] + g->kaB[gj]);
    int ok = 0;
    double r = 0.0;
    int ea;
    const double fa = frexp(fabs(g->alpha), &ea);
    if (fa == 0.5 && (!g->use_c || cval == 0.0)) {          /* |alpha| = 2^(ea - 1): exact */
        r = ozb_op_crcr_round(X, L, E + ea - 1, &ok);
        if (ok) r = ((g->alpha < 0.0) != neg) ? -r : r;
    } else {
        int top = L - 1;
        while (top > 0 && X[top] == 0) top--;
        const int T = 64 * top + 63 - ozb_op_clz64(X[top]);   /* highest set bit */
        if (T + E >= -900 && T + E <= 900) {
            /* C' = d0 2^(T-52) + d1 2^(T-105) + R, 0 <= R < 2^(T-105); the chain s + c with
             * |c - C| <= es = 2^-52 b + 2^-1074 (ozb_op_eft_finish, depth 1) */
            const uint64_t d0 = ozb_op_crcr_bits53(X, L, T - 52), d1 = ozb_op_crcr_bits53(X, L, T - 105);
            const int rest = ozb_op_crcr_any_below(X, T - 105);
            const double sg = neg ? -1.0 : 1.0;
            ozb_eft_acc a;
            a.s = sg * ozb_op_scale2((double)d0, T - 52 + E);
            a.c = sg * ozb_op_scale2((double)d1, T - 105 + E);
            a.b = rest ? ozb_op_scale2(1.0, T - 105 + E + 52) : 0.0;
            a.bad = 0;
            ok = ozb_op_eft_finish(&a, 1.0, g->alpha, g->use_c ? g->beta : 0.0, cval, &r);
        }
    }
    if (ok) *cij = r;
    else *g->ok = 0;
}
#endif
