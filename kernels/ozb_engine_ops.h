/* Work items of the device-resident engine (src/cuda/resident.c), written once: a CUDA
 * thread runs one item (kernels/ozb_kernels.cu), the emulated device runs every item in a
 * loop (src/cuda/dev.c).  Items that reduce (row metadata, fused products) combine their
 * results with order-free operations (max, min, sums of integers below 2^53), so the
 * thread layout never changes a bit. */
#ifndef OZB_ENGINE_OPS_H
#define OZB_ENGINE_OPS_H
#include "ozb_kernel_ops.h"

#define OZB_OP_CHUNK 256              /* elements of one row that one item reads */
#define OZB_OP_LANES 32               /* items that share a stretch of a row (a warp)    */

/* Sums that a GPU block computes in parallel and the CPU in the same order (a row's sum in
 * one GPU thread, in l order, left 6 % of an H100 busy): term l of a sum goes to partial
 * l mod OZB_OP_SUM_LANES, each partial adds its terms in ascending l, and the partials are
 * combined by the fixed tree p[i] += p[i + h], h = 16, 8, 4, 2, 1.  Floating-point addition is
 * not associative, so this order is part of the results' definition (the CRT's row scales). */
#define OZB_OP_SUM_LANES 32
OZB_HD double ozb_op_lane_tree(double *p)
{
    for (int h = OZB_OP_SUM_LANES / 2; h > 0; h >>= 1)
        for (int i = 0; i < h; i++) p[i] = p[i] + p[i + h];
    return p[0];
}

/* the most slices the device splits a row into (resident.c's OZB_RES_MAXS) */
#define OZB_OP_SPLIT_MAXS 40

/* A side of the product: rows of a strided device view over k, in k-blocks of kb. */
typedef struct {
    const double *p;
    int64_t rs, cs;                   /* element (r, l) = p[r*rs + l*cs]                 */
    int64_t r0, rows, R;              /* rows r0..r0+rows-1 of a side of R rows          */
    int64_t k, kb, nkb, nch;          /* items per row and k-block (ozb_op_nch)          */
} ozb_op_side;

/* q = a / b, r = a % b for a >= 0, b >= 1: in 32 bits where both fit (a GPU divides 64-bit
 * integers in software, ~70 instructions; 32-bit in ~20), else in 64; the same values */
OZB_HD int64_t ozb_op_divmod(int64_t a, int64_t b, int64_t *r)
{
    if (((uint64_t)a | (uint64_t)b) <= 0xffffffffull) {
        const uint32_t q = (uint32_t)a / (uint32_t)b;
        *r = (int64_t)((uint32_t)a - q * (uint32_t)b);
        return (int64_t)q;
    }
    const int64_t q = a / b;
    *r = a - q * b;
    return q;
}

/* Items per row and k-block: chunks of OZB_OP_CHUNK elements, a whole number of lane groups
 * where the elements of a row are not contiguous across rows (see ozb_op_item_range). */
OZB_HD int64_t ozb_op_nch(int64_t rs, int64_t kb)
{
    if (rs == 1) return (kb + OZB_OP_CHUNK - 1) / OZB_OP_CHUNK;
    const int64_t span = (int64_t)OZB_OP_LANES * OZB_OP_CHUNK;
    return OZB_OP_LANES * ((kb + span - 1) / span);
}

OZB_HD int64_t ozb_op_items(const ozb_op_side *v) { return v->rows * v->nkb * v->nch; }

/* Item w: its row, k-block and elements l0, l0 + step, ... below l1.  Rows contiguous
 * (rs == 1, op(A) = A column-major): rows fastest, so that neighbouring threads read
 * neighbouring rows, each a contiguous chunk.  Otherwise (a row contiguous, or a vector):
 * the items of a lane group fastest, each taking every OZB_OP_LANES-th element of the group's
 * stretch, so that a warp reads consecutive elements.  The items' results combine by maxima,
 * minima and exact integer sums, so the layout never changes a bit. */
