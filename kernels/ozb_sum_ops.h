/* Summation of exact partial products, per output element, written once for the host and
 * the device: the long accumulator (src/sum/longacc.c wraps it), the tail of the fixed-order
 * binary64 sum (src/sum/sum.c), and the device engine's element sum (src/cuda/resident.c),
 * which walks the partial products of one element in the order of the CPU pipeline's
 * element() (scheme1/pipeline.c) so that both give the same bits.  Integer and exact
 * operations, plus the few roundings of the fixed-order sum, in a fixed order; compiled
 * without FMA contraction (-ffp-contract=off, nvcc --fmad=false). */
#ifndef OZB_SUM_OPS_H
#define OZB_SUM_OPS_H
#include "ozb_bits_ops.h"
#include <limits.h>

__extension__ typedef unsigned __int128 ozb_u128;

/* ---- long accumulator: the exact sum of products of doubles, rounded once ----
 * Bit position 0 is 2^OZB_LA_EMIN.  Range needed: lowest bit of alpha*P*2^E is
 * >= 2^(-1074) * 2^(2*(-1074-26)) = 2^-3274; the highest below 2^(1024+53+2*1023+64).
 * 232 digits of 32 bits cover 2^-3500 .. 2^3924. */
#define OZB_LA_EMIN  (-3500)
#define OZB_LA_DIGITS 232

typedef struct {
    int64_t d[OZB_LA_DIGITS];   /* signed digits, carries resolved lazily (each add adds < 2^33) */
    int lo, hi;                 /* touched digit range */
} ozb_longacc;

OZB_HD void ozb_op_la_init(ozb_longacc *a)
{
    for (int i = 0; i < OZB_LA_DIGITS; i++) a->d[i] = 0;
    a->lo = OZB_LA_DIGITS;
    a->hi = -1;
}

/* a += (neg ? -1 : 1) * mag * 2^exp, with OZB_LA_EMIN <= exp and mag < 2^128 */
OZB_HD void ozb_op_la_add(ozb_longacc *a, int neg, ozb_u128 mag, int exp)
{
    if (mag == 0) return;
    const int pos = exp - OZB_LA_EMIN;
    const int d0 = pos >> 5, sh = pos & 31;
    for (int j = 0; j < 4 && mag != 0; j++, mag >>= 32) {
        const uint64_t v = (uint64_t)(mag & 0xffffffffu) << sh;   /* < 2^63 */
        const int64_t lo = (int64_t)(v & 0xffffffffu), hi = (int64_t)(v >> 32);
        const int idx = d0 + j;
        if (neg) { a->d[idx] -= lo; a->d[idx + 1] -= hi; }
        else     { a->d[idx] += lo; a->d[idx + 1] += hi; }
        if (idx < a->lo) a->lo = idx;
        if (idx + 1 > a->hi) a->hi = idx + 1;
    }
}

/* a += x * y exactly, for finite doubles */
OZB_HD void ozb_op_la_add_product(ozb_longacc *a, double x, double y)
{
    int ex, ey, nx, ny;
    const uint64_t mx = ozb_op_mant_exp(x, &ex, &nx), my = ozb_op_mant_exp(y, &ey, &ny);
    ozb_op_la_add(a, nx ^ ny, (ozb_u128)mx * my, ex + ey);
}

/* dst += src, exactly (digit-wise: each digit stays far inside int64 for any number of terms
 * below 2^29); src is left clean */
OZB_HD void ozb_op_la_merge(ozb_longacc *dst, ozb_longacc *src)
{
    if (src->hi < 0) return;
    for (int i = src->lo; i <= src->hi; i++) { dst->d[i] += src->d[i]; src->d[i] = 0; }
    if (src->lo < dst->lo) dst->lo = src->lo;
    if (src->hi > dst->hi) dst->hi = src->hi;
    src->lo = OZB_LA_DIGITS;
    src->hi = -1;
}

OZB_HD int ozb_op_la_bit(const int64_t *d, int pos) { return (int)((d[pos >> 5] >> (pos & 31)) & 1); }

/* RN of the exact value (subnormal results and overflow to Inf as IEEE 754); *sign is the
 * exact sign (-1, 0, 1).  Resets a for the next use.  An exact zero gives +0. */
