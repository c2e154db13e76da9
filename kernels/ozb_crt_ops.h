/* Ozaki scheme II (src/crt/crt.c) per element and per row, written once for the host and the
 * device (src/cuda/resident_crt.c): the row scales, the exact residues, and the output
 * C = alpha 2^p C' + beta C.  The same operations in the same order as crt.c's loops, which
 * call these functions, so both give the same bits.  fma() is used where it is exact. */
#ifndef OZB_CRT_OPS_H
#define OZB_CRT_OPS_H
#include "ozb_engine_ops.h"

#define OZB_OP_E_ZERO INT32_MIN
#define OZB_OP_E_BAD  INT32_MAX

OZB_HD int ozb_op_usable(int32_t e) { return e != OZB_OP_E_ZERO && e != OZB_OP_E_BAD; }

/* 2^p as two normal factors for |p| <= 2023 (ozb_pow2_pair) */
OZB_HD void ozb_op_pow2_pair(int p, double g[2])
{
    const int p1 = p > 1000 ? 1000 : p < -1000 ? -1000 : p;
    g[0] = ozb_op_pow2(p1);
    g[1] = ozb_op_pow2(p - p1);
}

/* 2^p x for any integer p, exact where the result is normal or where only its truncation
 * below 1 (0) is used (crt.c's scale2) */
OZB_HD double ozb_op_scale2(double x, int p)
{
    while (p > 1000) { x *= 0x1p1000; p -= 1000; }
    while (p < -1000) { x *= 0x1p-1000; p += 1000; }
    return x * ozb_op_pow2(p);
}

/* A row's exponent e (max |x| < 2^e; E_ZERO, E_BAD for Inf/NaN), c with 2^c >= ||x||_2 and
 * ||x||_1 2^-e rounded up: crt.c's row_scales and finish_scale, sums in lane order
 * (ozb_op_lane_tree). */
typedef struct { int32_t e, c; double l1; } ozb_op_crt_row;

/* the exponent of a row from its largest |x|'s bits: max |x| < 2^e */
OZB_HD int32_t ozb_op_crt_row_exp(uint64_t mx)
{
    if (mx == 0) return OZB_OP_E_ZERO;
    if (mx >= OZB_OP_INF_BITS) return OZB_OP_E_BAD;
    return ozb_op_ilogb(ozb_op_from_bits(mx)) + 1;
}

/* c and l1 of a row with usable exponent e from its sums s2 of (x 2^-e)^2 and s1 of |x 2^-e| */
OZB_HD ozb_op_crt_row ozb_op_crt_row_of_sums(int32_t e, double s2, double s1)
{
    ozb_op_crt_row r = {e, 0, 0.0};
    /* ||x 2^-e||_2 <= sqrt(s2 (1 + (k+1) 2^-52)) (1 + 2^-52): margin 2^-40 covers k < 2^30
     * (a lane tree's error is at most the sequential sum's bound) */
    const double n2 = sqrt(s2) * (1.0 + 0x1p-40);
    int c = ozb_op_ilogb(n2);
    if (n2 != ozb_op_pow2(c)) c++;                 /* 2^c >= n2 */
    r.c = r.e + c;
    r.l1 = s1 * (1.0 + 0x1p-40);
    return r;
}

/* the same from the sums' lane partials (destroyed: ozb_op_lane_tree) */
OZB_HD ozb_op_crt_row ozb_op_crt_row_finish(int32_t e, double *p2, double *p1)
{
    return ozb_op_crt_row_of_sums(e, ozb_op_lane_tree(p2), ozb_op_lane_tree(p1));
}

OZB_HD ozb_op_crt_row ozb_op_crt_rowscale(const double *row, int64_t cs, int64_t k)
{
    uint64_t mx = 0;
    for (int64_t l = 0; l < k; l++) { const uint64_t b = ozb_op_bits(row[l * cs]) & OZB_OP_ABS; mx = b > mx ? b : mx; }
    ozb_op_crt_row r = {ozb_op_crt_row_exp(mx), 0, 0.0};
    if (!ozb_op_usable(r.e)) return r;
    double g[2], p2[OZB_OP_SUM_LANES] = {0.0}, p1[OZB_OP_SUM_LANES] = {0.0};
    ozb_op_pow2_pair(-r.e, g);
    for (int64_t l0 = 0; l0 < k; l0 += OZB_OP_SUM_LANES) {   /* |x 2^-e| < 1: no overflow */
        const int nt = k - l0 < OZB_OP_SUM_LANES ? (int)(k - l0) : OZB_OP_SUM_LANES;
        for (int t = 0; t < nt; t++) {
            const double x = row[(l0 + t) * cs] * g[0] * g[1];
            p2[t] += x * x;
            p1[t] += fabs(x);
        }
    }
    return ozb_op_crt_row_finish(r.e, p2, p1);
}