OZB_HD void ozb_op_item_range(const ozb_op_side *v, int64_t w, int64_t *r, int64_t *kk, int64_t *l0, int64_t *l1,
                              int64_t *step)
{
    int64_t ch;
    if (v->rs == 1) { const int64_t q = ozb_op_divmod(w, v->rows, r); *kk = ozb_op_divmod(q, v->nch, &ch); }
    else            { const int64_t q = ozb_op_divmod(w, v->nch, &ch); *kk = ozb_op_divmod(q, v->rows, r); }
    const int64_t b0 = *kk * v->kb, bend = b0 + v->kb < v->k ? b0 + v->kb : v->k;
    if (v->rs == 1) {
        *l0 = b0 + ch * OZB_OP_CHUNK;
        *step = 1;
        *l1 = *l0 + OZB_OP_CHUNK < bend ? *l0 + OZB_OP_CHUNK : bend;
    } else {
        const int64_t span = (int64_t)OZB_OP_LANES * OZB_OP_CHUNK, g0 = b0 + (ch / OZB_OP_LANES) * span;
        *l0 = g0 + ch % OZB_OP_LANES;
        *step = OZB_OP_LANES;
        *l1 = g0 + span < bend ? g0 + span : bend;
    }
}

/* Row metadata of one item; *slot = kk*rows + r, the entry it combines into. */
OZB_HD ozb_op_rowmeta ozb_op_meta_item(const ozb_op_side *v, int64_t w, int64_t *slot)
{
    int64_t r, kk, l0, l1, st;
    ozb_op_item_range(v, w, &r, &kk, &l0, &l1, &st);
    ozb_op_rowmeta m = {0, OZB_OP_LOW_NONE};
    const double *row = v->p + (v->r0 + r) * v->rs;
    for (int64_t l = l0; l < l1; l += st) ozb_op_meta_add(&m, row[l * v->cs]);
    *slot = kk * v->rows + r;
    return m;
}

/* Split item w (ozb_op_item_elem): element (r, l) of k-block kk, every slice t < s:
 * S[((kk*s + t)*rows + r)*kbp + l], or with rowfast (rows contiguous, so that a warp's
 * writes are too) S[((kk*kbp + l)*s + t)*rows + r]: per k-block the (s rows) x kbp matrix
 * column-major instead of its transpose. */
/* Element item w of (kk, r, l < kbp): rows fastest where the rows are contiguous (rs == 1),
 * else l fastest, so that neighbouring threads read neighbouring memory. */
OZB_HD void ozb_op_item_elem(const ozb_op_side *v, int64_t kbp, int64_t w, int64_t *r, int64_t *l, int64_t *kk)
{
    if (v->rs == 1) { const int64_t q = ozb_op_divmod(w, v->rows, r); *kk = ozb_op_divmod(q, kbp, l); }
    else            { const int64_t q = ozb_op_divmod(w, kbp, l); *kk = ozb_op_divmod(q, v->rows, r); }
}

/* element (r, l) of k-block kk as the split takes it (0 beyond the block), its row's grid
 * exponent *er and slice count *nr; digit t is then ozb_op_digit(x, er - (t + 1) beta) in turn */
OZB_HD double ozb_op_split_x(const ozb_op_side *v, const int32_t *e, const int32_t *ns, int64_t r, int64_t l, int64_t kk,
                             int *er, int *nr)
{
    const int64_t gl = kk * v->kb + l;
    const int64_t mi = kk * v->R + v->r0 + r;
    *er = e[mi];
    *nr = ns[mi];
    return l < v->kb && gl < v->k ? v->p[(v->r0 + r) * v->rs + gl * v->cs] : 0.0;
}