OZB_HD double ozb_op_la_round(ozb_longacc *a, int *sign)
{
    *sign = 0;
    if (a->hi < 0) { a->lo = OZB_LA_DIGITS; return 0.0; }
    const int lo = a->lo;
    int hi = a->hi + 2;
    if (hi >= OZB_LA_DIGITS) hi = OZB_LA_DIGITS - 1;
    int64_t *d = a->d;
    /* resolve carries: digits into [0, 2^32), the final carry is the sign (0 or -1) */
    int64_t carry = 0;
    for (int i = lo; i <= hi; i++) {
        const int64_t x = d[i] + carry;
        const int64_t low = x & 0xffffffff;
        carry = (x - low) / 4294967296LL;
        d[i] = low;
    }
    const int neg = carry < 0;
    if (neg) {                                  /* two's complement over [lo, hi] */
        int64_t c = 1;
        for (int i = lo; i <= hi; i++) {
            const int64_t x = (0xffffffff - d[i]) + c;
            c = x >> 32;
            d[i] = x & 0xffffffff;
        }
    }
    int top = hi;
    while (top >= lo && d[top] == 0) top--;
    double result = 0.0;
    if (top >= lo) {
        *sign = neg ? -1 : 1;
        const int msb = top * 32 + (31 - ozb_op_clz32((uint32_t)d[top]));
        const int emsb = msb + OZB_LA_EMIN;              /* value in [2^emsb, 2^(emsb+1)) */
        const int elsb = emsb - 52 > -1074 ? emsb - 52 : -1074;
        const int plsb = elsb - OZB_LA_EMIN;
        uint64_t M = 0;
        for (int p = msb; p >= plsb; p--) M = (M << 1) | (uint64_t)ozb_op_la_bit(d, p);
        int rbit = 0, sticky = 0;
        if (plsb - 1 >= 0 && plsb - 1 <= msb) rbit = ozb_op_la_bit(d, plsb - 1);
        int ps = plsb - 1;                               /* bits strictly below ps are sticky */
        if (ps > msb + 1) ps = msb + 1;                  /* value entirely below the round bit */
        if (ps > 0) {
            const int q = ps >> 5;
            if (q <= hi && (d[q] & ((1LL << (ps & 31)) - 1))) sticky = 1;
            for (int i = lo; i < q && !sticky; i++) if (d[i]) sticky = 1;
        }
        if (plsb - 1 > msb) {                            /* whole value below half the smallest unit */
            rbit = 0; sticky = 1; M = 0;
        }
        if (rbit && (sticky || (M & 1))) M++;
        result = ldexp((double)M, elsb);                 /* exact, or +Inf on overflow */
        if (neg) result = -result;
    }
    for (int i = lo; i <= hi; i++) d[i] = 0;
    a->lo = OZB_LA_DIGITS;
    a->hi = -1;
    return result;
}

/* ---- the fixed-order binary64 sum's tail (sum.c: ozb_sum_double) ----
 * s = sum_t P_t 2^(E_t - F) in the caller's order (F = INT_MIN: no nonzero term); then
 * alpha and beta c in a common power-of-two frame, so that nothing overflows early. */
OZB_HD double ozb_op_sum_double_finish(double s, int F, double alpha, double beta, double c, int use_c)
{
    if (F == INT_MIN || s == 0.0) {
        if (!use_c) return 0.0;
        const double r = beta * c;
        return (c == 0.0) ? 0.0 : r;
    }
    int ea;
    const double a = s * ozb_op_split_pow2(alpha, &ea);
    const int Fa = F + ea;
    if (!use_c || c == 0.0) return ozb_op_scale_pow2(a, Fa);
    int eb, ec;
    const double bc = ozb_op_split_pow2(beta, &eb) * ozb_op_split_pow2(c, &ec);
    const int Gc = eb + ec;
    const int X = Fa > Gc ? Fa : Gc;
    const double r = ozb_op_scale_pow2(a, Fa - X) + ozb_op_scale_pow2(bc, Gc - X);
    return ozb_op_scale_pow2(r, X);
}

/* ---- one output element of the device engine (src/cuda/resident.c) ----
 * Partial products of a tile, for k-block kk: P[kk*M*N + (t*mb + i) + (u*nb + j)*M] is the
 * exact product of slice t of row i of op(A) and slice u of row j of op(B)^T (tile-local
 * i, j); slice t of a row with exponent e lies on the grid 2^(e - (t+1) beta).  Row
 * metadata (exponent, slice count) of the whole problem: eA[kk*m + gi], nsA[...]. */
typedef struct {
    const void    *P;
    int            ptype;              /* 0: double, 1: float (FP16 products), 2: int32 (INT8) */
    int64_t        M, N, mb, nb;       /* M = sa*mb, N = sb*nb                                */
    int64_t        i0, j0, m, n;       /* tile origin; problem shape (metadata strides)       */
    int            nkb, beta_bits;
    const int32_t *eA, *nsA, *eB, *nsB;
    int            exact;              /* 1: RN(exact) (CORRECTLY_ROUNDED, FIXED + NearSum)   */
    int            level_sum;          /* format: the pairs of one level add exactly           */
    int            dfast;              /* pairs t + u <= dfast - 1 only (0: all)               */
    double         alpha, beta;
    double        *c;                  /* C(gi, gj) = c[gi*crs + gj*ccs]; read where use_c     */
    int64_t        crs, ccs;
    int            use_c;
} ozb_op_sum_args;

OZB_HD double ozb_op_p_at(const ozb_op_sum_args *g, int64_t idx)
{
    if (g->ptype == 0) return ((const double *)g->P)[idx];
    if (g->ptype == 1) return (double)((const float *)g->P)[idx];
    return (double)((const int32_t *)g->P)[idx];
}