/* x = trunc(a) (an integer below 2^62, 0 for a NaN from an E_BAD row) = xh 2^26 + xl exactly */
OZB_HD void ozb_op_crt_hl(double a, double *xh, double *xl)
{
    const double x = fabs(a) < 0x1p62 ? trunc(a) : 0.0;
    const double h = trunc(x * 0x1p-26);
    *xh = h;
    *xl = x - h * 0x1p26;
}

/* x mod m as a residue in [-128, 127] (uns: [0, m), stored as uint8): y = xh (2^26 mod m) + xl
 * is congruent to x and below 2^44 (one exact FMA), r = y - m RN(y/m) with RN by the 1.5 2^52
 * trick (|y/m| < 2^51; the quotient from y*inv is off by at most one, which the two
 * corrections absorb): exact integer steps. */
OZB_HD int8_t ozb_op_crt_residue(double xh, double xl, double m, double inv, double p26, int uns)
{
    const double C = 0x1.8p52;
    const double y = fma(xh, p26, xl);
    const double q = (y * inv + C) - C;
    double r = fma(-m, q, y);
    r = r > 127.0 ? r - m : r;
    r = r < -128.0 ? r + m : r;
    if (uns) r = r < 0.0 ? r + m : r;
    return (int8_t)(uint8_t)(int32_t)r;
}

/* alpha xv 2^p + beta c (the second term if use_c) for finite operands, without a spurious
 * overflow or underflow in an intermediate term (crt.c's axpbc_scaled) */
OZB_HD double ozb_op_axpbc_scaled(double alpha, double xv, int p, double beta, double c, int use_c)
{
    int ea, eb, ec;
    const double a = frexp(alpha, &ea) * xv;
    const int Fa = p + ea;
    if (!use_c || c == 0.0) return ozb_op_scale2(a, Fa);
    const double bc = frexp(beta, &eb) * frexp(c, &ec);
    const int Gc = eb + ec, X = Fa > Gc ? Fa : Gc;
    return ozb_op_scale2(ozb_op_scale2(a, Fa - X) + ozb_op_scale2(bc, Gc - X), X);
}

/* One output element from C' (xv, in units of 2^-88) for finite alpha, beta, c:
 * alpha 2^p xv + beta c, p = -(ka_i + kb_j) - 88 (both rows usable; else xv = 0). */
OZB_HD double ozb_op_crt_out(double xv, int p, double alpha, double beta, double cval, int use_c)
{
    if (xv == 0.0) return use_c ? (cval == 0.0 ? 0.0 : beta * cval) : 0.0;
    const double x = (p >= -1022 && p <= 1023) ? xv * ozb_op_pow2(p) : ozb_op_scale2(xv, p);
    double r = NAN;
    if (isfinite(x) && fabs(x) >= 0x1p-1022) {
        r = alpha * x;
        if (use_c) r = r + beta * cval;
    }
    /* the dot product alone, alpha times it or beta C may overflow or underflow where the
     * result does not: both terms in a common power-of-two frame */
    if (!isfinite(r)) r = ozb_op_axpbc_scaled(alpha, xv, p, beta, cval, use_c);
    return r;
}

/* ---- the device's work items (src/cuda/resident_crt.c) ---- */

/* Moduli constants of the residues (crt.c's resconst_t).  ka == NULL: the residues of
 * trunc(x f1 f2) (FIXED and DOUBLE mode).  Else the exact scaling of the correctly rounded
 * CRT (resident_crcr.c): the residues of the integer x 2^ka[row] (ka: minus the row's lowest
 * set bit, so nothing is truncated), with pw[t * OZB_OP_CRCR_SHMAX + sh] = 2^sh mod m_t. */