OZB_HD void ozb_op_split_item(const ozb_op_side *v, int type, int beta, const int32_t *e, const int32_t *ns, int s,
                              int64_t kbp, int rowfast, void *S, int64_t w)
{
    int64_t r, l, kk;
    ozb_op_item_elem(v, kbp, w, &r, &l, &kk);
    int er, nr;
    double x = ozb_op_split_x(v, e, ns, r, l, kk, &er, &nr);
    for (int t = 0; t < s; t++) {
        double d = 0.0;
        if (t < nr) ozb_op_digit(x, er - (t + 1) * beta, &d, &x);
        const int64_t o = rowfast ? ((kk * kbp + l) * s + t) * v->rows + r : ((kk * s + t) * v->rows + r) * kbp + l;
        if (type == 0) ((double *)S)[o] = d;
        else if (type == 1) ((uint16_t *)S)[o] = ozb_op_f16_of_int(d);    /* |d| <= 2^11 - 1: exact */
        else ((int8_t *)S)[o] = (int8_t)d;                                /* |d| <= 127: exact */
    }
}

/* Fused item w, half t0: acc[t - t0][u] = sum over the item's elements of digit t of a
 * (t0 <= t < t0 + OZB_OP_FUSED_HALF) times digit u of x (SX from the split, F64, s = sb);
 * *nsa, *kk and *r say where it goes. */
OZB_HD void ozb_op_fused_item(const ozb_op_side *v, int beta, const int32_t *eA, const int32_t *nsA, const double *SX,
                              int sb, int64_t kbp, int64_t w, int t0, double acc[OZB_OP_FUSED_HALF][OZB_OP_FUSED_MAXS],
                              int *nsa, int64_t *kkout, int64_t *rout)
{
    int64_t r, kk, l0, l1, st;
    ozb_op_item_range(v, w, &r, &kk, &l0, &l1, &st);
    for (int t = 0; t < OZB_OP_FUSED_HALF; t++)
        for (int u = 0; u < OZB_OP_FUSED_MAXS; u++) acc[t][u] = 0.0;
    const int64_t mi = kk * v->R + v->r0 + r;
    const int ea = eA[mi];
    *nsa = nsA[mi];
    *kkout = kk;
    *rout = r;
    if (*nsa <= 0) return;
    const double *row = v->p + (v->r0 + r) * v->rs;
    const double *xd = SX + kk * sb * kbp;                  /* digit u of x_l at xd[u*kbp + l - kk*kb] */
    for (int64_t l = l0; l < l1; l += st)
        ozb_op_fused_acc(row[l * v->cs], ea, *nsa, beta, xd + (l - kk * v->kb), kbp, sb, t0, acc);
}

/* The DOT's fused item (op(A) and op(B)^T one row each, side b over the same k and kb): as
 * ozb_op_fused_item, with y's digits split in registers too (ozb_op_digits: the digits the
 * split kernel would have stored), so that neither side's slices are stored: the same
 * products, the same integers in P. */
OZB_HD void ozb_op_fused_dot_item(const ozb_op_side *v, const ozb_op_side *b, int beta, const int32_t *eA, const int32_t *nsA,
                                  const int32_t *eB, const int32_t *nsB, int sb, int64_t w, int t0,
                                  double acc[OZB_OP_FUSED_HALF][OZB_OP_FUSED_MAXS], int *nsa, int64_t *kkout, int64_t *rout)
{
    int64_t r, kk, l0, l1, st;
    ozb_op_item_range(v, w, &r, &kk, &l0, &l1, &st);
    for (int t = 0; t < OZB_OP_FUSED_HALF; t++)
        for (int u = 0; u < OZB_OP_FUSED_MAXS; u++) acc[t][u] = 0.0;
    const int64_t mi = kk * v->R + v->r0 + r, mb = kk * b->R + b->r0;
    const int ea = eA[mi], eb = eB[mb], nb = nsB[mb];
    *nsa = nsA[mi];
    *kkout = kk;
    *rout = r;
    if (*nsa <= 0 || nb <= 0) return;
    const double *row = v->p + (v->r0 + r) * v->rs, *y = b->p + b->r0 * b->rs;
    double yd[OZB_OP_FUSED_MAXS];
    for (int64_t l = l0; l < l1; l += st) {
        ozb_op_digits(y[l * b->cs], eb, nb, beta, yd);
        ozb_op_fused_acc(row[l * v->cs], ea, *nsa, beta, yd, 1, sb, t0, acc);
    }
}

#endif