/* The element's terms in the CPU's order, visited from the last to the first: what = 0
 * takes the largest exponent F, 1 adds P 2^(E - F) to *s (the fixed-order sum), 2 adds
 * alpha P 2^E to the long accumulator (alpha = ma 2^ea, sign na).  Only the k-blocks
 * kk = kk0 (mod kkstep): (0, 1) for all; the exact sum may split them among threads (its
 * additions are exact, so any split and order give the same accumulator). */
OZB_HD void ozb_op_walk(const ozb_op_sum_args *g, int64_t i, int64_t j, int what, int *F, double *s,
                        ozb_longacc *acc, uint64_t ma, int ea, int na, int kk0, int kkstep)
{
    const int beta = g->beta_bits;
    if (kk0 >= g->nkb) return;
    /* the k-blocks kk = kk0 (mod kkstep), from the last: all of them when kkstep == 1 */
    for (int kk = g->nkb - 1 - (g->nkb - 1 - kk0) % kkstep; kk >= kk0; kk -= kkstep) {
        const int64_t ia = (int64_t)kk * g->m + g->i0 + i, jb = (int64_t)kk * g->n + g->j0 + j;
        const int nsa = g->nsA[ia], nsb = g->nsB[jb];
        if (nsa <= 0 || nsb <= 0) continue;
        const int d = g->dfast;                          /* pairs t + u <= d - 1; 0: all */
        const int wa0 = g->eA[ia] - beta, wb0 = g->eB[jb] - beta;
        const int64_t base = (int64_t)kk * g->M * g->N + i + j * g->M, ustep = g->nb * g->M;
        const int levels = g->level_sum;
        const int tmax = levels ? nsa + nsb - 2 : nsa - 1;
        for (int q = tmax; q >= 0; q--) {                /* a level L = q, or a slice t = q of A */
            const int ulast = levels ? 0 : ((d > 0 && d - q < nsb) ? d - q : nsb) - 1;
            for (int u = ulast; u >= 0; u--) {
                double p;
                int E;
                if (levels) {                            /* the pairs t + u = L, summed exactly */
                    p = 0.0;
                    for (int t = 0; t < nsa; t++) {
                        const int uu = q - t;
                        if (uu < 0 || uu >= nsb || (d > 0 && uu >= d - t)) continue;
                        p += ozb_op_p_at(g, base + t * g->mb + uu * ustep);
                    }
                    E = wa0 + wb0 - q * beta;
                } else {
                    p = ozb_op_p_at(g, base + q * g->mb + u * ustep);
                    E = wa0 - q * beta + wb0 - u * beta;
                }
                if (p == 0.0) continue;
                if (what == 0) { if (E > *F) *F = E; }
                else if (what == 1) *s += ozb_op_scale_pow2(p, E - *F);
                else ozb_op_la_add(acc, na ^ (p < 0.0), (ozb_u128)(uint64_t)fabs(p) * ma, E + ea);
            }
        }
    }
}

/* The exact sum in parts: alpha P 2^E of the element's k-blocks kk = kk0 (mod kkstep) into
 * acc; then (one accumulator holding every part, ozb_op_la_merge) beta c and the rounding. */
OZB_HD void ozb_op_sum_part(const ozb_op_sum_args *g, int64_t i, int64_t j, int kk0, int kkstep, ozb_longacc *acc)
{
    int ea, na, F = INT_MIN;
    const uint64_t ma = ozb_op_mant_exp(g->alpha, &ea, &na);
    ozb_op_walk(g, i, j, 2, &F, NULL, acc, ma, ea, na, kk0, kkstep);
}

OZB_HD double ozb_op_sum_finish(const ozb_op_sum_args *g, int64_t i, int64_t j, ozb_longacc *acc)
{
    if (g->use_c) ozb_op_la_add_product(acc, g->beta, g->c[(g->i0 + i) * g->crs + (g->j0 + j) * g->ccs]);
    int sign;
    return ozb_op_la_round(acc, &sign);
}

/* The element's value: RN(alpha S + beta c) from the long accumulator (the value of the CPU's
 * NearSum, which is unique), or the CPU's fixed-order binary64 sum.  acc is clean on entry
 * and on return.  Finite alpha, beta, c, and finite products only (resident.c checks). */
OZB_HD double ozb_op_sum_elem(const ozb_op_sum_args *g, int64_t i, int64_t j, ozb_longacc *acc)
{
    const int64_t gi = g->i0 + i, gj = g->j0 + j;
    const double cval = g->use_c ? g->c[gi * g->crs + gj * g->ccs] : 0.0;
    int F = INT_MIN;
    if (g->exact) {
        ozb_op_sum_part(g, i, j, 0, 1, acc);
        return ozb_op_sum_finish(g, i, j, acc);
    }
    double s = 0.0;
    ozb_op_walk(g, i, j, 0, &F, NULL, acc, 0, 0, 0, 0, 1);
    if (F != INT_MIN) ozb_op_walk(g, i, j, 1, &F, &s, acc, 0, 0, 0, 0, 1);
    return ozb_op_sum_double_finish(s, F, g->alpha, g->beta, cval, g->use_c);
}
#endif