#define OZB_OP_CRCR_SHMAX 512
typedef struct {
    double m[OZB_OP_CRT_MAXMOD], inv[OZB_OP_CRT_MAXMOD], p26[OZB_OP_CRT_MAXMOD];
    int s;
    const int32_t *ka;
    const uint8_t *pw;
} ozb_op_crt_res;

/* Residue item w = (kk, r, l < kbp) of a tile's rows r0..r0+rows-1 (ozb_op_item_elem): the
 * residues of trunc(x f1 f2) for every modulus,
 * out[((kk*s + t)*rows + r)*kbp + l] as int8 of the residue class (centred); 0 beyond the block. */
/* the scaled element (r, l) of k-block kk as the residues take it (0 beyond the block) */
OZB_HD void ozb_op_crt_res_hl(const ozb_op_side *v, const double *f1, const double *f2, int64_t r, int64_t l, int64_t kk,
                              double *xh, double *xl)
{
    const int64_t gl = kk * v->kb + l, gr = v->r0 + r;
    *xh = 0.0; *xl = 0.0;
    if (l < v->kb && gl < v->k) ozb_op_crt_hl(v->p[gr * v->rs + gl * v->cs] * f1[gr] * f2[gr], xh, xl);
}

/* The exact scaling's element (rc->ka set): x 2^ka = +-M 2^sh with M < 2^53 odd and sh >= 0
 * (ka is minus the row's lowest set bit, at most the element's), M as M = xh 2^26 + xl with
 * the sign on both; 0 beyond the block. */
OZB_HD void ozb_op_crcr_res_hl(const ozb_op_side *v, const ozb_op_crt_res *rc, int64_t r, int64_t l, int64_t kk,
                               double *xh, double *xl, int *sh)
{
    const int64_t gl = kk * v->kb + l, gr = v->r0 + r;
    *xh = 0.0; *xl = 0.0; *sh = 0;
    if (l >= v->kb || gl >= v->k) return;
    const double x = v->p[gr * v->rs + gl * v->cs];
    const uint64_t b = ozb_op_bits(x) & OZB_OP_ABS;
    if (b == 0) return;
    const int ef = (int)(b >> 52);
    uint64_t M = ef ? (b & 0xfffffffffffffull) | (1ull << 52) : b;
    const int tz = ozb_op_ctz64(M);
    M >>= tz;
    *sh = (ef ? ef - 1075 : -1074) + tz + rc->ka[gr];
    const double sg = x < 0.0 ? -1.0 : 1.0;
    *xh = sg * (double)(M >> 26);
    *xl = sg * (double)(M & 0x3ffffff);
}

/* element (r, l) of k-block kk as the residues take it, either scaling */
OZB_HD void ozb_op_crt_res_prep(const ozb_op_side *v, const double *f1, const double *f2, const ozb_op_crt_res *rc, int64_t r,
                                int64_t l, int64_t kk, double *xh, double *xl, int *sh)
{
    if (rc->ka) ozb_op_crcr_res_hl(v, rc, r, l, kk, xh, xl, sh);
    else { ozb_op_crt_res_hl(v, f1, f2, r, l, kk, xh, xl); *sh = 0; }
}

/* its residue modulo m_t in [-128, 127].  Exact scaling: M's residue r0 (|r0| <= 128) times
 * 2^sh mod m_t (< 256) is below 2^15 in magnitude, reduced again by the same exact steps. */
OZB_HD int8_t ozb_op_crt_res_t(const ozb_op_crt_res *rc, int t, double xh, double xl, int sh)
{
    const int8_t r0 = ozb_op_crt_residue(xh, xl, rc->m[t], rc->inv[t], rc->p26[t], 0);
    if (!rc->ka) return r0;
    return ozb_op_crt_residue(0.0, (double)r0 * (double)rc->pw[t * OZB_OP_CRCR_SHMAX + sh], rc->m[t], rc->inv[t],
                              rc->p26[t], 0);
}

OZB_HD void ozb_op_crt_res_item(const ozb_op_side *v, const double *f1, const double *f2, const ozb_op_crt_res *rc,
                                int64_t kbp, int8_t *out, int64_t w)
{
    int64_t r, l, kk;
    ozb_op_item_elem(v, kbp, w, &r, &l, &kk);
    double xh, xl;
    int sh;
    ozb_op_crt_res_prep(v, f1, f2, rc, r, l, kk, &xh, &xl, &sh);
    for (int t = 0; t < rc->s; t++) out[((kk * rc->s + t) * v->rows + r) * kbp + l] = ozb_op_crt_res_t(rc, t, xh, xl, sh);
}

/* ---- the ACCURATE scaling's bound (crt.c's crt_accurate) on the device ---- */

/* Quantized magnitude item w = (r, l < kbp) of rows r0.. over one k-block (ozb_op_item_elem):
 * q = ceil(|x| 2^(bits - e_r)) (bits: 6 for op(A), 7 for op(B)), at least 1 for x != 0, 0 for
 * a zero row; as int8, q = lo + hi with lo = min(q, 127) and hi in {0, 1} (op(B)'s q reaches
 * 128; hi may be NULL where q <= 64). */
/* the quantized magnitude of element (r, l): ceil(|a| 2^(bits - e)), at least 1 for a != 0 */
OZB_HD int32_t ozb_op_crt_quant_elem(const ozb_op_side *v, const int32_t *e, int bits, int64_t r, int64_t l)
{
    const int64_t gr = v->r0 + r;
    double q = 0.0;
    if (l < v->kb && l < v->k && ozb_op_usable(e[gr])) {
        const double a = fabs(v->p[gr * v->rs + l * v->cs]);
        double g[2];
        ozb_op_pow2_pair(bits - e[gr], g);
        q = ceil(a * g[0] * g[1]);
        q = (a != 0.0 && q == 0.0) ? 1.0 : q;
    }
    return (int32_t)q;
}

OZB_HD void ozb_op_crt_quant_item(const ozb_op_side *v, const int32_t *e, int bits, int64_t kbp, int8_t *lo, int8_t *hi,
                                  int64_t w)
{
    int64_t r, l, kk;
    ozb_op_item_elem(v, kbp, w, &r, &l, &kk);
    const int32_t qi = ozb_op_crt_quant_elem(v, e, bits, r, l), ql = qi > 127 ? 127 : qi;
    lo[r * kbp + l] = (int8_t)ql;
    if (hi) hi[r * kbp + l] = (int8_t)(qi - ql);
}

/* Ud[e] = (first ? 0 : Ud[e]) + (Ulo[e] + Uhi[e]): the bound's product of one k-block added
 * (exact: every value is an integer below 2^53) */
OZB_HD void ozb_op_crt_bound_acc(const int32_t *Ulo, const int32_t *Uhi, double *Ud, int first, int64_t e)
{
    Ud[e] = (first ? 0.0 : Ud[e]) + (double)(Ulo[e] + Uhi[e]);
}

/* The bound's row maximum: Z_i = max_j Ud(i, j) 2^(e_j - c_j) over usable columns j, as bits
 * (non-negative doubles order as their bits; a maximum is order-free).  Item e of a tile, its
 * row in the tile into *il. */
OZB_HD uint64_t ozb_op_crt_z_item(const double *Ud, int64_t mbb, int64_t j0, const int32_t *eB, const int32_t *cB, int64_t e,
                                  int64_t *il)
{
    const int64_t jl = ozb_op_divmod(e, mbb, il), gj = j0 + jl;
    if (!ozb_op_usable(eB[gj])) return 0;
    return ozb_op_bits(Ud[e] * ozb_op_pow2(eB[gj] - cB[gj]));   /* exact: e_j - c_j in [-6, 0] */
}

/* ---- DOUBLE mode's per-element certificate (crt.c's certify_tile) on the device ---- */

/* The lower bound's operand of x in a row with grid exponent e and resolution hs:
 * min(floor(|x| 2^(hs - e)), 127), g1 g2 = 2^(hs - e) (crt_select.c's ozb_crt_low_hats): the
 * scaling is exact (a power of two) unless below 2^-1022, where the floor is 0 either way */
OZB_HD uint8_t ozb_op_crt_hat(double x, double g1, double g2)
{
    const double q = floor(fabs(x) * g1 * g2);
    return (uint8_t)(int32_t)(q < 127.0 ? q : 127.0);
}

/* Item w = (r, l < kbp) of rows r0.. over one k-block (ozb_op_item_elem): out[r kbp + l] the
 * operand of element (r, l), 0 beyond the block and for a zero or Inf/NaN row; 7 bits, so an
 * int8 of the GEMM's exact products (127 x 127 x 2^16 < 2^31) */
OZB_HD void ozb_op_crt_hat_item(const ozb_op_side *v, const int32_t *e, const int32_t *hs, int64_t kbp, int8_t *out,
                                int64_t w)
{
    int64_t r, l, kk;
    ozb_op_item_elem(v, kbp, w, &r, &l, &kk);
    const int64_t gr = v->r0 + r;
    uint8_t q = 0;
    if (l < v->kb && l < v->k && ozb_op_usable(e[gr])) {
        double g[2];
        ozb_op_pow2_pair(hs[gr] - e[gr], g);
        q = ozb_op_crt_hat(v->p[gr * v->rs + l * v->cs], g[0], g[1]);
    }
    out[r * kbp + l] = (int8_t)q;
}

/* Element e of a tile (rows fastest): certified where the truncation bound
 * (l1_i P_j + l1_j P_i + k P_i P_j)(1 + 2^-40) stays within tau L_ij, L_ij = low H_i H_j (crt.c's
 * certify_tile, the same expression in the same order); flags[gi + gj m] = 1 where it does not.
 * Per row, whole problem: l1 (||x||_1 2^-e rounded up), P = 2^-(ka + e), H = 2^-hs, all 0 for a
 * zero or Inf/NaN row.  Returns the flag. */
typedef struct {
    const double *low;                  /* the tile's bounds, mbb x nbb */
    int64_t       mbb, nbb, i0, j0, m;
    const double *l1A, *PA, *HA, *l1B, *PB, *HB;
    double        k, tau;
    uint8_t      *flags;
} ozb_op_crt_cert_args;

OZB_HD int ozb_op_crt_cert_item(const ozb_op_crt_cert_args *g, int64_t e)
{
    int64_t il;
    const int64_t jl = ozb_op_divmod(e, g->mbb, &il), gi = g->i0 + il, gj = g->j0 + jl;
    const double Pa = g->PA[gi], Pb = g->PB[gj];
    const double err = (g->l1A[gi] * Pb + g->l1B[gj] * Pa + g->k * Pa * Pb) * (1.0 + 0x1p-40);
    const int bad = err > g->tau * (g->low[e] * g->HA[gi] * g->HB[gj]);
    g->flags[gi + gj * g->m] = (uint8_t)bad;
    return bad;
}

/* Output item e of a tile (rows fastest): C(i0 + i, j0 + j) from C' (val, mbb x nbb); where
 * flags (whole problem, flags[gi + gj fm]) marks the element, the value alt[gi ars + gj acs]
 * instead (DOUBLE mode: the correctly rounded value of an element the certificate left) */
typedef struct {
    const double  *val;
    int64_t        mbb, nbb, i0, j0;
    const int32_t *eA, *kaA, *eB, *kaB;   /* per row of op(A) / of op(B)^T, whole problem */
    double         alpha, beta;
    double        *c;
    int64_t        crs, ccs;
    int            use_c;
    const uint8_t *flags;                 /* NULL: none */
    int64_t        fm;
    const double  *alt;                   /* alt[gi ars + gj acs] */
    int64_t        ars, acs;
} ozb_op_crt_out_args;

OZB_HD void ozb_op_crt_out_item(const ozb_op_crt_out_args *g, int64_t e)
{
    int64_t il;
    const int64_t jl = ozb_op_divmod(e, g->mbb, &il), gi = g->i0 + il, gj = g->j0 + jl;
    double *cij = g->c + gi * g->crs + gj * g->ccs;
    if (g->flags && g->flags[gi + gj * g->fm]) { *cij = g->alt[gi * g->ars + gj * g->acs]; return; }
    const double cval = g->use_c ? *cij : 0.0;
    double xv = 0.0;
    int p = 0;
    if (ozb_op_usable(g->eA[gi]) && ozb_op_usable(g->eB[gj])) { p = -(g->kaA[gi] + g->kaB[gj]) - 88; xv = g->val[e]; }
    *cij = ozb_op_crt_out(xv, p, g->alpha, g->beta, cval, g->use_c);
}
#endif
